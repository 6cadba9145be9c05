/* The JobSet defaulting and validating webhooks (see wh_jobset.h). */
#include "kube/webhook/wh_jobset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/admit/jobset_admission.h"
#include "api/jobset/jobset.h"
#include "api/schema/keys.h"
#include "obj/base/sbuf.h"
#include "obj/tree/dns.h"
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

/* ---- claims that exist already ------------------------------------------------------------
 * kubernetes-sigs/jobset pkg/webhooks/jobset_webhook.go validateVolumeClaimPolicies looks up,
 * for every claim template, the PersistentVolumeClaim "<template>-<jobset>" that the controller
 * would create (its client Get): when one exists, its spec must be the template's and the
 * policy's retentionPolicy.whenDeleted must be Retain (the controller would otherwise delete a
 * claim it did not create).  The look-up is made for a JobSet that passed every other check
 * (at most 50 policies of 50 templates, the CRD's limits), all its claims at once. */

struct claim {
    size_t policy, tmpl;
    char *name; /* "<template>-<jobset>"; owned */
};

/* Whether the stored claim's spec `have` is the template's spec `want` (upstream:
 * reflect.DeepEqual of the two).  What the API server writes into a claim it stores is not held
 * against a template that leaves it out: volumeMode Filesystem (its default), storageClassName
 * (the DefaultStorageClass admission plugin) and volumeName (binding); on a cluster upstream's
 * DeepEqual refuses every template that does not spell them out. */
static bool claim_spec_matches(const json_t *have, const json_t *want)
{
    const char *k;
    json_t *v;
    json_object_foreach ((json_t *)want, k, v)
        if (!json_equal(v, json_object_get(have, k)))
            return false;
    json_object_foreach ((json_t *)have, k, v) {
        const char *s = json_string_value(v);
        bool filled = strcmp(k, "storageClassName") == 0 || strcmp(k, "volumeName") == 0 ||
                      (strcmp(k, "volumeMode") == 0 && s && strcmp(s, "Filesystem") == 0);
        if (!json_object_get(want, k) && !filled)
            return false;
    }
    return true;
}

/* The errors of one claim template whose claim `have` exists, at upstream's paths:
 * spec.volumeClaimPolicies[i].template[j].spec and ...[i].retentionPolicy.whenDeleted. */
static void claim_errors(const json_t *js, const struct claim *cl, const json_t *have,
                         const char *ns, struct ferr_list *errs)
{
    const json_t *pol = json_array_get(jx_path(js, "spec.volumeClaimPolicies"), cl->policy);
    const json_t *want = jx_obj(json_array_get(jx_arr(pol, "templates"), cl->tmpl), "spec");
    const json_t *ret = jx_obj(pol, "retentionPolicy");
    const char *when = jx_str(ret, "whenDeleted");
    char p[FPATH_MAX];
    if (!claim_spec_matches(jx_obj(have, "spec"), want)) {
        snprintf(p, sizeof(p), "spec.volumeClaimPolicies[%zu].template[%zu].spec", cl->policy,
                 cl->tmpl);
        if (want)
            ferr_add(errs, FERR_INVALID, p, want, "spec does not match existing PVC %s in "
                     "namespace %s", cl->name, ns);
        else
            ferr_add_raw(errs, FERR_INVALID, p, "{}", "spec does not match existing PVC %s in "
                         "namespace %s", cl->name, ns);
    }
    /* whenDeleted is defaulted to Delete by the mutating webhook (js_default) */
    if (ret && (!when || strcmp(when, "Retain") != 0)) {
        snprintf(p, sizeof(p), "spec.volumeClaimPolicies[%zu].retentionPolicy.whenDeleted",
                 cl->policy);
        ferr_add_str(errs, FERR_INVALID, p, when ? when : "Delete",
                     "retentionPolicy must be retain when PVC exists");
    }
}

/* The claims the JobSet's templates name (those whose name a claim can have): an array of *n
 * (NULL when none); *oom when one was lost.  Free with claims_free. */
static struct claim *claims_of(const json_t *js, size_t *n, bool *oom)
{
    const char *jsname = jx_str(jx_obj(js, "metadata"), "name");
    const json_t *vcps = jx_path(js, "spec.volumeClaimPolicies"), *pol, *t;
    size_t i, j, total = 0;
    struct dns_msgs m;
    *n = 0;
    json_array_foreach (vcps, i, pol)
        total += json_array_size(jx_arr(pol, "templates"));
    struct claim *v = total && jsname ? calloc(total, sizeof(*v)) : NULL;
    *oom = total && jsname && !v;
    json_array_foreach (v ? vcps : NULL, i, pol) {
        json_array_foreach (jx_arr(pol, "templates"), j, t) {
            const char *tn = jx_str(jx_obj(t, "metadata"), "name");
            char *name = tn ? sb_fmt("%s-%s", tn, jsname) : NULL;
            *oom = *oom || (tn && !name);
            if (name && dns_1123_subdomain(name, &m) == 0)
                v[(*n)++] = (struct claim){i, j, name};
            else
                free(name);
        }
    }
    return v;
}

static void claims_free(struct claim *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].name);
    free(v);
}

/* Looks the claims up and adds the errors of those that exist to `errs`; a look-up that fails
 * is an internal error at each template, as upstream reports a Get that fails otherwise than
 * NotFound.  0 or -ENOMEM. */
static int check_claims(const struct wh_ctx *x, const json_t *req, const json_t *js,
                        struct ferr_list *errs)
{
    const char *ns = jx_str(jx_obj(js, "metadata"), "namespace");
    ns = ns ? ns : jx_str(req, "namespace");
    size_t n = 0;
    bool oom = false;
    struct claim *cl = ns && x->pvcs_get ? claims_of(js, &n, &oom) : NULL;
    const char **names = n ? calloc(n, sizeof(*names)) : NULL;
    json_t **have = n ? calloc(n, sizeof(*have)) : NULL;
    struct err e = {{0}};
    int rc = oom || (n && (!names || !have)) ? -ENOMEM : 0;
    for (size_t i = 0; rc == 0 && i < n; i++)
        names[i] = cl[i].name;
    if (rc == 0 && n && (rc = x->pvcs_get(x->arg, ns, names, n, have, &e)) != -ENOMEM && rc < 0) {
        char p[FPATH_MAX];
        for (size_t i = 0; i < n; i++)
            ferr_add(errs, FERR_INTERNAL,
                     fpath_fmt(p, "spec.volumeClaimPolicies[%zu].template[%zu]", cl[i].policy,
                               cl[i].tmpl),
                     NULL, "failed to check for existing PVC %s: %s", cl[i].name, e.msg);
        rc = 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (rc == 0 && have[i])
            claim_errors(js, &cl[i], have[i], ns, errs);
        json_decref(have ? have[i] : NULL);
    }
    claims_free(cl, n);
    free(names);
    free(have);
    return rc < 0 ? rc : errs->rc;
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
                    : js_admit_update(jx_obj(req, "oldObject"), obj, x->gates, &errs);
    if (rc == 0 && create && errs.n == 0 && (rc = check_claims(x, req, obj, &errs)) == 0)
        rc = (int)errs.n;
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
