/* The JAXJob validating webhook (kubeflow/training-operator pkg/webhooks/jax and
 * pkg/webhooks/utils ValidateReplicaSpecs), at /validate-kubeflow-org-v1-jaxjob for CREATE and
 * UPDATE, with upstream's messages and Go's field paths (map keys in brackets):
 *   metadata.name: Invalid value: "<name>": should match: <DNS-1035 label errors>
 *   spec.jaxReplicaSpecs: Required value: must be required
 *   spec.jaxReplicaSpecs[<type>]: Unsupported value: "<type>": supported values: "Worker"
 *   spec.jaxReplicaSpecs[<type>].template.spec.containers: Required value: must be specified
 *   spec.jaxReplicaSpecs[<type>].template.spec.containers[<i>].image: Required value: must be
 *     required
 *   spec.jaxReplicaSpecs[<type>].template.spec.containers: Required value: must have at least
 *     one container with name jax
 * Whether the JAXJob can run (its conversion to a JobSet) is the JAXJob controller's to report,
 * as upstream's controller does. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kube/webhook/wh_jobset.h"
#include "obj/dns.h"
#include "obj/jx.h"
#include "obj/sbuf.h"

static int name_check(const json_t *obj, struct ferr_list *errs)
{
    const char *name = jx_str(jx_obj(obj, "metadata"), "name");
    struct dns_msgs m = {0};
    if (!name || dns_1035_label(name, &m) == 0)
        return 0;
    struct sbuf b = {0};
    for (size_t i = 0; i < m.n; i++)
        sb_printf(&b, "%s%s", i ? "," : "", m.v[i]);
    int rc = sb_failed(&b) ? -ENOMEM
                           : ferr_add_str(errs, FERR_INVALID, "metadata.name", name,
                                          "should match: %s", sb_str(&b));
    sb_free(&b);
    return rc;
}

static int replica_check(const char *type, const json_t *spec, struct ferr_list *errs)
{
    char role[FPATH_MAX], ctrs[FPATH_MAX], img[FPATH_MAX];
    fpath_fmt(role, "spec.jaxReplicaSpecs[%s]", type);
    fpath_fmt(ctrs, "%s.template.spec.containers", role);
    if (strcmp(type, "Worker") != 0 &&
        ferr_add_str(errs, FERR_NOT_SUPPORTED, role, type, "\"Worker\"") < 0)
        return -ENOMEM;
    const json_t *list = jx_arr(jx_path(spec, "template.spec"), "containers");
    if (json_array_size(list) == 0 &&
        ferr_add(errs, FERR_REQUIRED, ctrs, NULL, "must be specified") < 0)
        return -ENOMEM;
    bool jax = false;
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *c = json_array_get(list, i);
        const char *image = jx_str(c, "image"), *name = jx_str(c, "name");
        fpath_fmt(img, "%s[%zu].image", ctrs, i);
        if ((!image || !*image) &&
            ferr_add(errs, FERR_REQUIRED, img, NULL, "must be required") < 0)
            return -ENOMEM;
        jax = jax || (name && strcmp(name, "jax") == 0);
    }
    if (!jax && ferr_add(errs, FERR_REQUIRED, ctrs, NULL,
                         "must have at least one container with name jax") < 0)
        return -ENOMEM;
    return 0;
}

int wh_jaxjob_validate(void *arg, const json_t *req, struct wh_adm_result *r)
{
    (void)arg;
    const json_t *obj = jx_obj(req, "object");
    const char *op = jx_str(req, "operation");
    if (!obj || !op || (strcmp(op, "CREATE") != 0 && strcmp(op, "UPDATE") != 0))
        return 0;
    struct ferr_list errs;
    ferr_list_init(&errs);
    int rc = name_check(obj, &errs);
    const json_t *specs = json_object_get(jx_obj(obj, "spec"), "jaxReplicaSpecs");
    if (rc == 0 && (!specs || json_is_null(specs)))
        rc = ferr_add(&errs, FERR_REQUIRED, "spec.jaxReplicaSpecs", NULL, "must be required");
    const char *type;
    const json_t *spec;
    json_object_foreach ((json_t *)jx_obj(jx_obj(obj, "spec"), "jaxReplicaSpecs"), type, spec)
        if (rc == 0)
            rc = replica_check(type, spec, &errs);
    if (rc == 0 && errs.rc < 0)
        rc = errs.rc;
    if (rc == 0 && errs.n > 0)
        rc = wh_adm_deny_invalid(r, "kubeflow.org", "JAXJob", jx_str(jx_obj(obj, "metadata"), "name"),
                              &errs);
    ferr_list_release(&errs);
    return rc;
}
