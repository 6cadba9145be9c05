/* The pod webhook: the exact JAX process id of each pod of a JobSet (see wh_jobset.h).
 *
 * A Job only knows its pods' completion indexes, so when a Job's first pod is not process 0
 * (several replicated jobs, replicas > 1, a coordinator that is not the first pod) its pod
 * template cannot carry the id (api/child/jaxrt.h jaxrt_apply_job leaves it out and marks the
 * template with jaxset.dev/jax-process-id-offset).  On CREATE of a pod with that annotation,
 * the handler reads the pod's JobSet labels (jobset-name, replicatedjob-name, job-index) and
 * completion index, the JobSet from the controller's cache, and numbers the pod as `jaxset run`
 * does (jaxrt_process_id): every container gets the flavour's id variables as literal values
 * (replacing the template's), and the pod the jaxset.dev/jax-process-id annotation.  The
 * flavour's process count variables are set the same way from the JobSet as cached: the same
 * value as the template's, unless the ElasticJobSet gate let the JobSet change size since the
 * Job was made, when a new pod counts the new size (and its id is numbered in it).
 *
 * After that, a JAXJob Worker pod gets the Training Operator's per-pod labels (replica-index,
 * job-role=master on index 0: api/kubeflow/jaxjob_status.h jjs_pod_index_labels).
 *
 * Before that, exclusive placement as kubernetes-sigs/jobset's pkg/webhooks/pod_webhook.go
 * does it (api/child/placement.h): the Default (priority label, leader affinities, follower
 * nodeSelector) on every JobSet pod, and on /validate--v1-pod its ValidateCreate; in the gated
 * order (the default) a follower whose leader is not scheduled yet is admitted behind
 * PLACE_GATE instead of refused. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/kubeflow/jaxjob_status.h"
#include "api/child/jaxrt.h"
#include "api/jobset/jobset.h"
#include "api/schema/keys.h"
#include "api/child/placement.h"
#include "api/child/pod_meta.h"
#include "kube/webhook/wh_jobset.h"
#include "obj/tree/jx.h"

/* Sets name=value in env: the first entry of that name becomes {name, value}, others of the
 * same name are removed; appended when absent.  0 or -ENOMEM. */
static int env_set(json_t *ctr, const char *name, const char *value)
{
    json_t *env = jx_ensure_arr(ctr, "env");
    bool done = false;
    if (!env)
        return -ENOMEM;
    for (size_t k = 0; k < json_array_size(env);) {
        const char *n = jx_str(json_array_get(env, k), "name");
        if (!n || strcmp(n, name) != 0) {
            k++;
            continue;
        }
        if (done) {
            json_array_remove(env, k);
            continue;
        }
        if (json_array_set_new(env, k, json_pack("{s:s,s:s}", "name", name, "value", value)) < 0)
            return -ENOMEM;
        done = true;
        k++;
    }
    if (!done && json_array_append_new(env, json_pack("{s:s,s:s}", "name", name, "value", value)) < 0)
        return -ENOMEM;
    return 0;
}

static int set_ids(json_t *pod, const json_t *vars, enum jaxrt_flavor f, long long id)
{
    json_t *ctrs = jx_arr(jx_obj(pod, "spec"), "containers");
    for (size_t c = 0; c < json_array_size(ctrs); c++) {
        for (size_t k = 0; k < json_array_size(vars); k++) {
            const json_t *e = json_array_get(vars, k);
            const char *n = jx_str(e, "name");
            if ((jaxrt_is_id_var(f, n) || jaxrt_is_num_var(f, n)) &&
                env_set(json_array_get(ctrs, c), n, jx_str(e, "value")) < 0)
                return -ENOMEM;
        }
    }
    char v[32];
    snprintf(v, sizeof(v), "%lld", id);
    return jx_set_meta(jx_ensure_obj(pod, "metadata"), "annotations", ANN_JAX_PROCESS_ID, v);
}

struct pod_ids {
    const char *js, *rj;
    long long job, pod;
};

/* Numbers `pod` (in place) from its JobSet `js` (as cached); 0, or denied, or untouched when
 * the JobSet does not run JAX processes there.  -ENOMEM. */
static int number(json_t *pod, json_t *js, const struct pod_ids *p, struct wh_adm_result *r)
{
    struct js_view v = {0};
    struct jaxrt rt = {0};
    struct ferr_list errs;
    json_t *vars = NULL;
    bool have_view = false;
    int rc;
    ferr_list_init(&errs);
    if ((rc = js_default(js)) < 0)
        goto out;
    if ((rc = js_view_init(&v, js)) < 0) {
        rc = rc == -EINVAL ? wh_adm_deny(r, 500, "InternalError", "JobSet %s is not valid", p->js) : rc;
        goto out;
    }
    have_view = true;
    if ((rc = jaxrt_init(&rt, js, &v, &errs)) != 0) {
        rc = rc < 0 ? rc : wh_adm_deny(r, 500, "InternalError", "JobSet %s: its JAX runtime "
                                    "annotations are not valid", p->js);
        goto out;
    }
    long rj = js_view_find(&v, p->rj);
    long long ppj = rj >= 0 ? v.rj[rj].pods_per_job : 0, pod_idx = p->pod;
    if (rj >= 0 && pod_idx < 0 && ppj == 1)
        pod_idx = 0;
    if (rj < 0 || p->job < 0 || p->job >= v.rj[rj].replicas || pod_idx < 0 || pod_idx >= ppj) {
        rc = wh_adm_deny(r, 400, "BadRequest", "pod of JobSet %s: replicated job \"%s\", job index "
                      "%lld, completion index %lld name no pod of it", p->js, p->rj, p->job,
                      pod_idx);
        goto out;
    }
    long long id = jaxrt_process_id(&rt, &v, (size_t)rj, p->job, pod_idx);
    if (id < 0)
        goto out; /* not a JAX replicated job */
    vars = jaxrt_pod_env(&rt, &v, (size_t)rj, p->job, pod_idx, NULL, 0);
    if (!vars || set_ids(pod, vars, rt.flavor, id) < 0)
        rc = -ENOMEM;
out:
    json_decref(vars);
    jaxrt_release(&rt);
    if (have_view)
        js_view_release(&v);
    ferr_list_release(&errs);
    return rc < 0 ? rc : 0;
}

