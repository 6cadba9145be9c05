/* The TrainJob controller (trainer.kubeflow.org/v1alpha1), in the JobSet controller's process:
 * spec.runtimeRef is resolved in the TrainingRuntime / ClusterTrainingRuntime caches, the JobSet
 * is built by the converter with the JAX ML policy (api/convert.h conv_for_cluster: the JAX
 * plugin's variables, numNodes, the trainer overrides) and created with a controller owner
 * reference; the status follows Trainer v2's rules (api/trainjob_status.h; upstream
 * kubeflow/trainer pkg/controller/trainjob_controller.go).  What jaxset cannot run -- a missing
 * runtime, a runtimeRef of another kind, a runtime of another framework, a field it does not
 * implement (tjs_unsupported), a JobSet that would not validate -- is a Failed condition naming
 * it and a Warning Event, decided again on every pass (a fixed runtime lets the job go on), and
 * nothing is created.  A TrainJob whose spec.managedBy is not
 * trainer.kubeflow.org/trainjob-controller (Kueue's MultiKueue) is left alone.  As upstream's
 * JobSet plugin, an existing JobSet is not rebuilt; spec.suspend is carried to it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/convert.h"
#include "api/trainjob_status.h"
#include "kube/ctl/ctl_int.h"
#include "kube/client/kc_log.h"
#include "obj/ferr.h"
#include "obj/jx.h"
#include "obj/ktime.h"

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
};

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
    return js;
}

static int create_jobset(struct tj_pass *p)
{
    struct err e = {{0}};
    json_t *rt = resolve(p), *js = rt ? build(p, rt) : NULL;
    int rc = 0;
    if (js)
        rc = ctl_kind_create_jobset(p->c, &ctl_kind_trainjob, p->tj, js, &p->js, &e);
    else if (!p->why)
        rc = -ENOMEM;
    if (rc < 0)
        kc_log(KC_LOG_ERROR, LOGGER, p->key, "creating its JobSet: %s", e.msg);
    json_decref(js);
    json_decref(rt);
    return rc;
}

static int observe(struct tj_pass *p)
{
    bool foreign = false;
    p->js = ctl_kind_jobset(p->c, p->ns, p->name, p->uid, &foreign);
    if (foreign) {
        p->why = TJS_BUILD_FAILED;
        snprintf(p->msg, sizeof(p->msg), "metadata.name: a JobSet named %s exists and is not "
                 "controlled by this TrainJob", p->name);
        return 0;
    }
    if (!p->js && !tjs_finished(jx_obj(p->tj, "status")))
        return create_jobset(p);
    return 0;
}

static int apply(struct tj_pass *p, const struct tjs_result *r)
{
    struct err e = {{0}};
    int rc = 0;
    if (r->changed)
        rc = ctl_kind_put_status(p->c, &ctl_kind_trainjob, p->c->trainjobs, p->tj, r->status,
                                 &e);
    if (rc == 0 && r->changed)
        ctl_kind_events(p->c, &ctl_kind_trainjob, p->tj, r->events);
    if (rc == 0 && r->delete_jobset && p->js)
        rc = ctl_kind_delete(p->c, CTL_JS_PREFIX, "jobsets", p->ns, p->name,
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
                 : ctl_kind_sync_suspend(p->c, LOGGER, p->key, p->js,
                                         jx_bool_or(jx_obj(p->tj, "spec"), "suspend", false));
    if (rc < 0)
        return rc;
    struct tjs_obs obs = {p->js, p->why, p->why ? p->msg : NULL};
    if ((rc = tjs_compute(p->tj, &obs, kt_now_ms(), &r)) < 0)
        return rc;
    rc = apply(p, &r);
    if (rc == 0 && r.requeue_ms >= 0)
        ctl_kind_requeue(p->c, &ctl_kind_trainjob, p->key, r.requeue_ms, requeued);
    tjs_result_release(&r);
    return rc;
}

int ctl_trainjob_reconcile(struct ctl *c, const char *key, bool *requeued)
{
    struct tj_pass p = {.c = c, .key = key};
    *requeued = false;
    if (!c->trainjobs || !ctl_split_key(key, p.ns, sizeof(p.ns), &p.name))
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
