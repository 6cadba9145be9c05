/* conv_util: checks and builders shared by the converters (see conv_util.h). */
#include "api/convert/conv_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/schema/keys.h"
#include "obj/tree/jx.h"

void conv_env(struct chk *c, const json_t *env, const char *path, enum jaxrt_flavor f)
{
    char epath[FPATH_MAX], npath[FPATH_MAX];
    size_t i;
    const json_t *e;
    json_array_foreach(env, i, e) {
        snprintf(epath, sizeof(epath), "%s[%zu]", path, i);
        if (!json_is_object(e)) {
            chk_type_error(c, epath, e, CHK_OBJ);
            continue;
        }
        const char *name = chk_str(c, e, "name", epath, true);
        if (name && jaxrt_is_reserved(f, name))
            ferr_add_str(c->errs, FERR_INVALID, fpath_field(npath, epath, "name"), name,
                         CONV_RESERVED_MSG);
    }
}

const json_t *conv_metadata(struct chk *c, const json_t *doc, bool name_pattern,
                            const char **out_name, const char **out_ns)
{
    const json_t *meta = chk_obj(c, doc, "metadata", "", false);
    *out_name = chk_str(c, meta, "name", "metadata", false);
    *out_ns = chk_str(c, meta, "namespace", "metadata", false);
    (void)chk_obj(c, meta, "labels", "metadata", false);
    (void)chk_obj(c, meta, "annotations", "metadata", false);
    const json_t *raw = meta ? json_object_get(meta, "name") : json_object_get(doc, "metadata");
    if (!name_pattern && (!*out_name || !**out_name) && (!raw || json_is_null(raw) ||
                                                          json_is_string(raw)))
        ferr_add(c->errs, FERR_REQUIRED, "metadata.name", NULL, NULL);
    else if (name_pattern && (*out_name || !raw || json_is_null(raw)))
        chk_dns1035(c, "metadata.name", *out_name, NULL);
    return meta;
}

static void check_container(struct chk *c, const json_t *ct, const char *path, enum jaxrt_flavor f)
{
    char epath[FPATH_MAX];
    if (!json_is_object(ct)) {
        chk_type_error(c, path, ct, CHK_OBJ);
        return;
    }
    /* a JAXJob container's empty name is only its webhook's missing "jax" container
     * (kubeflow/training-operator pkg/webhooks/jax validateJAXReplicaSpecs) */
    if (f != JAXRT_JAXJOB || !json_is_string(json_object_get(ct, "name")))
        (void)chk_str(c, ct, "name", path, true);
    const json_t *env = chk_arr(c, ct, "env", path, false);
    if (env)
        conv_env(c, env, fpath_field(epath, path, "env"), f);
}

const json_t *conv_containers(struct chk *c, const json_t *pspec, const char *path,
                              enum jaxrt_flavor f)
{
    const json_t *cts = json_is_object(pspec) ? json_object_get(pspec, "containers") : NULL;
    char cpath[FPATH_MAX];
    size_t i;
    const json_t *ct;
    if (!cts || json_is_null(cts))
        return NULL;
    if (!json_is_array(cts)) {
        chk_type_error(c, path, cts, CHK_ARR);
        return NULL;
    }
    json_array_foreach(cts, i, ct) {
        snprintf(cpath, sizeof(cpath), "%s[%zu]", path, i);
        check_container(c, ct, cpath, f);
    }
    return cts;
}

static int set_copy(json_t *o, const char *key, const json_t *v)
{
    if (!json_is_object(v) || json_object_size(v) == 0)
        return 0;
    json_t *copy = json_deep_copy(v);
    return copy ? jx_set_new(o, key, copy) : -ENOMEM;
}

json_t *conv_jobset_new(const char *name, const char *ns, const json_t *labels,
                        const json_t *annotations)
{
    json_t *js = json_object(), *meta = json_object();
    int rc = js && meta ? 0 : -ENOMEM;
    if (rc == 0)
        rc = jx_set_str(js, "apiVersion", JOBSET_GROUP_VERSION);
    if (rc == 0)
        rc = jx_set_str(js, "kind", JOBSET_KIND);
    if (rc == 0 && (rc = jx_set_str(meta, "name", name)) == 0 && ns)
        rc = jx_set_str(meta, "namespace", ns);
    if (rc == 0 && (rc = set_copy(meta, "labels", labels)) == 0)
        rc = set_copy(meta, "annotations", annotations);
    if (rc == 0) {
        rc = jx_set_new(js, "metadata", meta);
        meta = NULL;
    }
    if (rc == 0)
        rc = jx_set_new(js, "spec", json_object());
    json_decref(meta);
    if (rc < 0) {
        json_decref(js);
        return NULL;
    }
    return js;
}

int conv_annotate(json_t *js, enum jaxrt_flavor f, const char *source_kind, long long port,
                  const char *rjs)
{
    json_t *meta = jx_ensure_obj(js, "metadata");
    char buf[32];
    int rc = meta ? 0 : -ENOMEM;
    snprintf(buf, sizeof(buf), "%lld", port);
    if (rc == 0)
        rc = jx_set_meta(meta, "annotations", ANN_JAX_RUNTIME, jaxrt_flavor_name(f));
    if (rc == 0)
        rc = jx_set_meta(meta, "annotations", ANN_SOURCE_KIND, source_kind);
    if (rc == 0)
        rc = jx_set_meta(meta, "annotations", ANN_JAX_PORT, buf);
    if (rc == 0 && rjs)
        rc = jx_set_meta(meta, "annotations", ANN_JAX_RJS, rjs);
    return rc;
}

json_t *conv_rj_new(const char *name, long long n, const json_t *job_extra,
                    json_t *pod_template)
{
    json_t *spec = json_pack("{s:s, s:I, s:I}", "completionMode", "Indexed", "parallelism",
                             (json_int_t)n, "completions", (json_int_t)n);
    int rc = spec ? 0 : -ENOMEM;
    if (rc == 0 && job_extra && json_object_update(spec, (json_t *)job_extra) < 0)
        rc = -ENOMEM;
    if (rc == 0) {
        rc = jx_set_new(spec, "template", pod_template);
        pod_template = NULL;
    }
    json_decref(pod_template);
    if (rc < 0) {
        json_decref(spec);
        return NULL;
    }
    return json_pack("{s:s, s:i, s:{s:o}}", "name", name, "replicas", 1, "template", "spec",
                     spec);
}

void conv_quantity(double x, const char *unit, const char *sub, char *out, size_t n)
{
    /* No libm: amounts are small non-negative numbers, so casts round well enough. */
    if (x < 9e15 && x == (double)(long long)x)
        snprintf(out, n, "%lld%s", (long long)x, unit);
    else
        snprintf(out, n, "%lld%s", (long long)(x * 1000.0 + 0.5), sub);
}
