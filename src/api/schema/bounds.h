/* bounds: limits the Kubernetes API server enforces on any object, checked on the document as
 * the user wrote it (before conversion, so paths name the user's fields):
 *   - no string contains a NUL byte: a name, a command or an environment variable with one
 *     would be cut short where it is used (an exec'd argument ends at the first NUL);
 *   - the annotations of one object's metadata (the document's, and every pod template's)
 *     total at most 256 KiB of keys and values (k8s.io/apimachinery
 *     pkg/api/validation/objectmeta.go, ValidateAnnotations: "may not be more than 262144 bytes").
 * */
#ifndef JX_BOUNDS_H
#define JX_BOUNDS_H

#include <jansson.h>

#include "obj/tree/ferr.h"

#define BOUNDS_ANNOTATIONS_MAX (256 * 1024)

/* Appends one field error per violation found in `doc` (borrowed).  Returns the number of
 * errors added or -ENOMEM. */
int bounds_check(const json_t *doc, struct ferr_list *errs);

#endif
