/* The TrainJob controller (trainer.kubeflow.org/v1alpha1), in the JobSet controller's process:
 * spec.runtimeRef is resolved in the TrainingRuntime / ClusterTrainingRuntime caches, the JobSet
 * is built by the converter with the JAX ML policy (api/convert/convert.h conv_for_cluster: the JAX
 * plugin's variables, numNodes, the trainer overrides) and created with a controller owner
 * reference; the status follows Trainer v2's rules (api/kubeflow/trainjob_status.h; upstream
 * kubeflow/trainer pkg/controller/trainjob_controller.go).  What jaxset cannot run -- a missing
 * runtime, a runtimeRef of another kind, a runtime of another framework, a field it does not
 * implement (tjs_unsupported), a JobSet that would not validate -- is a Failed condition naming
 * it and a Warning Event, decided again on every pass (a fixed runtime lets the job go on), and
 * nothing is created.  A TrainJob whose spec.managedBy is not
 * trainer.kubeflow.org/trainjob-controller (Kueue's MultiKueue) is left alone.
 * With the runtime's podGroupPolicy the PodGroup (api/kubeflow/trainjob_podgroup.h) is created
 * before the JobSet, owned by the TrainJob as upstream's coscheduling / volcano plugin creates it;
 * when its CRD is not served, the Failed condition and Warning Event name it (upstream's apply
 * fails with "no matches for kind") and the pass is tried again every few seconds.  One
 * deleted while the TrainJob runs is created again (keep_pod_group), as upstream's plugins build
 * it on every reconcile; the PodGroup caches (ctl_main.c) queue the TrainJob when it goes.
 * As upstream's JobSet plugin (Build), an existing JobSet is rebuilt only while the TrainJob or
 * the JobSet is suspended: a JobSet (or PodGroup) that does not hold what the TrainJob and its
 * runtime now give (runtimePatches changed while suspended), or whose build hash annotation
 * differs from the new build's (a patch that removes a key), is replaced by a PUT of the new spec,
 * which the JobSet webhook refuses for fields other than the pod templates' labels,
 * annotations, nodeSelector, tolerations and schedulingGates -- a refusal is the Failed
 * condition and Warning Event TrainJobResourcesCreationFailed, as upstream's Event.
 * spec.suspend is carried to the JobSet.
 * The runtime is Trainer v2.3's snapshot (KEP-2599, pkg/runtime/core/snapshot.go): the first
 * pass keeps the runtime in the ConfigMap <name>-runtime-snapshot (data.runtime, YAML), owned
 * by the TrainJob, and every later pass builds from it, so that a runtime changed or deleted
 * afterwards changes nothing of a TrainJob that has started (a snapshot owned by another
 * object, without its key or of another runtime fails the pass with upstream's message).
 * With the TrainJobStatus gate (Trainer's plugins/trainjobstatus) the trainer pods get the
 * status server's variables, volume and projected token (api/kubeflow/trainjob_report.h
 * tjs_report_enforce) and, before the JobSet is created, the ConfigMap <name>-tls-config with
 * the CA of the server's certificate (the webhooks', so the gate needs --enable-webhooks); until
 * the server serves, the build fails as upstream's does without its Secret, and is retried. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/convert/convert.h"
#include "api/jobset/features.h"
#include "api/jobset/jobset.h"
#include "api/schema/keys.h"
#include "api/kubeflow/trainjob_podgroup.h"
#include "api/kubeflow/trainjob_report.h"
#include "api/kubeflow/trainjob_status.h"
#include "kube/ctl/ctl_int.h"
#include "kube/client/kc_log.h"
#include "obj/tree/ferr.h"
#include "obj/tree/jx.h"
#include "obj/tree/yaml.h"
#include "obj/base/ktime.h"

#define LOGGER "trainjob"
#define GROUP "trainer.kubeflow.org"
#define CTR "ClusterTrainingRuntime"
#define TR "TrainingRuntime"

struct tj_pass {
    struct ctl *c;
    const json_t *tj;
    char ns[256];
    const char *name, *uid, *key;
    json_t *js;          /* its JobSet (owned) */
    const char *why;     /* a reason not to run (TJS_*) */
    char msg[1024];
    bool retry;          /* look again soon (a missing PodGroup CRD) */
};

#define RETRY_MS 5000

