/* /healthz, /readyz and /metrics (see health.h). */
#include "kube/health.h"


int khealth_healthz(void *arg, const char *path, struct sbuf *body, const char **content_type)
{
    (void)arg;
    (void)path;
    (void)content_type;
    sb_puts(body, "ok");
    return 200;
}

int khealth_readyz(void *arg, const char *path, struct sbuf *body, const char **content_type)
{
    const struct khealth *h = arg;
    (void)path;
    (void)content_type;
    if (h->ready) {
        sb_puts(body, "ok");
        return 200;
    }
    sb_puts(body, "[-]readyz failed: reason withheld\nhealthz check failed\n");
    return 500;
}

int khealth_metrics(void *arg, const char *path, struct sbuf *body, const char **content_type)
{
    const struct khealth *h = arg;
    (void)path;
    if (!h->metrics) {
        sb_puts(body, "no metrics\n");
        return 500;
    }
    mx_render_to(h->metrics, body); /* a failed body is answered 500 by khttpd */
    *content_type = KHEALTH_CONTENT_TYPE;
    return 200;
}

size_t khealth_routes(struct khealth *h, struct khttpd_route out[KHEALTH_N_ROUTES])
{
    out[0] = (struct khttpd_route){"/healthz", khealth_healthz, h, NULL};
    out[1] = (struct khttpd_route){"/readyz", khealth_readyz, h, NULL};
    out[2] = (struct khttpd_route){"/metrics", khealth_metrics, h, NULL};
    return KHEALTH_N_ROUTES;
}
