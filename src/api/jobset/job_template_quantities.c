/* The quantities of a pod template and of the claims a JobSet makes, as a cluster reads them
 * (the quantity parser of obj/base/qty.h, apimachinery's ParseQuantity) and as the API server
 * validates them (kubernetes pkg/apis/core/validation/validation.go):
 *  - containers' and initContainers' resources (ValidateResourceRequirements,
 *    validateContainerResourceName, ValidateResourceQuantityValue,
 *    validateResourceQuantityHugePageValue);
 *  - an emptyDir's sizeLimit (validateVolumeSource);
 *  - resourceFieldRef divisors of downwardAPI volume items, projected downwardAPI items and
 *    env valueFrom (validateContainerResourceDivisor);
 *  - the storage request of a PersistentVolumeClaim spec: an ephemeral volume's
 *    volumeClaimTemplate and spec.volumeClaimPolicies[].templates[]
 *    (ValidatePersistentVolumeClaimSpec).
 * A value that is no quantity is refused at admission: the JobSet webhooks decode the JobSet
 * (resource.Quantity's UnmarshalJSON) before anything else, with ParseQuantity's message.  The
 * rules of the Job's (or the claim's) own validation are errors too, except under
 * js_validate_cluster (c->later): the JobSet webhook does not look into the template, so the
 * JobSet is admitted and the child Job (or claim) refused, which `later` says. */
#include "api/jobset/jobset_validate_int.h"
#include "obj/base/qty.h"
#include "obj/tree/dns.h"
#include "obj/tree/jx.h"

#include <stdio.h>
#include <string.h>

#define LATER_JOBS "creating its Jobs will fail"
#define LATER_CLAIMS "creating its PersistentVolumeClaims will fail"

/* An error of the child object's validation at `path`, with the string value `s` (rendered
 * quoted; NULL: none): to `later` under js_validate_cluster, saying what fails. */
static void later_err(struct jsv *c, const char *fails, enum ferr_type t, const char *path,
                      const char *s, const char *detail)
{
    if (c->later)
        ferr_add_str(c->later, t, path, s, "%s (a cluster admits the JobSet; %s)", detail,
                     fails);
    else
        ferr_add_str(c->chk.errs, t, path, s, "%s", detail);
}

/* v at path as a quantity into *q: true, or false with the decoder's error (admission fails)
 * when it is none. */
static bool read_qty(struct jsv *c, const json_t *v, const char *path, struct qty *q)
{
    int rc = qty_parse(v, q);
    if (rc == 0)
        return true;
    ferr_add(c->chk.errs, FERR_INVALID, path, v, "%s", qty_strerror(rc));
    return false;
}

/* ---- resource names ----------------------------------------------------------------------- */

static bool is_hugepages(const char *name)
{
    return !strncmp(name, "hugepages-", strlen("hugepages-"));
}

/* IsNativeResource: no domain, or one in kubernetes.io/. */
static bool is_native(const char *name)
{
    return !strchr(name, '/') || strstr(name, "kubernetes.io/");
}

/* IsExtendedResourceName: a domain not kubernetes.io's, and "requests.<name>" a qualified
 * name. */
static bool is_extended(const char *name)
{
    char quota[512];
    struct dns_msgs m;
    if (is_native(name) || !strncmp(name, "requests.", strlen("requests.")))
        return false;
    if (snprintf(quota, sizeof(quota), "requests.%s", name) >= (int)sizeof(quota))
        return false;
    return dns_qualified_name(quota, &m) == 0;
}

/* IsIntegerResourceName: the object counts of a quota, and every extended resource. */
static bool is_integer_resource(const char *name)
{
    static const char *const counts[] = {
        "pods",       "resourcequotas",         "services",           "replicationcontrollers",
        "secrets",    "configmaps",             "persistentvolumeclaims", "services.nodeports",
        "services.loadbalancers", NULL};
    return chk_in(counts, name) || is_extended(name);
}

/* IsOvercommitAllowed: native and not hugepages (else a request must equal its limit). */
static bool overcommit_ok(const char *name)
{
    return is_native(name) && !is_hugepages(name);
}

