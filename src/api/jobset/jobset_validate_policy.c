/* Spec-level JobSet rules: network, managedBy, TTL, success/startup/failure policies,
 * coordinator and volumeClaimPolicies (kubernetes-sigs/jobset pkg/webhooks/jobset_webhook.go,
 * ValidateCreate, and the CRD rules of api/jobset/v1alpha2/jobset_types.go).  The rules that
 * depend on feature gates are in jobset_validate_gates.c. */
#include "api/jobset/jobset_validate_int.h"
#include "api/schema/keys.h"
#include "obj/tree/dns.h"
#include "obj/tree/jx.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUBDOMAIN_TOO_LONG ".spec.network.subdomain is too long, must be less than 63 characters"
#define MANAGED_BY_MAX 63
#define RULE_NAME_MAX 128
#define PVC_NAME_MAX 63

static const char *const operators[] = {"All", "Any", NULL};
static const char *const startup_orders[] = {"AnyOrder", "InOrder", NULL};
static const char *const restart_strategies[] = {"Recreate", "BlockingRecreate", "InPlaceRestart",
                                                 NULL};
static const char *const actions[] = {"FailJobSet",
                                      "RestartJobSet",
                                      "RestartJobSetAndIgnoreMaxRestarts",
                                      "RestartJob",
                                      "RestartJobAndIgnoreMaxRestarts",
                                      NULL};
static const char *const reasons[] = {"BackoffLimitExceeded", "DeadlineExceeded",
                                      "FailedIndexes",        "MaxFailedIndexesExceeded",
                                      "PodFailurePolicy",     NULL};
static const char *const when_deleted[] = {"Delete", "Retain", NULL};

/* ---- schema -------------------------------------------------------------------------------- */

static const struct chk_field f_net[] = {
    CHK_F("enableDNSHostnames", CHK_BOOL),
    CHK_F("subdomain", CHK_STR),
    CHK_F("publishNotReadyAddresses", CHK_BOOL),
    CHK_F_END,
};

static const struct chk_field f_success[] = {
    CHK_F_REQ("operator", CHK_STR),
    CHK_F_ARR("targetReplicatedJobs", 0, CHK_STR, NULL, 0),
    CHK_F_END,
};

static const struct chk_field f_rule[] = {
    CHK_F_REQ("name", CHK_STR),
    CHK_F_REQ("action", CHK_STR),
    CHK_F_ARR("onJobFailureReasons", 0, CHK_STR, NULL, 0),
    CHK_F_ARR("onJobFailureMessagePatterns", 0, CHK_STR, NULL, 0),
    CHK_F_ARR("targetReplicatedJobs", 0, CHK_STR, NULL, 0),
    CHK_F_END,
};

static const struct chk_field f_failure[] = {
    CHK_F("maxRestarts", CHK_INT32),
    CHK_F("restartStrategy", CHK_STR),
    CHK_F_ARR("rules", 0, CHK_OBJ, f_rule, 0),
    CHK_F_END,
};

static const struct chk_field f_startup[] = {
    CHK_F_REQ("startupPolicyOrder", CHK_STR),
    CHK_F_END,
};

static const struct chk_field f_coord[] = {
    CHK_F_REQ("replicatedJob", CHK_STR),
    CHK_F("jobIndex", CHK_INT64),
    CHK_F("podIndex", CHK_INT64),
    CHK_F_END,
};

static const struct chk_field f_pvc[] = {
    CHK_F_OBJ("metadata", 0, js__meta_fields),
    CHK_F("spec", CHK_OBJ),
    CHK_F_END,
};

static const struct chk_field f_retention[] = {
    CHK_F("whenDeleted", CHK_STR),
    CHK_F_END,
};

static const struct chk_field f_vcp[] = {
    CHK_F_ARR("templates", CHK_REQUIRED, CHK_OBJ, f_pvc, 50),
    CHK_F_OBJ("retentionPolicy", 0, f_retention),
    CHK_F_END,
};

static const struct chk_field f_dep[] = {
    CHK_F_REQ("name", CHK_STR),
    CHK_F_REQ("status", CHK_STR),
    CHK_F_END,
};

/* A ReplicatedJob: its checks beyond the schema are jobset_validate.c's check_rj. */
static const struct chk_field f_rj[] = {
    CHK_F_REQ("name", CHK_STR),
    CHK_F("groupName", CHK_STR),
    CHK_F("replicas", CHK_INT32),
    CHK_F_OBJ("template", CHK_REQUIRED, js__jobtmpl_fields),
    CHK_F_ARR("dependsOn", 0, CHK_OBJ, f_dep, 5),
    CHK_F_END,
};