/* The JAX process id of `m` (the pod being admitted, changed in place), when it has one. */
static int process_id(const struct wh_ctx *x, const json_t *req, json_t *m,
                      struct wh_adm_result *r)
{
    const json_t *meta = jx_obj(m, "metadata");
    struct pod_ids p = {
        .js = jx_get_meta(meta, "labels", LBL_JOBSET_NAME),
        .rj = jx_get_meta(meta, "labels", LBL_RJ_NAME),
        .job = pod_meta_int(meta, "labels", LBL_JOB_INDEX),
        .pod = pod_completion_index(meta),
    };
    /* Only pods of JAX replicated jobs: their templates carry the offset annotation. */
    if (!p.js || !jx_get_meta(meta, "annotations", ANN_PROCESS_ID_OFFSET))
        return 0;
    const char *ns = jx_str(meta, "namespace") ? jx_str(meta, "namespace") : jx_str(req, "namespace");
    if (!p.rj || p.job < 0)
        return wh_adm_deny(r, 400, "BadRequest", "pod of JobSet %s without the %s and %s labels",
                        p.js, LBL_RJ_NAME, LBL_JOB_INDEX);
    json_t *js = x->jobset_get ? x->jobset_get(x->arg, ns ? ns : "", p.js) : NULL;
    if (!js)
        return wh_adm_deny(r, 503, "ServiceUnavailable", "JobSet %s/%s is not in the controller's "
                        "cache yet: cannot number the JAX process (the Job controller retries)",
                        ns ? ns : "", p.js);
    int rc = number(m, js, &p, r);
    json_decref(js);
    return rc;
}

/* The pod as admitted: its namespace from the request when the object has none (a pod made
 * from generateName in a namespace's URL). */
static json_t *admitted_pod(const json_t *req)
{
    json_t *m = json_deep_copy(jx_obj(req, "object"));
    const char *ns = jx_str(req, "namespace");
    json_t *meta = m ? jx_ensure_obj(m, "metadata") : NULL;
    if (meta && !jx_str(meta, "namespace") && ns && jx_set_str(meta, "namespace", ns) < 0) {
        json_decref(m);
        return NULL;
    }
    return meta ? m : (json_decref(m), NULL);
}

/* A JAXJob Worker pod gets its replica-index and job-role labels (api/kubeflow/jaxjob_status.h). */
static int kubeflow_labels(json_t *m)
{
    json_t *meta = jx_obj(m, "metadata");
    json_t *kf = jjs_pod_index_labels(meta);
    int rc = kf ? 0 : -ENOMEM;
    if (rc == 0 && json_object_size(kf) > 0)
        rc = json_object_update(jx_ensure_obj(meta, "labels"), kf) < 0 ? -ENOMEM : 0;
    json_decref(kf);
    return rc;
}

static int placement_refused(struct wh_adm_result *r, const struct place_err *pe)
{
    return wh_adm_deny(r, pe->code, pe->reason, "%s", pe->msg);
}

int wh_pod_default(void *arg, const json_t *req, struct wh_adm_result *r)
{
    const struct wh_ctx *x = arg;
    const json_t *pod = jx_obj(req, "object");
    const char *op = jx_str(req, "operation");
    struct place_err pe = {0};
    if (!op || strcmp(op, "CREATE") != 0 || !pod)
        return 0;
    json_t *m = admitted_pod(req);
    if (!m)
        return -ENOMEM;
    int rc = x->place.pods_named ? place_default(m, &x->place, &pe) : 0;
    if (rc == 0 && x->place.pods_named && x->place_gates)
        rc = place_gate_default(m);
    if (rc == PLACE_NO)
        rc = placement_refused(r, &pe);
    else if (rc == 0)
        rc = process_id(x, req, m, r);
    if (rc == 0 && !r->denied)
        rc = kubeflow_labels(m);
    if (rc == 0 && !r->denied) {
        /* the namespace filled in from the request is not a change of the pod's */
        if (!jx_str(jx_obj(pod, "metadata"), "namespace"))
            json_object_del(jx_obj(m, "metadata"), "namespace");
        if (!jx_obj(pod, "metadata") && json_object_size(jx_obj(m, "metadata")) == 0)
            json_object_del(m, "metadata");
        if (!json_equal(m, pod)) {
            r->mutated = m;
            m = NULL;
        }
    }
    json_decref(m);
    return rc;
}

int wh_pod_validate(void *arg, const json_t *req, struct wh_adm_result *r)
{
    const struct wh_ctx *x = arg;
    const char *op = jx_str(req, "operation");
    struct place_err pe = {0};
    if (!op || strcmp(op, "CREATE") != 0 || !jx_obj(req, "object") || !x->place.pods_named)
        return 0;
    json_t *m = admitted_pod(req);
    if (!m)
        return -ENOMEM;
    int rc = x->place_gates && place_gate_admits(m) ? 0 : place_validate(m, &x->place, &pe);
    json_decref(m);
    return rc == PLACE_NO ? placement_refused(r, &pe) : rc;
}
