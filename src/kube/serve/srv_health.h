/* srv_health: the controller's standard endpoints for khttpd, answered as controller-runtime's
 * manager answers them (pkg/healthz/healthz.go, the metrics server's promhttp handler):
 *
 *   /healthz   200 "ok" while the process serves at all;
 *   /readyz    200 "ok" once the controller says it is ready (caches synced; leading or
 *              standing by), else 500 "[-]readyz failed: reason withheld\nhealthz check failed\n";
 *   /metrics   200, the registry's text exposition, "text/plain; version=0.0.4; charset=utf-8".
 *
 * Upstream serves the probes and the metrics on two addresses (--health-probe-bind-address
 * ":8081", --metrics-bind-address): build one route table per server from the handlers below,
 * or all three with srv_health_routes().
 *
 *     struct srv_health hl = {.metrics = m};
 *     struct srv_http_route routes[SRV_HEALTH_N_ROUTES];
 *     srv_http_start(":8081", routes, srv_health_routes(&hl, routes), &h, &e);
 *     ...
 *     hl.ready = true;   // from the controller's thread, which also runs the handlers
 */
#ifndef JX_KUBE_SERVE_SRV_HEALTH_H
#define JX_KUBE_SERVE_SRV_HEALTH_H

#include <stdbool.h>
#include <stddef.h>

#include "kube/serve/srv_http.h"
#include "kube/serve/srv_mx.h"

struct srv_health {
    struct srv_mx *metrics; /* what /metrics renders (the caller's); NULL: /metrics answers 500 */
    bool ready;         /* what /readyz answers */
};

#define SRV_HEALTH_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* khttpd handlers; `arg` is a struct srv_health *. */
int srv_health_healthz(void *arg, const char *path, struct sbuf *body, const char **content_type);
int srv_health_readyz(void *arg, const char *path, struct sbuf *body, const char **content_type);
int srv_health_metrics(void *arg, const char *path, struct sbuf *body, const char **content_type);

/* Fills `out` with the three routes (/healthz, /readyz, /metrics) on `h`; returns their
 * number. */
#define SRV_HEALTH_N_ROUTES 3
size_t srv_health_routes(struct srv_health *h, struct srv_http_route out[SRV_HEALTH_N_ROUTES]);

#endif