/* validateContainerResourceName. */
static void check_name(struct jsv *c, const char *name, const char *path)
{
    struct dns_msgs m;
    dns_qualified_name(name, &m);
    for (size_t i = 0; i < m.n; i++)
        later_err(c, LATER_JOBS, FERR_INVALID, path, name, m.v[i]);
    if (!strchr(name, '/')) {
        if (strcmp(name, "cpu") && strcmp(name, "memory") && strcmp(name, "ephemeral-storage") &&
            !is_hugepages(name))
            later_err(c, LATER_JOBS, FERR_INVALID, path, name,
                      "must be a standard resource for containers");
    } else if (!is_native(name) && !is_extended(name)) {
        later_err(c, LATER_JOBS, FERR_INVALID, path, name,
                  "doesn't follow extended resource name standard");
    }
}

/* ---- container resources ------------------------------------------------------------------ */

/* IsHugePageResourceValueDivisible: a whole number of the page size its name gives. */
static bool huge_divisible(const char *name, const struct qty *q)
{
    struct qty page;
    long long pv, v;
    if (qty_parse_str(name + strlen("hugepages-"), &page) < 0 || qty_sign(&page) <= 0 ||
        !qty_milli_whole(&page) || qty_scaled_value(&page, 0, &pv) < 0 || pv == 0)
        return false;
    return qty_scaled_value(q, 0, &v) == 0 && v % pv == 0;
}

/* ValidateResourceQuantityValue, and a hugepages value's divisibility. */
static void check_value(struct jsv *c, const char *name, const struct qty *q, const char *p)
{
    char s[QTY_MAX], msg[QTY_MAX + 600];
    qty_format(q, s);
    if (qty_sign(q) < 0)
        later_err(c, LATER_JOBS, FERR_INVALID, p, s, "must be greater than or equal to 0");
    if (is_integer_resource(name) && !qty_milli_whole(q))
        later_err(c, LATER_JOBS, FERR_INVALID, p, s, "must be an integer");
    if (is_hugepages(name) && !huge_divisible(name, q)) {
        snprintf(msg, sizeof(msg), "%s is not positive integer multiple of %s", s, name);
        later_err(c, LATER_JOBS, FERR_INVALID, p, s, msg);
    }
}

/* A request against its limit (the same resource in limits), or its missing limit. */
static void check_request(struct jsv *c, const char *name, const struct qty *q,
                          const json_t *limits, const char *rp)
{
    char lp[FPATH_MAX], qp[FPATH_MAX], s[QTY_MAX], ls[QTY_MAX], msg[QTY_MAX * 2 + 600];
    const json_t *lv = json_object_get(limits, name);
    struct qty lim;
    fpath_field(lp, rp, "limits");
    fpath_field(qp, rp, "requests");
    if (!lv) {
        if (!overcommit_ok(name))
            later_err(c, LATER_JOBS, FERR_REQUIRED, lp, NULL,
                      "Limit must be set for non overcommitable resources");
        return;
    }
    if (qty_parse(lv, &lim) < 0)
        return; /* refused as a limit already */
    qty_format(q, s);
    qty_format(&lim, ls);
    int cmp = qty_cmp(q, &lim);
    if (cmp != 0 && !overcommit_ok(name))
        snprintf(msg, sizeof(msg), "must be equal to %s limit of %s", name, ls);
    else if (cmp > 0)
        snprintf(msg, sizeof(msg), "must be less than or equal to %s limit of %s", name, ls);
    else
        return;
    later_err(c, LATER_JOBS, FERR_INVALID, qp, s, msg);
}

/* The limits (requests: false) or requests of `res` at rp; *cpu_mem, *huge when cpu or memory,
 * hugepages are there. */
