/* conv_util: helpers shared by the converters (conv_jaxjob.c, conv_trainjob.c, conv_aichor.c):
 * the input checks they have in common (on a CHK_REPORT checker, api/schema/check.h), and builders
 * for the JobSet they return.  Private to the conv_ files of src/api; not part of the public API.
 * */
#ifndef JX_CONV_UTIL_H
#define JX_CONV_UTIL_H

#include <jansson.h>
#include <stdbool.h>

#include "api/schema/check.h"
#include "api/child/jaxrt.h"
#include "obj/tree/ferr.h"

#define CONV_RESERVED_MSG "is set by the JAX runtime and may not be set in the manifest"

/* Checks `metadata` of a Kubernetes object: an optional object whose labels/annotations are
 * objects and namespace a string, with a required name, a DNS-1035 label when `name_pattern`
 * (false: the kind's admission checks its pattern itself, as jaxjob_admission.h does).  Returns
 * metadata (borrowed, NULL when absent/invalid) and sets *out_name and *out_ns (borrowed, NULL
 * when absent or invalid). */
const json_t *conv_metadata(struct chk *c, const json_t *doc, bool name_pattern,
                            const char **out_name, const char **out_ns);

/* Checks a container list (pod spec "containers" at `path`): each entry an object with a string
 * name, env an array of objects with string names none of which `f` reserves.  Returns the
 * array (borrowed) or NULL when absent or not an array (an error is added when not an array;
 * absence is the caller's business). */
const json_t *conv_containers(struct chk *c, const json_t *pspec, const char *path,
                              enum jaxrt_flavor f);
/* Checks one env list (at `path`): objects with a string name not reserved by `f`. */
void conv_env(struct chk *c, const json_t *env, const char *path, enum jaxrt_flavor f);

/* A new JobSet {apiVersion, kind, metadata{name, namespace?, labels?, annotations?}, spec{}}
 * with deep copies of `labels`/`annotations` (either may be NULL).  NULL on OOM. */
json_t *conv_jobset_new(const char *name, const char *ns, const json_t *labels,
                        const json_t *annotations);

/* Sets the runtime annotations on a JobSet: jax-runtime, source-kind, coordinator port and,
 * when `rjs` is not NULL, jax-replicated-jobs.  Returns 0 or -ENOMEM. */
int conv_annotate(json_t *js, enum jaxrt_flavor f, const char *source_kind, long long port,
                  const char *rjs);

/* A new replicated job {name, replicas: 1, template: {spec: {completionMode: Indexed,
 * parallelism: n, completions: n, <the fields of job_extra>, template: <pod_template>}}}.
 * `job_extra` is borrowed and may be NULL; `pod_template` is stolen (also on failure).  NULL on
 * OOM. */
json_t *conv_rj_new(const char *name, long long n, const json_t *job_extra,
                    json_t *pod_template);

/* Index, in a training runtime's spec.template.spec.replicatedJobs, of the trainer replicated
 * job: the one labelled trainer.kubeflow.org/trainjob-ancestor-step=trainer, else the one named
 * "node"; -1 when none (conv_trainjob.c). */
long conv_trainjob_trainer(const json_t *rjs);

/* Writes a Kubernetes quantity for `x` >= 0 into out: "<x><unit>" when x is integral, else
 * "<round(x*1000)><sub>" (e.g. 1.5 G -> "1500M", 0.5 cpu -> "500m"). */
void conv_quantity(double x, const char *unit, const char *sub, char *out, size_t n);

#endif
