/* jobview: what `get`, `wait` and `describe` read from a JobSet, JAXJob or TrainJob of a
 * cluster: its state, restarts and per-replicated-job counts, whatever the kind writes them
 * as (JobSet status.replicatedJobsStatus, TrainJob status.jobsStatus, JAXJob
 * status.replicaStatuses). */
#ifndef JX_CLI_JOBVIEW_H
#define JX_CLI_JOBVIEW_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "kube/client/kc_res.h"

#define JOBVIEW_MAX_RJ 32

struct jobview_rj {
    const char *name; /* borrowed from the object */
    long long replicas, ready, active, succeeded, failed, suspended; /* -1: not known */
};

struct jobview {
    const char *state; /* Completed, Failed, Suspended, Restarting, Running, Created, Pending
                        * (static) */
    long long restarts; /* -1 when the kind keeps no count */
    struct jobview_rj rj[JOBVIEW_MAX_RJ]; /* the first JOBVIEW_MAX_RJ */
    size_t n_rj;
};

/* Reads `obj` of kind `r` (borrowed: the view points into it). */
void jobview_read(const struct kc_res *r, const json_t *obj, struct jobview *out);

/* The condition of `type` in status.conditions, or NULL (borrowed). */
const json_t *jobview_condition(const json_t *obj, const char *type);

/* Whether the state is final (Completed or Failed). */
bool jobview_terminal(const struct jobview *v);

#endif
