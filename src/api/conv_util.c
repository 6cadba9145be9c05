/* conv_util: checks and builders shared by the converters (see conv_util.h). */
#include "api/conv_util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/keys.h"
#include "obj/dns.h"
#include "obj/jx.h"

void conv_init(struct conv *c, struct ferr_list *errs)
{
    c->errs = errs;
    c->n0 = errs->n;
    c->rc = 0;
}

bool conv_failed(const struct conv *c)
{
    return c->rc < 0 || c->errs->rc < 0 || c->errs->n > c->n0;
}

/* o[key] when present and not null; adds Required when absent and `required`. */
static const json_t *present(struct conv *c, const json_t *o, const char *key,
                             const char *parent, bool required, char *path)
{
    const json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
    fpath_field(path, parent, key);
    if (v && !json_is_null(v))
        return v;
    if (required)
        ferr_add(c->errs, FERR_REQUIRED, path, NULL, NULL);
    return NULL;
}

/* o[key] checked against a JSON type; NULL (and an error) when it has another. */
static const json_t *typed(struct conv *c, const json_t *o, const char *key, const char *parent,
                           bool required, json_type type, const char *what)
{
    char path[FPATH_MAX];
    const json_t *v = present(c, o, key, parent, required, path);
    if (v && json_typeof(v) != type) {
        ferr_add(c->errs, FERR_INVALID, path, v, "must be %s", what);
        return NULL;
    }
    return v;
}

const json_t *conv_obj(struct conv *c, const json_t *o, const char *key, const char *parent,
                       bool required)
{
    return typed(c, o, key, parent, required, JSON_OBJECT, "an object");
}

const json_t *conv_arr(struct conv *c, const json_t *o, const char *key, const char *parent,
                       bool required)
{
    return typed(c, o, key, parent, required, JSON_ARRAY, "a list");
}

const char *conv_str(struct conv *c, const json_t *o, const char *key, const char *parent,
                     bool required)
{
    const json_t *v = typed(c, o, key, parent, required, JSON_STRING, "a string");
    if (v && required && !*json_string_value(v)) {
        char path[FPATH_MAX];
        ferr_add(c->errs, FERR_REQUIRED, fpath_field(path, parent, key), NULL, NULL);
        return NULL;
    }
    return v ? json_string_value(v) : NULL;
}

bool conv_int(struct conv *c, const json_t *o, const char *key, const char *parent,
              long long min, long long *out)
{
    char path[FPATH_MAX];
    const json_t *v = present(c, o, key, parent, false, path);
    long long x;
    if (!v)
        return false;
    if (jx_int(o, key, &x) < 0) {
        ferr_add(c->errs, FERR_INVALID, path, v, "must be an integer");
        return false;
    }
    if (x < min) {
        ferr_add(c->errs, FERR_INVALID, path, v, "must be greater than or equal to %lld", min);
        return false;
    }
    *out = x;
    return true;
}

bool conv_bool(struct conv *c, const json_t *o, const char *key, const char *parent, bool *out)
{
    char path[FPATH_MAX];
    const json_t *v = present(c, o, key, parent, false, path);
    if (!v)
        return false;
    if (!json_is_boolean(v)) {
        ferr_add(c->errs, FERR_INVALID, path, v, "must be a boolean");
        return false;
    }
    *out = json_is_true(v);
    return true;
}

const char *conv_enum(struct conv *c, const json_t *o, const char *key, const char *parent,
                      const char *const *allowed)
{
    const char *v = conv_str(c, o, key, parent, false);
    char list[FPATH_MAX] = "", path[FPATH_MAX];
    size_t off = 0;
    if (!v)
        return NULL;
    for (size_t i = 0; allowed[i]; i++) {
        if (strcmp(v, allowed[i]) == 0)
            return v;
        off += (size_t)snprintf(list + off, off < sizeof(list) ? sizeof(list) - off : 0,
                                "%s\"%s\"", i ? ", " : "", allowed[i]);
    }
    ferr_add_str(c->errs, FERR_NOT_SUPPORTED, fpath_field(path, parent, key), v, "%s", list);
    return NULL;
}

void conv_dns1035(struct conv *c, const char *name, const char *path, const char *hint)
{
    struct dns_msgs m;
    if (!name || !*name) {
        ferr_add(c->errs, FERR_REQUIRED, path, NULL, NULL);
        return;
    }
    dns_1035_label(name, &m);
    for (size_t i = 0; i < m.n; i++)
        ferr_add_str(c->errs, FERR_INVALID, path, name, "%s%s", m.v[i], hint ? hint : "");
}

void conv_env(struct conv *c, const json_t *env, const char *path, enum jaxrt_flavor f)
{
    char epath[FPATH_MAX], npath[FPATH_MAX];
    size_t i;
    const json_t *e;
    json_array_foreach(env, i, e) {
        snprintf(epath, sizeof(epath), "%s[%zu]", path, i);
        if (!json_is_object(e)) {
            ferr_add(c->errs, FERR_INVALID, epath, e, "must be an object");
            continue;
        }
        const char *name = conv_str(c, e, "name", epath, true);
        if (name && jaxrt_is_reserved(f, name))
            ferr_add_str(c->errs, FERR_INVALID, fpath_field(npath, epath, "name"), name,
                         CONV_RESERVED_MSG);
    }
}

const json_t *conv_metadata(struct conv *c, const json_t *doc, const char **out_name,
                            const char **out_ns)
{
    const json_t *meta = conv_obj(c, doc, "metadata", "", false);
    *out_name = conv_str(c, meta, "name", "metadata", false);
    *out_ns = conv_str(c, meta, "namespace", "metadata", false);
    (void)conv_obj(c, meta, "labels", "metadata", false);
    (void)conv_obj(c, meta, "annotations", "metadata", false);
    const json_t *raw = meta ? json_object_get(meta, "name") : json_object_get(doc, "metadata");
    if (*out_name || !raw || json_is_null(raw))
        conv_dns1035(c, *out_name, "metadata.name", NULL);
    return meta;
}

static void check_container(struct conv *c, const json_t *ct, const char *path,
                            enum jaxrt_flavor f)
{
    char epath[FPATH_MAX];
    if (!json_is_object(ct)) {
        ferr_add(c->errs, FERR_INVALID, path, ct, "must be an object");
        return;
    }
    (void)conv_str(c, ct, "name", path, true);
    const json_t *env = conv_arr(c, ct, "env", path, false);
    if (env)
        conv_env(c, env, fpath_field(epath, path, "env"), f);
}

const json_t *conv_containers(struct conv *c, const json_t *pspec, const char *path,
                              enum jaxrt_flavor f)
{
    const json_t *cts = json_is_object(pspec) ? json_object_get(pspec, "containers") : NULL;
    char cpath[FPATH_MAX];
    size_t i;
    const json_t *ct;
    if (!cts || json_is_null(cts))
        return NULL;
    if (!json_is_array(cts)) {
        ferr_add(c->errs, FERR_INVALID, path, cts, "must be a list");
        return NULL;
    }
    json_array_foreach(cts, i, ct) {
        snprintf(cpath, sizeof(cpath), "%s[%zu]", path, i);
        check_container(c, ct, cpath, f);
    }
    return cts;
}

json_t *conv_named(const json_t *arr, const char *name, size_t *idx)
{
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        const char *n = jx_str(e, "name");
        if (n && strcmp(n, name) == 0) {
            if (idx)
                *idx = i;
            return e;
        }
    }
    return NULL;
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
