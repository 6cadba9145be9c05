/* kpods: the child Jobs and pods of a job on a cluster, as describe and logs read them: listed
 * by label (a JobSet's, and a TrainJob's JobSet of the same name: jobset-name; a JAXJob's:
 * training.kubeflow.org/job-name), sorted, and each pod's JAX process id: its container's
 * JAX_PROCESS_ID when set as a value, else numbered from the JobSet's labels as `jaxset run`
 * numbers processes (api/child/jaxrt.h: replicated jobs in spec order, then job index, then
 * completion index). */
#ifndef JX_CLI_KPODS_H
#define JX_CLI_KPODS_H

#include <jansson.h>
#include <stdbool.h>

#include "api/child/jaxrt.h"
#include "api/jobset/jobset.h"
#include "cli/backend/cluster.h"

/* The objects of `res` ("jobs" of batch/v1, "pods") that belong to job `name` of kind `k`,
 * sorted by name.  EXIT_OK with *out (a new array), or an
 * exit status after printing why. */
int kpods_list(struct cluster *c, const char *res, const struct kc_res *k, const char *name,
               json_t **out);

/* "labelSelector=<escaped>" that selects the Jobs and pods of job `name` of kind `k`
 * (malloc'd; NULL on OOM). */
char *kpods_selector(const struct kc_res *k, const char *name);

/* The JAX numbering of one JobSet (a copy of it, defaulted). */
struct kpods_ids {
    json_t *js;
    bool have_view, have_rt;
    struct js_view v;
    struct jaxrt rt;
};

/* From a JobSet (borrowed; NULL: no numbering but JAX_PROCESS_ID). */
void kpods_ids_init(struct kpods_ids *ids, const json_t *jobset);
void kpods_ids_release(struct kpods_ids *ids);

/* The pod's JAX process id, or -1. */
long long kpods_process_id(const struct kpods_ids *ids, const json_t *pod);

/* The pod's hostname (spec.hostname, else its name): borrowed. */
const char *kpods_hostname(const json_t *pod);

/* The pod's restart attempt (the JobSet's restart-attempt label), or -1. */
long long kpods_attempt(const json_t *pod);

/* Sorts pods by restart attempt, then process id (-1 last), then name; `ids` as above. */
void kpods_sort(json_t *pods, const struct kpods_ids *ids);

#endif