static void check_list(struct jsv *c, const json_t *res, bool requests, const char *rp,
                       bool *cpu_mem, bool *huge)
{
    const char *field = requests ? "requests" : "limits", *name;
    const json_t *list = json_object_get(res, field), *v;
    char p[FPATH_MAX];
    struct qty q;
    if (list && !json_is_null(list) && !json_is_object(list))
        chk_type_error(&c->chk, fpath_field(p, rp, field), list, CHK_OBJ);
    json_object_foreach ((json_t *)jx_obj(res, field), name, v) {
        fpath_key(p, rp, field, name);
        check_name(c, name, p);
        if (!read_qty(c, v, p, &q))
            continue;
        check_value(c, name, &q, p);
        if (requests)
            check_request(c, name, &q, jx_obj(res, "limits"), rp);
        *cpu_mem |= !strcmp(name, "cpu") || !strcmp(name, "memory");
        *huge |= is_hugepages(name);
    }
}

/* ValidateResourceRequirements of one container's resources at rp. */
static void check_resources(struct jsv *c, const json_t *res, const char *rp)
{
    bool cpu_mem = false, huge = false;
    check_list(c, res, false, rp, &cpu_mem, &huge);
    check_list(c, res, true, rp, &cpu_mem, &huge);
    if (huge && !cpu_mem)
        later_err(c, LATER_JOBS, FERR_FORBIDDEN, rp, NULL, "HugePages require cpu or memory");
}

/* ---- divisors ----------------------------------------------------------------------------- */

/* validateContainerResourceDivisor of the resourceFieldRef `ref` at rp: a divisor that is set
 * and not 0 is one of those its resource allows (written canonically: "1000m" is "1"). */
static void check_divisor(struct jsv *c, const json_t *ref, const char *rp)
{
    static const char *const cpu[] = {"1m", "1", NULL};
    static const char *const bytes[] = {"1",  "1k", "1M", "1G",  "1T",  "1P",  "1E",
                                        "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei", NULL};
    const char *res = jx_str(ref, "resource"), *kind = NULL;
    const json_t *d = json_object_get(ref, "divisor");
    char p[FPATH_MAX], s[QTY_MAX], msg[256];
    struct qty q;
    if (!d || !read_qty(c, d, fpath_field(p, rp, "divisor"), &q) || !qty_sign(&q) || !res)
        return; /* unset, or 0: the kubelet divides by 1 */
    if (!strcmp(res, "limits.cpu") || !strcmp(res, "requests.cpu"))
        kind = "cpu";
    else if (!strcmp(res, "limits.memory") || !strcmp(res, "requests.memory"))
        kind = "memory";
    else if (!strcmp(res, "limits.ephemeral-storage") || !strcmp(res, "requests.ephemeral-storage"))
        kind = "local ephemeral storage";
    else if (!strncmp(res, "requests.hugepages-", 19) || !strncmp(res, "limits.hugepages-", 17))
        kind = "hugepages";
    qty_format(&q, s);
    bool is_cpu = kind && !strcmp(kind, "cpu");
    if (!kind || chk_in(is_cpu ? cpu : bytes, s))
        return;
    snprintf(msg, sizeof(msg), "only divisor's values %s are supported with the %s resource",
             is_cpu ? "1m and 1" : "1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei", kind);
    later_err(c, LATER_JOBS, FERR_INVALID, p, res, msg);
}

/* The resourceFieldRef divisors of items (downwardAPI) at ip (".../downwardAPI"). */
static void check_items(struct jsv *c, const json_t *items, const char *ip)
{
    char p[FPATH_MAX];
    for (size_t i = 0; i < json_array_size(items); i++) {
        const json_t *ref = jx_obj(json_array_get(items, i), "resourceFieldRef");
        fpath_fmt(p, "%s.items[%zu].resourceFieldRef", ip, i);
        if (ref)
            check_divisor(c, ref, p);
    }
}

static void check_env(struct jsv *c, const json_t *ctr, const char *cp)
{
    const json_t *env = jx_arr(ctr, "env");
    char p[FPATH_MAX];
    for (size_t i = 0; i < json_array_size(env); i++) {
        const json_t *ref = jx_path(json_array_get(env, i), "valueFrom.resourceFieldRef");
        fpath_fmt(p, "%s.env[%zu].valueFrom.resourceFieldRef", cp, i);
        if (json_is_object(ref))
            check_divisor(c, ref, p);
    }
}

