/* Exclusive placement per topology domain: kubernetes-sigs/jobset pkg/webhooks/pod_webhook.go
 * and pkg/controllers/pod_controller.go over JSON pods (see placement.h). */
#include "api/child/placement.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "api/schema/keys.h"
#include "obj/tree/cond.h"
#include "obj/tree/jx.h"

static int refuse(struct place_err *pe, int code, const char *reason, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int refuse(struct place_err *pe, int code, const char *reason, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pe->msg, sizeof(pe->msg), fmt, ap);
    va_end(ap);
    pe->code = code;
    pe->reason = reason;
    return PLACE_NO;
}

static const char *ann(const json_t *pod, const char *k)
{
    return jx_get_meta(jx_obj(pod, "metadata"), "annotations", k);
}

static const char *label(const json_t *pod, const char *k)
{
    return jx_get_meta(jx_obj(pod, "metadata"), "labels", k);
}

static const char *node_name(const json_t *pod)
{
    const char *n = jx_str(jx_obj(pod, "spec"), "nodeName");
    return n && *n ? n : NULL;
}

/* The gated order's mark (placement_gate.c); validatePlacements skips such followers. */
bool place_gated(const json_t *pod)
{
    const json_t *g;
    size_t i;
    json_array_foreach (jx_arr(jx_obj(pod, "spec"), "schedulingGates"), i, g) {
        const char *n = jx_str(g, "name");
        if (n && strcmp(n, PLACE_GATE) == 0)
            return true;
    }
    return false;
}

bool place_is_leader(const json_t *pod)
{
    const char *i = ann(pod, ANN_JOB_COMPLETION_INDEX);
    return i && strcmp(i, "0") == 0;
}

int place_index_name(const char *pod_name, char *out, size_t n)
{
    const char *last = pod_name ? strrchr(pod_name, '-') : NULL;
    size_t parts = 1;
    for (const char *p = pod_name; p && *p; p++)
        parts += *p == '-';
    if (!last || parts < 5 || (size_t)(last - pod_name) >= n)
        return -EINVAL;
    memcpy(out, pod_name, (size_t)(last - pod_name));
    out[last - pod_name] = '\0';
    return 0;
}

int place_leader_name(const json_t *pod, char *out, size_t n, struct place_err *pe)
{
    const char *keys[3] = {LBL_JOBSET_NAME, LBL_RJ_NAME, LBL_JOB_INDEX}, *v[3];
    for (size_t i = 0; i < 3; i++)
        if (!(v[i] = label(pod, keys[i])))
            return refuse(pe, 403, "Forbidden", "pod missing label: %s", keys[i]);
    snprintf(out, n, "%s-%s-%s-0", v[0], v[1], v[2]);
    return 0;
}

/* metav1.GetControllerOf: the uid of the owner reference with controller true, or NULL. */
static const char *controller_uid(const json_t *pod)
{
    const json_t *ref;
    size_t i;
    json_array_foreach (jx_arr(jx_obj(pod, "metadata"), "ownerReferences"), i, ref)
        if (jx_bool_or(ref, "controller", false))
            return jx_str(ref, "uid") ? jx_str(ref, "uid") : "";
    return NULL;
}

int place_same_job(const json_t *leader, const json_t *follower, struct place_err *pe)
{
    const char *f = controller_uid(follower), *l = controller_uid(leader);
    if (!f)
        return refuse(pe, 403, "Forbidden", "follower pod has no owner reference");
    if (!l)
        return refuse(pe, 403, "Forbidden", "leader pod \"%s\" has no owner reference",
                      jx_str(jx_obj(leader, "metadata"), "name"));
    if (strcmp(f, l) != 0)
        return refuse(pe, 403, "Forbidden", "follower pod owner UID (%s) != leader pod owner "
                      "UID (%s)", f, l);
    return 0;
}

/* A pod that counts as the leader: not being deleted, not Failed nor Succeeded. */
static bool live(const json_t *pod)
{
    const char *phase = jx_str(jx_obj(pod, "status"), "phase");
    if (jx_str(jx_obj(pod, "metadata"), "deletionTimestamp"))
        return false;
    return !phase || (strcmp(phase, "Failed") != 0 && strcmp(phase, "Succeeded") != 0);
}

