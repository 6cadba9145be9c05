/* policy_warn: what upstream accepts but logs.  The JobSet controller matches
 * failurePolicy.rules[].onJobFailureMessagePatterns with Go's regexp and skips a pattern that
 * does not compile, logging it (kubernetes-sigs/jobset pkg/controllers/failure_policy.go); the
 * webhook does not check them.  jaxset accepts such a JobSet too and warns where the user can
 * see it: `validate`, `run` and `render` print the warning. */
#ifndef JX_POLICY_WARN_H
#define JX_POLICY_WARN_H

#include <jansson.h>

#include "obj/tree/ferr.h"

/* Appends a warning per pattern that is not valid RE2 syntax.  Returns the number added or
 * -ENOMEM. */
int policy_pattern_warnings(const json_t *js, struct ferr_list *warnings);

#endif
