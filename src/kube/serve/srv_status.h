/* srv_status: Kubeflow Trainer's status endpoint (kubeflow/trainer pkg/statusserver, server.go
 * and middleware.go) as a route of srv_http: what trainer pods POST their progress and metrics
 * to.  The rules are api/kubeflow/trainjob_report.h's; who may write and where the status goes
 * are the caller's (a local run's server, the cluster controller's).  In upstream's order:
 *   - a Content-Length past 64 KiB: 413 "Payload too large", whatever the route;
 *   - anything but POST /apis/trainer.kubeflow.org/v1alpha1/namespaces/{ns}/trainjobs/{name}/
 *     status: 404 "Not found";
 *   - the Authorization header's token refused: 403 "Forbidden" (could not tell: 500);
 *   - not an UpdateTrainJobStatusRequest (a body cut at 64 KiB without a Content-Length
 *     too, as http.MaxBytesReader cuts it): 422 "Invalid payload";
 *   - no trainerStatus: 200 `{}`, nothing stored;
 *   - refused as the API server refuses it: 422 with its message; the TrainJob missing: 404
 *     "Train job not found"; another failure: 500 "Internal error";
 *   - else 200 with the request as Go encodes it back.
 * Refusals are metav1.Status JSON. */
#ifndef JX_KUBE_SERVE_SRV_STATUS_H
#define JX_KUBE_SERVE_SRV_STATUS_H

#include <jansson.h>

#include "kube/serve/srv_http.h"

struct srv_status_ops {
    /* 1: `token` may write TrainJob ns/name's status, 0: it may not, < 0: could not tell */
    int (*authorize)(void *arg, const char *token, const char *ns, const char *name);
    /* Stores `trainer_status` (borrowed) as TrainJob ns/name's status.trainerStatus, replacing
     * it: 0; -ENOENT: no such TrainJob; -EINVAL: refused, *message (malloc'd) the API
     * server's; another -errno: failed */
    int (*apply)(void *arg, const char *ns, const char *name, const json_t *trainer_status,
                 char **message);
    void *arg;
};

/* The route (srv_http_route.call with .arg the ops): serves `c` into body. */
int srv_status_call(void *ops, const struct srv_http_call *c, struct sbuf *body,
                    const char **content_type);

/* A route of every path to the endpoint, for srv_http_start_with() with
 * limits.request_max = TJS_REPORT_MAX_BODY. */
struct srv_http_route srv_status_route(const struct srv_status_ops *ops);

#endif
