/* js_validate: create validation of a JobSet — CRD schema (the root table below, walked by
 * api/schema/check.h's chk_walk: types, required, maxItems), object metadata, replicated jobs;
 * the spec's schema and policies live in jobset_validate_policy.c, the label and annotation
 * rules in jobset_validate_meta.c and the batch/v1 template rules in job_template_validate.c.
 * The top of the validation files: none of them calls this one. */
#include "api/jobset/jobset.h"
#include "api/jobset/jobset_validate_int.h"
#include "api/schema/keys.h"
#include "obj/tree/dns.h"
#include "obj/tree/jx.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- schema -------------------------------------------------------------------------------- */

static const struct chk_field f_root[] = {
    CHK_F_REQ("apiVersion", CHK_STR),
    CHK_F_REQ("kind", CHK_STR),
    CHK_F_OBJ("metadata", 0, js__meta_fields),
    CHK_F_OBJ("spec", CHK_REQUIRED, js__spec_fields),
    CHK_F_END,
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

static void check_generate_name(struct jsv *c, const char *gen)
{
    struct dns_msgs m;
    char *masked = strdup(gen);
    if (!masked) {
        c->chk.rc = -ENOMEM;
        return;
    }
    size_t n = strlen(masked);
    if (n > 1 && masked[n - 1] == '-')
        masked[n - 1] = 'a'; /* a generated suffix follows the dash */
    dns_1123_subdomain(masked, &m);
    chk_dns(&c->chk, "metadata.generateName", gen, &m, NULL);
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
        chk_dns(&c->chk, "metadata.name", name, &m, NULL);
        c->name = name;
    } else if (!(gen && *gen) && !(chk_present(c->meta, "name") && !name)) {
        ferr_add(c->chk.errs, FERR_REQUIRED, "metadata.name", NULL,
                 "name or generateName is required");
    }
    if (ns && !*ns) {
        ferr_add(c->chk.errs, FERR_REQUIRED, "metadata.namespace", NULL, NULL);
    } else if (ns) {
        dns_1123_label(ns, &m);
        chk_dns(&c->chk, "metadata.namespace", ns, &m, NULL);
    }
}

static const char *const api_versions[] = {JOBSET_GROUP_VERSION, NULL};
static const char *const kinds[] = {JOBSET_KIND, NULL};

static void check_object_meta(struct jsv *c)
{
    (void)chk_enum(&c->chk, c->js, "apiVersion", "", api_versions, true);
    (void)chk_enum(&c->chk, c->js, "kind", "", kinds, true);
    check_names(c);
    js__meta_maps(c, c->meta, "metadata");
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
        c->chk.rc = -ENOMEM;
        return;
    }
    dns_1035_label(gen, &m);
    chk_dns(&c->chk, path, gen, &m, too_long);
    free(gen);
}

static void check_rj_names(struct jsv *c, size_t i, const json_t *rj, const char *p)
{
    const char *name = jx_str(rj, "name"), *group = jx_str(rj, "groupName");
    char path[FPATH_MAX];
    struct dns_msgs m;
    if (group) {
        dns_1035_label(group, &m);
        chk_dns(&c->chk, fpath_field(path, p, "groupName"), group, &m, GROUP_NAME_TOO_LONG);
    }
    if (!name || !*name)
        return;
    fpath_field(path, p, "name");
    if (chk_name_nth(c->rj_index, name, 0) < (long long)i)
        ferr_add_str(c->chk.errs, FERR_DUPLICATE, path, name, NULL);
    if (!c->name)
        return;
    long long replicas = chk_int_or(rj, "replicas", 1, NULL);
    if (!in_int32(replicas))
        replicas = 1;
    check_generated_name(c, path, JOB_NAME_TOO_LONG, "%s-%s-%lld", c->name, name, replicas - 1);
    const json_t *tspec = jx_path(rj, "template.spec");
    const char *mode = jx_str(tspec, "completionMode");
    bool has_comp;
    long long comp = chk_int_or(tspec, "completions", 0, &has_comp);
    if (mode && strcmp(mode, "Indexed") == 0 && has_comp && in_int32(comp))
        check_generated_name(c, path, POD_NAME_TOO_LONG, "%s-%s-%lld-%lld-abcde", c->name, name,
                             replicas - 1, comp - 1);
}

