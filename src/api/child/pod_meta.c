/* pod_meta: numbers of a pod's labels and annotations (api/child/pod_meta.h). */
#include "api/child/pod_meta.h"

#include <stdlib.h>
#include <string.h>

#include "api/schema/keys.h"
#include "obj/tree/jx.h"

long long pod_meta_int(const json_t *meta, const char *field, const char *key)
{
    const char *s = jx_get_meta(meta, field, key);
    if (!s || !*s || strlen(s) > 9 || strspn(s, "0123456789") != strlen(s))
        return -1;
    return strtoll(s, NULL, 10);
}

long long pod_completion_index(const json_t *meta)
{
    long long i = pod_meta_int(meta, "annotations", ANN_JOB_COMPLETION_INDEX);
    return i >= 0 ? i : pod_meta_int(meta, "labels", ANN_JOB_COMPLETION_INDEX);
}
