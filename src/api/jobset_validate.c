/* js_validate: create validation of a JobSet — CRD schema (types, required, maxItems), object
 * metadata, replicated jobs; policies live in jobset_validate_policy.c and the batch/v1 template
 * rules in job_template_validate.c. */
#include "api/jobset.h"
#include "api/jobset_validate_int.h"
#include "api/keys.h"
#include "obj/dns.h"
#include "obj/jx.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- error helpers ------------------------------------------------------------------------ */

void jsv__add_int(struct jsv *c, enum ferr_type t, const char *path, long long v, const char *fmt,
                  ...)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%lld", v);
    va_list ap;
    va_start(ap, fmt);
    ferr_addv(c->errs, t, path, buf, fmt, ap);
    va_end(ap);
}

void jsv__dns(struct jsv *c, const char *path, const char *value, const struct dns_msgs *m,
              const char *too_long)
{
    for (size_t i = 0; i < m->n; i++) {
        const char *msg = m->v[i];
        if (too_long && strcmp(msg, DNS_MAXLEN63_MSG) == 0)
            msg = too_long;
        ferr_add_str(c->errs, FERR_INVALID, path, value, "%s", msg);
    }
}

void jsv__enum(struct jsv *c, const json_t *o, const char *key, const char *parent,
               const char *const *allowed, bool required)
{
    const char *v = jx_str(o, key);
    if (!v || (required && !*v))
        return;
    char list[FPATH_MAX] = "", path[FPATH_MAX];
    size_t off = 0;
    for (size_t i = 0; allowed[i]; i++) {
        if (strcmp(v, allowed[i]) == 0)
            return;
        off += (size_t)snprintf(list + off, off < sizeof(list) ? sizeof(list) - off : 0, "%s\"%s\"",
                                i ? ", " : "", allowed[i]);
    }
    ferr_add_str(c->errs, FERR_NOT_SUPPORTED, fpath_field(path, parent, key), v, "%s", list);
}

long long jsv__int(const json_t *o, const char *key, long long def, bool *set)
{
    long long v;
    bool ok = jx_int(o, key, &v) == 0;
    if (set)
        *set = ok;
    return ok ? v : def;
}

void jsv__min(struct jsv *c, const json_t *o, const char *key, const char *parent, long long min)
{
    bool set;
    long long v = jsv__int(o, key, 0, &set);
    char path[FPATH_MAX];
    if (set && v < min)
        jsv__add_int(c, FERR_INVALID, fpath_field(path, parent, key), v,
                     "must be greater than or equal to %lld", min);
}

long jsv__rj_find(const struct jsv *c, const char *name, size_t limit)
{
    for (size_t i = 0; name && i < limit && i < json_array_size(c->rjs); i++) {
        const char *n = jx_str(json_array_get(c->rjs, i), "name");
        if (n && strcmp(n, name) == 0)
            return (long)i;
    }
    return -1;
}

/* ---- schema walker ------------------------------------------------------------------------ */

static bool is_integral(const json_t *v)
{
    if (json_is_integer(v))
        return true;
    if (!json_is_real(v))
        return false;
    double d = json_real_value(v);
    return d > -9.2e18 && d < 9.2e18 && d == (double)(long long)d; /* NaN fails both */
}

static bool type_ok(const json_t *v, enum jsv_type t)
{
    switch (t) {
    case JT_STR:
        return json_is_string(v);
    case JT_INT32:
    case JT_INT64:
        return is_integral(v);
    case JT_BOOL:
        return json_is_boolean(v);
    case JT_OBJ:
    case JT_STRMAP:
        return json_is_object(v);
    case JT_ARR:
        return json_is_array(v);
    }
    return false;
}

static const char *type_name(enum jsv_type t)
{
    static const char *const names[] = {
        [JT_STR] = "string", [JT_INT32] = "integer", [JT_INT64] = "integer", [JT_BOOL] = "boolean",
        [JT_OBJ] = "object", [JT_ARR] = "array",     [JT_STRMAP] = "object",
    };
    return names[t];
}

static void walk_obj(struct jsv *c, const json_t *o, const struct jsv_field *fields,
                     const char *path);

static void walk_strmap(struct jsv *c, const json_t *o, const char *path)
{
    const char *k;
    const json_t *v;
    char p[FPATH_MAX];
    json_object_foreach((json_t *)o, k, v)
    {
        if (!json_is_string(v))
            ferr_add(c->errs, FERR_INVALID, fpath_key(p, "", path, k), v, "must be of type string");
    }
}

