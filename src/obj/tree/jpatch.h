/* jpatch: the RFC 6902 JSON Patch that turns one JSON tree into another, as an admission
 * webhook answers a mutation (controller-runtime's admission.PatchResponseFromRaw computes the
 * same with gomodules.xyz/jsonpatch).  Objects are compared key by key; arrays of equal length
 * element by element, and an array whose length changed is replaced whole; any other change is
 * a "replace" of the value.  Paths are JSON Pointers (RFC 6901: "~" as "~0", "/" as "~1"). */
#ifndef JX_OBJ_JPATCH_H
#define JX_OBJ_JPATCH_H

#include <jansson.h>

/* A new array of {"op","path"[,"value"]} (empty when the trees are equal; caller decrefs), or
 * NULL on OOM.  Both trees are borrowed; values in the patch are copies. */
json_t *jpatch_diff(const json_t *from, const json_t *to);

#endif
