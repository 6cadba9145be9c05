/* failure: the JobSet failure policy (kubernetes-sigs/jobset pkg/controllers/failure_policy.go,
 * executeFailurePolicy): rule matching (reasons, message patterns, target RJs), first-failed-Job
 * selection, the FailJobSet / RestartJobSet / RestartJobSetAndIgnoreMaxRestarts actions, the
 * RestartJob / RestartJobAndIgnoreMaxRestarts actions of the RestartJob gate (core/restart_job.h)
 * and the restart-limit arithmetic. */
#ifndef JX_CORE_FAILURE_H
#define JX_CORE_FAILURE_H

#include <jansson.h>
#include <stdbool.h>

struct rec_ctx;

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

#endif