/* The runtime spec.runtimeRef names (a new reference with its kind set), or NULL and p->why. */
static json_t *resolve(struct tj_pass *p)
{
    const json_t *ref = jx_path(p->tj, "spec.runtimeRef");
    const char *kind = jx_str(ref, "kind"), *group = jx_str(ref, "apiGroup");
    const char *name = jx_str(ref, "name");
    kind = kind ? kind : CTR;
    group = group ? group : GROUP;
    if (strcmp(group, GROUP) != 0 || (strcmp(kind, CTR) != 0 && strcmp(kind, TR) != 0)) {
        p->why = TJS_RUNTIME_NOT_SUPPORTED;
        snprintf(p->msg, sizeof(p->msg), "unsupported runtime: %s.%s", kind, group);
        return NULL;
    }
    bool cluster = strcmp(kind, CTR) == 0;
    json_t *rt = name ? cache_store_get(cache_inf_store(cluster ? p->c->cruntimes : p->c->runtimes),
                                   cluster ? "" : p->ns, name)
                      : NULL;
    if (!rt) {
        p->why = TJS_RUNTIME_NOT_FOUND;
        snprintf(p->msg, sizeof(p->msg), "spec.runtimeRef: %s.%s \"%s\" not found",
                 cluster ? "clustertrainingruntimes" : "trainingruntimes", GROUP,
                 name ? name : "");
        return NULL;
    }
    if (jx_set_str(rt, "kind", kind) < 0 || jx_set_str(rt, "apiVersion", GROUP "/v1alpha1") < 0) {
        json_decref(rt);
        return NULL;
    }
    return rt;
}

/* Annotates the built JobSet with the hash of its spec less suspend: a rebuild whose hash
 * differs replaces the stored spec, so what a changed runtimePatch no longer sets goes, as
 * upstream's server-side apply with its field manager removes the fields it stopped setting
 * (kubeflow/trainer pkg/controller/trainjob_controller.go reconcileObjects). */
static int annotate_hash(json_t *js)
{
    char hash[41];
    json_t *spec = json_deep_copy(jx_obj(js, "spec"));
    (void)json_object_del(spec, "suspend");
    int rc = spec ? jx_sha1(spec, hash) : -ENOMEM;
    json_decref(spec);
    return rc < 0 ? rc : jx_set_meta(jx_ensure_obj(js, "metadata"), "annotations",
                                     ANN_TRAINJOB_BUILD_HASH, hash);
}

/* TrainJobStatus: the trainer pods' side of the status server, or p->why when it does not
 * serve (yet).  0 or -ENOMEM. */
static int status_enforce(struct tj_pass *p, json_t *js)
{
    const struct ctl *c = p->c;
    if (!fg_enabled(&c->o->gates, FG_TRAINJOB_STATUS))
        return 0;
    if (!c->status_base) {
        p->why = TJS_BUILD_FAILED;
        p->retry = true;
        snprintf(p->msg, sizeof(p->msg), "TrainJob resources reconciliation failed: failed to "
                 "look up status server tls secret: %s", c->o->webhooks ? "not served yet"
                 : "the TrainJobStatus gate needs --enable-webhooks (their certificate)");
        return 0;
    }
    return tjs_report_enforce(js, p->ns, p->name, c->status_base);
}

/* The converter's JobSet for the TrainJob and its runtime, or NULL with p->why. */
static json_t *build(struct tj_pass *p, const json_t *rt)
{
    char buf[512];
    const char *no = tjs_unsupported(p->tj, rt, buf, sizeof(buf));
    if (no) {
        p->why = TJS_NOT_IMPLEMENTED;
        snprintf(p->msg, sizeof(p->msg), "%s", no);
        return NULL;
    }
    struct ferr_list errs;
    ferr_list_init(&errs);
    json_t *js = conv_for_cluster("TrainJob", p->tj, rt, &p->c->o->gates, &errs);
    char *first = !js && errs.n ? ferr_format(&errs.v[0]) : NULL;
    if (first) {
        p->why = TJS_BUILD_FAILED;
        snprintf(p->msg, sizeof(p->msg), "TrainJob resources reconciliation failed: %s", first);
    }
    free(first);
    ferr_list_release(&errs);
    if (js && (status_enforce(p, js) < 0 || annotate_hash(js) < 0)) {
        json_decref(js);
        js = NULL;
    }
    return js;
}

static bool suspended(const json_t *o)
{
    return jx_bool_or(jx_obj(o, "spec"), "suspend", false);
}

