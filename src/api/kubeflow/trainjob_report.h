/* trainjob_report: what Kubeflow Trainer's status server (kubeflow/trainer pkg/statusserver,
 * v2.2+, the TrainJobStatus gate) does with a report of a trainer pod, less the transport: the
 * route, the Authorization header's token, the request body decoded as Go's encoding/json does
 * and validated as the API server validates the TrainJob CRD's status.trainerStatus
 * (config/crd: progressPercentage 0..100, estimatedRemainingSeconds >= 0, at most 256 metrics
 * whose name and value are 1..64 bytes, lastUpdatedTime required), and the metav1.Status of
 * each refusal.  The local runs' status server and the cluster controller's share it.  Pure:
 * no I/O, no clock. */
#ifndef JX_TRAINJOB_REPORT_H
#define JX_TRAINJOB_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define TJS_REPORT_MAX_BODY (1 << 16) /* bodySizeLimitMiddleware: 64 KiB, else 413 */
#define TJS_REPORT_FIELD_OWNER "trainer-status"
/* what the trainer containers get (plugins/trainjobstatus) */
#define TJS_REPORT_ENV_URL "KUBEFLOW_TRAINER_SERVER_URL"
#define TJS_REPORT_ENV_CA "KUBEFLOW_TRAINER_SERVER_CA_CERT"
#define TJS_REPORT_ENV_TOKEN "KUBEFLOW_TRAINER_SERVER_TOKEN"
#define TJS_REPORT_MOUNT "/var/run/secrets/kubeflow/trainer"
#define TJS_REPORT_VOLUME "kubeflow-trainer-token"
#define TJS_REPORT_NAME_MAX 254

/* The projected token's audience of TrainJob ns/name (statusserver.TokenAudience) and the
 * route's path (StatusUrl) into buf; the length, or -ERANGE when it does not fit. */
int tjs_report_audience(const char *ns, const char *name, char *buf, size_t n);
int tjs_report_path(const char *ns, const char *name, char *buf, size_t n);

/* Whether `path` is the route POST /apis/trainer.kubeflow.org/v1alpha1/namespaces/{namespace}/
 * trainjobs/{name}/status, as Go's ServeMux matches it (each wildcard one non-empty segment);
 * its namespace and name are copied into ns and name (TJS_REPORT_NAME_MAX bytes each). */
bool tjs_report_route(const char *path, char ns[TJS_REPORT_NAME_MAX],
                      char name[TJS_REPORT_NAME_MAX]);

/* The token of an Authorization header (extractRawToken): "Bearer <token>", the scheme in any
 * case, surrounded by any whitespace; anything else (another scheme, no token, two) gives "".
 * Copied into out (n bytes, cut to fit); returns its length. */
size_t tjs_report_token(const char *header, char *out, size_t n);

enum tjs_report_rc {
    TJS_REPORT_APPLY,   /* a trainerStatus to store */
    TJS_REPORT_EMPTY,   /* no trainerStatus: answered 200, nothing stored */
    TJS_REPORT_PAYLOAD, /* not an UpdateTrainJobStatusRequest: 422 "Invalid payload" */
    TJS_REPORT_INVALID, /* refused as the API server refuses it: 422 with its message */
    TJS_REPORT_NOMEM,
};

struct tjs_report {
    json_t *echo;   /* the response body of a success: the request as Go encodes it back */
    json_t *status; /* APPLY: the status.trainerStatus to store, as the apply writes it */
    char *message;  /* INVALID: `TrainJob.trainer.kubeflow.org "NAME" is invalid: ...` */
};

/* Decodes body (len bytes) as json.Decoder.Decode decodes its first value into an
 * UpdateTrainJobStatusRequest (keys matched case-insensitively, unknown ones ignored, null
 * leaving a field unset, what follows the first value not read) and validates it for TrainJob
 * `name`.  *out is filled for APPLY and EMPTY (echo), INVALID (message); release it with
 * tjs_report_release in every case. */
enum tjs_report_rc tjs_report_parse(const char *body, size_t len, const char *name,
                                    struct tjs_report *out);
void tjs_report_release(struct tjs_report *r);

/* ---- the trainer pods' side (plugins/trainjobstatus) ---------------------------------------- */

#define TJS_REPORT_TOKEN_EXPIRY_S 3600
#define TJS_REPORT_STATUS_PORT 10443 /* Trainer's statusServer.port default */

/* EnforcePodSpec: every container (not initContainer) of the trainer replicated job of
 * `jobset` (the one labelled trainer.kubeflow.org/trainjob-ancestor-step=trainer) gets the
 * three variables (url the server's https://<service>.<ns>.svc:<port> and the route of
 * TrainJob ns/name) and the volume mount, its pod the projected volume (a ServiceAccount token
 * of the TrainJob's audience, TJS_REPORT_TOKEN_EXPIRY_S, and ca.crt of ConfigMap
 * <name>-tls-config), each upserted by name.  No trainer job: nothing.  0 or -ENOMEM. */
int tjs_report_enforce(json_t *jobset, const char *ns, const char *name, const char *url);

/* Build: ConfigMap <name>-tls-config of TrainJob ns/name (uid) holding ca.crt, controlled by
 * it.  A new reference, NULL on OOM. */
json_t *tjs_report_configmap(const char *ns, const char *name, const char *uid, const char *ca);

/* The metav1.Status body of a refusal: {"status":"Failure","message":..,"reason":..,"code":..}.
 * A new reference, NULL on OOM. */
json_t *tjs_report_failure(int code, const char *reason, const char *message);

#endif
