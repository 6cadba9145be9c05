/* health: the controller's standard endpoints for khttpd, answered as controller-runtime's
 * manager answers them (pkg/healthz/healthz.go, the metrics server's promhttp handler):
 *
 *   /healthz   200 "ok" while the process serves at all;
 *   /readyz    200 "ok" once the controller says it is ready (caches synced; leading or
 *              standing by), else 500 "[-]readyz failed: reason withheld\nhealthz check failed\n";
 *   /metrics   200, the registry's text exposition, "text/plain; version=0.0.4; charset=utf-8".
 *
 * Upstream serves the probes and the metrics on two addresses (--health-probe-bind-address
 * ":8081", --metrics-bind-address): build one route table per server from the handlers below,
 * or all three with khealth_routes().
 *
 *     struct khealth hl = {.metrics = m};
 *     struct khttpd_route routes[KHEALTH_N_ROUTES];
 *     khttpd_start(":8081", routes, khealth_routes(&hl, routes), &h, &e);
 *     ...
 *     hl.ready = true;   // from the controller's thread, which also runs the handlers
 */
#ifndef JX_KUBE_HEALTH_H
#define JX_KUBE_HEALTH_H

#include <stdbool.h>
#include <stddef.h>

#include "kube/httpd.h"
#include "kube/metrics.h"

struct khealth {
    struct mx *metrics; /* what /metrics renders (the caller's); NULL: /metrics answers 500 */
    bool ready;         /* what /readyz answers */
};

#define KHEALTH_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* khttpd handlers; `arg` is a struct khealth *. */
int khealth_healthz(void *arg, const char *path, struct sbuf *body, const char **content_type);
int khealth_readyz(void *arg, const char *path, struct sbuf *body, const char **content_type);
int khealth_metrics(void *arg, const char *path, struct sbuf *body, const char **content_type);

/* Fills `out` with the three routes (/healthz, /readyz, /metrics) on `h`; returns their
 * number. */
#define KHEALTH_N_ROUTES 3
size_t khealth_routes(struct khealth *h, struct khttpd_route out[KHEALTH_N_ROUTES]);

#endif
