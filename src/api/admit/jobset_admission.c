/* A JobSet checked as `jaxset validate` checks it (api/convert/manifest.c check()), for the
 * validating admission webhook: defaults, the webhook's create rules, then jaxset's own
 * annotations (the JAX runtime, the restart grace). */
#include "api/admit/jobset_admission.h"

#include <errno.h>

#include "api/child/jaxrt.h"
#include "api/jobset/features.h"
#include "api/jobset/jobset.h"
#include "api/jobset/local_ann.h"
#include "obj/tree/jx.h"

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

/* A replicated job of `new_js` whose replicas differ from the one of the same name in
 * `old_js`. */
static bool replicas_changed(const json_t *old_js, const json_t *new_js)
{
    const json_t *orjs = jx_arr(jx_obj(old_js, "spec"), "replicatedJobs"), *r;
    size_t i;
    json_array_foreach (jx_arr(jx_obj(new_js, "spec"), "replicatedJobs"), i, r) {
        const json_t *o = jx_named(orjs, jx_str(r, "name"));
        if (o && jx_int_or(o, "replicas", 1) != jx_int_or(r, "replicas", 1))
            return true;
    }
    return false;
}

int js_admit_update(const json_t *old_js, const json_t *new_js, const struct feature_gates *g,
                    struct ferr_list *errs)
{
    struct ferr_list later;
    int rc = js_validate_update(old_js, new_js, g, errs);
    if (rc != 0 || !fg_enabled(g, FG_ELASTIC_JOBSET) || !replicas_changed(old_js, new_js))
        return rc;
    ferr_list_init(&later);
    rc = js_validate_admission(new_js, g, errs, &later);
    if (rc >= 0 && later.rc < 0)
        rc = later.rc;
    ferr_list_release(&later);
    return rc;
}
