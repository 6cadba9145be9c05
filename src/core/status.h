/* status: the JobSet status math of kubernetes-sigs/jobset pkg/controllers/jobset_controller.go
 * — timestamps, the condition update algorithm (updateCondition), child Job classification
 * (getChildJobs), ReplicatedJobStatus counters (calculateReplicatedJobStatuses) and the
 * semantic status comparison.  Pure functions; no allocation unless stated. */
#ifndef JX_CORE_STATUS_H
#define JX_CORE_STATUS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "api/jobset/jobset.h"
#include "core/reconcile.h"
#include "obj/base/ktime.h"

/* ---- time ---------------------------------------------------------------------------------- */

#define REC_TIME_ZERO INT64_MIN /* Go's zero time: before every real time */

/* ---- conditions (pkg/constants, updateCondition) ----------------------------------------- */

#define REC_COND_COMPLETED "Completed"
#define REC_COND_FAILED "Failed"
#define REC_COND_SUSPENDED "Suspended"
#define REC_COND_STARTUP_IN_PROGRESS "StartupPolicyInProgress"
#define REC_COND_STARTUP_COMPLETED "StartupPolicyCompleted"
#define REC_COND_RESTARTING "RestartingJobSet"
/* Not upstream's: a child Job's name is taken by a Job another owner controls (JobSet "a-b" with
 * replicated job "c" and JobSet "a" with "b-c" both name their first Job "a-b-c-0").  The cluster
 * backend sets it when a create finds such a Job (kube/ctl); every pass clears it (rec_reconcile
 * starts from the observed conditions without it), so that a pass that creates all its Jobs, or
 * needs none, writes the status without it. */
#define REC_COND_JOB_NAME_CONFLICT "JobNameConflict"

struct rec_cond {
    const char *type;
    bool status; /* "True" / "False" */
    const char *reason;
    const char *message;
    enum rec_event_type event; /* type of the Event queued when the condition changes */
};

/* The fixed conditions of upstream pkg/constants/constants.go (those whose text never
 * varies). */
extern const struct rec_cond rec_cond_completed, rec_cond_suspended, rec_cond_resumed,
    rec_cond_startup_in_progress, rec_cond_startup_completed, rec_cond_restarting_jobs_ready,
    rec_cond_restarting_failed, rec_cond_restarting_completed, rec_cond_restarting_suspended;

/* Applies `c` to status.conditions exactly as upstream updateCondition does (obj/tree/cond.h
 * cond_update: the array is created when the condition is appended; StartupPolicyInProgress
 * and StartupPolicyCompleted exclude each other); `now` is the RFC 3339 stamp of a new
 * transition.  Returns 1 when the conditions changed, 0 when not, -ENOMEM. */
int rec_cond_set(json_t *status, const struct rec_cond *c, const char *now)
    __attribute__((warn_unused_result));

/* True when `conditions` hold Completed=True or Failed=True; *out_cond (may be NULL) gets the
 * first such condition. */
bool rec_finished(const json_t *conditions, const json_t **out_cond);

/* ---- child Jobs (getChildJobs, calculateReplicatedJobStatuses) --------------------------- */

enum rec_bucket {
    REC_BUCKET_ACTIVE,
    REC_BUCKET_SUCCEEDED,
    REC_BUCKET_FAILED,
    REC_BUCKET_PREVIOUS,
    REC_BUCKET_N,
};

/* Go's strconv.Atoi: an optional sign and decimal digits, nothing else.  False when s is NULL
 * or not that. */
bool rec_atoi(const char *s, long long *out);

/* Classifies one Job against status.restarts: restart-attempt label < restarts → PREVIOUS;
 * else the first Complete/Failed condition with status "True" decides; else ACTIVE.
 * *out_failed (may be NULL) gets the Failed=True condition of a FAILED Job.
 * Returns 0, or -EINVAL when the restart-attempt label is missing or not an integer. */
int rec_job_classify(const json_t *job, long long restarts, enum rec_bucket *out_bucket,
                     const json_t **out_failed) __attribute__((warn_unused_result));

/* Ready as upstream calculateReplicatedJobStatuses counts it: succeeded + ready pods ≥
 * min(parallelism (default 1), completions when set). */
bool rec_job_ready(const json_t *job);

struct rec_rj_count {
    long long ready, succeeded, failed, active, suspended;
};

/* Adds one current-attempt Job in `bucket` to its RJ's counters. */
void rec_rj_count_add(struct rec_rj_count *c, const json_t *job, enum rec_bucket bucket);

/* The replicatedJobsStatus array for `counts` (one per RJ of the view), sorted by name
 * descending.  New reference or NULL on OOM. */
json_t *rec_rj_status_json(const struct js_view *v, const struct rec_rj_count *counts);

/* ---- whole status ------------------------------------------------------------------------ */

/* Semantic equality of two JobSet statuses (NULL = empty): restarts/restartsCountTowardsMax
 * default 0, terminalState default "", replicatedJobsStatus compared as a set keyed by name with
 * missing counters 0, empty arrays equal to absent ones, any other field compared as JSON. */
bool rec_status_equal(const json_t *a, const json_t *b);

#endif
