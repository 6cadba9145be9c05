/* reconcile_int: what the files of the reconcile core share.  Not for use outside src/core (and
 * its unit tests).  Sectioned by the file that defines what follows, as libuv's internal.h.
 *
 * The files stand on each other in one direction: reconcile.c, the pass itself, on the steps
 * (failure.c, restart_job.c, in_place.c, elastic.c, suspend.c, startup.c, success.c, ttl.c),
 * and every step on plan.c and status.c; nothing calls up into reconcile.c. */
#ifndef JX_RECONCILE_INT_H
#define JX_RECONCILE_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api/jobset/features.h"
#include "api/child/jaxrt.h"
#include "api/jobset/jobset.h"
#include "core/reconcile.h"
#include "core/status.h"
#include "obj/base/err.h"

/* ---- reconcile.c: the state of one pass (filled by ctx_init) ------------------------------ */

/* One observed child Job, classified (upstream getChildJobs).  Pointers borrow from the input
 * Job. */
struct rec_job {
    const json_t *obj;
    const char *name;          /* metadata.name ("" when absent) */
    const char *rj_name;       /* replicatedjob-name label, NULL when absent or empty */
    long rj;                   /* index of that RJ in the view, -1 when unknown */
    enum rec_bucket bucket;
    const json_t *failed_cond; /* the Failed=True condition (bucket FAILED) */
    bool terminating;          /* metadata.deletionTimestamp set */
    bool suspended;            /* spec.suspend == true */
    bool excess;               /* ElasticJobSet: job index >= its RJ's replicas (bucket
                                * PREVIOUS: not counted, deleted by rec_elastic_delete) */
};

struct rec_ctx {
    const json_t *js;
    const json_t *spec;
    const json_t *old_status;  /* borrowed, may be NULL */
    struct js_view v;
    struct jaxrt rt;           /* the JAX runtime the JobSet's annotations ask for (owned) */
    char now[KT_RFC3339_MAX];  /* RFC 3339 stamp for new conditions */
    int64_t now_ms;
    struct rec_job *jobs;      /* owned array */
    size_t n_jobs;
    size_t n_bucket[REC_BUCKET_N];
    struct rec_rj_count *counts; /* owned, one per RJ of the view */
    const char **names;        /* owned array of the child Job names, sorted (rec__names_sort) */
    json_t *conds;             /* owned {"conditions": [...]} being updated by rec_cond_set */
    long long restarts;        /* status.restarts (new value once a restart is decided) */
    long long restarts_max;    /* status.restartsCountTowardsMax */
    const char *terminal;      /* status.terminalState ("" = none); static or borrowed */
    const struct feature_gates *gates; /* borrowed; NULL: defaults */
    const json_t *pods;        /* the JobSet's Pods (InPlaceRestart), borrowed, may be NULL */
    json_t **job_restarts;     /* RestartJob gate: per RJ of the view, the jobRestarts list */
    json_t **job_restarts_max; /* ... and jobRestartsCountTowardsMax; entries NULL = absent */
    long long ipr_previous;    /* status.previousInPlaceRestartAttempt, -1 = absent */
    long long ipr_current;     /* status.currentInPlaceRestartAttempt, -1 = absent */
    struct rec_plan *plan;
    struct err *e;
};

/* ---- plan.c: the plan builders and the lookup of the observed Jobs ------------------------ */

/* Plan builders: each returns 0 or -ENOMEM. */
int rec__event(struct rec_ctx *c, enum rec_event_type t, const char *reason, const char *msg);
int rec__delete(struct rec_ctx *c, const char *name);
int rec__create(struct rec_ctx *c, json_t *job); /* steals job (also on failure) */
int rec__patch(struct rec_ctx *c, const char *name, bool suspend, bool clear_start,
               json_t *job); /* steals job (also on failure) */
/* A scale patch (struct rec_patch `scale`) of Job `name` whose spec.suspend is `suspend`. */
int rec__patch_scale(struct rec_ctx *c, const char *name, bool suspend,
                     json_t *job); /* steals job (also on failure) */

