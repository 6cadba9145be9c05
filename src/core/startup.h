/* startup: creation of the missing child Jobs (kubernetes-sigs/jobset reconcileReplicatedJobs,
 * constructJobsFromTemplate) honouring dependsOn (pkg/controllers/depends_on.go), the deprecated
 * InOrder startup policy (startup_policy.go) and BlockingRecreate. */
#ifndef JX_CORE_STARTUP_H
#define JX_CORE_STARTUP_H

#include <stdbool.h>
#include <stddef.h>

struct rec_ctx;

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
