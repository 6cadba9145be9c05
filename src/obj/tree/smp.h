/* smp: Kubernetes' strategic merge patch on JSON trees, as k8s.io/apimachinery
 * pkg/util/strategicpatch applies one (StrategicMergeMapPatch: mergeMap, mergeSlice,
 * normalizeElementOrder), with the options it applies patches with (MergeParallelList,
 * IgnoreUnmatchedNulls).  What the Go struct tags say about a list (patchStrategy=merge,
 * patchMergeKey) is given by the caller as a table of list paths, so this module knows no kind.
 *
 *   - objects merge key by key, recursively; a null in the patch deletes the key; a value whose
 *     JSON type differs from the document's replaces it;
 *   - a list named in the table merges: elements with the same merge-key value merge (the first
 *     match), others are added; a list of scalars named with the key "" is the union of both
 *     (finalizers); the result is ordered as apimachinery orders it: the patch's elements in the
 *     patch's order, the document's other elements in their order, interleaved where both know
 *     the relative order (so an element only the patch has comes before the document's next
 *     one);
 *   - any other list is replaced by the patch's;
 *   - directives: {"$patch": "replace"} in an object replaces it by the rest of that object,
 *     {"$patch": "delete"} empties it; as a merge-list element, "delete" removes the document's
 *     elements with that key and "replace" makes the list the patch's other elements.  Values
 *     taken from the patch whole lose their null members and directive-carrying objects.
 *     $retainKeys, $setElementOrder/ and $deleteFromPrimitiveList/ are refused (-EINVAL).
 */
#ifndef JX_OBJ_SMP_H
#define JX_OBJ_SMP_H

#include <jansson.h>
#include <stddef.h>

/* One merge list: its path from the patch's root, the field names joined by "." with no list
 * indexes ("replicatedJobs.template.spec.template.spec.containers.env"), and its merge key ("":
 * a list of scalars merged as a set).  A table ends with {NULL, NULL}. */
struct smp_list {
    const char *path;
    const char *key;
};

/* Applies object `patch` (borrowed) onto object `doc`, in place.  0; -ENOMEM; -EINVAL when the
 * patch cannot be applied (an element of a merge list without its key, a bad directive, a list
 * of lists, elements of different types), with the reason, naming the list's path, in
 * why[n] (apimachinery's words where it has them).  On an error `doc` may be half patched. */
int smp_apply(json_t *doc, const json_t *patch, const struct smp_list *lists, char *why,
              size_t n);

#endif