/* Applies condition `cond` (rec_cond_set) to the status being built and queues its event when
 * it changed something.  Returns 0 or -ENOMEM. */
int rec__set_cond(struct rec_ctx *c, const struct rec_cond *cond);

/* Sets Failed=True with reason/message, RestartingJobSet=False/JobSetFailed and
 * terminalState=Failed (failure.c and suspend/resume never call it twice in a pass). */
int rec__fail(struct rec_ctx *c, const char *reason, const char *msg);

/* Sets Completed=True, RestartingJobSet=False/JobSetCompleted, terminalState=Completed. */
int rec__complete(struct rec_ctx *c);

/* Sorts c->names (the first c->n_jobs) for rec__job_exists. */
void rec__names_sort(struct rec_ctx *c);

/* True when a child Job named `name` was observed, in any bucket. */
bool rec__job_exists(const struct rec_ctx *c, const char *name);

/* ---- ttl.c: ttlSecondsAfterFinished ------------------------------------------------------- */

/* A finished JobSet (`fin`: the condition that finished it, borrowed) with
 * ttlSecondsAfterFinished: sets plan->delete_jobset once it has passed, else
 * plan->requeue_after_ms.  Returns 0, or -EINVAL (c->e) when `fin` has no lastTransitionTime. */
int rec__ttl_after_finished(struct rec_ctx *c, const json_t *fin)
    __attribute__((warn_unused_result));

/* ---- failure.c: the failure policy ---------------------------------------------------------
 * kubernetes-sigs/jobset pkg/controllers/failure_policy.go, executeFailurePolicy: rule matching
 * (reasons, message patterns, target RJs), first-failed-Job selection, the FailJobSet /
 * RestartJobSet / RestartJobSetAndIgnoreMaxRestarts actions, the RestartJob /
 * RestartJobAndIgnoreMaxRestarts actions of the RestartJob gate (restart_job.c) and the
 * restart-limit arithmetic. */

/* True when failurePolicy rule `rule` (borrowed) applies to a failed Job of replicated job
 * `rj_name` (NULL or "" = the Job has no replicatedjob-name label: never applies) whose Failed
 * condition has `reason` and `message` (NULL = "").  Message patterns are RE2 in upstream; here
 * they are POSIX extended regexes searched unanchored, and one that does not compile matches
 * nothing. */
bool rec_rule_applies(const json_t *rule, const char *rj_name, const char *reason,
                      const char *message);

/* Runs the failure policy over the failed current-attempt Jobs of the pass (at least one):
 * sets Failed/RestartingJobSet conditions, terminalState, bumps restarts, queues events.
 * Returns 0, -EINVAL (a matching rule uses a RestartJob action while its gate is off, or the
 * failed Job's labels do not place it; message in c->e) or -ENOMEM. */
int rec_failure_execute(struct rec_ctx *c) __attribute__((warn_unused_result));

/* ---- restart_job.c: the RestartJob feature gate --------------------------------------------
 * kubernetes-sigs/jobset pkg/controllers: failure_policy.go failurePolicyRecreateJob and the
 * RestartJob / RestartJobAndIgnoreMaxRestarts appliers, jobset_controller.go getChildJobs and
 * calculateReplicatedJobStatuses.  With the gate on, a child Job carries its own restart count
 * (label jobset.sigs.k8s.io/job-restart-attempt); the RestartJob actions bump the target count
 * of the failed Job only, in status.replicatedJobsStatus[].jobRestarts (and
 * jobRestartsCountTowardsMax for RestartJob), so that the next pass finds that one Job outdated
 * (a "previous" Job), deletes it and, once it is gone, creates it again while every other Job
 * keeps running.  Every function here is called only with the gate on. */

/* Reads the per-Job restart lists of the observed status into the pass.  0 or -ENOMEM. */
int rec_job_restarts_load(struct rec_ctx *c) __attribute__((warn_unused_result));