static void failed(struct tj_pass *p, const char *what, const struct err *e)
{
    p->why = TJS_BUILD_FAILED;
    /* upstream cuts the error at 950 characters, for the Event's 1024 */
    snprintf(p->msg, sizeof(p->msg), "TrainJob resources reconciliation failed: %.950s%s",
             e->msg, strlen(e->msg) > 950 ? " ..." : "");
    kc_log(KC_LOG_ERROR, LOGGER, p->key, "%s: %s", what, e->msg);
}

/* ---- the runtime snapshot (KEP-2599) ------------------------------------------------------ */

#define SNAPSHOT_SUFFIX "-runtime-snapshot"

/* The snapshot `cm` holds, checked as getRuntimeSnapshot checks it: a new reference, or NULL
 * with why (a static message, or the decode error in e). */
static json_t *snapshot_runtime(struct tj_pass *p, const json_t *cm, const char **why,
                                struct err *e)
{
    const json_t *refs = jx_arr(jx_obj(cm, "metadata"), "ownerReferences"), *o;
    const char *owner = NULL, *text = jx_str(jx_obj(cm, "data"), "runtime");
    size_t i;
    json_array_foreach (refs, i, o)
        if (json_is_true(json_object_get(o, "controller")))
            owner = jx_str(o, "uid");
    json_t *docs = NULL, *rt = NULL;
    if (!owner || !p->uid || strcmp(owner, p->uid) != 0)
        *why = "invalid runtime snapshot: a snapshot configmap exists but is owned by another "
               "object";
    else if (!text)
        *why = "invalid runtime snapshot: snapshot ConfigMap missing \"runtime\" data key";
    else if (yaml_decode(text, strlen(text), &docs, e) < 0 ||
             !json_is_object(json_array_get(docs, 0)))
        *why = "invalid runtime snapshot: unable to unmarshal the snapshot";
    else
        rt = json_incref(json_array_get(docs, 0));
    json_decref(docs);
    const json_t *ref = jx_path(p->tj, "spec.runtimeRef");
    const char *kind = jx_str(ref, "kind"), *name = jx_str(ref, "name");
    if (rt && ((kind && (!jx_str(rt, "kind") || strcmp(kind, jx_str(rt, "kind")))) || !name ||
               !jx_str(jx_obj(rt, "metadata"), "name") ||
               strcmp(name, jx_str(jx_obj(rt, "metadata"), "name")))) {
        *why = "invalid runtime snapshot: the snapshot refers to the wrong runtime";
        json_decref(rt);
        rt = NULL;
    }
    return rt;
}

/* The runtime to build from: the snapshot, or the runtime spec.runtimeRef names, then kept as
 * the snapshot.  NULL with p->why (NULL and no why: out of memory). */
static json_t *runtime_of(struct tj_pass *p)
{
    char name[300];
    struct err e = {{0}};
    snprintf(name, sizeof(name), "%s" SNAPSHOT_SUFFIX, p->name);
    char *path = ctl__path("/api/v1", "configmaps", p->ns, name, NULL);
    json_t *cm = NULL, *rt = NULL;
    int rc = path ? kc_call(p->c->kc, "GET", path, NULL, NULL, &cm, &e) : -ENOMEM;
    const char *why = NULL;
    if (rc == 0 && !(rt = snapshot_runtime(p, cm, &why, &e))) {
        err_set(&e, -EINVAL, "getting runtime snapshot: %s", why);
        failed(p, "reading its runtime snapshot", &e);
    } else if (rc == -ENOENT && (rt = resolve(p))) {
        char *text = yaml_encode(rt);
        json_t *snap = text ? json_pack("{s:s,s:s,s:{s:s,s:s},s:{s:s}}", "apiVersion", "v1",
                                        "kind", "ConfigMap", "metadata", "name", name,
                                        "namespace", p->ns, "data", "runtime", text)
                            : NULL;
        rc = snap ? ctl__kind_create_owned(p->c, &ctl__kind_trainjob, p->tj, "/api/v1",
                                           "configmaps", snap, NULL, &e)
                  : -ENOMEM;
        if (rc < 0 && rc != -EEXIST && rc != -ENOMEM) {
            failed(p, "creating its runtime snapshot", &e);
            json_decref(rt);
            rt = NULL;
        }
        json_decref(snap);
        free(text);
    } else if (rc < 0 && rc != -ENOENT && rc != -ENOMEM) {
        failed(p, "reading its runtime snapshot", &e);
    }
    json_decref(cm);
    free(path);
    return rt;
}

