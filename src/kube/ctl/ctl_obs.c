/* The controller's observability: the metrics registry, the probe and metrics servers
 * (--health-probe-bind-address, --metrics-bind-address) and the hooks the loop calls. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/ctl/ctl_int.h"
#include "kube/client/kc_log.h"
#include "obj/base/ktime.h"

#define CONTROLLER "jobset"

struct ctl_obs {
    struct srv_mx *mx;
    struct ctl_metrics km;
    struct srv_health health;
    struct srv_http *metrics, *probes;
    char host[256]; /* the API server's host:port, the rest_client_* host label */
};

/* Every answer: the rest_client_* series, and at debug level one line per request (method,
 * path, code, time on the wire), from which bench/kube counts the controller's writes. */
static void observe_request(void *arg, const char *method, const char *path, long code,
                            double seconds)
{
    struct ctl_obs *o = arg;
    char c[24];
    if (code > 0)
        snprintf(c, sizeof(c), "%ld", code);
    else
        snprintf(c, sizeof(c), "<error>");
    srv_mx_add(o->km.rest_client_requests_total, 1, c, method, o->host);
    srv_mx_observe(o->km.rest_client_request_duration_seconds, seconds, method, o->host);
    if (kc_log_enabled(KC_LOG_DEBUG))
        kc_log(KC_LOG_DEBUG, "rest", NULL, "%s %s %s %.1f ms, answered at %lld ms", method, path, c,
               seconds * 1000.0, (long long)kt_now_ms());
}

static void set_host(struct ctl_obs *o, const char *server)
{
    const char *h = strstr(server, "://");
    snprintf(o->host, sizeof(o->host), "%s", h ? h + 3 : server);
    char *slash = strchr(o->host, '/');
    if (slash)
        *slash = '\0';
}

static int serve(const char *bind, struct srv_http_route *routes, size_t n, struct srv_http **out,
                 struct err *e)
{
    int rc = srv_http_start(bind, routes, n, out, e);
    if (rc == 0 && *out)
        kc_log(KC_LOG_INFO, "controller", NULL, "serving %s%s on port %d", routes[0].path,
             n > 1 ? " and /readyz" : "", srv_http_port(*out));
    return rc;
}

int ctl__obs_start(struct ctl *c, struct err *e)
{
    struct ctl_obs *o = calloc(1, sizeof(*o));
    if (!o || !(o->mx = srv_mx_new()) || ctl_metrics_register(o->mx, &o->km) < 0) {
        c->obs = o;
        return err_oom(e);
    }
    c->obs = o;
    o->health.metrics = o->mx;
    set_host(o, kc_server(c->kc));
    ctl_metrics_init_controller(&o->km, CONTROLLER, 1);
    ctl_metrics_init_queue(&o->km, CONTROLLER);
    kc_set_observer(c->kc, observe_request, o);
    struct srv_http_route m[1] = {
        {.path = "/metrics", .fn = srv_health_metrics, .arg = &o->health}};
    struct srv_http_route p[2] = {
        {.path = "/healthz", .fn = srv_health_healthz, .arg = &o->health},
        {.path = "/readyz", .fn = srv_health_readyz, .arg = &o->health}};
    int rc = serve(c->o->metrics_addr, m, 1, &o->metrics, e);
    if (rc == 0)
        rc = serve(c->o->probe_addr, p, 2, &o->probes, e);
    return rc;
}

struct srv_mx *ctl__obs_registry(struct ctl *c)
{
    return c->obs ? c->obs->mx : NULL;
}

void ctl__obs_stop(struct ctl *c)
{
    struct ctl_obs *o = c->obs;
    if (!o)
        return;
    srv_http_stop(o->metrics);
    srv_http_stop(o->probes);
    srv_mx_free(o->mx);
    free(o);
    c->obs = NULL;
}

size_t ctl__obs_fds(const struct ctl *c, int *fds, int64_t *next_ms)
{
    size_t n = 0;
    struct srv_http *all[] = {c->obs->metrics, c->obs->probes};
    for (size_t i = 0; i < 2; i++) {
        if (!all[i])
            continue;
        fds[n++] = srv_http_fd(all[i]);
        long t = srv_http_timeout_ms(all[i]);
        if (t >= 0 && t < *next_ms)
            *next_ms = t;
    }
    return n;
}

void ctl__obs_serve(struct ctl *c, bool ready, bool leading)
{
    struct ctl_obs *o = c->obs;
    o->health.ready = ready;
    srv_mx_set(o->km.leader_election_master_status, leading ? 1 : 0, c->o->lease_name);
    srv_mx_set(o->km.workqueue_depth, (double)cache_queue_len(c->q), CONTROLLER, CONTROLLER, "0");
    srv_http_run(o->metrics);
    srv_http_run(o->probes);
}

void ctl__obs_reconciled(struct ctl *c, int rc, bool requeue_after, double seconds)
{
    struct ctl_obs *o = c->obs;
    const char *result = rc < 0 ? "error" : requeue_after ? "requeue_after" : "success";
    srv_mx_add(o->km.reconcile_total, 1, CONTROLLER, result);
    if (rc < 0)
        srv_mx_add(o->km.reconcile_errors_total, 1, CONTROLLER);
    srv_mx_observe(o->km.reconcile_time_seconds, seconds, CONTROLLER);
    srv_mx_observe(o->km.workqueue_work_duration_seconds, seconds, CONTROLLER, CONTROLLER);
}

void ctl__obs_queued(struct ctl *c, bool delayed)
{
    srv_mx_add(c->obs->km.workqueue_adds_total, 1, CONTROLLER, CONTROLLER);
    if (delayed)
        srv_mx_add(c->obs->km.workqueue_retries_total, 1, CONTROLLER, CONTROLLER);
}

void ctl__obs_finished(struct ctl *c, const char *ns, const char *name, bool failed)
{
    srv_mx_add(failed ? c->obs->km.jobset_failed_total : c->obs->km.jobset_completed_total, 1,
           name, ns);
}