/* getChildJobs' per-Job check of a current-attempt Job `j`: its job-restart-attempt label below
 * the target count makes it PREVIOUS (a missing label is let be, as upstream does for Jobs made
 * before the gate was on).  Returns 0, or -EINVAL (message in c->e) when the Job has no
 * replicatedjob-name or job-index label, a label that is not an integer, or an index outside
 * its replicated job, which upstream reports as an error of the whole reconcile. */
int rec_job_restart_check(struct rec_ctx *c, struct rec_job *j)
    __attribute__((warn_unused_result));

/* restartsCountTowardsMax plus every jobRestartsCountTowardsMax of the pass: what RestartJobSet
 * and RestartJob compare with maxRestarts while the gate is on. */
long long rec_restarts_towards_max(const struct rec_ctx *c);

/* The RestartJob (`counts`) / RestartJobAndIgnoreMaxRestarts action for failed Job `j`:
 * RestartJob fails the JobSet with ReachedMaxRestarts once the total reached maxRestarts;
 * otherwise the Job's counts are bumped and a Warning event is queued (no condition changes).
 * 0, -EINVAL (c->e) or -ENOMEM. */
int rec_restart_job(struct rec_ctx *c, const struct rec_job *j, bool counts)
    __attribute__((warn_unused_result));

/* Adds jobRestarts / jobRestartsCountTowardsMax to the entries of replicatedJobsStatus `rjs`
 * that have them.  0 or -ENOMEM. */
int rec_job_restarts_status(const struct rec_ctx *c, json_t *rjs)
    __attribute__((warn_unused_result));

/* Frees what rec_job_restarts_load took. */
void rec_job_restarts_release(struct rec_ctx *c);

/* ---- in_place.c: the InPlaceRestart feature gate -------------------------------------------
 * kubernetes-sigs/jobset pkg/controllers/in_place_restart.go, reconcileInPlaceRestart; KEP-467.
 * With restartStrategy InPlaceRestart a restart keeps the pods: an agent in each pod (upstream's
 * in-place-restart-agent; `jaxset run` plays it locally) writes the pod's in-place restart
 * attempt into the annotation jobset.sigs.k8s.io/in-place-restart-attempt when the pod starts
 * (status.currentInPlaceRestartAttempt + 1, or 0 when unset) and holds the worker at a barrier.
 * The controller only reads those annotations and moves two status fields:
 *   - every expected pod (replicas x parallelism over the replicated jobs) at one attempt:
 *     currentInPlaceRestartAttempt = that attempt, which lifts the barriers;
 *   - attempts that differ: previousInPlaceRestartAttempt = max - 1 (never lowered), which
 *     tells every agent at or below it to restart its pod in place (all its containers).
 * It fails the JobSet (ReachedMaxRestarts) when a container restarted more than maxRestarts
 * times, or when the highest attempt minus the restarts that do not count exceeds maxRestarts.
 * A Job that fails anyway is handled by the failure policy, as with Recreate. */

/* Runs the in-place restart step when the gate is on and the strategy is InPlaceRestart (a
 * no-op otherwise), over c->pods (v1 Pods: metadata.annotations, status.phase,
 * status.containerStatuses[] and initContainerStatuses[] restartCount; pods in phase Failed and
 * pods without the annotation are left out of the attempts).  Returns 0, -EINVAL with c->e set
 * (an annotation that is not a non-negative integer; a replicated job whose completions and
 * parallelism are not set and equal) or -ENOMEM. */
int rec_in_place_restart(struct rec_ctx *c) __attribute__((warn_unused_result));

/* ---- elastic.c: the ElasticJobSet feature gate ----------------------------------------------
 * kubernetes-sigs/jobset v0.12.0 pkg/controllers/jobset_controller.go syncJobScaling and
 * jobScalingNeedsPatch (pod-level scaling, KEP-463), and jaxset's Job-level scaling of
 * spec.replicatedJobs[].replicas, which KEP-463 leaves to future work and describes there:
 * new indexes created in order (rec_create_jobs does it, for every missing name), Jobs at an
 * index >= replicas deleted highest index first (Foreground), not counted in the status from the
 * pass that deletes them, and never taken for failures or successes.  Every function here is a
 * no-op with the gate off. */

