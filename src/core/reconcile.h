/* reconcile: the JobSet controller as a pure function (kubernetes-sigs/jobset pkg/controllers).
 *
 *   (JobSet, observed child Jobs, now)  ──►  struct rec_plan
 *
 * rec_reconcile() does no I/O, reads no clock and keeps no state: both backends (local and
 * Kubernetes) observe, call it, and execute the plan it returns, in this order:
 *
 *   1. deletes      (child Jobs, Foreground propagation when `foreground`)
 *   2. creates      (the headless Service first when `service` is set, then `pvcs`)
 *   3. patches      (full Job updates that suspend or resume existing Jobs, and scale
 *                   patches of their parallelism and completions)
 *   4. status       (PUT .../status when `status_changed`), then, only if that succeeded,
 *   5. events       (in order)
 *   6. delete_jobset (Foreground) / requeue after `requeue_after_ms`
 *
 * Feature gates (api/jobset/features.h): rec_reconcile() runs with upstream's defaults (every alpha
 * gate off: a RestartJob* rule that matches is an error, as upstream reports it with its gate
 * off).  rec_reconcile_gated() takes the controller's gates:
 *   - RestartJob: child Jobs carry jobset.sigs.k8s.io/job-restart-attempt; the RestartJob
 *     actions bump status.replicatedJobsStatus[].jobRestarts[i] (and
 *     jobRestartsCountTowardsMax[i]) of the failed Job only, and the following passes delete
 *     that one Job (a Job whose label is below its count is "previous") and create it again
 *     once it is gone: plan shapes the executor already knows (core/restart_job.c).
 *   - InPlaceRestart (restartStrategy InPlaceRestart): the pass also reads the JobSet's Pods
 *     and moves status.previousInPlaceRestartAttempt / currentInPlaceRestartAttempt, which the
 *     in-pod agents act on; no Job is touched for it (core/in_place.c).  A backend running such
 *     JobSets lists (and watches) the Pods labelled jobset.sigs.k8s.io/jobset-name=<name>.
 *   - ElasticJobSet: an active Job whose parallelism/completions differ from its replicated
 *     job's (changed in the JobSet, both equal) gets a scale patch (upstream syncJobScaling);
 *     a replicated job whose replicas changed gets the Jobs of its new indexes, and its Jobs
 *     at an index >= replicas are deleted, highest first, and no longer counted (jaxset's
 *     Job-level scaling, KEP-463's future work; core/elastic.c).
 *
 * Ownership: the inputs are borrowed for the duration of the call; everything reachable from a
 * plan is owned by the plan and freed by rec_plan_release(). */
#ifndef JX_RECONCILE_H
#define JX_RECONCILE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "obj/base/err.h"

enum rec_event_type {
    REC_EVENT_NORMAL,
    REC_EVENT_WARNING,
};

/* An Event regarding the JobSet (action "Reconciling"); emit only after the status write. */
struct rec_event {
    enum rec_event_type type;
    char *reason;  /* owned */
    char *message; /* owned */
};

/* A child Job to delete; jobs already terminating are never listed. */
struct rec_delete {
    char *name;      /* owned */
    bool foreground; /* propagationPolicy: Foreground (always true today) */
};

/* An update of an existing child Job (spec.suspend flip: upstream suspendJobs, resumeJob; or,
 * with `scale`, the ElasticJobSet gate's syncJobScaling). */
struct rec_patch {
    char *name;            /* owned */
    bool suspend;          /* desired spec.suspend (a scale patch: the Job's own) */
    bool clear_start_time; /* resume only: first clear status.startTime with a status update */
    json_t *job;           /* owned: the full object to PUT — the observed Job with spec.suspend
                            * set and, on resume, the RJ pod template's labels, annotations,
                            * nodeSelector, tolerations and schedulingGates merged in (and
                            * status.startTime removed when clear_start_time); a scale patch:
                            * the observed Job with the new parallelism and completions */
    bool scale;            /* only spec.parallelism and spec.completions change, to `job`'s
                            * (absent there: removed), as upstream's merge patch */
};

struct rec_plan {
    /* managedBy names another controller, or the JobSet is being deleted: nothing to do, every
     * other field is empty (status NULL, status_changed false, requeue_after_ms -1). */
    bool skipped;

    json_t **creates; /* owned batch/v1 Job objects built by construct_job() */
    size_t n_creates;
    struct rec_delete *deletes;
    size_t n_deletes;
    struct rec_patch *patches;
    size_t n_patches;
    struct rec_event *events;
    size_t n_events;

    json_t *status;        /* owned: the complete new status (restarts always present, one
                            * replicatedJobsStatus entry per RJ with all six counters, sorted
                            * by name descending as upstream writes it) */
    bool status_changed;   /* semantically different from the observed status */
    json_t *service;       /* owned: the headless Service to create unless a Service of that
                            * name exists (DNS hostnames on and the JobSet running), or NULL */
    json_t *pvcs;          /* owned: array of the PersistentVolumeClaims of
                            * spec.volumeClaimPolicies to create unless they exist, or NULL */
    bool delete_jobset;    /* TTL after finished expired: delete the JobSet (Foreground) */
    long long requeue_after_ms; /* reconcile again after this long; -1 = no timed requeue */
};

/* Reconciles one JobSet.
 *   js:   the JobSet (defaulted and valid; status may be absent), borrowed.
 *   jobs: JSON array of the batch/v1 Jobs it controls (found by owner UID), borrowed; NULL = none.
 *   now_ms: current time, milliseconds since the Unix epoch (obj/base/ktime.h; conditions get
 *         RFC 3339 "...Z" stamps, -EINVAL outside the years 0000-9999).
 * Returns 0 and fills *out_plan (release with rec_plan_release), or a negative errno with a
 * message in `e` (*out_plan untouched): -EINVAL when a child Job has a non-integer
 * restart-attempt label, a finished JobSet has no finish time while a TTL is set, or a matching
 * failure-policy rule uses a gated action; -ENOMEM. Upstream aborts the reconcile without a
 * status write in the same cases. */
int rec_reconcile(const json_t *js, const json_t *jobs, int64_t now_ms, struct rec_plan *out_plan,
                  struct err *e) __attribute__((warn_unused_result));

struct feature_gates;

/* rec_reconcile with the controller's feature gates `gates` (NULL: upstream's defaults, which is
 * rec_reconcile) and, for InPlaceRestart, `pods`: a JSON array of the v1 Pods of the JobSet
 * (metadata.annotations, status.phase, status.containerStatuses / initContainerStatuses with
 * restartCount), borrowed, NULL = none; read only with the InPlaceRestart gate on and
 * restartStrategy InPlaceRestart.  Further -EINVAL cases, as upstream's: with RestartJob on, a
 * current Job without replicatedjob-name / job-index labels, a label that is not an integer,
 * or an index outside its replicated job; with InPlaceRestart on, a Pod's
 * in-place-restart-attempt annotation that is not a non-negative integer. */
int rec_reconcile_gated(const json_t *js, const json_t *jobs, const json_t *pods, int64_t now_ms,
                        const struct feature_gates *gates, struct rec_plan *out_plan,
                        struct err *e) __attribute__((warn_unused_result));

/* Frees everything the plan owns and zeroes it (core/plan.c).  NULL-safe, idempotent. */
void rec_plan_release(struct rec_plan *p);

#endif
