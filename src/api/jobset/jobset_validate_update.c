/* JobSet update validation (jobSetWebhook.ValidateUpdate of kubernetes-sigs/jobset
 * pkg/webhooks/jobset_webhook.go): spec.replicatedJobs and spec.managedBy are immutable, except
 * that while the old or the new object is suspended each replicated job's pod template may
 * change its labels, annotations, nodeSelector, tolerations and schedulingGates (what Kueue
 * writes), and that with the ElasticJobSet gate an Indexed replicated job may change its
 * parallelism and completions together.  With that gate jaxset also lets a replicated job change
 * its replicas (Job-level scaling, which upstream v0.12.0 still refuses as immutable: KEP-463
 * leaves it to future work), under the rules upstream gives parallelism: not once the JobSet is
 * Completed or Failed, and not below 1.  The other immutable fields (network, successPolicy,
 * failurePolicy, startupPolicy, volumeClaimPolicies, dependsOn) are CEL rules of the CRD, which
 * the API server enforces. */
#include <errno.h>
#include <string.h>

#include "api/jobset/features.h"
#include "api/jobset/jobset.h"
#include "obj/tree/jx.h"

static const char *const kueue_mutable[] = {"metadata.labels", "metadata.annotations",
                                            "spec.nodeSelector", "spec.tolerations",
                                            "spec.schedulingGates"};

/* dst.<dotted> = src.<dotted> (absent when absent in src); dst is the pod template. */
static int copy_field(json_t *dst, const json_t *src, const char *dotted)
{
    const char *dot = strchr(dotted, '.');
    char parent[32];
    snprintf(parent, sizeof(parent), "%.*s", (int)(dot - dotted), dotted);
    const json_t *v = json_object_get(jx_obj(src, parent), dot + 1);
    json_t *dp = jx_obj(dst, parent);
    if (!v) {
        json_object_del(dp, dot + 1);
        if (dp && json_object_size(dp) == 0 && !jx_obj(src, parent))
            json_object_del(dst, parent);
        return 0;
    }
    if (!(dp = jx_ensure_obj(dst, parent)))
        return -ENOMEM;
    return json_object_set(dp, dot + 1, (json_t *)v) == 0 ? 0 : -ENOMEM;
}

static bool terminal(const json_t *js)
{
    size_t i;
    json_t *c;
    json_array_foreach (jx_arr(jx_obj(js, "status"), "conditions"), i, c) {
        const char *t = jx_str(c, "type"), *s = jx_str(c, "status");
        if (t && s && strcmp(s, "True") == 0 &&
            (strcmp(t, "Completed") == 0 || strcmp(t, "Failed") == 0))
            return true;
    }
    return false;
}

/* Below 1, when changed: upstream's error at `path`.<field>. */
static int elastic_min(const json_t *nspec, const json_t *ospec, const char *field,
                       const char *path, struct ferr_list *errs)
{
    const json_t *n = json_object_get(nspec, field);
    long long v;
    char p[FPATH_MAX];
    if (json_equal(n, json_object_get(ospec, field)) || jx_int(nspec, field, &v) < 0 || v >= 1)
        return 0;
    return ferr_add(errs, FERR_INVALID, fpath_field(p, path, field), n, "%s must be >= 1", field);
}

/* ElasticJobSet: checks the new parallelism/completions of an Indexed job as upstream's
 * ValidateUpdate does (kubernetes-sigs/jobset pkg/webhooks/jobset_webhook.go: every error at
 * its field, the terminal state read from the stored JobSet), then copies the old ones into
 * `munged`. */
static int elastic(json_t *munged_rj, const json_t *old_rj, const json_t *old_js, size_t i,
                   struct ferr_list *errs)
{
    json_t *nspec = jx_path(munged_rj, "template.spec");
    const json_t *ospec = jx_path(old_rj, "template.spec");
    const char *mode = jx_str(nspec, "completionMode");
    if (!nspec || !ospec || !mode || strcmp(mode, "Indexed") != 0)
        return 0;
    const json_t *np = json_object_get(nspec, "parallelism"),
                 *nc = json_object_get(nspec, "completions");
    if (json_equal(np, json_object_get(ospec, "parallelism")) &&
        json_equal(nc, json_object_get(ospec, "completions")))
        return 0;
    char path[FPATH_MAX], cpath[FPATH_MAX];
    fpath_fmt(path, "spec.replicatedJobs[%zu].template.spec", i);
    long long p, c;
    int rc = 0;
    if (terminal(old_js)) {
        rc = ferr_add(errs, FERR_FORBIDDEN, path, NULL, "Cannot mutate parallelism or "
                      "completions when JobSet is in a terminal state (Completed or Failed)");
    } else {
        rc = elastic_min(nspec, ospec, "parallelism", path, errs);
        if (rc == 0)
            rc = elastic_min(nspec, ospec, "completions", path, errs);
        if (rc == 0 && jx_int(nspec, "parallelism", &p) == 0 &&
            jx_int(nspec, "completions", &c) == 0 && p != c)
            rc = ferr_add(errs, FERR_INVALID, fpath_field(cpath, path, "completions"), nc,
                          "completions must be equal to parallelism for Elastic Indexed Jobs");
    }
    if (rc < 0)
        return rc;
    json_t *o = (json_t *)json_object_get(ospec, "parallelism");
    if (o ? json_object_set(nspec, "parallelism", o) : json_object_del(nspec, "parallelism"), 0)
        return -ENOMEM;
    o = (json_t *)json_object_get(ospec, "completions");
    if (o ? json_object_set(nspec, "completions", o) : json_object_del(nspec, "completions"), 0)
        return -ENOMEM;
    return 0;
}

