/* A JobSet checked as `jaxset validate` checks it (api/convert/manifest.c check()), for the
 * validating admission webhook: defaults, the webhook's create rules, then jaxset's own
 * annotations (the JAX runtime, the restart grace). */
#include "api/admit/jobset_admission.h"

#include <errno.h>

#include "api/child/jaxrt.h"
#include "api/jobset/jobset.h"
#include "api/jobset/local_ann.h"

int js_validate_admission(const json_t *js, const struct feature_gates *g,
                          struct ferr_list *errs, struct ferr_list *later)
{
    size_t n0 = errs->n;
    json_t *copy = json_deep_copy(js);
    struct js_view v = {0};
    struct jaxrt rt = {0};
    bool have_view = false;
    long long grace = -1;
    int rc = copy ? js_default(copy) : -ENOMEM;
    if (rc == 0)
        rc = js_validate_cluster(copy, g, errs, later);
    if (rc == 0 && (rc = js_view_init(&v, copy)) == 0) {
        have_view = true;
        rc = jaxrt_init(&rt, copy, &v, errs);
        if (rc >= 0)
            rc = local_ann_restart_grace(copy, &grace, errs);
    } else if (rc == -EINVAL) {
        rc = 0; /* no view of a shape validation let through: nothing more to check */
    }
    jaxrt_release(&rt);
    if (have_view)
        js_view_release(&v);
    json_decref(copy);
    return rc < 0 ? rc : (int)(errs->n - n0);
}
