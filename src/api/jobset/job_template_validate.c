/* The batch/v1 rules an API server applies to a Job built from spec.replicatedJobs[i].template
 * (k8s pkg/apis/batch/validation + the pod spec rules jaxset depends on), so that a JobSet that
 * passes js_validate never half-starts.  Unlike Kubernetes, `image` is optional: jaxset runs
 * commands locally. */
#include "api/jobset/jobset_validate_int.h"
#include "obj/tree/dns.h"
#include "obj/tree/jx.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define INDEXED_MAX 100000 /* maxParallelismForIndexedJob */

static const struct chk_field f_env[] = {
    CHK_F_REQ("name", CHK_STR),
    CHK_F("value", CHK_STR),
    CHK_F("valueFrom", CHK_OBJ),
    CHK_F_END,
};

static const struct chk_field f_port[] = {
    CHK_F_REQ("containerPort", CHK_INT32),
    CHK_F("hostPort", CHK_INT32),
    CHK_F("protocol", CHK_STR),
    CHK_F("name", CHK_STR),
    CHK_F_END,
};

static const struct chk_field f_mount[] = {
    CHK_F_REQ("name", CHK_STR),
    CHK_F_REQ("mountPath", CHK_STR),
    CHK_F("readOnly", CHK_BOOL),
    CHK_F("subPath", CHK_STR),
    CHK_F_END,
};

static const struct chk_field f_container[] = {
    CHK_F_REQ("name", CHK_STR),
    CHK_F("image", CHK_STR),
    CHK_F_ARR("command", 0, CHK_STR, NULL, 0),
    CHK_F_ARR("args", 0, CHK_STR, NULL, 0),
    CHK_F("workingDir", CHK_STR),
    CHK_F_ARR("env", 0, CHK_OBJ, f_env, 0),
    CHK_F_ARR("ports", 0, CHK_OBJ, f_port, 0),
    CHK_F_ARR("volumeMounts", 0, CHK_OBJ, f_mount, 0),
    CHK_F_END,
};

static const struct chk_field f_volume[] = {
    CHK_F_REQ("name", CHK_STR),
    CHK_F_END,
};

static const struct chk_field f_podspec[] = {
    CHK_F_ARR("containers", 0, CHK_OBJ, f_container, 0),
    CHK_F_ARR("initContainers", 0, CHK_OBJ, f_container, 0),
    CHK_F("restartPolicy", CHK_STR),
    CHK_F_ARR("volumes", 0, CHK_OBJ, f_volume, 0),
    CHK_F("nodeSelector", CHK_STRMAP),
    CHK_F("hostname", CHK_STR),
    CHK_F("subdomain", CHK_STR),
    CHK_F("hostNetwork", CHK_BOOL),
    CHK_F("activeDeadlineSeconds", CHK_INT64),
    CHK_F("terminationGracePeriodSeconds", CHK_INT64),
    CHK_F_END,
};

static const struct chk_field f_podtmpl[] = {
    CHK_F_OBJ("metadata", 0, js__meta_fields),
    CHK_F_OBJ("spec", 0, f_podspec),
    CHK_F_END,
};

static const struct chk_field f_jobspec[] = {
    CHK_F("parallelism", CHK_INT32),           CHK_F("completions", CHK_INT32),
    CHK_F("activeDeadlineSeconds", CHK_INT64), CHK_F("backoffLimit", CHK_INT32),
    CHK_F("backoffLimitPerIndex", CHK_INT32),  CHK_F("maxFailedIndexes", CHK_INT32),
    CHK_F("completionMode", CHK_STR),          CHK_F("suspend", CHK_BOOL),
    CHK_F("manualSelector", CHK_BOOL),         CHK_F("ttlSecondsAfterFinished", CHK_INT32),
    CHK_F("podReplacementPolicy", CHK_STR),    CHK_F("podFailurePolicy", CHK_OBJ),
    CHK_F_OBJ("template", 0, f_podtmpl),       CHK_F_END,
};

const struct chk_field js__jobtmpl_fields[] = {
    CHK_F_OBJ("metadata", 0, js__meta_fields),
    CHK_F_OBJ("spec", 0, f_jobspec),
    CHK_F_END,
};

/* ---- JobSpec ------------------------------------------------------------------------------- */

