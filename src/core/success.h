/* success: the JobSet success policy (kubernetes-sigs/jobset pkg/controllers/success_policy.go
 * and executeSuccessPolicy). */
#ifndef JX_CORE_SUCCESS_H
#define JX_CORE_SUCCESS_H

#include <stdbool.h>

struct rec_ctx;

/* True when the Complete current-attempt Jobs satisfy spec.successPolicy (nil = All):
 * matching = Complete Jobs whose replicatedjob-name label is targeted (every Job when the
 * target list is empty); needed = 1 for Any, Σ replicas of the targeted RJs for All. */
bool rec_success_met(const struct rec_ctx *c);

#endif
