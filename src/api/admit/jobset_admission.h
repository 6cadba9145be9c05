/* jobset_admission: a JobSet as a cluster admits it, for `jaxset validate --cluster` (the
 * JobSet webhook's defaulting and validation, then the JAX runtime's and jaxset's own
 * annotations), and an update of one as the JobSet webhook admits it. */
#ifndef JX_API_ADMIT_JOBSET_ADMISSION_H
#define JX_API_ADMIT_JOBSET_ADMISSION_H

#include <jansson.h>

#include "obj/tree/ferr.h"

struct feature_gates;

/* What `jaxset validate --cluster` checks of one JobSet as a cluster would admit it: a
 * defaulted copy validated with gates `g` (NULL: defaults), then its JAX runtime annotations
 * and jaxset's own annotations.  What a cluster admits and fails only when the Jobs are
 * created goes to `later` (js_validate_cluster; NULL: errors).  `js` is borrowed and left
 * unchanged.  Returns the number of errors added or -ENOMEM. */
int js_validate_admission(const json_t *js, const struct feature_gates *g,
                          struct ferr_list *errs, struct ferr_list *later);

/* The JobSet webhook's UPDATE: js_validate_update (upstream's immutability, with the exceptions
 * of suspended JobSets and the ElasticJobSet gate), then, when that admits a change of a
 * replicated job's replicas (jaxset's Job-level scaling), js_validate_admission of the new
 * object, since the create-time rules that depend on replicas (Job and pod names within 63
 * characters, replicas x parallelism within int32, the coordinator's job index, the RestartJob
 * gate's limits) hold for the new size too; what only the Jobs' creation would refuse is not
 * reported again.  Returns the number of errors added or -ENOMEM. */
int js_admit_update(const json_t *old_js, const json_t *new_js, const struct feature_gates *g,
                    struct ferr_list *errs);

#endif
