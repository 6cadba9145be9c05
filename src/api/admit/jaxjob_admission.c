/* jaxjob_admission: the JAXJob webhook's rules (see jaxjob_admission.h). */
#include "api/admit/jaxjob_admission.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

#include "obj/tree/dns.h"
#include "obj/tree/jx.h"
#include "obj/base/sbuf.h"

#define JJA_WORKER "Worker"

const char *jja_replica_type(const char *key)
{
    return strcasecmp(key, JJA_WORKER) == 0 ? JJA_WORKER : key;
}

static int name_check(const json_t *jj, struct ferr_list *errs)
{
    const char *name = jx_str(jx_obj(jj, "metadata"), "name");
    struct dns_msgs m = {0};
    if (!name || !*name || dns_1035_label(name, &m) == 0)
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

static int containers_check(const char *ctrs, const json_t *list, bool image_required,
                            struct ferr_list *errs)
{
    char img[FPATH_MAX];
    bool jax = false;
    if (json_array_size(list) == 0 &&
        ferr_add(errs, FERR_REQUIRED, ctrs, NULL, "must be specified") < 0)
        return -ENOMEM;
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *c = json_array_get(list, i);
        const json_t *image = json_object_get(c, "image");
        const char *name = jx_str(c, "name");
        fpath_fmt(img, "%s[%zu].image", ctrs, i);
        bool missing = !image || json_is_null(image);
        bool empty = json_is_string(image) && json_string_length(image) == 0;
        if (json_is_object(c) && (empty || (missing && image_required)) &&
            ferr_add(errs, FERR_REQUIRED, img, NULL, "must be required") < 0)
            return -ENOMEM;
        jax = jax || (name && strcmp(name, "jax") == 0);
    }
    if (!jax && ferr_add(errs, FERR_REQUIRED, ctrs, NULL,
                         "must have at least one container with name jax") < 0)
        return -ENOMEM;
    return 0;
}

static int replica_check(const char *key, const json_t *spec, bool image_required,
                         struct ferr_list *errs)
{
    char role[FPATH_MAX], ctrs[FPATH_MAX];
    const char *type = jja_replica_type(key);
    fpath_fmt(role, "spec.jaxReplicaSpecs[%s]", type);
    fpath_fmt(ctrs, "%s.template.spec.containers", role);
    if (strcmp(type, JJA_WORKER) != 0 &&
        ferr_add_str(errs, FERR_NOT_SUPPORTED, role, type, "\"" JJA_WORKER "\"") < 0)
        return -ENOMEM;
    const json_t *list = json_object_get(jx_obj(jx_obj(spec, "template"), "spec"), "containers");
    if (list && !json_is_array(list) && !json_is_null(list))
        return 0; /* not a list: the object's own checks say so */
    return containers_check(ctrs, list, image_required, errs);
}

int jja_validate(const json_t *jj, bool image_required, struct ferr_list *errs)
{
    int rc = name_check(jj, errs);
    const json_t *specs = json_object_get(jx_obj(jj, "spec"), "jaxReplicaSpecs");
    if (rc == 0 && (!specs || json_is_null(specs)))
        rc = ferr_add(errs, FERR_REQUIRED, "spec.jaxReplicaSpecs", NULL, "must be required");
    const char *key;
    const json_t *spec;
    json_object_foreach ((json_t *)jx_obj(jx_obj(jj, "spec"), "jaxReplicaSpecs"), key, spec)
        if (rc == 0 && json_is_object(spec))
            rc = replica_check(key, spec, image_required, errs);
    return rc < 0 ? -ENOMEM : 0;
}