/* replicatedJobs is optional, as in upstream's CRD (kubernetes-sigs/jobset
 * api/jobset/v1alpha2/jobset_types.go, `json:"replicatedJobs,omitempty"`): a JobSet without
 * any is admitted and completes with nothing to run. */
const struct chk_field js__spec_fields[] = {
    CHK_F_ARR("replicatedJobs", 0, CHK_OBJ, f_rj, 0),
    CHK_F_OBJ("network", 0, f_net),
    CHK_F_OBJ("successPolicy", 0, f_success),
    CHK_F_OBJ("failurePolicy", 0, f_failure),
    CHK_F_OBJ("startupPolicy", 0, f_startup),
    CHK_F("suspend", CHK_BOOL),
    CHK_F_OBJ("coordinator", 0, f_coord),
    CHK_F("managedBy", CHK_STR),
    CHK_F("ttlSecondsAfterFinished", CHK_INT32),
    CHK_F_ARR("volumeClaimPolicies", 0, CHK_OBJ, f_vcp, 50),
    CHK_F_END,
};

/* ---- network, managedBy, TTL, success, startup ------------------------------------------- */

static void check_network(struct jsv *c)
{
    const char *sub = jx_str(jx_obj(c->spec, "network"), "subdomain");
    struct dns_msgs m;
    if (!sub || !*sub)
        return;
    dns_1123_subdomain(sub, &m);
    chk_dns(&c->chk, "spec.network.subdomain", sub, &m, NULL);
    dns_1035_label(sub, &m);
    chk_dns(&c->chk, "spec.network.subdomain", sub, &m, SUBDOMAIN_TOO_LONG);
}

static void check_managed_by(struct jsv *c)
{
    const char *mb = jx_str(c->spec, "managedBy");
    if (!mb)
        return;
    (void)dns_domain_prefixed_path(mb, "spec.managedBy", c->chk.errs); /* OOM: c->chk.errs->rc */
    if (strlen(mb) > MANAGED_BY_MAX) /* field.TooLong, as apimachinery words it today */
        ferr_add(c->chk.errs, FERR_TOO_LONG, "spec.managedBy", NULL,
                 "may not be more than %d bytes", MANAGED_BY_MAX);
}

static void check_success(struct jsv *c)
{
    const json_t *sp = jx_obj(c->spec, "successPolicy");
    const json_t *targets = jx_arr(sp, "targetReplicatedJobs");
    char p[FPATH_MAX];
    (void)chk_enum(&c->chk, sp, "operator", "spec.successPolicy", operators, true);
    for (size_t i = 0; i < json_array_size(targets); i++) {
        const char *t = json_string_value(json_array_get(targets, i));
        if (!t || chk_name_nth(c->rj_index, t, 0) >= 0)
            continue;
        snprintf(p, sizeof(p), "spec.successPolicy.targetReplicatedJobs[%zu]", i);
        ferr_add_str(c->chk.errs, FERR_INVALID, p, t,
                     "invalid replicatedJob name '%s' does not appear in .spec.ReplicatedJobs", t);
    }
}

static void check_startup(struct jsv *c)
{
    const json_t *st = jx_obj(c->spec, "startupPolicy");
    const char *order = jx_str(st, "startupPolicyOrder");
    (void)chk_enum(&c->chk, st, "startupPolicyOrder", "spec.startupPolicy", startup_orders, true);
    if (!order || strcmp(order, "InOrder") != 0)
        return;
    for (size_t i = 0; i < json_array_size(c->rjs); i++) {
        if (chk_present(json_array_get(c->rjs, i), "dependsOn")) {
            /* the CRD's CEL rule on spec: the API server prints the value as "object" */
            ferr_add_str(c->chk.errs, FERR_INVALID, "spec", "object",
                         "StartupPolicy and DependsOn APIs are mutually exclusive");
            return;
        }
    }
}

/* ---- failure policy ------------------------------------------------------------------------ */

/* ^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$ */
static bool rule_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
        return false;
    for (size_t i = 1; i < n; i++) {
        char ch = s[i];
        bool word = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '_';
        if (!word && (i == n - 1 || (ch != ',' && ch != ':')))
            return false;
    }
    return true;
}