/* The ConfigMap of the status server's CA the trainer pods mount, created when missing and
 * brought up to date when the CA changed (a new certificate).  0 or -ENOMEM. */
static int status_configmap(struct tj_pass *p)
{
    if (!fg_enabled(&p->c->o->gates, FG_TRAINJOB_STATUS) || !p->c->status_ca)
        return 0;
    struct err e = {{0}};
    json_t *cm = tjs_report_configmap(p->ns, p->name, p->uid, p->c->status_ca), *got = NULL;
    const char *cm_name = jx_str(jx_obj(cm, "metadata"), "name");
    char *path = cm ? ctl__path("/api/v1", "configmaps", p->ns, cm_name, NULL) : NULL;
    int rc = path ? kc_call(p->c->kc, "GET", path, NULL, NULL, &got, &e) : -ENOMEM;
    if (rc == -ENOENT)
        rc = ctl__kind_create_owned(p->c, &ctl__kind_trainjob, p->tj, "/api/v1", "configmaps",
                                    cm, NULL, &e);
    else if (rc == 0 && !json_equal(jx_obj(got, "data"), jx_obj(cm, "data")))
        rc = json_object_set(got, "data", jx_obj(cm, "data")) == 0
                 ? ctl__kind_put(p->c, "/api/v1", "configmaps", got, NULL, &e)
                 : -ENOMEM;
    if (rc < 0 && rc != -ENOMEM)
        failed(p, "writing its status server ConfigMap", &e);
    json_decref(got);
    json_decref(cm);
    free(path);
    return rc == -ENOMEM || !path ? -ENOMEM : 0;
}

/* The PodGroup of the runtime's podGroupPolicy: created when missing, replaced while the
 * TrainJob is suspended when it no longer holds what was built. */
static int pod_group(struct tj_pass *p, const json_t *rt, const json_t *js)
{
    const json_t *pol = jx_path(rt, "spec.podGroupPolicy");
    const struct tjpg_kind *k = tjpg_kind(pol);
    struct err e = {{0}};
    int rc = 0;
    json_t *pg = k ? tjpg_build(p->ns, p->name, pol, js, &rc) : NULL, *got = NULL;
    char *path = pg ? ctl__path(k->prefix, "podgroups", p->ns, p->name, NULL) : NULL;
    if (pg && path)
        rc = kc_call(p->c->kc, "GET", path, NULL, NULL, &got, &e);
    if (k && !pg && rc == -ERANGE) {
        err_set(&e, rc, "PodGroup minResources: a resource request of the runtime's pods is "
                "past the range of a quantity");
        failed(p, "building its PodGroup", &e);
        rc = 0;
    } else if (pg && rc < 0 && rc != -ENOENT && rc != -ENOMEM) {
        failed(p, "reading its PodGroup", &e);
        rc = 0;
    } else if (pg && rc == -ENOENT && !ctl__kind_served(p->c, k->prefix, "podgroups")) {
        err_set(&e, -ENOENT, "no matches for kind \"PodGroup\" in version \"%s\" (the %s "
                "plugin's CRD %s is not installed)", k->api_version, k->plugin, k->crd);
        failed(p, "creating its PodGroup", &e);
        p->retry = true;
        rc = 0;
    } else if (pg && rc == -ENOENT) {
        json_decref(got);
        got = NULL;
        if ((rc = ctl__kind_create_owned(p->c, &ctl__kind_trainjob, p->tj, k->prefix, "podgroups",
                                         pg, &got, &e)) < 0)
            failed(p, "creating its PodGroup", &e);
    } else if (pg && rc == 0 && suspended(p->tj) && !jx_covers(jx_obj(got, "spec"),
                                                               jx_obj(pg, "spec"))) {
        json_t *out = NULL;
        rc = json_object_set(got, "spec", jx_obj(pg, "spec")) == 0
                 ? ctl__kind_put(p->c, k->prefix, "podgroups", got, &out, &e)
                 : -ENOMEM;
        if (rc < 0 && rc != -ENOMEM)
            failed(p, "updating its PodGroup", &e);
        json_decref(out);
    }
    json_decref(got);
    json_decref(pg);
    free(path);
    return rc == -ENOMEM || (pg && !path) ? -ENOMEM : 0;
}

/* A defaulted copy of a JobSet's spec without spec.suspend (NULL on OOM); `js`, the cache's
 * object, is not touched. */
