/* suspend: suspending and resuming existing child Jobs (kubernetes-sigs/jobset
 * pkg/controllers/jobset_controller.go, suspendJobs and resumeJobsIfNecessary). */
#ifndef JX_CORE_SUSPEND_H
#define JX_CORE_SUSPEND_H

struct rec_ctx;

/* Suspended JobSet: a patch to spec.suspend=true for every active Job not yet suspended, then
 * Suspended=True and RestartingJobSet=False/JobSetSuspended.  0 or -ENOMEM. */
int rec_suspend_jobs(struct rec_ctx *c) __attribute__((warn_unused_result));

/* Running JobSet: per RJ in spec order (dependsOn unmet → skipped; InOrder: started RJs
 * skipped, stop after the first other one with StartupPolicyInProgress=True), a resume patch
 * for each suspended active Job (clear startTime, merge the RJ pod template's labels,
 * annotations, nodeSelector, tolerations, schedulingGates, spec.suspend=false); finally
 * Suspended=False/ResumeJobs (only flips an existing condition).  0 or -ENOMEM. */
int rec_resume_jobs(struct rec_ctx *c) __attribute__((warn_unused_result));

#endif
