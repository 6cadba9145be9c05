/* Warnings for failure-policy patterns that never match (see policy_warn.h). */
#include "api/jobset/policy_warn.h"

#include <errno.h>
#include <stdlib.h>

#include "obj/tree/jx.h"
#include "obj/base/rx.h"

static int pattern_warning(const json_t *pat, const char *path, struct ferr_list *w)
{
    struct rx *re = NULL;
    char *why = NULL;
    int rc = rx_compile(json_string_value(pat), &re, &why);
    rx_free(re);
    if (rc == -EINVAL)
        rc = ferr_add(w, FERR_INVALID, path, pat,
                      "not a valid RE2 (Go regexp) pattern: %s; it never matches, as the JobSet "
                      "controller skips it",
                      why ? why : "invalid");
    else if (rc == -ENOSYS) /* an install without the RE2 module: say so rather than no match */
        rc = ferr_add(w, FERR_INVALID, path, pat,
                      "cannot be matched: %s; it never matches", why ? why : "no RE2 support");
    free(why);
    return rc;
}

int policy_pattern_warnings(const json_t *js, struct ferr_list *warnings)
{
    const json_t *rules = jx_arr(jx_path(js, "spec.failurePolicy"), "rules");
    size_t n0 = warnings->n;
    char path[FPATH_MAX];
    for (size_t r = 0; r < json_array_size(rules); r++) {
        const json_t *pats = jx_arr(json_array_get(rules, r), "onJobFailureMessagePatterns");
        for (size_t i = 0; i < json_array_size(pats); i++) {
            const json_t *p = json_array_get(pats, i);
            if (!json_is_string(p))
                continue;
            fpath_fmt(path, "spec.failurePolicy.rules[%zu].onJobFailureMessagePatterns[%zu]", r,
                      i);
            if (pattern_warning(p, path, warnings) < 0)
                return -ENOMEM;
        }
    }
    return (int)(warnings->n - n0);
}
