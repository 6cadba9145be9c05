/* conv_util: helpers shared by the converters (conv_jaxjob.c, conv_trainjob.c, conv_aichor.c):
 * input checks that append Kubernetes-style field errors with the input's paths, and builders
 * for the JobSet they return.  Private to the conv_ files of src/api; not part of the public API.
 *
 * Every check takes a `struct conv` that remembers how many errors the list held on entry and
 * whether an allocation failed, so a converter ends with one `if (conv_failed(&c))`. */
#ifndef JX_CONV_UTIL_H
#define JX_CONV_UTIL_H

#include <jansson.h>
#include <stdbool.h>

#include "api/jaxrt.h"
#include "obj/ferr.h"

#define CONV_RESERVED_MSG "is set by the JAX runtime and may not be set in the manifest"

struct conv {
    struct ferr_list *errs; /* borrowed */
    size_t n0;              /* errors in the list on entry */
    int rc;                 /* 0, or -ENOMEM once an allocation failed */
};

void conv_init(struct conv *c, struct ferr_list *errs);
/* True when an error was added since conv_init or an allocation failed. */
bool conv_failed(const struct conv *c);

/* o[key] must be absent/null or an object; returns it (borrowed) or NULL. `required` adds
 * "Required value" when absent. */
const json_t *conv_obj(struct conv *c, const json_t *o, const char *key, const char *parent,
                       bool required);
/* Same for arrays and strings. */
const json_t *conv_arr(struct conv *c, const json_t *o, const char *key, const char *parent,
                       bool required);
const char *conv_str(struct conv *c, const json_t *o, const char *key, const char *parent,
                     bool required);

/* Optional integer o[key] >= min: true and *out when set and valid; false when absent or
 * invalid (an error is added for a wrong type or a value below min). */
bool conv_int(struct conv *c, const json_t *o, const char *key, const char *parent,
              long long min, long long *out);
/* Optional boolean o[key]: true and *out when set; false when absent (error when not a bool). */
bool conv_bool(struct conv *c, const json_t *o, const char *key, const char *parent, bool *out);
/* Optional string o[key] that must be one of `allowed` (NULL-terminated); NULL when absent or
 * not allowed. */
const char *conv_enum(struct conv *c, const json_t *o, const char *key, const char *parent,
                      const char *const *allowed);

/* A DNS-1035 label check of `name` at `path` (Required when NULL or empty); `hint` (may be
 * NULL) is appended to each message. */
void conv_dns1035(struct conv *c, const char *name, const char *path, const char *hint);

/* Checks `metadata` of a Kubernetes object: an optional object whose labels/annotations are
 * objects and namespace a string, with a required DNS-1035 label as name.  Returns metadata
 * (borrowed, NULL when absent/invalid) and sets *out_name and *out_ns (borrowed, NULL when absent
 * or invalid). */
const json_t *conv_metadata(struct conv *c, const json_t *doc, const char **out_name,
                            const char **out_ns);

/* Checks a container list (pod spec "containers" at `path`): each entry an object with a string
 * name, env an array of objects with string names none of which `f` reserves.  Returns the
 * array (borrowed) or NULL when absent or not an array (an error is added when not an array;
 * absence is the caller's business). */
const json_t *conv_containers(struct conv *c, const json_t *pspec, const char *path,
                              enum jaxrt_flavor f);
/* Checks one env list (at `path`): objects with a string name not reserved by `f`. */
void conv_env(struct conv *c, const json_t *env, const char *path, enum jaxrt_flavor f);

/* The entry of array `arr` whose "name" is `name` (borrowed) and its index, or NULL. */
json_t *conv_named(const json_t *arr, const char *name, size_t *idx);

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