static void walk_value(struct jsv *c, const json_t *v, enum jsv_type t, const struct jsv_field *f,
                       const char *path);

static void walk_arr(struct jsv *c, const json_t *a, const struct jsv_field *f, const char *path)
{
    char p[FPATH_MAX];
    size_t n = json_array_size(a);
    if (f->max_items && n > f->max_items)
        jsv__add_int(c, FERR_TOO_MANY, path, (long long)n, "must have at most %u items",
                     f->max_items);
    for (size_t i = 0; i < n; i++) {
        snprintf(p, sizeof(p), "%s[%zu]", path, i);
        walk_value(c, json_array_get(a, i), f->item, f, p);
    }
}

static void walk_value(struct jsv *c, const json_t *v, enum jsv_type t, const struct jsv_field *f,
                       const char *path)
{
    if (!type_ok(v, t)) {
        ferr_add(c->errs, FERR_INVALID, path, v, "must be of type %s", type_name(t));
        return;
    }
    switch (t) {
    case JT_INT32: {
        double d = json_is_integer(v) ? (double)json_integer_value(v) : json_real_value(v);
        if (d < INT32_MIN || d > INT32_MAX)
            ferr_add(c->errs, FERR_INVALID, path, v, "must be a 32-bit integer");
        break;
    }
    case JT_STR:
        if ((f->flags & JF_REQ) && !*json_string_value(v) && f->type == JT_STR)
            ferr_add(c->errs, FERR_REQUIRED, path, NULL, NULL);
        break;
    case JT_OBJ:
        if (f->sub)
            walk_obj(c, v, f->sub, path);
        break;
    case JT_ARR:
        walk_arr(c, v, f, path);
        break;
    case JT_STRMAP:
        walk_strmap(c, v, path);
        break;
    default:
        break;
    }
}

static void walk_obj(struct jsv *c, const json_t *o, const struct jsv_field *fields,
                     const char *path)
{
    char p[FPATH_MAX];
    for (const struct jsv_field *f = fields; f->key; f++) {
        const json_t *v = json_object_get(o, f->key);
        fpath_field(p, path, f->key);
        if (!v || json_is_null(v)) {
            if (f->flags & JF_REQ)
                ferr_add(c->errs, FERR_REQUIRED, p, NULL, NULL);
            continue;
        }
        walk_value(c, v, f->type, f, p);
    }
}

/* ---- schema -------------------------------------------------------------------------------- */

const struct jsv_field jsv__meta_fields[] = {
    JSV_FLD("name", JT_STR),      JSV_FLD("generateName", JT_STR),   JSV_FLD("namespace", JT_STR),
    JSV_FLD("labels", JT_STRMAP), JSV_FLD("annotations", JT_STRMAP), JSV_END,
};

static const struct jsv_field f_dep[] = {
    JSV_REQ("name", JT_STR),
    JSV_REQ("status", JT_STR),
    JSV_END,
};

const struct jsv_field jsv__rj_fields[] = {
    JSV_REQ("name", JT_STR),
    JSV_FLD("groupName", JT_STR),
    JSV_FLD("replicas", JT_INT32),
    JSV_OBJ("template", JF_REQ, jsv__jobtmpl_fields),
    JSV_ARR("dependsOn", 0, JT_OBJ, f_dep, 5),
    JSV_END,
};

static const struct jsv_field f_root[] = {
    JSV_REQ("apiVersion", JT_STR),
    JSV_REQ("kind", JT_STR),
    JSV_OBJ("metadata", 0, jsv__meta_fields),
    JSV_OBJ("spec", JF_REQ, jsv__spec_fields),
    JSV_END,
};

/* ---- metadata ------------------------------------------------------------------------------ */

#define JOB_NAME_TOO_LONG                                                                          \
    "JobSet name is too long, job names generated for this JobSet will exceed 63 characters"
#define POD_NAME_TOO_LONG                                                                          \
    "JobSet name is too long, pod names generated for this JobSet will exceed 63 characters"
#define GROUP_NAME_TOO_LONG                                                                        \
    ".spec.replicatedJob[].groupName is too long, must be less than 63 characters"

/* Kubernetes' SimpleNameGenerator: the prefix cut to 58 characters plus 5 random ones. */
#define GEN_NAME_PREFIX_MAX 58
#define GEN_NAME_SUFFIX "bcdfg"

static bool present(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return v && !json_is_null(v);
}