/* True when Job `j` (of a known RJ) carries a job-index label >= its RJ's replicas. */
bool rec_elastic_excess(const struct rec_ctx *c, const struct rec_job *j);

/* Fits the RestartJob gate's per-Job lists loaded from the status to each RJ's replicas (a
 * list is as long as the replicas were when it was written): cut, or padded with zeros.  0 or
 * -ENOMEM. */
int rec_elastic_fit_restarts(struct rec_ctx *c) __attribute__((warn_unused_result));

/* Queues the deletion of every excess Job not yet terminating, highest job index first, RJ by
 * RJ in spec order.  0 or -ENOMEM. */
int rec_elastic_delete(struct rec_ctx *c) __attribute__((warn_unused_result));

/* syncJobScaling: a scale patch for every active Job not terminating whose parallelism or
 * completions differ from its RJ template's, when the template's two are equal (both unset
 * counts as equal, as upstream's ptr.Equal).  The Job's values are compared as the Job API
 * defaults them (both unset: 1 and 1; parallelism unset: 1), so that a template that sets
 * neither asks nothing of Jobs the API server gave 1 and 1 (upstream patches those on every
 * pass, to no effect).  0 or -ENOMEM. */
int rec_elastic_sync(struct rec_ctx *c) __attribute__((warn_unused_result));

/* ---- suspend.c: suspending and resuming the child Jobs -------------------------------------
 * kubernetes-sigs/jobset pkg/controllers/jobset_controller.go, suspendJobs and
 * resumeJobsIfNecessary. */

/* Suspended JobSet: a patch to spec.suspend=true for every active Job not yet suspended, then
 * Suspended=True and RestartingJobSet=False/JobSetSuspended.  0 or -ENOMEM. */
int rec_suspend_jobs(struct rec_ctx *c) __attribute__((warn_unused_result));

/* Running JobSet: per RJ in spec order (dependsOn unmet → skipped; InOrder: started RJs
 * skipped, stop after the first other one with StartupPolicyInProgress=True), a resume patch
 * for each suspended active Job (clear startTime, merge the RJ pod template's labels,
 * annotations, nodeSelector, tolerations, schedulingGates, spec.suspend=false); finally
 * Suspended=False/ResumeJobs (only flips an existing condition).  0 or -ENOMEM. */
int rec_resume_jobs(struct rec_ctx *c) __attribute__((warn_unused_result));

/* ---- startup.c: creating the missing child Jobs --------------------------------------------
 * kubernetes-sigs/jobset reconcileReplicatedJobs, constructJobsFromTemplate, honouring dependsOn
 * (pkg/controllers/depends_on.go), the deprecated InOrder startup policy (startup_policy.go) and
 * BlockingRecreate. */

/* As upstream dependencyReachedStatus: every dependsOn entry of RJ `rj` is met by this pass's
 * replicatedJobsStatus (Complete: succeeded == replicas; Ready: ready + succeeded + failed ==
 * replicas).  A name that is not an earlier RJ counts as 0 replicas; an unknown name is never
 * met. */
bool rec_deps_met(const struct rec_ctx *c, size_t rj);

/* As upstream allReplicasStarted: replicas == ready + succeeded + failed for RJ `rj`. */
bool rec_rj_started(const struct rec_ctx *c, size_t rj);

/* spec.startupPolicy.startupPolicyOrder == InOrder. */
bool rec_in_order(const struct rec_ctx *c);

/* Queues construct_job() Jobs for every missing name (absent from every bucket), RJ by RJ in
 * spec order; nothing while BlockingRecreate waits for previous-attempt Jobs to go; sets the
 * StartupPolicy conditions under InOrder when not suspended.  0 or -ENOMEM. */
int rec_create_jobs(struct rec_ctx *c) __attribute__((warn_unused_result));

#endif
