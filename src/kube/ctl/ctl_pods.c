/* Exclusive placement on the controller side (kubernetes-sigs/jobset
 * pkg/controllers/pod_controller.go): the pods of JobSets and the Nodes in caches, the pod
 * name index the pod webhook finds a follower's leader by (upstream's PodNameKey index), and
 * the pod reconciler: a scheduled leader whose followers' nodeSelectors do not all name its
 * domain gets its followers deleted, each after its DisruptionTarget condition
 * (ExclusivePlacementViolation) is written, so that a podFailurePolicy may ignore the deletion.
 * The rules are api/child/placement.h's.  Upstream records no Event here; neither does jaxset.
 *
 * The same pod reconciler labels a JAXJob's Worker pods with their replica-index and job-role
 * (api/kubeflow/jaxjob_status.h jjs_pod_index_labels) when they arrive without them: the pods of a
 * JAXJob share one Indexed Job's template, so these per-pod labels come from the pod webhook when
 * it runs, and from this merge patch when it does not (Kubernetes >= 1.28 labels each pod with
 * batch.kubernetes.io/job-completion-index itself, but the Training Operator's clients select
 * training.kubeflow.org/replica-index and job-role=master). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/kubeflow/jaxjob_status.h"
#include "api/schema/keys.h"
#include "api/child/placement.h"
#include "kube/ctl/ctl_int.h"
#include "kube/client/kc_log.h"
#include "obj/tree/jx.h"
#include "obj/base/ktime.h"

#define LOGGER "pod-reconciler"

static void copy(json_t *dst, const json_t *src, const char *key)
{
    json_t *v = json_object_get(src, key);
    if (v)
        json_object_set(dst, key, v);
}

/* What the pod cache keeps: what placement reads. */
static json_t *slim_pod(const json_t *pod)
{
    static const char *const mk[] = {"name", "namespace", "uid", "resourceVersion",
                                     "deletionTimestamp", "deletionGracePeriodSeconds",
                                     "labels", "annotations",
                                     "ownerReferences", NULL};
    const json_t *m = jx_obj(pod, "metadata"), *s = jx_obj(pod, "spec");
    json_t *out = json_pack("{s:{},s:{},s:{}}", "metadata", "spec", "status");
    if (!out)
        return NULL;
    for (size_t i = 0; mk[i]; i++)
        copy(jx_obj(out, "metadata"), m, mk[i]);
    copy(jx_obj(out, "spec"), s, "nodeName");
    copy(jx_obj(out, "spec"), s, "nodeSelector");
    copy(jx_obj(out, "spec"), s, "schedulingGates");
    copy(jx_obj(out, "status"), jx_obj(pod, "status"), "phase");
    return out;
}

static json_t *slim_node(const json_t *node)
{
    const json_t *m = jx_obj(node, "metadata");
    json_t *out = json_pack("{s:{}}", "metadata");
    if (!out)
        return NULL;
    copy(jx_obj(out, "metadata"), m, "name");
    copy(jx_obj(out, "metadata"), m, "resourceVersion");
    copy(jx_obj(out, "metadata"), m, "labels");
    return out;
}

/* "ns/<name less its suffix>" of a pod of exclusive placement; false for the others. */
static bool index_key(const json_t *pod, char *key, size_t n)
{
    const json_t *m = jx_obj(pod, "metadata");
    char base[512];
    if (!jx_get_meta(m, "annotations", ANN_EXCLUSIVE_TOPOLOGY) ||
        place_index_name(jx_str(m, "name"), base, sizeof(base)) < 0)
        return false;
    const char *ns = jx_str(m, "namespace");
    return snprintf(key, n, "%s/%s", ns ? ns : "", base) < (int)n;
}

static void index_update(struct ctl *c, const char *type, const json_t *pod)
{
    char key[800];
    const char *name = jx_str(jx_obj(pod, "metadata"), "name");
    if (!index_key(pod, key, sizeof(key)))
        return;
    json_t *names = json_object_get(c->pod_index, key);
    if (strcmp(type, "DELETED") == 0) {
        json_object_del(names, name);
        if (names && json_object_size(names) == 0)
            json_object_del(c->pod_index, key);
        return;
    }
    if (!names && json_object_set_new(c->pod_index, key, names = json_object()) < 0)
        return;
    json_object_set_new(names, name, json_true());
}

/* The replica-index and job-role labels a JAXJob Worker pod lacks (no pod webhook set them):
 * a new object, or NULL when it lacks none. */
static json_t *kubeflow_missing(const struct ctl *c, const json_t *pod)
{
    if (!(c->kinds & CTL_KIND_JAXJOB) || json_object_get(jx_obj(pod, "metadata"),
                                                         "deletionTimestamp"))
        return NULL;
    json_t *kf = jjs_pod_index_labels(jx_obj(pod, "metadata"));
    if (kf && json_object_size(kf) == 0) {
        json_decref(kf);
        kf = NULL;
    }
    return kf;
}