static const char *const completion_modes[] = {"NonIndexed", "Indexed", NULL};
static const char *const replacement_policies[] = {"Failed", "TerminatingOrFailed", NULL};
static const char *const replacement_failed_only[] = {"Failed", NULL};
static const char *const restart_policies[] = {"OnFailure", "Never", NULL};
static const char *const protocols[] = {"SCTP", "TCP", "UDP", NULL};

static const char *const nonneg_fields[] = {
    "parallelism",
    "completions",
    "activeDeadlineSeconds",
    "backoffLimit",
    "ttlSecondsAfterFinished",
    "backoffLimitPerIndex",
    "maxFailedIndexes",
    NULL,
};

static void check_indexed(struct jsv *c, const json_t *spec, const char *sp)
{
    char p[FPATH_MAX];
    bool has_par, has_comp, has_mfi;
    long long par = chk_int_or(spec, "parallelism", 1, &has_par);
    long long comp = chk_int_or(spec, "completions", 0, &has_comp);
    long long mfi = chk_int_or(spec, "maxFailedIndexes", 0, &has_mfi);
    /* completions and parallelism both unset default to 1 (the Job's own defaulting) */
    const json_t *cv = json_object_get(spec, "completions");
    if ((!cv || json_is_null(cv)) && has_par)
        ferr_add(c->later ? c->later : c->chk.errs, FERR_REQUIRED,
                 fpath_field(p, sp, "completions"), NULL,
                 c->later ? "when completion mode is Indexed (a cluster admits the JobSet; "
                            "creating its Jobs will fail)"
                          : "when completion mode is Indexed");
    if (has_par && par > INDEXED_MAX)
        chk_add_int(&c->chk, FERR_INVALID, fpath_field(p, sp, "parallelism"), par,
                    "must be less than or equal to %d when completion mode is Indexed",
                    INDEXED_MAX);
    if (has_comp && comp > INDEXED_MAX)
        chk_add_int(&c->chk, FERR_INVALID, fpath_field(p, sp, "completions"), comp,
                    "must be less than or equal to %d when completion mode is Indexed",
                    INDEXED_MAX);
    if (has_comp && has_mfi && mfi > comp)
        chk_add_int(&c->chk, FERR_INVALID, fpath_field(p, sp, "maxFailedIndexes"), mfi,
                    "must be less than or equal to completions");
}

static void check_per_index(struct jsv *c, const json_t *spec, const char *sp, bool indexed)
{
    static const char *const keys[] = {"backoffLimitPerIndex", "maxFailedIndexes"};
    char p[FPATH_MAX];
    bool has_bl, has_mfi;
    (void)chk_int_or(spec, "backoffLimitPerIndex", 0, &has_bl);
    (void)chk_int_or(spec, "maxFailedIndexes", 0, &has_mfi);
    if (has_mfi && !has_bl)
        ferr_add(c->chk.errs, FERR_REQUIRED, fpath_field(p, sp, "backoffLimitPerIndex"), NULL,
                 "when maxFailedIndexes is specified");
    for (size_t i = 0; !indexed && i < 2; i++) {
        bool set;
        long long v = chk_int_or(spec, keys[i], 0, &set);
        if (set)
            chk_add_int(&c->chk, FERR_INVALID, fpath_field(p, sp, keys[i]), v,
                        "requires indexed completion mode");
    }
}

static void check_job_spec(struct jsv *c, const json_t *spec, const char *sp)
{
    for (size_t i = 0; nonneg_fields[i]; i++)
        (void)chk_int(&c->chk, spec, nonneg_fields[i], sp, 0, NULL);
    (void)chk_enum(&c->chk, spec, "completionMode", sp, completion_modes, false);
    const char *mode = jx_str(spec, "completionMode");
    bool indexed = mode && strcmp(mode, "Indexed") == 0;
    if (indexed)
        check_indexed(c, spec, sp);
    check_per_index(c, spec, sp, indexed);
    bool pfp = jx_obj(spec, "podFailurePolicy") != NULL;
    (void)chk_enum(&c->chk, spec, "podReplacementPolicy", sp,
                   pfp ? replacement_failed_only : replacement_policies, false);
}

/* ---- PodSpec ------------------------------------------------------------------------------- */

static bool env_name_ok(const char *s)
{
    for (; *s; s++)
        if (*s < 0x20 || *s > 0x7e || *s == '=')
            return false;
    return true;
}