static void check_generate_name(struct jsv *c, const char *gen)
{
    struct dns_msgs m;
    char *masked = strdup(gen);
    if (!masked) {
        c->rc = -ENOMEM;
        return;
    }
    size_t n = strlen(masked);
    if (n > 1 && masked[n - 1] == '-')
        masked[n - 1] = 'a'; /* a generated suffix follows the dash */
    dns_1123_subdomain(masked, &m);
    jsv__dns(c, "metadata.generateName", gen, &m, NULL);
    free(masked);
    snprintf(c->gen_name, sizeof(c->gen_name), "%.*s%s", GEN_NAME_PREFIX_MAX, gen, GEN_NAME_SUFFIX);
    c->name = c->gen_name;
}

static void check_names(struct jsv *c)
{
    const char *name = jx_str(c->meta, "name"), *gen = jx_str(c->meta, "generateName");
    const char *ns = jx_str(c->meta, "namespace");
    struct dns_msgs m;
    if (gen && *gen)
        check_generate_name(c, gen);
    if (name && *name) {
        dns_1123_subdomain(name, &m);
        jsv__dns(c, "metadata.name", name, &m, NULL);
        c->name = name;
    } else if (!(gen && *gen) && !(present(c->meta, "name") && !name)) {
        ferr_add(c->errs, FERR_REQUIRED, "metadata.name", NULL, "name or generateName is required");
    }
    if (ns && !*ns) {
        ferr_add(c->errs, FERR_REQUIRED, "metadata.namespace", NULL, NULL);
    } else if (ns) {
        dns_1123_label(ns, &m);
        jsv__dns(c, "metadata.namespace", ns, &m, NULL);
    }
}