static json_t *defaulted_spec(const json_t *js)
{
    json_t *spec = NULL;
    json_t *copy = json_pack("{s:o?}", "spec", json_deep_copy(jx_obj(js, "spec")));
    if (copy && js_default(copy) == 0 && (spec = jx_obj(copy, "spec")))
        json_incref(spec);
    json_object_del(spec, "suspend");
    json_decref(copy);
    return spec;
}

/* The stored JobSet `js` made to hold `built` (both borrowed): its spec replaced, the built
 * labels and annotations added; NULL when it holds it already (both defaulted alike) or on OOM
 * (*rc). */
static json_t *rebuilt(const json_t *js, const json_t *built, bool suspend, int *rc)
{
    json_t *want = defaulted_spec(built), *have = defaulted_spec(js), *body = NULL;
    const json_t *bm = jx_obj(built, "metadata"), *sm = jx_obj(js, "metadata");
    *rc = want && have ? 0 : -ENOMEM;
    bool same = *rc == 0 && jx_covers(have, want) &&
                jx_covers(jx_obj(sm, "labels"), jx_obj(bm, "labels")) &&
                jx_covers(jx_obj(sm, "annotations"), jx_obj(bm, "annotations"));
    json_decref(have);
    if (*rc == 0 && !same)
        body = json_deep_copy(js);
    json_t *m = jx_obj(body, "metadata");
    if (body && (jx_set_bool(want, "suspend", suspend) < 0 ||
                 json_object_set(body, "spec", want) < 0 ||
                 (jx_obj(bm, "labels") &&
                  json_object_update(jx_ensure_obj(m, "labels"), jx_obj(bm, "labels")) < 0) ||
                 (jx_obj(bm, "annotations") &&
                  json_object_update(jx_ensure_obj(m, "annotations"),
                                     jx_obj(bm, "annotations")) < 0))) {
        json_decref(body);
        body = NULL;
        *rc = -ENOMEM;
    }
    if (*rc == 0 && !same && !body)
        *rc = -ENOMEM;
    json_decref(want);
    return body;
}

static int rebuild_jobset(struct tj_pass *p, const json_t *built)
{
    struct err e = {{0}};
    int rc;
    json_t *body = rebuilt(p->js, built, suspended(p->tj), &rc), *got = NULL;
    if (!body)
        return rc;
    rc = ctl__kind_put(p->c, CTL_JS_PREFIX, "jobsets", body, &got, &e);
    if (rc == 0 && got) {
        kc_log(KC_LOG_INFO, LOGGER, p->key, "rebuilt its suspended JobSet");
        json_decref(p->js);
        p->js = json_incref(got);
    } else if (rc < 0 && rc != -JX_ECONFLICT && rc != -ENOMEM) {
        failed(p, "rebuilding its JobSet", &e);
        rc = 0;
    }
    json_decref(got);
    json_decref(body);
    return rc;
}

/* Builds the JobSet (and PodGroup) and creates them, or, for an existing JobSet, brings it up to
 * date. */
static int sync(struct tj_pass *p)
{
    struct err e = {{0}};
    json_t *rt = runtime_of(p), *js = rt ? build(p, rt) : NULL;
    int rc = js ? pod_group(p, rt, js) : 0;
    if (!js && !p->why)
        rc = -ENOMEM;
    if (rc == 0 && js && !p->why && p->js)
        rc = rebuild_jobset(p, js);
    else if (rc == 0 && js && !p->why && (rc = status_configmap(p)) == 0 && !p->why) {
        rc = ctl__kind_create_jobset(p->c, &ctl__kind_trainjob, p->tj, js, &p->js, &e);
        if (rc < 0)
            kc_log(KC_LOG_ERROR, LOGGER, p->key, "creating its JobSet: %s", e.msg);
    }
    json_decref(js);
    json_decref(rt);
    return rc;
}

/* Whether the cache of kind k (a watch, when its CRD was served at start) holds the TrainJob's
 * PodGroup; false when there is no such cache or it has not listed. */
static bool pod_group_cached(struct tj_pass *p, const struct tjpg_kind *k)
{
    struct cache_inf *inf = NULL;
    for (size_t i = 0; i < TJPG_KINDS; i++)
        inf = tjpg_kind_at(i) == k ? p->c->podgroups[i] : inf;
    json_t *pg = inf && cache_inf_synced(inf)
                     ? cache_store_get(cache_inf_store(inf), p->ns, p->name)
                     : NULL;
    bool have = pg != NULL;
    json_decref(pg);
    return have;
}