int place_leader_for_follower(const struct place_src *src, const json_t *pod, json_t **leader,
                              struct place_err *pe)
{
    char name[512];
    int rc = place_leader_name(pod, name, sizeof(name), pe);
    if (rc != 0)
        return rc;
    const char *ns = jx_str(jx_obj(pod, "metadata"), "namespace");
    json_t *all = src->pods_named(src->arg, ns ? ns : "", name), *one = NULL, *p;
    size_t i, n = 0;
    if (!all)
        return -ENOMEM;
    json_array_foreach (all, i, p) {
        if (live(p)) {
            one = p;
            n++;
        }
    }
    if (n != 1)
        rc = refuse(pe, 403, "Forbidden", "expected 1 leader pod (%s), but got %zu. this is an "
                    "expected, transient error", name, n);
    else if ((rc = place_same_job(one, pod, pe)) == 0)
        *leader = json_incref(one);
    json_decref(all);
    return rc;
}

static json_t *req(const char *key, const char *op, const char *value)
{
    json_t *r = json_pack("{s:s,s:s}", "key", key, "operator", op);
    if (r && value && jx_set_new(r, "values", json_pack("[s]", value)) < 0) {
        json_decref(r);
        return NULL;
    }
    return r;
}

/* A PodAffinityTerm on `topo` selecting by the match expressions `exprs` (stolen). */
static json_t *term(json_t *exprs, const char *topo)
{
    if (!exprs)
        return NULL;
    return json_pack("{s:{s:o},s:s,s:{}}", "labelSelector", "matchExpressions", exprs,
                     "topologyKey", topo, "namespaceSelector");
}

/* Appends `t` (stolen) to spec.affinity.<kind>.requiredDuringSchedulingIgnoredDuringExecution. */
static int add_term(json_t *spec, const char *kind, json_t *t)
{
    json_t *aff = jx_ensure_obj(spec, "affinity");
    json_t *k = aff ? jx_ensure_obj(aff, kind) : NULL;
    json_t *arr = k ? jx_ensure_arr(k, "requiredDuringSchedulingIgnoredDuringExecution") : NULL;
    if (!t || !arr || json_array_append_new(arr, t) < 0) {
        json_decref(t);
        return -ENOMEM;
    }
    return 0;
}

/* setExclusiveAffinities. */
static int leader_affinities(json_t *pod)
{
    const char *topo = ann(pod, ANN_EXCLUSIVE_TOPOLOGY);
    const char *key = label(pod, LBL_JOB_KEY), *prio = label(pod, LBL_PRIORITY);
    json_t *spec = jx_ensure_obj(pod, "spec");
    if (!spec)
        return -ENOMEM;
    /* Go's zero value: a missing label selects "" */
    key = key ? key : "";
    prio = prio ? prio : "";
    json_t *anti = json_pack("[o,o,o]", req(LBL_JOB_KEY, "Exists", NULL),
                             req(LBL_JOB_KEY, "NotIn", key), req(LBL_PRIORITY, "In", prio));
    if (add_term(spec, "podAffinity", term(json_pack("[o]", req(LBL_JOB_KEY, "In", key)),
                                           topo)) < 0)
        return -ENOMEM;
    return add_term(spec, "podAntiAffinity", term(anti, topo));
}

/* topologyFromPod: the value of the leader's Node's label `topo`. */
static int leader_domain(const struct place_src *src, const json_t *leader, const char *topo,
                         char *out, size_t n, struct place_err *pe)
{
    json_t *node = NULL;
    const char *name = node_name(leader);
    int rc = src->node(src->arg, name, &node);
    if (rc == -ENOENT)
        return refuse(pe, 404, "NotFound", "nodes \"%s\" not found", name);
    if (rc < 0)
        return rc == -ENOMEM ? rc : refuse(pe, 500, "InternalError", "getting node %s: %s",
                                          name, strerror(-rc));
    const char *v = jx_get_meta(jx_obj(node, "metadata"), "labels", topo);
    if (v)
        snprintf(out, n, "%s", v);
    json_decref(node);
    return v ? 0 : refuse(pe, 403, "Forbidden", "node does not have topology label: %s", topo);
}

