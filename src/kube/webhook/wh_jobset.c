/* The JobSet defaulting and validating webhooks (see wh_jobset.h). */
#include "kube/webhook/wh_jobset.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/admit/jobset_admission.h"
#include "api/jobset/jobset.h"
#include "api/schema/keys.h"
#include "obj/tree/jx.h"

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

/* What the JobSet's Jobs will be refused for, as admission warnings: upstream's webhook
 * admits it (kubernetes-sigs/jobset pkg/webhooks/jobset_webhook.go ValidateCreate). */
static int warn_later(struct wh_adm_result *r, const struct ferr_list *later)
{
    for (size_t i = 0; i < later->n; i++) {
        char *line = ferr_format(&later->v[i]);
        if (!r->warnings)
            r->warnings = json_array();
        int rc = line && r->warnings ? json_array_append_new(r->warnings, json_string(line))
                                     : -ENOMEM;
        free(line);
        if (rc < 0)
            return -ENOMEM;
    }
    return 0;
}

int wh_jobset_validate(void *arg, const json_t *req, struct wh_adm_result *r)
{
    const struct wh_ctx *x = arg;
    const json_t *obj = jx_obj(req, "object");
    bool create = op_is(req, "CREATE"), update = op_is(req, "UPDATE");
    if ((!create && !update) || !obj)
        return 0;
    struct ferr_list errs, later;
    ferr_list_init(&errs);
    ferr_list_init(&later);
    int rc = create ? js_validate_admission(obj, x->gates, &errs, &later)
                    : js_validate_update(jx_obj(req, "oldObject"), obj, x->gates, &errs);
    if (rc == 0 && later.n > 0)
        rc = later.rc < 0 ? later.rc : warn_later(r, &later);
    if (rc > 0) {
        const char *name = jx_str(jx_obj(obj, "metadata"), "name");
        rc = wh_adm_deny_invalid(r, "jobset.x-k8s.io", JOBSET_KIND, name ? name : jx_str(req, "name"),
                              &errs);
    }
    if (rc == 0 && errs.rc < 0)
        rc = errs.rc;
    ferr_list_release(&errs);
    ferr_list_release(&later);
    return rc < 0 ? rc : 0;
}