/* ElasticJobSet, jaxset's Job-level scaling: a change of replicas is checked as upstream checks
 * one of parallelism (terminal state, at least 1), at spec.replicatedJobs[i].replicas, and the
 * old value copied into `munged_rj`. */
static int elastic_replicas(json_t *munged_rj, const json_t *old_rj, const json_t *old_js,
                            size_t i, struct ferr_list *errs)
{
    const json_t *n = json_object_get(munged_rj, "replicas"), *o = json_object_get(old_rj,
                                                                                  "replicas");
    long long v = jx_int_or(munged_rj, "replicas", 1);
    char path[FPATH_MAX];
    int rc = 0;
    if (jx_int_or(old_rj, "replicas", 1) == v)
        return 0;
    fpath_fmt(path, "spec.replicatedJobs[%zu].replicas", i);
    if (terminal(old_js))
        rc = ferr_add(errs, FERR_FORBIDDEN, path, NULL, "Cannot mutate replicas when JobSet is "
                      "in a terminal state (Completed or Failed)");
    else if (v < 1)
        rc = ferr_add(errs, FERR_INVALID, path, n, "replicas must be >= 1");
    if (rc < 0)
        return rc;
    if (!o) {
        json_object_del(munged_rj, "replicas");
        return 0;
    }
    return json_object_set(munged_rj, "replicas", (json_t *)o) == 0 ? 0 : -ENOMEM;
}

static int munge(json_t *mrjs, const json_t *orjs, const json_t *old_js, bool suspended,
                 const struct feature_gates *g, struct ferr_list *errs)
{
    size_t i;
    json_t *r;
    json_array_foreach (mrjs, i, r) {
        const json_t *o = jx_named(orjs, jx_str(r, "name"));
        if (!o)
            continue;
        json_t *pt = jx_path(r, "template.spec.template");
        const json_t *opt = jx_path(o, "template.spec.template");
        for (size_t k = 0; suspended && pt && opt && k < 5; k++)
            if (copy_field(pt, opt, kueue_mutable[k]) < 0)
                return -ENOMEM;
        if (fg_enabled(g, FG_ELASTIC_JOBSET) && (elastic(r, o, old_js, i, errs) < 0 ||
                                                 elastic_replicas(r, o, old_js, i, errs) < 0))
            return -ENOMEM;
    }
    return 0;
}

int js_validate_update(const json_t *old_js, const json_t *new_js, const struct feature_gates *g,
                       struct ferr_list *errs)
{
    size_t n0 = errs->n;
    const json_t *ospec = jx_obj(old_js, "spec"), *nspec = jx_obj(new_js, "spec");
    const json_t *orjs = json_object_get(ospec, "replicatedJobs");
    json_t *mrjs = json_deep_copy(json_object_get(nspec, "replicatedJobs"));
    bool suspended = jx_bool_or(ospec, "suspend", false) || jx_bool_or(nspec, "suspend", false);
    int rc = 0;
    if (json_object_get(nspec, "replicatedJobs") && !mrjs)
        return -ENOMEM;
    if (json_is_array(mrjs) && json_is_array(orjs))
        rc = munge(mrjs, orjs, old_js, suspended, g, errs);
    if (rc == 0 && !json_equal(mrjs, orjs) && !(mrjs == NULL && orjs == NULL))
        rc = ferr_add(errs, FERR_INVALID, "spec.replicatedJobs",
                      json_object_get(nspec, "replicatedJobs"), "field is immutable");
    const json_t *om = json_object_get(ospec, "managedBy"), *nm = json_object_get(nspec, "managedBy");
    if (rc == 0 && !(om == NULL && nm == NULL) && !json_equal(om, nm))
        rc = ferr_add(errs, FERR_INVALID, "spec.managedBy", nm ? nm : json_null(),
                      "field is immutable");
    json_decref(mrjs);
    return rc < 0 ? rc : (int)(errs->n - n0);
}