static void check_rj_product(struct jsv *c, const json_t *rj, const char *p)
{
    long long replicas = chk_int_or(rj, "replicas", 1, NULL);
    long long par = chk_int_or(jx_path(rj, "template.spec"), "parallelism", 1, NULL);
    const char *name = jx_str(rj, "name");
    char path[FPATH_MAX];
    if (!in_int32(replicas) || !in_int32(par) || replicas * par <= INT32_MAX)
        return;
    chk_add_int(&c->chk, FERR_INVALID, fpath_field(path, p, "replicas"), replicas,
                "the product of replicas and parallelism must not exceed %d for replicatedJob "
                "'%s'",
                INT32_MAX, name ? name : "");
}

static const char *const dep_statuses[] = {"Ready", "Complete", NULL};

static void check_depends_on(struct jsv *c, size_t i, const json_t *rj, const char *p)
{
    const json_t *deps = json_object_get(rj, "dependsOn");
    const char *self = jx_str(rj, "name");
    char dp[FPATH_MAX], ip[FPATH_MAX], np[FPATH_MAX];
    if (!deps || json_is_null(deps))
        return;
    fpath_field(dp, p, "dependsOn");
    if (i == 0) {
        ferr_add(c->chk.errs, FERR_INVALID, dp, deps,
                 "DependsOn can't be set for the first ReplicatedJob");
        return;
    }
    json_t *by_name = chk_name_index(deps);
    if (!by_name) {
        c->chk.rc = -ENOMEM;
        return;
    }
    for (size_t j = 0; j < json_array_size(deps); j++) {
        const json_t *d = json_array_get(deps, j);
        const char *dn = jx_str(d, "name");
        fpath_fmt(ip, "%s[%zu]", dp, j);
        (void)chk_enum(&c->chk, d, "status", ip, dep_statuses, true);
        if (!dn || !*dn)
            continue;
        fpath_field(np, ip, "name");
        if (chk_name_nth(by_name, dn, 0) < (long long)j)
            ferr_add_str(c->chk.errs, FERR_DUPLICATE, np, dn, NULL);
        else if (chk_name_nth(c->rj_index, dn, 0) < 0 ||
                 chk_name_nth(c->rj_index, dn, 0) >= (long long)i)
            ferr_add_str(c->chk.errs, FERR_INVALID, np, dn,
                         "replicatedJob: %s cannot depend on replicatedJob: %s", self ? self : "",
                         dn);
    }
    json_decref(by_name);
}

static void check_rj(struct jsv *c, size_t i)
{
    const json_t *rj = json_array_get(c->rjs, i);
    char p[FPATH_MAX], tp[FPATH_MAX];
    if (!json_is_object(rj))
        return;
    fpath_index(p, "spec", "replicatedJobs", i);
    (void)chk_int(&c->chk, rj, "replicas", p, 0, NULL);
    check_rj_names(c, i, rj, p);
    check_rj_product(c, rj, p);
    check_depends_on(c, i, rj, p);
    const json_t *tmpl = jx_obj(rj, "template");
    if (tmpl)
        js__job_template(c, tmpl, fpath_field(tp, p, "template"));
}

int js_validate(const json_t *js, struct ferr_list *errs)
{
    return js_validate_gated(js, NULL, errs);
}

int js_validate_gated(const json_t *js, const struct feature_gates *g, struct ferr_list *errs)
{
    return js_validate_cluster(js, g, errs, NULL);
}

int js_validate_cluster(const json_t *js, const struct feature_gates *g, struct ferr_list *errs,
                        struct ferr_list *later)
{
    struct jsv c = {.js = js, .gates = g, .later = later};
    chk_init(&c.chk, errs, CHK_SCHEMA);
    if (!json_is_object(js)) {
        chk_type_error(&c.chk, "object", js, CHK_OBJ);
        return chk_result(&c.chk);
    }
    c.meta = jx_obj(js, "metadata");
    c.spec = jx_obj(js, "spec");
    c.rjs = jx_arr(c.spec, "replicatedJobs");
    c.rj_index = chk_name_index(c.rjs);
    if (!c.rj_index) {
        c.chk.rc = -ENOMEM;
        return chk_result(&c.chk);
    }
    chk_walk(&c.chk, js, f_root, "");
    check_object_meta(&c);
    for (size_t i = 0; i < json_array_size(c.rjs); i++)
        check_rj(&c, i);
    js__policies(&c);
    json_decref(c.rj_index);
    return chk_result(&c.chk);
}