/* One error per group of equal names, at the group's second rule, as "[0 2 5]". */
static void check_rule_dups(struct jsv *c, const json_t *by_name, size_t k, const char *name,
                            const char *np)
{
    char idx[FPATH_MAX] = "";
    size_t off = 0;
    const json_t *group = json_object_get(by_name, name);
    if (json_array_size(group) < 2 || chk_name_nth(by_name, name, 1) != (long long)k)
        return;
    for (size_t j = 0; j < json_array_size(group) && off < sizeof(idx); j++)
        off += (size_t)snprintf(idx + off, sizeof(idx) - off, "%s%lld", j ? " " : "",
                                chk_name_nth(by_name, name, j));
    if (off > 0)
        ferr_add_str(c->chk.errs, FERR_INVALID, np, name,
                     "rule names are not unique, rules with indices [%s] all have the same name "
                     "'%s'",
                     idx, name);
}

static void check_rule_name(struct jsv *c, const json_t *rules, const json_t *by_name, size_t k,
                            const char *rp)
{
    const char *name = jx_str(json_array_get(rules, k), "name");
    char np[FPATH_MAX];
    if (!name || !*name)
        return; /* defaulted, or reported by the schema walker */
    fpath_field(np, rp, "name");
    size_t n = strlen(name);
    if (n > RULE_NAME_MAX)
        ferr_add_str(c->chk.errs, FERR_INVALID, np, name,
                     "invalid failure policy rule name of length %zu, the rule name must be at "
                     "least 1 characters long and at most %d characters long",
                     n, RULE_NAME_MAX);
    if (!rule_name_ok(name))
        ferr_add_str(c->chk.errs, FERR_INVALID, np, name,
                     "invalid failure policy rule name '%s', a failure policy rule name must "
                     "start with an alphabetic character, optionally followed by a string of "
                     "alphanumeric characters or '_,:', and must end with an alphanumeric "
                     "character or '_'",
                     name);
    check_rule_dups(c, by_name, k, name, np);
}

static void check_rule_lists(struct jsv *c, const json_t *rule, const char *rp)
{
    const json_t *a;
    char p[FPATH_MAX];
    a = jx_arr(rule, "targetReplicatedJobs");
    for (size_t i = 0; i < json_array_size(a); i++) {
        const char *t = json_string_value(json_array_get(a, i));
        fpath_fmt(p, "%s.targetReplicatedJobs[%zu]", rp, i);
        if (t && chk_name_nth(c->rj_index, t, 0) < 0)
            ferr_add_str(c->chk.errs, FERR_INVALID, p, t,
                         "invalid replicatedJob name '%s' in failure policy does not appear in "
                         ".spec.ReplicatedJobs",
                         t);
    }
    a = jx_arr(rule, "onJobFailureReasons");
    for (size_t i = 0; i < json_array_size(a); i++) {
        const char *r = json_string_value(json_array_get(a, i));
        fpath_fmt(p, "%s.onJobFailureReasons[%zu]", rp, i);
        if (r && !chk_in(reasons, r))
            ferr_add_str(c->chk.errs, FERR_INVALID, p, r,
                         "invalid job failure reason '%s' in failure policy is not a recognized "
                         "job failure reason",
                         r);
    }
    /* onJobFailureMessagePatterns are not validated upstream: an invalid RE2 pattern never
     * matches, with a warning (api/jobset/policy_warn.h) */
}

static void check_failure(struct jsv *c)
{
    const json_t *fp = jx_obj(c->spec, "failurePolicy");
    const json_t *rules = jx_arr(fp, "rules");
    char rp[FPATH_MAX];
    if (!fp)
        return;
    (void)chk_int(&c->chk, fp, "maxRestarts", "spec.failurePolicy", 0, NULL);
    (void)chk_enum(&c->chk, fp, "restartStrategy", "spec.failurePolicy", restart_strategies, false);
    js__in_place_gate(c);
    for (size_t k = 0; k < json_array_size(rules); k++) {
        fpath_index(rp, "spec.failurePolicy", "rules", k);
        (void)chk_enum(&c->chk, json_array_get(rules, k), "action", rp, actions, true);
    }
    if (js__restart_job_gate(c, rules))
        return;
    json_t *by_name = chk_name_index(rules);
    if (!by_name) {
        c->chk.rc = -ENOMEM;
        return;
    }
    for (size_t k = 0; k < json_array_size(rules); k++) {
        fpath_index(rp, "spec.failurePolicy", "rules", k);
        check_rule_name(c, rules, by_name, k, rp);
        check_rule_lists(c, json_array_get(rules, k), rp);
    }
    json_decref(by_name);
}

/* ---- coordinator --------------------------------------------------------------------------- */

