/* restart_job: the RestartJob feature gate's part of the JobSet controller
 * (kubernetes-sigs/jobset pkg/controllers: failure_policy.go failurePolicyRecreateJob and the
 * RestartJob / RestartJobAndIgnoreMaxRestarts appliers, jobset_controller.go getChildJobs and
 * calculateReplicatedJobStatuses).  With the gate on, a child Job carries its own restart count
 * (label jobset.sigs.k8s.io/job-restart-attempt); the RestartJob actions bump the target
 * count of the failed Job only, in status.replicatedJobsStatus[].jobRestarts (and
 * jobRestartsCountTowardsMax for RestartJob), so that the next pass finds that one Job outdated
 * (a "previous" Job), deletes it and, once it is gone, creates it again while every other Job
 * keeps running.  Every function here is called only with the gate on. */
#ifndef JX_CORE_RESTART_JOB_H
#define JX_CORE_RESTART_JOB_H

#include <jansson.h>
#include <stdbool.h>

struct rec_ctx;
struct rec_job;

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

/* The RestartJob (`counts`) / RestartJobAndIgnoreMaxRestarts action for failed Job `j` of rule
 * `rule`: RestartJob fails the JobSet with ReachedMaxRestarts once the total reached
 * maxRestarts; otherwise the Job's counts are bumped and a Warning event is queued (no
 * condition changes).  0, -EINVAL (c->e) or -ENOMEM. */
int rec_restart_job(struct rec_ctx *c, const struct rec_job *j, bool counts)
    __attribute__((warn_unused_result));

/* Adds jobRestarts / jobRestartsCountTowardsMax to the entries of replicatedJobsStatus `rjs`
 * that have them.  0 or -ENOMEM. */
int rec_job_restarts_status(const struct rec_ctx *c, json_t *rjs)
    __attribute__((warn_unused_result));

/* Frees what rec_job_restarts_load took. */
void rec_job_restarts_release(struct rec_ctx *c);

#endif