int place_follower_domain(const json_t *pod, const struct place_src *src, char *dom, size_t n,
                          bool *have, struct place_err *pe)
{
    json_t *leader = NULL;
    struct place_err ignored;
    *have = false;
    int rc = place_leader_for_follower(src, pod, &leader, &ignored);
    if (rc == 0 && node_name(leader)) {
        rc = leader_domain(src, leader, ann(pod, ANN_EXCLUSIVE_TOPOLOGY), dom, n, pe);
        *have = rc == 0;
    } else if (rc > 0)
        rc = 0; /* no single leader yet */
    json_decref(leader);
    return rc;
}

/* setNodeSelector: a follower whose leader is not found or not yet scheduled is left as it is
 * (ValidateCreate refuses it). */
static int follower_selector(json_t *pod, const struct place_src *src, struct place_err *pe)
{
    char dom[256];
    bool have;
    int rc = place_follower_domain(pod, src, dom, sizeof(dom), &have, pe);
    if (rc != 0 || !have)
        return rc;
    json_t *sel = jx_ensure_obj(jx_ensure_obj(pod, "spec"), "nodeSelector");
    return sel && jx_set_str(sel, ann(pod, ANN_EXCLUSIVE_TOPOLOGY), dom) == 0 ? 0 : -ENOMEM;
}

int place_default(json_t *pod, const struct place_src *src, struct place_err *pe)
{
    long long prio;
    char v[32];
    if (!ann(pod, LBL_JOBSET_NAME) || ann(pod, ANN_NODE_SELECTOR))
        return 0;
    if (jx_int(jx_obj(pod, "spec"), "priority", &prio) == 0) {
        snprintf(v, sizeof(v), "%lld", prio);
        if (jx_set_meta(jx_ensure_obj(pod, "metadata"), "labels", LBL_PRIORITY, v) < 0)
            return -ENOMEM;
    }
    if (!ann(pod, ANN_EXCLUSIVE_TOPOLOGY))
        return 0;
    return place_is_leader(pod) ? leader_affinities(pod) : follower_selector(pod, src, pe);
}

int place_validate(const json_t *pod, const struct place_src *src, struct place_err *pe)
{
    const char *topo = ann(pod, ANN_EXCLUSIVE_TOPOLOGY);
    if (!ann(pod, LBL_JOBSET_NAME) || ann(pod, ANN_NODE_SELECTOR) || !topo ||
        place_is_leader(pod))
        return 0;
    const json_t *sel = jx_obj(jx_obj(pod, "spec"), "nodeSelector");
    if (!sel)
        return refuse(pe, 403, "Forbidden", "follower pod node selector not set");
    if (!json_object_get(sel, topo))
        return refuse(pe, 403, "Forbidden", "follower pod node selector for topology domain not "
                      "found. missing selector: %s", topo);
    json_t *leader = NULL;
    int rc = place_leader_for_follower(src, pod, &leader, pe);
    if (rc != 0)
        return rc;
    bool scheduled = node_name(leader) != NULL;
    json_decref(leader);
    if (!scheduled)
        return refuse(pe, 403, "Forbidden", "leader pod not yet scheduled, not creating follower "
                      "pod. this is an expected, transient error");
    return 0;
}

bool place_reconcile_wanted(const json_t *pod)
{
    return place_is_leader(pod) && node_name(pod) && ann(pod, ANN_EXCLUSIVE_TOPOLOGY) &&
           !ann(pod, ANN_NODE_SELECTOR) &&
           !jx_str(jx_obj(pod, "metadata"), "deletionTimestamp");
}