/* Stops at the first problem, as upstream does. */
static void check_coordinator_target(struct jsv *c, const char *rjname, long long ji, long long pi)
{
    const json_t *rj = chk_named(c->rjs, rjname, SIZE_MAX, NULL);
    if (!rj) {
        ferr_add_str(c->chk.errs, FERR_INVALID, "spec.coordinator.replicatedJob", rjname,
                     "coordinator replicatedJob %s does not exist", rjname);
        return;
    }
    if (ji < 0 || ji >= chk_int_or(rj, "replicas", 1, NULL)) {
        chk_add_int(&c->chk, FERR_INVALID, "spec.coordinator.jobIndex", ji,
                    "coordinator job index %lld is invalid for replicatedJob %s", ji, rjname);
        return;
    }
    const json_t *tspec = jx_path(rj, "template.spec");
    const char *mode = jx_str(tspec, "completionMode");
    bool has_comp;
    long long comp = chk_int_or(tspec, "completions", 0, &has_comp);
    if (!mode || strcmp(mode, "Indexed") != 0 || !has_comp) {
        ferr_add_str(c->chk.errs, FERR_INVALID, "spec.coordinator.replicatedJob", rjname,
                     "job for coordinator pod must be indexed completion mode, and completions "
                     "number must be set");
        return;
    }
    if (pi < 0 || pi >= comp)
        chk_add_int(&c->chk, FERR_INVALID, "spec.coordinator.podIndex", pi,
                    "coordinator pod index %lld is invalid for replicatedJob %s job index %lld", pi,
                    rjname, ji);
}

static void check_coordinator_label(struct jsv *c, const char *rjname, long long ji, long long pi)
{
    const char *sub = jx_str(jx_obj(c->spec, "network"), "subdomain");
    char *ep = NULL, joined[1024] = "";
    struct dns_msgs m;
    if (!c->name)
        return;
    if (!sub || !*sub)
        sub = c->name;
    if (asprintf(&ep, "%s-%s-%lld-%lld.%s", c->name, rjname, ji, pi, sub) < 0) {
        c->chk.rc = -ENOMEM;
        return;
    }
    size_t off = 0;
    dns_label_value(ep, &m);
    for (size_t i = 0; i < m.n && off < sizeof(joined); i++)
        off += (size_t)snprintf(joined + off, sizeof(joined) - off, "%s%s", i ? ", " : "", m.v[i]);
    if (m.n)
        ferr_add(c->chk.errs, FERR_INVALID, "spec.coordinator", NULL,
                 "spec will lead to invalid label value \"%s\" for coordinator label \"%s\" "
                 "(long JobSet / ReplicatedJob / SubDomain name?): %s",
                 ep, LBL_COORDINATOR, joined);
    free(ep);
}

static void check_coordinator(struct jsv *c)
{
    const json_t *co = jx_obj(c->spec, "coordinator");
    const char *rjname = jx_str(co, "replicatedJob");
    if (!rjname || !*rjname)
        return; /* Required: reported by the schema walker */
    long long ji = chk_int_or(co, "jobIndex", 0, NULL), pi = chk_int_or(co, "podIndex", 0, NULL);
    check_coordinator_target(c, rjname, ji, pi);
    check_coordinator_label(c, rjname, ji, pi);
}

/* ---- volumeClaimPolicies ------------------------------------------------------------------- */

static bool has_mount(const json_t *ps, const char *list, const char *claim)
{
    const json_t *ctrs = jx_arr(ps, list);
    for (size_t i = 0; i < json_array_size(ctrs); i++) {
        const json_t *mounts = jx_arr(json_array_get(ctrs, i), "volumeMounts");
        for (size_t j = 0; j < json_array_size(mounts); j++) {
            const char *n = jx_str(json_array_get(mounts, j), "name");
            if (n && strcmp(n, claim) == 0)
                return true;
        }
    }
    return false;
}

static void check_claim_mounts(struct jsv *c, const char *claim)
{
    bool found = false;
    char p[FPATH_MAX];
    for (size_t r = 0; r < json_array_size(c->rjs); r++) {
        const json_t *ps = jx_path(json_array_get(c->rjs, r), "template.spec.template.spec");
        const json_t *vols = jx_arr(ps, "volumes");
        for (size_t v = 0; v < json_array_size(vols); v++) {
            const char *n = jx_str(json_array_get(vols, v), "name");
            if (!n || strcmp(n, claim) != 0)
                continue;
            snprintf(p, sizeof(p),
                     "spec.replicatedJobs[%zu].template.spec.template.spec.volumes[%zu].name", r,
                     v);
            ferr_add_str(c->chk.errs, FERR_INVALID, p, n,
                         "volume name conflicts with VolumeClaimPolicy template name: %s", claim);
        }
        found =
            found || has_mount(ps, "initContainers", claim) || has_mount(ps, "containers", claim);
    }
    if (!found)
        ferr_add(c->chk.errs, FERR_INVALID, "spec.replicatedJobs", NULL,
                 "replicatedJob containers don't have a matching volumeMount: %s from "
                 "VolumeClaimPolicies",
                 claim);
}