static bool kubeflow_unlabelled(const struct ctl *c, const json_t *pod)
{
    json_t *kf = kubeflow_missing(c, pod);
    json_decref(kf);
    return kf != NULL;
}

static void pod_changed(void *arg, const char *type, const json_t *pod)
{
    struct ctl *c = arg;
    const json_t *m = jx_obj(pod, "metadata");
    char key[600];
    index_update(c, type, pod);
    bool placed = (c->kinds & CTL_KIND_JOBSET) &&
                  (place_reconcile_wanted(pod) || (c->o->placement_gates && place_gated(pod)));
    if (strcmp(type, "DELETED") == 0 || !(placed || kubeflow_unlabelled(c, pod)))
        return;
    snprintf(key, sizeof(key), "%s%s/%s", CTL_KEY_POD, jx_str(m, "namespace"),
             jx_str(m, "name"));
    size_t before = cache_queue_adds(c->q);
    cache_queue_add(c->q, key);
    if (cache_queue_adds(c->q) != before)
        ctl__obs_queued(c, false);
}

static void node_changed(void *arg, const char *type, const json_t *node)
{
    (void)arg;
    (void)type;
    (void)node;
}

int ctl__pods_informers(struct ctl *c, const struct cache_inf_opts *base)
{
    struct cache_inf_opts pods = *base, nodes = *base;
    pods.name = "pods";
    pods.path = "/api/v1/pods";
    pods.selector = LBL_JOBSET_NAME;
    pods.slim = slim_pod;
    pods.changed = pod_changed;
    nodes.name = "nodes";
    nodes.path = "/api/v1/nodes";
    nodes.selector = NULL;
    nodes.slim = slim_node;
    nodes.changed = node_changed;
    c->pod_index = json_object();
    c->pods = c->n_all < CTL_MAX_INFORMERS ? cache_inf_new(c->kc, &pods) : NULL;
    if (c->pods)
        c->all[c->n_all++] = c->pods;
    c->nodes = c->n_all < CTL_MAX_INFORMERS ? cache_inf_new(c->kc, &nodes) : NULL;
    if (c->nodes)
        c->all[c->n_all++] = c->nodes;
    return c->pods && c->nodes && c->pod_index ? 0 : -ENOMEM;
}

json_t *ctl__pods_named(void *arg, const char *ns, const char *base)
{
    struct ctl *c = arg;
    char key[800];
    const char *name;
    json_t *v, *out = json_array();
    snprintf(key, sizeof(key), "%s/%s", ns, base);
    json_object_foreach (json_object_get(c->pod_index, key), name, v) {
        json_t *pod = cache_store_get(cache_inf_store(c->pods), ns, name);
        if (out && pod && json_array_append(out, pod) < 0) {
            json_decref(out);
            out = NULL;
        }
        json_decref(pod);
    }
    return out;
}

int ctl__node_get(void *arg, const char *name, json_t **out)
{
    struct ctl *c = arg;
    *out = name ? cache_store_get(cache_inf_store(c->nodes), "", name) : NULL;
    return *out ? 0 : -ENOENT;
}

/* [yields] The violation condition on the pod as stored now, then the pod deleted in the
 * background (upstream deleteFollowerPods). */
static int delete_follower(struct ctl *c, const char *ns, const json_t *d, struct err *e)
{
    const char *name = jx_str(jx_obj(jx_obj(d, "pod"), "metadata"), "name");
    char *path = ctl__path("/api/v1", "pods", ns, name, NULL);
    char *spath = ctl__path("/api/v1", "pods", ns, name, "status");
    char now[KT_RFC3339_MAX];
    json_t *fresh = NULL;
    int rc = path && spath ? 0 : err_oom(e);
    kt_format(kt_now_ms(), now);
    if (rc == 0 && jx_bool_or(d, "updateStatus", false) &&
        (rc = kc_call(c->kc, "GET", path, NULL, NULL, &fresh, e)) == 0 &&
        place_condition_add(fresh, now))
        rc = kc_call(c->kc, "PUT", spath, fresh, NULL, NULL, e);
    if (rc == 0)
        rc = ctl__kind_delete(c, "/api/v1", "pods", ns, name, NULL, "Background", e);
    json_decref(fresh);
    free(path);
    free(spath);
    return rc == -ENOENT ? 0 : rc;
}

static int follow_plan(struct ctl *c, const json_t *leader, const json_t *deletions)
{
    const json_t *m = jx_obj(leader, "metadata"), *d;
    const char *ns = jx_str(m, "namespace");
    size_t i;
    int rc = 0;
    if (json_array_size(deletions) == 0)
        return 0;
    kc_log(KC_LOG_INFO, LOGGER, ns, "deleting follower pods for leader pod: %s",
           jx_str(m, "name"));
    json_array_foreach (deletions, i, d) {
        struct err e = {{0}};
        int r = delete_follower(c, ns, d, &e);
        if (r < 0) {
            kc_log(KC_LOG_ERROR, LOGGER, ns, "%s: %s", jx_str(m, "name"), e.msg);
            rc = r;
        }
    }
    return rc;
}