/* A running TrainJob's PodGroup, created again when it is gone (deleted, say): upstream's
 * coscheduling / volcano Build runs on every reconcile and creates a missing one, and the
 * controller watches the PodGroups it owns.  The PodGroup cache answers first, so a pass with
 * the PodGroup in place sends only the snapshot's read.  The runtime is the snapshot's: one
 * changed or gone under a running job changes nothing, and a snapshot that cannot be read
 * leaves the job alone, as a pass without a PodGroup. */
static int keep_pod_group(struct tj_pass *p)
{
    json_t *rt = runtime_of(p), *js = NULL;
    const struct tjpg_kind *k = tjpg_kind(jx_path(rt, "spec.podGroupPolicy"));
    int rc = 0;
    if (k && !pod_group_cached(p, k) && !(js = build(p, rt)) && !p->why)
        rc = -ENOMEM;
    p->why = NULL;
    if (js)
        rc = pod_group(p, rt, js);
    p->retry = p->retry || p->why; /* upstream's failed reconcile is retried with a backoff */
    json_decref(js);
    json_decref(rt);
    return rc;
}

static int observe(struct tj_pass *p)
{
    bool foreign = false;
    p->js = ctl__kind_jobset(p->c, p->ns, p->name, p->uid, &foreign);
    if (foreign) {
        p->why = TJS_BUILD_FAILED;
        snprintf(p->msg, sizeof(p->msg), "metadata.name: a JobSet named %s exists and is not "
                 "controlled by this TrainJob", p->name);
        return 0;
    }
    if (tjs_finished(jx_obj(p->tj, "status")))
        return 0;
    return !p->js || suspended(p->tj) || suspended(p->js) ? sync(p) : keep_pod_group(p);
}

static int apply(struct tj_pass *p, const struct tjs_result *r)
{
    struct err e = {{0}};
    int rc = 0;
    if (r->changed)
        rc = ctl__kind_put_status(p->c, &ctl__kind_trainjob, p->c->trainjobs, p->tj, r->status,
                                  &e);
    if (rc == 0 && r->changed)
        ctl__kind_events(p->c, &ctl__kind_trainjob, p->tj, r->events);
    if (rc == 0 && r->delete_jobset && p->js)
        rc = ctl__kind_delete(p->c, CTL_JS_PREFIX, "jobsets", p->ns, p->name,
                              jx_str(jx_obj(p->js, "metadata"), "uid"), "Background", &e);
    if (rc < 0)
        kc_log(rc == -JX_ECONFLICT ? KC_LOG_DEBUG : KC_LOG_ERROR, LOGGER, p->key, "%s", e.msg);
    return rc;
}

static int pass(struct tj_pass *p, bool *requeued)
{
    struct tjs_result r;
    int rc = observe(p);
    if (rc == 0)
        rc = tjs_finished(jx_obj(p->tj, "status"))
                 ? 0
                 : ctl__kind_sync_suspend(p->c, LOGGER, p->key, p->js, suspended(p->tj));
    if (rc < 0)
        return rc;
    struct tjs_obs obs = {p->js, p->why, p->why ? p->msg : NULL};
    if ((rc = tjs_compute(p->tj, &obs, kt_now_ms(), &r)) < 0)
        return rc;
    rc = apply(p, &r);
    if (rc == 0 && p->retry && (r.requeue_ms < 0 || r.requeue_ms > RETRY_MS))
        r.requeue_ms = RETRY_MS;
    if (rc == 0 && r.requeue_ms >= 0)
        ctl__kind_requeue(p->c, &ctl__kind_trainjob, p->key, r.requeue_ms, requeued);
    tjs_result_release(&r);
    return rc;
}

int ctl__trainjob_reconcile(struct ctl *c, const char *key, bool *requeued)
{
    struct tj_pass p = {.c = c, .key = key};
    *requeued = false;
    if (!c->trainjobs || !ctl__split_key(key, p.ns, sizeof(p.ns), &p.name))
        return 0;
    json_t *tj = cache_store_get(cache_inf_store(c->trainjobs), p.ns, p.name);
    const json_t *m = jx_obj(tj, "metadata");
    const char *mb = jx_str(jx_obj(tj, "spec"), "managedBy");
    int rc = 0;
    p.tj = tj;
    p.uid = jx_str(m, "uid");
    if (tj && !json_object_get(m, "deletionTimestamp") && (!mb || strcmp(mb, TJS_MANAGER) == 0))
        rc = pass(&p, requeued);
    json_decref(p.js);
    json_decref(tj);
    return rc;
}