static void check_annotation_keys(struct jsv *c, const json_t *ann, const char *path)
{
    const char *k;
    const json_t *v;
    struct dns_msgs m;
    json_object_foreach((json_t *)ann, k, v)
    {
        char *lower = strdup(k);
        if (!lower) {
            c->rc = -ENOMEM;
            return;
        }
        for (char *p = lower; *p; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
        dns_qualified_name(lower, &m);
        free(lower);
        jsv__dns(c, path, k, &m, NULL);
    }
}

void jsv__meta_maps(struct jsv *c, const json_t *meta, const char *meta_path)
{
    char p[FPATH_MAX];
    const char *k;
    const json_t *v;
    struct dns_msgs m;
    fpath_field(p, meta_path, "labels");
    json_object_foreach(jx_obj(meta, "labels"), k, v)
    {
        dns_qualified_name(k, &m);
        jsv__dns(c, p, k, &m, NULL);
        if (!json_is_string(v))
            continue;
        dns_label_value(json_string_value(v), &m);
        jsv__dns(c, p, json_string_value(v), &m, NULL);
    }
    fpath_field(p, meta_path, "annotations");
    check_annotation_keys(c, jx_obj(meta, "annotations"), p);
}

static const char *const api_versions[] = {JOBSET_GROUP_VERSION, NULL};
static const char *const kinds[] = {JOBSET_KIND, NULL};

static void check_object_meta(struct jsv *c)
{
    jsv__enum(c, c->js, "apiVersion", "", api_versions, true);
    jsv__enum(c, c->js, "kind", "", kinds, true);
    check_names(c);
    jsv__meta_maps(c, c->meta, "metadata");
}

/* ---- replicated jobs ----------------------------------------------------------------------- */

static bool in_int32(long long v)
{
    return v >= INT32_MIN && v <= INT32_MAX;
}

static void check_generated_name(struct jsv *c, const char *path, const char *too_long,
                                 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void check_generated_name(struct jsv *c, const char *path, const char *too_long,
                                 const char *fmt, ...)
{
    char *gen = NULL;
    struct dns_msgs m;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&gen, fmt, ap);
    va_end(ap);
    if (n < 0) {
        c->rc = -ENOMEM;
        return;
    }
    dns_1035_label(gen, &m);
    jsv__dns(c, path, gen, &m, too_long);
    free(gen);
}

static void check_rj_names(struct jsv *c, size_t i, const json_t *rj, const char *p)
{
    const char *name = jx_str(rj, "name"), *group = jx_str(rj, "groupName");
    char path[FPATH_MAX];
    struct dns_msgs m;
    if (group) {
        dns_1035_label(group, &m);
        jsv__dns(c, fpath_field(path, p, "groupName"), group, &m, GROUP_NAME_TOO_LONG);
    }
    if (!name || !*name)
        return;
    fpath_field(path, p, "name");
    if (jsv__rj_find(c, name, i) >= 0)
        ferr_add_str(c->errs, FERR_DUPLICATE, path, name, NULL);
    if (!c->name)
        return;
    long long replicas = jsv__int(rj, "replicas", 1, NULL);
    if (!in_int32(replicas))
        replicas = 1;
    check_generated_name(c, path, JOB_NAME_TOO_LONG, "%s-%s-%lld", c->name, name, replicas - 1);
    const json_t *tspec = jx_path(rj, "template.spec");
    const char *mode = jx_str(tspec, "completionMode");
    bool has_comp;
    long long comp = jsv__int(tspec, "completions", 0, &has_comp);
    if (mode && strcmp(mode, "Indexed") == 0 && has_comp && in_int32(comp))
        check_generated_name(c, path, POD_NAME_TOO_LONG, "%s-%s-%lld-%lld-abcde", c->name, name,
                             replicas - 1, comp - 1);
}

static void check_rj_product(struct jsv *c, const json_t *rj, const char *p)
{
    long long replicas = jsv__int(rj, "replicas", 1, NULL);
    long long par = jsv__int(jx_path(rj, "template.spec"), "parallelism", 1, NULL);
    const char *name = jx_str(rj, "name");
    char path[FPATH_MAX];
    if (!in_int32(replicas) || !in_int32(par) || replicas * par <= INT32_MAX)
        return;
    jsv__add_int(c, FERR_INVALID, fpath_field(path, p, "replicas"), replicas,
                 "the product of replicas and parallelism must not exceed %d for replicatedJob "
                 "'%s'",
                 INT32_MAX, name ? name : "");
}

static const char *const dep_statuses[] = {"Ready", "Complete", NULL};

static bool dep_seen(const json_t *deps, size_t j, const char *name)
{
    for (size_t k = 0; k < j; k++) {
        const char *n = jx_str(json_array_get(deps, k), "name");
        if (n && strcmp(n, name) == 0)
            return true;
    }
    return false;
}

static void check_depends_on(struct jsv *c, size_t i, const json_t *rj, const char *p)
{
    const json_t *deps = json_object_get(rj, "dependsOn");
    const char *self = jx_str(rj, "name");
    char dp[FPATH_MAX], ip[FPATH_MAX], np[FPATH_MAX];
    if (!deps || json_is_null(deps))
        return;
    fpath_field(dp, p, "dependsOn");
    if (i == 0) {
        ferr_add(c->errs, FERR_INVALID, dp, deps, "DependsOn can't be set for the first ReplicatedJob");
        return;
    }
    for (size_t j = 0; j < json_array_size(deps); j++) {
        const json_t *d = json_array_get(deps, j);
        const char *dn = jx_str(d, "name");
        snprintf(ip, sizeof(ip), "%s[%zu]", dp, j);
        jsv__enum(c, d, "status", ip, dep_statuses, true);
        if (!dn || !*dn)
            continue;
        fpath_field(np, ip, "name");
        if (dep_seen(deps, j, dn))
            ferr_add_str(c->errs, FERR_DUPLICATE, np, dn, NULL);
        else if (jsv__rj_find(c, dn, i) < 0)
            ferr_add_str(c->errs, FERR_INVALID, np, dn,
                         "replicatedJob: %s cannot depend on replicatedJob: %s", self ? self : "",
                         dn);
    }
}

static void check_rj(struct jsv *c, size_t i)
{
    const json_t *rj = json_array_get(c->rjs, i);
    char p[FPATH_MAX], tp[FPATH_MAX];
    if (!json_is_object(rj))
        return;
    fpath_index(p, "spec", "replicatedJobs", i);
    jsv__min(c, rj, "replicas", p, 0);
    check_rj_names(c, i, rj, p);
    check_rj_product(c, rj, p);
    check_depends_on(c, i, rj, p);
    const json_t *tmpl = jx_obj(rj, "template");
    if (tmpl)
        jsv__job_template(c, tmpl, fpath_field(tp, p, "template"));
}

int js_validate(const json_t *js, struct ferr_list *errs)
{
    struct jsv c = {.js = js, .errs = errs};
    size_t start = errs->n;
    if (!json_is_object(js)) {
        ferr_add(c.errs, FERR_INVALID, "object", js, "must be of type object");
        return c.rc ? c.rc : errs->rc ? errs->rc : 1;
    }
    c.meta = jx_obj(js, "metadata");
    c.spec = jx_obj(js, "spec");
    c.rjs = jx_arr(c.spec, "replicatedJobs");
    walk_obj(&c, js, f_root, "");
    check_object_meta(&c);
    for (size_t i = 0; i < json_array_size(c.rjs); i++)
        check_rj(&c, i);
    jsv__policies(&c);
    return c.rc ? c.rc : errs->rc ? errs->rc : (int)(errs->n - start);
}
