/* jobset_admission: a JobSet as a cluster admits it, for `jaxset validate --cluster` (the
 * JobSet webhook's defaulting and validation, then the JAX runtime's and jaxset's own
 * annotations). */
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

#endif