/* Whether a template before (policy i, template j) already has `name`. */
static bool claim_seen(const json_t *vcps, size_t i, size_t j, const char *name)
{
    for (size_t pi = 0; pi <= i; pi++) {
        const json_t *tmpls = jx_arr(json_array_get(vcps, pi), "templates");
        size_t end = pi == i ? j : json_array_size(tmpls);
        for (size_t k = 0; k < end; k++) {
            const char *n = jx_str(jx_obj(json_array_get(tmpls, k), "metadata"), "name");
            if (n && strcmp(n, name) == 0)
                return true;
        }
    }
    return false;
}

/* The webhook's checks of template j of policy i (kubernetes-sigs/jobset
 * pkg/webhooks/jobset_webhook.go validateVolumeClaimPolicies), at its paths:
 * spec.volumeClaimPolicies[i].template[j].name. */
static void check_claim_template(struct jsv *c, const json_t *vcps, size_t i, size_t j,
                                 const char *tp)
{
    const json_t *tmpl = json_array_get(jx_arr(json_array_get(vcps, i), "templates"), j);
    const json_t *meta = jx_obj(tmpl, "metadata");
    const char *name = jx_str(meta, "name");
    char p[FPATH_MAX];
    struct dns_msgs m;
    if (!name || !*name) {
        if (json_is_object(tmpl) && !(chk_present(meta, "name") && !name))
            ferr_add(c->chk.errs, FERR_REQUIRED, fpath_field(p, tp, "metadata.name"), NULL, NULL);
        return;
    }
    snprintf(p, sizeof(p), "spec.volumeClaimPolicies[%zu].template[%zu].name", i, j);
    if (claim_seen(vcps, i, j, name))
        ferr_add_str(c->chk.errs, FERR_INVALID, p, name,
                     "names must be unique for VolumeClaimPolicies template");
    dns_1123_subdomain(name, &m);
    chk_dns(&c->chk, p, name, &m, NULL);
    if (c->name && strlen(name) + 1 + strlen(c->name) > PVC_NAME_MAX)
        ferr_add_str(c->chk.errs, FERR_INVALID, p, name,
                     "VolumeClaimPolicies template name is too long");
    check_claim_mounts(c, name);
}

/* The CRD's CEL rule on each policy (kubernetes-sigs/jobset api/jobset/v1alpha2
 * jobset_types.go VolumeClaimPolicy), with its message, at the policy's path. */
static void check_claim_namespaces(struct jsv *c, const json_t *pol, const char *pp)
{
    const json_t *tmpls = jx_arr(pol, "templates");
    for (size_t j = 0; j < json_array_size(tmpls); j++) {
        const char *ns = jx_str(jx_obj(json_array_get(tmpls, j), "metadata"), "namespace");
        if (ns && *ns) {
            ferr_add_raw(c->chk.errs, FERR_INVALID, pp, "\"object\"",
                         "namespace cannot be set for VolumeClaimPolicies templates");
            return;
        }
    }
}

static void check_volume_claims(struct jsv *c)
{
    const json_t *vcps = jx_arr(c->spec, "volumeClaimPolicies");
    char pp[FPATH_MAX], tp[FPATH_MAX];
    for (size_t i = 0; i < json_array_size(vcps); i++) {
        const json_t *pol = json_array_get(vcps, i);
        fpath_index(pp, "spec", "volumeClaimPolicies", i);
        check_claim_namespaces(c, pol, pp);
        fpath_field(tp, pp, "retentionPolicy");
        (void)chk_enum(&c->chk, jx_obj(pol, "retentionPolicy"), "whenDeleted", tp, when_deleted,
                       false);
        for (size_t j = 0; j < json_array_size(jx_arr(pol, "templates")); j++) {
            fpath_index(tp, pp, "templates", j);
            check_claim_template(c, vcps, i, j, tp);
            js__claim_quantities(c, json_array_get(jx_arr(pol, "templates"), j), tp);
        }
    }
}

void js__policies(struct jsv *c)
{
    if (!c->spec)
        return;
    check_network(c);
    check_managed_by(c);
    (void)chk_int(&c->chk, c->spec, "ttlSecondsAfterFinished", "spec", 0, NULL);
    check_success(c);
    check_startup(c);
    check_failure(c);
    check_coordinator(c);
    check_volume_claims(c);
}
