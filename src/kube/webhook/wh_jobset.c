/* The JobSet defaulting and validating webhooks (see wh_jobset.h). */
#include "kube/webhook/wh_jobset.h"

#include <errno.h>
#include <string.h>

#include "api/jobset.h"
#include "api/keys.h"
#include "obj/jx.h"

static bool op_is(const json_t *req, const char *op)
{
    const char *o = jx_str(req, "operation");
    return o && strcmp(o, op) == 0;
}

int wh_jobset_default(void *arg, const json_t *req, struct wh_adm_result *r)
{
    (void)arg;
    const json_t *obj = jx_obj(req, "object");
    if (!op_is(req, "CREATE") || !obj)
        return 0;
    json_t *m = json_deep_copy(obj);
    json_t *meta = m ? jx_ensure_obj(m, "metadata") : NULL;
    bool had_ns = jx_str(jx_obj(obj, "metadata"), "namespace") != NULL;
    if (!meta)
        goto oom;
    /* js_default names the namespace when absent; the request knows it */
    if (!had_ns && jx_str(req, "namespace") && jx_set_str(meta, "namespace", jx_str(req, "namespace")) < 0)
        goto oom;
    if (js_default(m) < 0)
        goto oom;
    if (!had_ns)
        json_object_del(meta, "namespace");
    r->mutated = m;
    return 0;
oom:
    json_decref(m);
    return -ENOMEM;
}

int wh_jobset_validate(void *arg, const json_t *req, struct wh_adm_result *r)
{
    const struct wh_ctx *x = arg;
    const json_t *obj = jx_obj(req, "object");
    bool create = op_is(req, "CREATE"), update = op_is(req, "UPDATE");
    if ((!create && !update) || !obj)
        return 0;
    struct ferr_list errs;
    ferr_list_init(&errs);
    int rc = create ? js_validate_admission(obj, x->gates, &errs)
                    : js_validate_update(jx_obj(req, "oldObject"), obj, x->gates, &errs);
    if (rc > 0) {
        const char *name = jx_str(jx_obj(obj, "metadata"), "name");
        rc = wh_adm_deny_invalid(r, "jobset.x-k8s.io", JOBSET_KIND, name ? name : jx_str(req, "name"),
                              &errs);
    }
    if (rc == 0 && errs.rc < 0)
        rc = errs.rc;
    ferr_list_release(&errs);
    return rc < 0 ? rc : 0;
}