/* ---- claims and volumes ------------------------------------------------------------------- */

/* A PersistentVolumeClaim spec at sp: every quantity of its resources read, and its storage
 * request greater than zero.  Upstream's path of that rule is "spec.resources[storage]"; the
 * error here names the field itself, spec.resources.requests[storage]. */
static void check_claim_spec(struct jsv *c, const json_t *spec, const char *sp, const char *fails)
{
    static const char *const lists[] = {"requests", "limits"};
    char rp[FPATH_MAX], p[FPATH_MAX], s[QTY_MAX];
    const char *name;
    const json_t *v;
    struct qty q;
    fpath_field(rp, sp, "resources");
    for (size_t l = 0; l < 2; l++)
        json_object_foreach ((json_t *)jx_obj(jx_obj(spec, "resources"), lists[l]), name, v) {
            if (!read_qty(c, v, fpath_key(p, rp, lists[l], name), &q))
                continue;
            qty_format(&q, s);
            if (l == 0 && !strcmp(name, "storage") && qty_sign(&q) <= 0)
                later_err(c, fails, FERR_INVALID, p, s, "must be greater than zero");
        }
}

static void check_volume(struct jsv *c, const json_t *vol, const char *vp)
{
    char p[FPATH_MAX];
    struct qty q;
    const json_t *limit = json_object_get(jx_obj(vol, "emptyDir"), "sizeLimit");
    const json_t *proj = jx_arr(jx_obj(vol, "projected"), "sources");
    fpath_fmt(p, "%s.emptyDir.sizeLimit", vp);
    if (limit && read_qty(c, limit, p, &q) && qty_sign(&q) < 0)
        later_err(c, LATER_JOBS, FERR_FORBIDDEN, p, NULL,
                  "SizeLimit field must be a valid resource quantity");
    if (jx_obj(vol, "downwardAPI"))
        check_items(c, jx_arr(jx_obj(vol, "downwardAPI"), "items"), fpath_field(p, vp,
                                                                                "downwardAPI"));
    for (size_t i = 0; i < json_array_size(proj); i++) {
        fpath_fmt(p, "%s.projected.sources[%zu].downwardAPI", vp, i);
        check_items(c, jx_arr(jx_obj(json_array_get(proj, i), "downwardAPI"), "items"), p);
    }
    if (jx_path(vol, "ephemeral.volumeClaimTemplate")) {
        fpath_fmt(p, "%s.ephemeral.volumeClaimTemplate.spec", vp);
        check_claim_spec(c, jx_path(vol, "ephemeral.volumeClaimTemplate.spec"), p, LATER_JOBS);
    }
}

void js__quantities(struct jsv *c, const json_t *ps, const char *psp)
{
    static const char *const lists[] = {"initContainers", "containers"};
    char cp[FPATH_MAX], p[FPATH_MAX];
    const json_t *vols = jx_arr(ps, "volumes");
    for (size_t l = 0; l < 2; l++)
        for (size_t i = 0; i < json_array_size(jx_arr(ps, lists[l])); i++) {
            const json_t *ctr = json_array_get(jx_arr(ps, lists[l]), i);
            fpath_index(cp, psp, lists[l], i);
            if (json_is_object(jx_obj(ctr, "resources")))
                check_resources(c, jx_obj(ctr, "resources"), fpath_field(p, cp, "resources"));
            check_env(c, ctr, cp);
        }
    for (size_t i = 0; i < json_array_size(vols); i++)
        check_volume(c, json_array_get(vols, i), fpath_index(p, psp, "volumes", i));
}

void js__claim_quantities(struct jsv *c, const json_t *tmpl, const char *tp)
{
    char p[FPATH_MAX];
    check_claim_spec(c, jx_obj(tmpl, "spec"), fpath_field(p, tp, "spec"), LATER_CLAIMS);
}
