/* job_state: the state, restarts and per-replicated-job counts of a job of any kind, as `get`,
 * `describe`, `wait`, `logs -f` and the SDK show it, local runs and cluster objects alike: read
 * from what each kind writes (JobSet status.replicatedJobsStatus, TrainJob
 * status.jobsStatus, JAXJob status.replicaStatuses) and its conditions.  Pure. */
#ifndef JX_API_JOB_STATE_H
#define JX_API_JOB_STATE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "api/schema/keys.h"

struct job_state_rj {
    const char *name; /* borrowed from the object */
    long long replicas, ready, active, succeeded, failed, suspended; /* -1: not known */
};

struct job_state {
    const char *state; /* Completed, Failed, Suspended, Restarting, Running, Created, Pending
                        * (static) */
    long long restarts; /* -1 when the kind keeps no count */
    struct job_state_rj *rj; /* every replicated job (replica type), in spec order; owned */
    size_t n_rj;
};

/* Reads `obj` of kind `kind` (borrowed: names point into it).  0, or -ENOMEM (out is then
 * empty).  job_state_release frees out->rj. */
int job_state_read(enum job_kind kind, const json_t *obj, struct job_state *out);
void job_state_release(struct job_state *s);

/* The condition of `type` in status.conditions, or NULL (borrowed). */
const json_t *job_state_condition(const json_t *obj, const char *type);

/* Whether the state is final (Completed or Failed). */
bool job_state_terminal(const struct job_state *s);

struct kc_res;

/* The state `get`, `describe` and `wait` show for a job of kind k: a local run's
 * (BACKEND_ANN_RUN_STATE, cli/backend/backend.h), else job_state_read's; "Terminating" while
 * the object is being deleted.  *final: no other state will follow (Completed, Failed;
 * locally also a run that ended without ending its job: Interrupted, Lost, Unknown). */
const char *job_state_shown(const struct kc_res *k, const json_t *obj, bool *final);

#endif