json_t *place_pods_for_job(const json_t *pods, const char *job_key, const char *uid)
{
    json_t *out = json_array(), *p;
    size_t i;
    json_array_foreach (pods, i, p) {
        const char *k = label(p, LBL_JOB_KEY), *o = controller_uid(p);
        if (!out || !ann(p, ANN_EXCLUSIVE_TOPOLOGY) || !k || strcmp(k, job_key) != 0 || !o ||
            strcmp(o, uid) != 0)
            continue;
        if (json_array_append(out, p) < 0) {
            json_decref(out);
            return NULL;
        }
    }
    return out;
}

/* leaderPodTopology: "" when the Node is gone (it may come back). */
static int leader_topology(const json_t *leader, const char *topo, const struct place_src *src,
                           char *out, size_t n, struct place_err *pe)
{
    int rc = leader_domain(src, leader, topo, out, n, pe);
    if (rc == PLACE_NO && pe->code == 404) {
        out[0] = '\0';
        return 0;
    }
    return rc;
}

int place_validate_placements(const json_t *leader, const json_t *pods,
                              const struct place_src *src, bool *matched, struct place_err *pe)
{
    const char *topo = ann(leader, ANN_EXCLUSIVE_TOPOLOGY);
    char dom[256];
    const json_t *p;
    size_t i;
    *matched = false;
    int rc = leader_topology(leader, topo ? topo : "", src, dom, sizeof(dom), pe);
    if (rc != 0)
        return rc;
    json_array_foreach (pods, i, p) {
        if (place_is_leader(p) || place_gated(p)) /* a gated follower is given its domain */
            continue;
        const char *f = jx_str(jx_obj(jx_obj(p, "spec"), "nodeSelector"), topo);
        if (f && strcmp(f, dom) == 0)
            continue;
        if (!dom[0])
            return refuse(pe, 500, "InternalError", "leader topology is unknown (node not found)");
        return 0;
    }
    *matched = true;
    return 0;
}

/* The condition is added when absent and replaces one that is not True; a True one stays. */
bool place_condition_add(json_t *pod, const char *now)
{
    const struct cond want = {.type = "DisruptionTarget", .status = COND_TRUE,
                              .reason = PLACE_VIOLATION_REASON,
                              .message = PLACE_VIOLATION_MESSAGE, .transition = now};
    json_t *st = jx_ensure_obj(pod, "status");
    size_t i;
    if (!st || cond_true(st, want.type))
        return false;
    if (cond_find(st, want.type, &i))
        return cond_replace(st, i, cond_new(&want)) == 0;
    return cond_append(st, cond_new(&want)) == 0;
}

/* deleteFollowerPods' plan: every follower, with the violation condition. */
static json_t *follower_deletions(const json_t *pods, const char *now)
{
    json_t *out = json_array(), *p;
    size_t i;
    json_array_foreach (pods, i, p) {
        if (!out || place_is_leader(p))
            continue;
        json_t *copy = json_deep_copy(p);
        bool update = copy && place_condition_add(copy, now);
        if (!copy || json_array_append_new(out, json_pack("{s:o,s:b}", "pod", copy,
                                                          "updateStatus", update)) < 0) {
            json_decref(out);
            return NULL;
        }
    }
    return out;
}

int place_reconcile_plan(const json_t *leader, const json_t *pods, const struct place_src *src,
                         const char *now, json_t **deletions, struct place_err *pe)
{
    const char *name = jx_str(jx_obj(leader, "metadata"), "name");
    const char *key = label(leader, LBL_JOB_KEY), *uid = controller_uid(leader);
    bool matched = false;
    *deletions = NULL;
    if (!key)
        return refuse(pe, 500, "InternalError", "job key label not found on leader pod: \"%s\"",
                      name);
    if (!uid)
        return refuse(pe, 500, "InternalError", "leader pod \"%s\" has no controller owner",
                      name);
    json_t *job = place_pods_for_job(pods, key, uid);
    if (!job)
        return -ENOMEM;
    int rc = place_validate_placements(leader, job, src, &matched, pe);
    if (rc == 0)
        *deletions = matched ? json_array() : follower_deletions(job, now);
    json_decref(job);
    return rc == 0 && !*deletions ? -ENOMEM : rc;
}
