/* jaxset's run-tuning annotations (see local_ann.h). */
#include "api/jobset/local_ann.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/schema/keys.h"
#include "obj/tree/jx.h"

int local_ann_restart_grace(const json_t *js, long long *out, struct ferr_list *errs)
{
    const json_t *a = json_object_get(jx_path(js, "metadata.annotations"), ANN_RESTART_GRACE);
    const char *s = json_string_value(a);
    size_t len = s ? strlen(s) : 0;
    *out = -1;
    if (!a)
        return 0;
    if (len >= 1 && len <= 5 && strspn(s, "0123456789") == len &&
        strtoll(s, NULL, 10) <= LOCAL_RESTART_GRACE_MAX) {
        *out = strtoll(s, NULL, 10);
        return 0;
    }
    int rc = ferr_add(errs, FERR_INVALID, "metadata.annotations[" ANN_RESTART_GRACE "]", a,
                      "must be a whole number of seconds from 0 to %d", LOCAL_RESTART_GRACE_MAX);
    return rc < 0 ? rc : 1;
}

int local_ann_cap_job_grace(json_t *job, long long grace)
{
    if (grace < 0)
        return 0;
    json_t *pspec = jx_ensure_obj(jx_ensure_obj(jx_ensure_obj(job, "spec"), "template"), "spec");
    if (!pspec)
        return -ENOMEM;
    if (jx_int_or(pspec, "terminationGracePeriodSeconds", 30) <= grace)
        return 0;
    return json_object_set_new(pspec, "terminationGracePeriodSeconds", json_integer(grace)) < 0
               ? -ENOMEM
               : 0;
}