/* [yields] The gated follower `pod` given its leader's domain and let go to the scheduler
 * (api/child/placement.h, the gated order), when its leader is scheduled. */
static int ungate(struct ctl *c, const json_t *pod, const struct place_src *src)
{
    const json_t *m = jx_obj(pod, "metadata");
    const char *ns = jx_str(m, "namespace"), *name = jx_str(m, "name");
    struct place_err pe = {0};
    struct err e = {{0}};
    json_t *patch = NULL;
    char *path = NULL;
    int rc = place_ungate_one(pod, src, &patch, &pe);
    if (rc == PLACE_NO) {
        kc_log(KC_LOG_ERROR, LOGGER, ns, "%s: the leader's domain: %s", name, pe.msg);
        rc = -EAGAIN;
    }
    if (rc != 0 || !patch)
        goto out;
    path = ctl__path("/api/v1", "pods", ns, name, NULL);
    rc = path ? kc_call(c->kc, "PATCH", path, patch, "application/json-patch+json", NULL, &e)
              : -ENOMEM;
    if (rc == -ENOENT || rc == -JX_ECONFLICT || rc == -EINVAL)
        rc = 0; /* gone, or its gates changed since (the test failed): its next event */
    else if (rc < 0)
        kc_log(KC_LOG_ERROR, LOGGER, ns, "%s: ungating: %s", name, e.msg);
out:
    json_decref(patch);
    free(path);
    return rc;
}

/* [yields] Every gated follower among `pods` (a scheduled leader's Job's). */
static int ungate_job(struct ctl *c, const json_t *pods, const struct place_src *src)
{
    const json_t *p;
    size_t i;
    int rc = 0;
    json_array_foreach (pods, i, p) {
        int r = place_gated(p) ? ungate(c, p, src) : 0;
        rc = rc < 0 ? rc : r;
    }
    return rc;
}

/* [yields] The replica-index and job-role labels of a JAXJob Worker pod, when the pod webhook
 * did not set them (a controller run without webhooks): a merge patch of the pod's labels,
 * as the Training Operator's pods carry them from creation. */
static int kubeflow_label(struct ctl *c, const json_t *pod)
{
    const json_t *m = jx_obj(pod, "metadata");
    struct err e = {{0}};
    json_t *kf = kubeflow_missing(c, pod);
    if (!kf)
        return 0;
    char *path = ctl__path("/api/v1", "pods", jx_str(m, "namespace"), jx_str(m, "name"), NULL);
    json_t *patch = json_pack("{s:{s:o,s:s}}", "metadata", "labels", kf, "resourceVersion",
                              jx_str(m, "resourceVersion") ? jx_str(m, "resourceVersion") : "");
    int rc = path && patch ? kc_call(c->kc, "PATCH", path, patch,
                                     "application/merge-patch+json", NULL, &e)
                           : err_oom(&e);
    if (rc == -ENOENT || rc == -JX_ECONFLICT)
        rc = 0; /* gone, or changed since: the next event brings it back */
    else if (rc < 0)
        kc_log(KC_LOG_ERROR, LOGGER, jx_str(m, "namespace"), "%s: labelling: %s",
               jx_str(m, "name"), e.msg);
    json_decref(patch);
    free(path);
    return rc;
}

int ctl__pod_reconcile(struct ctl *c, const char *key, bool *requeued)
{
    char ns[256];
    const char *name;
    struct place_err pe = {0};
    json_t *deletions = NULL, *pods = NULL;
    struct place_src src = {ctl__pods_named, ctl__node_get, c};
    char now[KT_RFC3339_MAX];
    *requeued = false;
    if (!c->pods || !ctl__split_key(key, ns, sizeof(ns), &name))
        return 0;
    json_t *pod = cache_store_get(cache_inf_store(c->pods), ns, name);
    int rc = pod ? kubeflow_label(c, pod) : 0;
    if (rc == 0 && pod && (c->kinds & CTL_KIND_JOBSET) && c->o->placement_gates &&
        place_gated(pod)) {
        rc = ungate(c, pod, &src); /* a follower */
        goto out;
    }
    if (rc < 0 || !pod || !(c->kinds & CTL_KIND_JOBSET) || !place_reconcile_wanted(pod))
        goto out;
    const char *uid = cache_store_owner_uid(pod);
    pods = ctl__owned(c->pods, ns, uid);
    if (pods && c->o->placement_gates && (rc = ungate_job(c, pods, &src)) < 0)
        goto out;
    kt_format(kt_now_ms(), now);
    rc = pods ? place_reconcile_plan(pod, pods, &src, now, &deletions, &pe) : -ENOMEM;
    if (rc == PLACE_NO) {
        kc_log(KC_LOG_ERROR, LOGGER, ns, "%s: validating pod placements: %s", name, pe.msg);
        rc = -EAGAIN;
    } else if (rc == 0) {
        rc = follow_plan(c, pod, deletions);
    }
out:
    json_decref(deletions);
    json_decref(pods);
    json_decref(pod);
    return rc;
}