static void check_port(struct jsv *c, const json_t *port, const char *pp)
{
    static const char *const keys[] = {"containerPort", "hostPort"};
    char p[FPATH_MAX];
    for (size_t i = 0; i < 2; i++) {
        bool set;
        long long v = chk_int_or(port, keys[i], 0, &set);
        fpath_field(p, pp, keys[i]);
        if (set && v == 0 && i == 0)
            ferr_add(c->chk.errs, FERR_REQUIRED, p, NULL, NULL);
        else if (set && v != 0 && (v < 1 || v > 65535))
            chk_add_int(&c->chk, FERR_INVALID, p, v, "must be between 1 and 65535, inclusive");
    }
    (void)chk_enum(&c->chk, port, "protocol", pp, protocols, false);
}

static void check_container_lists(struct jsv *c, const json_t *ctr, const char *cp)
{
    char p[FPATH_MAX];
    const json_t *env = jx_arr(ctr, "env"), *ports = jx_arr(ctr, "ports");
    for (size_t i = 0; i < json_array_size(env); i++) {
        const char *n = jx_str(json_array_get(env, i), "name");
        fpath_fmt(p, "%s.env[%zu].name", cp, i);
        if (n && *n && !env_name_ok(n))
            ferr_add_str(c->chk.errs, FERR_INVALID, p, n,
                         "a valid environment variable name must consist only of printable "
                         "ASCII characters other than '='");
    }
    for (size_t i = 0; i < json_array_size(ports); i++) {
        fpath_fmt(p, "%s.ports[%zu]", cp, i);
        check_port(c, json_array_get(ports, i), p);
    }
}

static const char *const ctr_lists[] = {"initContainers", "containers"};

/* Whether a container before lists[l][i] (initContainers come first) is named `name`. */
static bool ctr_name_seen(const json_t *ps, size_t l, size_t i, const char *name)
{
    for (size_t k = 0; k <= l; k++)
        if (chk_named(jx_arr(ps, ctr_lists[k]), name, k == l ? i : SIZE_MAX, NULL))
            return true;
    return false;
}

/* Names of initContainers then containers: DNS-1123 labels, unique within the pod. */
static void check_containers(struct jsv *c, const json_t *ps, const char *psp)
{
    char cp[FPATH_MAX], np[FPATH_MAX];
    struct dns_msgs m;
    for (size_t l = 0; l < 2; l++) {
        const json_t *arr = jx_arr(ps, ctr_lists[l]);
        for (size_t i = 0; i < json_array_size(arr); i++) {
            const json_t *ctr = json_array_get(arr, i);
            const char *name = jx_str(ctr, "name");
            fpath_index(cp, psp, ctr_lists[l], i);
            check_container_lists(c, ctr, cp);
            if (!name || !*name)
                continue;
            fpath_field(np, cp, "name");
            dns_1123_label(name, &m);
            chk_dns(&c->chk, np, name, &m, NULL);
            if (ctr_name_seen(ps, l, i, name))
                ferr_add_str(c->chk.errs, FERR_DUPLICATE, np, name, NULL);
        }
    }
}

static void check_volumes(struct jsv *c, const json_t *ps, const char *psp)
{
    const json_t *vols = jx_arr(ps, "volumes");
    char p[FPATH_MAX];
    struct dns_msgs m;
    for (size_t i = 0; i < json_array_size(vols); i++) {
        const char *name = jx_str(json_array_get(vols, i), "name");
        if (!name || !*name)
            continue;
        fpath_fmt(p, "%s.volumes[%zu].name", psp, i);
        dns_1123_label(name, &m);
        chk_dns(&c->chk, p, name, &m, NULL);
        if (chk_named(vols, name, i, NULL))
            ferr_add_str(c->chk.errs, FERR_DUPLICATE, p, name, NULL);
    }
}

static void check_restart_policy(struct jsv *c, const json_t *jspec, const json_t *ps,
                                 const char *psp)
{
    char p[FPATH_MAX];
    const char *rp = jx_str(ps, "restartPolicy");
    const json_t *v = json_object_get(ps, "restartPolicy");
    fpath_field(p, psp, "restartPolicy");
    if (!v || json_is_null(v) || (rp && !*rp)) {
        ferr_add(c->chk.errs, FERR_REQUIRED, p, NULL, "valid values: \"OnFailure\", \"Never\"");
        return;
    }
    if (!rp)
        return; /* wrong type: reported by the schema walker */
    if (c->later && strcmp(rp, "Always") == 0) {
        /* the JobSet webhook (kubernetes-sigs/jobset pkg/webhooks/jobset_webhook.go
         * ValidateCreate) does not look at it: the JobSet is admitted, its Jobs refused */
        ferr_add_str(c->later, FERR_NOT_SUPPORTED, p, rp,
                     "\"OnFailure\", \"Never\" (a cluster admits the JobSet; creating its "
                     "Jobs will fail)");
        return;
    }
    (void)chk_enum(&c->chk, ps, "restartPolicy", psp, restart_policies, true);
    if (jx_obj(jspec, "podFailurePolicy") && strcmp(rp, "OnFailure") == 0)
        ferr_add_str(c->chk.errs, FERR_INVALID, p, rp,
                     "only \"Never\" is supported when podFailurePolicy is specified");
}

