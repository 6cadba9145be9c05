/* /healthz, /readyz and /metrics (see srv_health.h). */
#include "kube/serve/srv_health.h"


int srv_health_healthz(void *arg, const char *path, struct sbuf *body, const char **content_type)
{
    (void)arg;
    (void)path;
    (void)content_type;
    sb_puts(body, "ok");
    return 200;
}

int srv_health_readyz(void *arg, const char *path, struct sbuf *body, const char **content_type)
{
    const struct srv_health *h = arg;
    (void)path;
    (void)content_type;
    if (h->ready) {
        sb_puts(body, "ok");
        return 200;
    }
    sb_puts(body, "[-]readyz failed: reason withheld\nhealthz check failed\n");
    return 500;
}

int srv_health_metrics(void *arg, const char *path, struct sbuf *body, const char **content_type)
{
    const struct srv_health *h = arg;
    (void)path;
    if (!h->metrics) {
        sb_puts(body, "no metrics\n");
        return 500;
    }
    srv_mx_render_to(h->metrics, body); /* a failed body is answered 500 by khttpd */
    *content_type = SRV_HEALTH_CONTENT_TYPE;
    return 200;
}

size_t srv_health_routes(struct srv_health *h, struct srv_http_route out[SRV_HEALTH_N_ROUTES])
{
    out[0] = (struct srv_http_route){.path = "/healthz", .fn = srv_health_healthz, .arg = h};
    out[1] = (struct srv_http_route){.path = "/readyz", .fn = srv_health_readyz, .arg = h};
    out[2] = (struct srv_http_route){.path = "/metrics", .fn = srv_health_metrics, .arg = h};
    return SRV_HEALTH_N_ROUTES;
}
