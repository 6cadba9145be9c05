/* status_srv: Kubeflow Trainer's status server in the cluster controller (kubeflow/trainer
 * pkg/statusserver; `jaxset controller --feature-gates=TrainJobStatus=true`): the endpoint of
 * kube/serve/srv_status.h over HTTPS on its own port (Trainer's statusServer.port, 10443), with
 * the webhooks' serving certificate (their CA signs it: what the trainer pods' ConfigMap
 * <trainjob>-tls-config holds), on every replica as upstream (no leader election).
 *
 * Who may write a TrainJob's status: the bearer of a projected ServiceAccount token with that
 * TrainJob's audience (api/kubeflow/trainjob_report.h tjs_report_audience), checked by a
 * TokenReview (authentication.k8s.io/v1) for exactly that audience, of a ServiceAccount of the
 * TrainJob's namespace, bound to a pod of the TrainJob's JobSet (its label
 * jobset.sigs.k8s.io/jobset-name; the TrainJob's JobSet has its name).  Upstream verifies the
 * token itself (OIDC discovery of the cluster's issuer) and asks only its namespace; the
 * TokenReview lets the API server do it (the token's signature, expiry, audience, and that its
 * pod and ServiceAccount still exist), and the pod check keeps one TrainJob's pods from writing
 * another's even when it names their audience.
 * What is written: status.trainerStatus by server-side apply as the field manager
 * trainer-status with force, as upstream's Status().Apply. */
#ifndef JX_KUBE_STATUS_STATUS_SRV_H
#define JX_KUBE_STATUS_STATUS_SRV_H

#include <stdint.h>

#include "kube/client/kc.h"
#include "obj/base/err.h"

struct status_srv;

/* Serves on `bind` ("host:port") with the PEM certificate and key (copied), starting the
 * server the first time and changing its certificate after.  0 or -errno with e set. */
int status_srv_serve(struct status_srv **s, struct kc *kc, const char *bind, const char *cert,
                     const char *key, struct err *e);

int status_srv_fd(const struct status_srv *s);   /* -1 for NULL */
long status_srv_timeout_ms(const struct status_srv *s);
/* Serves what is ready (NULL-safe).  From the loop, not a fiber: each report's TokenReview, pod
 * and apply run the client until their answers are in, as the certificates' sync does (other
 * requests progress meanwhile, fibers do not). */
void status_srv_run(struct status_srv *s);
void status_srv_stop(struct status_srv *s);       /* NULL-safe */

#endif