/* kubernetes pkg/apis/core/validation ValidatePodSpec: hostname and subdomain are DNS-1123
 * labels.  The subdomain is checked only where it reaches the Job: with DNS hostnames on,
 * JobSet's constructJob (pkg/controllers/jobset_controller.go) puts its own in its place. */
static void check_pod_names(struct jsv *c, const json_t *ps, const char *psp)
{
    static const char *const fields[] = {"hostname", "subdomain"};
    bool dns_hostnames = jx_bool_or(jx_obj(c->spec, "network"), "enableDNSHostnames", true);
    char p[FPATH_MAX];
    struct dns_msgs m;
    for (size_t i = 0; i < 2; i++) {
        const char *v = jx_str(ps, fields[i]);
        if (!v || !*v || (i == 1 && dns_hostnames))
            continue;
        dns_1123_label(v, &m);
        chk_dns(&c->chk, fpath_field(p, psp, fields[i]), v, &m, NULL);
    }
}

/* The same file's ValidateHostAliases: each of hostAliases[].hostnames is a DNS-1123
 * subdomain (a line of the pod's /etc/hosts: a newline in one would add lines of its own). */
static void check_host_aliases(struct jsv *c, const json_t *ps, const char *psp)
{
    const json_t *aliases = jx_arr(ps, "hostAliases");
    char ap[FPATH_MAX], p[FPATH_MAX];
    struct dns_msgs m;
    for (size_t i = 0; i < json_array_size(aliases); i++) {
        const json_t *names = jx_arr(json_array_get(aliases, i), "hostnames");
        fpath_index(ap, psp, "hostAliases", i);
        for (size_t k = 0; k < json_array_size(names); k++) {
            const char *v = json_string_value(json_array_get(names, k));
            if (!v)
                continue; /* wrong type: reported by the schema walker */
            dns_1123_subdomain(v, &m);
            chk_dns(&c->chk, fpath_index(p, ap, "hostnames", k), v, &m, NULL);
        }
    }
}

static void check_pod_spec(struct jsv *c, const json_t *jspec, const char *sp)
{
    char psp[FPATH_MAX], p[FPATH_MAX];
    const json_t *ptmpl = json_object_get(jspec, "template");
    const json_t *ps = json_object_get(ptmpl, "spec");
    fpath_fmt(psp, "%s.template.spec", sp);
    if ((ptmpl && !json_is_object(ptmpl)) || (ps && !json_is_null(ps) && !json_is_object(ps)))
        return; /* wrong type: reported by the schema walker */
    fpath_fmt(p, "%s.template.metadata", sp);
    js__meta_maps(c, jx_obj(ptmpl, "metadata"), p);
    const json_t *ctrs = json_object_get(ps, "containers");
    if (json_array_size(ctrs) == 0 && (!ctrs || json_is_null(ctrs) || json_is_array(ctrs)))
        ferr_add(c->chk.errs, FERR_REQUIRED, fpath_field(p, psp, "containers"), NULL, NULL);
    check_restart_policy(c, jspec, ps, psp);
    check_pod_names(c, ps, psp);
    check_host_aliases(c, ps, psp);
    check_containers(c, ps, psp);
    check_volumes(c, ps, psp);
    js__volumes(c, ps, psp);
    js__quantities(c, ps, psp);
}

void js__job_template(struct jsv *c, const json_t *tmpl, const char *path)
{
    char sp[FPATH_MAX], mp[FPATH_MAX];
    const json_t *spec = json_object_get(tmpl, "spec");
    js__meta_maps(c, jx_obj(tmpl, "metadata"), fpath_field(mp, path, "metadata"));
    fpath_field(sp, path, "spec");
    if (spec && !json_is_null(spec) && !json_is_object(spec))
        return;
    check_job_spec(c, spec, sp);
    check_pod_spec(c, spec, sp);
}
