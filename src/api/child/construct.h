/* construct: the objects the JobSet controller creates for a JobSet, exactly as upstream builds
 * them (kubernetes-sigs/jobset pkg/controllers/jobset_controller.go: constructJob,
 * labelAndAnnotateObject, createHeadlessSvcIfNecessary): child batch/v1 Jobs and the headless
 * Service. */
#ifndef JX_CONSTRUCT_H
#define JX_CONSTRUCT_H

#include <jansson.h>

#include "api/child/jaxrt.h"
#include "api/jobset/jobset.h"

/* Child Job `job` of replicated job `rj` for restart attempt v->restarts: name, namespace,
 * labels and annotations (template metadata + every JobSet key, on the Job and its pod template),
 * exclusive-placement annotations/nodeSelector/toleration, subdomain when DNS hostnames are
 * on, spec.suspend, controller owner reference; then, when `rt` is a JAX runtime
 * (rt->flavor != JAXRT_OFF), the JAX variables of jaxrt_apply_job() in its pod template.
 * This is the one place that decides what a child Job looks like: the reconcile core's plan,
 * `jaxset render` and the cluster backend all build Jobs here.  `js` is the JobSet the view
 * was made of; `rt` may be NULL (no JAX wiring).
 * Returns a new reference or NULL on OOM. */
json_t *construct_job(const json_t *js, const struct js_view *v, const struct jaxrt *rt,
                      size_t rj, long long job);

struct feature_gates;
/* construct_job with the controller's feature gates `g` (NULL: defaults, as construct_job):
 * with RestartJob on, the Job and its pods also carry jobset.sigs.k8s.io/job-restart-attempt,
 * the Job's own restart count (status.replicatedJobsStatus[].jobRestarts[job], 0 when absent),
 * as a label and an annotation (upstream labelAndAnnotateObject). */
json_t *construct_job_gated(const json_t *js, const struct js_view *v, const struct jaxrt *rt,
                            const struct feature_gates *g, size_t rj, long long job);

/* Longest object name construct builds into a fixed buffer: names are validated DNS labels
 * (63) or subdomains (253). */
#define CONSTRUCT_NAME_MAX 256

/* The PersistentVolumeClaims of spec.volumeClaimPolicies: "<template>-<jobset>", template
 * labels + jobset-name, template annotations and spec, and a controller owner reference to the
 * JobSet unless retentionPolicy.whenDeleted is Retain.  New array (empty when none), NULL on
 * OOM. */
json_t *construct_pvcs(const json_t *js, const struct js_view *v);

/* Appends {name: <template>, persistentVolumeClaim: {claimName: <template>-<jobset>}} to the
 * pod spec's volumes for every claim template one of its containers mounts.  0, -1 on OOM. */
int construct_pvc_volumes(const json_t *js, const struct js_view *v, json_t *pspec);

/* The headless Service (upstream createHeadlessSvcIfNecessary), or NULL on OOM.  Callers check
 * v->dns_hostnames first. */
json_t *construct_service(const json_t *js, const struct js_view *v);

/* Lowercase hex SHA-1 of "<ns>/<jobName>" into out[41]. */
void construct_job_key(const char *ns, const char *job_name, char out[41]);

/* The controller owner reference to the JobSet (construct_owner.c; new reference, NULL on
 * OOM). */
json_t *construct_owner_ref(const struct js_view *v);

#endif
