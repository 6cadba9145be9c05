/* The JAXJob controller (kubeflow.org/v1), in the JobSet controller's process: each JAXJob owns
 * one JobSet of its name, built by the converter (api/convert/convert.h conv_for_cluster), whose
 * pods carry the Training Operator's training.kubeflow.org/{job-name,operator-name,replica-type}
 * labels (and each its replica-index and job-role: the pod webhook's, else ctl_pods'); the
 * JobSet controller (this process's, or upstream's) runs it.  The JAXJob's status
 * follows with the Training Operator v1 rules (api/kubeflow/jaxjob_status.h; upstream
 * kubeflow/training-operator pkg/controller.v1/jax/jaxjob_controller.go and
 * pkg/controller.v1/common/job.go).  runPolicy.suspend is the JobSet's spec.suspend;
 * ttlSecondsAfterFinished deletes the JAXJob (the JobSet goes with it), so the JobSet gets none
 * of its own.  A JAXJob that cannot be converted is Failed with a Warning Event naming the field,
 * and nothing is created.  A spec change that changes the JobSet (Worker replicas, as
 * `kubectl scale` and the scale subresource make it, the pod template, backoffLimit,
 * activeDeadlineSeconds...) restarts the gang with the new spec (check_respec), with
 * Restarting and an Event; runPolicy's suspend, cleanPodPolicy and ttlSecondsAfterFinished take
 * effect in place. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/convert/convert.h"
#include "api/kubeflow/jaxjob_status.h"
#include "api/schema/keys.h"
#include "kube/ctl/ctl_int.h"
#include "kube/client/kc_log.h"
#include "obj/tree/ferr.h"
#include "obj/tree/jx.h"
#include "obj/base/ktime.h"

#define LOGGER "jaxjob"

struct jj_pass {
    struct ctl *c;
    const json_t *jj;
    char ns[256];
    const char *name, *uid, *key;
    json_t *js, *jobs;  /* the JobSet and its Jobs (owned) */
    char *invalid;      /* why it cannot run (owned) */
    char *respec;       /* the spec changed: the gang restarts with it, because... (owned) */
};

/* The SHA-1 of the JAXJob's spec less runPolicy's suspend, cleanPodPolicy and
 * ttlSecondsAfterFinished (which take effect in place: ctl__kind_sync_suspend carries suspend,
 * the others are read from the JAXJob every pass).  Of the JAXJob, not of the JobSet built
 * from it, so that a controller of another version or other feature gates, whose converter
 * may build another JobSet, restarts no running gang. */
static int spec_hash(const json_t *jj, char out[41])
{
    static const char *const in_place[] = {"suspend", "cleanPodPolicy",
                                           "ttlSecondsAfterFinished"};
    json_t *spec = json_deep_copy(jx_obj(jj, "spec"));
    json_t *rp = jx_obj(spec, "runPolicy");
    for (size_t i = 0; rp && i < sizeof(in_place) / sizeof(in_place[0]); i++)
        (void)json_object_del(rp, in_place[i]);
    if (rp && json_object_size(rp) == 0) /* runPolicy of in-place fields only: none */
        (void)json_object_del(spec, "runPolicy");
    int rc = spec ? jx_sha1(spec, out) : -ENOMEM;
    json_decref(spec);
    return rc;
}

/* The converter's JobSet, annotated with the JAXJob's spec hash (`hash`, NULL: computed
 * here), or NULL with p->invalid set (or on OOM). */
static json_t *build(struct jj_pass *p, const char *hash)
{
    struct ferr_list errs;
    ferr_list_init(&errs);
    json_t *js = conv_for_cluster("JAXJob", p->jj, NULL, &p->c->o->gates, &errs);
    if (!js && errs.n)
        p->invalid = ferr_format(&errs.v[0]);
    ferr_list_release(&errs);
    if (js)
        (void)json_object_del(jx_obj(js, "spec"), "ttlSecondsAfterFinished");
    char own[41];
    if (js && ((!hash && spec_hash(p->jj, own) < 0) ||
               jx_set_meta(jx_ensure_obj(js, "metadata"), "annotations", ANN_JAXJOB_SPEC_HASH,
                           hash ? hash : own) < 0)) {
        json_decref(js);
        js = NULL;
    }
    return js;
}

static int create_jobset(struct jj_pass *p)
{
    struct err e = {{0}};
    json_t *js = build(p, NULL);
    if (!js)
        return p->invalid ? 0 : -ENOMEM;
    int rc = ctl__kind_create_jobset(p->c, &ctl__kind_jaxjob, p->jj, js, &p->js, &e);
    json_decref(js);
    if (rc < 0)
        kc_log(KC_LOG_ERROR, LOGGER, p->key, "creating its JobSet: %s", e.msg);
    return rc;
}

/* The JobSet (created when missing and the JAXJob has not finished) and its Jobs. */
static int observe(struct jj_pass *p)
{
    bool foreign = false;
    p->js = ctl__kind_jobset(p->c, p->ns, p->name, p->uid, &foreign);
    if (foreign && asprintf(&p->invalid, "metadata.name: a JobSet named %s exists and is not "
                            "controlled by this JAXJob", p->name) < 0)
        return -ENOMEM;
    int rc = 0;
    if (!p->js && !foreign && !jjs_finished(jx_obj(p->jj, "status")))
        rc = create_jobset(p);
    const char *uid = jx_str(jx_obj(p->js, "metadata"), "uid");
    p->jobs = ctl__owned(p->c->jobs, p->ns, uid);
    return rc < 0 ? rc : p->jobs ? 0 : -ENOMEM;
}

static long long worker_replicas(const json_t *js)
{
    const json_t *rj = json_array_get(jx_path(js, "spec.replicatedJobs"), 0);
    return jx_int_or(jx_path(rj, "template.spec"), "parallelism", -1);
}

/* [yields] A JobSet built from an older spec (its hash differs from the JAXJob's now) cannot
 * be changed in place: JobSet's replicatedJobs are immutable (kubernetes-sigs/jobset
 * pkg/webhooks jobset_webhook.go ValidateUpdate), and a JAX gang's process count and
 * environment are fixed when jax.distributed.initialize() runs.  So the gang restarts with the
 * new spec: the JobSet is deleted (Foreground: its Jobs and pods go first) and, once gone,
 * created again from the JAXJob as it is now.  The Training Operator itself would add or
 * remove pods of the new indexes and leave the running ones alone, which a JAX gang cannot
 * follow.  An edit that no longer converts sets p->invalid (the JAXJob fails, the JobSet goes). */
static int check_respec(struct jj_pass *p)
{
    const json_t *m = jx_obj(p->js, "metadata");
    const char *have = jx_get_meta(m, "annotations", ANN_JAXJOB_SPEC_HASH);
    struct err e = {{0}};
    char now[41];
    if (!have || p->invalid || jjs_finished(jx_obj(p->jj, "status")))
        return 0; /* a JobSet of an older jaxset, or nothing to restart */
    if (spec_hash(p->jj, now) < 0)
        return -ENOMEM;
    if (strcmp(now, have) == 0)
        return 0;
    json_t *want = build(p, now);
    if (!want)
        return p->invalid ? 0 : -ENOMEM;
    long long from = worker_replicas(p->js), to = worker_replicas(want);
    int rc = from != to ? asprintf(&p->respec, "JAXJob %s is restarting with %lld Worker "
                                   "replica(s) instead of %lld: the JAX process count is fixed "
                                   "when the processes start.", p->name, to, from)
                        : asprintf(&p->respec, "JAXJob %s is restarting because its spec "
                                   "changed.", p->name);
    rc = rc < 0 ? -ENOMEM : 0;
    if (rc == 0 && !json_object_get(m, "deletionTimestamp")) {
        kc_log(KC_LOG_INFO, LOGGER, p->key, "the spec changed: replacing its JobSet");
        rc = ctl__kind_delete(p->c, CTL_JS_PREFIX, "jobsets", p->ns, p->name, jx_str(m, "uid"),
                              "Foreground", &e);
        if (rc == -ENOENT)
            rc = 0;
        else if (rc < 0)
            kc_log(KC_LOG_ERROR, LOGGER, p->key, "deleting its JobSet: %s", e.msg);
    }
    json_decref(want);
    return rc;
}

/* What the result asks beside the status: pods, the JobSet or the JAXJob deleted. */
static int act(struct jj_pass *p, const struct jjs_result *r)
{
    struct err e = {{0}};
    int rc = 0;
    if (r->delete_jobset && p->js)
        rc = ctl__kind_delete(p->c, CTL_JS_PREFIX, "jobsets", p->ns, p->name,
                              jx_str(jx_obj(p->js, "metadata"), "uid"), "Background", &e);
    if (rc == 0 && r->cleanup != JJS_CLEAN_NONE && !r->delete_jaxjob)
        rc = ctl__kind_clean_pods(p->c, p->ns, p->name, r->cleanup == JJS_CLEAN_RUNNING, &e);
    if (rc == 0 && r->delete_jaxjob) {
        rc = ctl__kind_delete(p->c, ctl__kind_jaxjob.prefix, "jaxjobs", p->ns, p->name, p->uid,
                              "Background", &e);
        if (rc == 0)
            kc_log(KC_LOG_INFO, LOGGER, p->key, "deleted (ttlSecondsAfterFinished)");
    }
    if (rc < 0)
        kc_log(KC_LOG_ERROR, LOGGER, p->key, "%s", e.msg);
    return rc;
}

static int write_status(struct jj_pass *p, const struct jjs_result *r)
{
    struct err e = {{0}};
    if (!r->changed)
        return 0;
    int rc = ctl__kind_put_status(p->c, &ctl__kind_jaxjob, p->c->jaxjobs, p->jj, r->status, &e);
    if (rc < 0) {
        kc_log(rc == -JX_ECONFLICT ? KC_LOG_DEBUG : KC_LOG_ERROR, LOGGER, p->key, "writing status: %s",
             e.msg);
        return rc;
    }
    ctl__kind_events(p->c, &ctl__kind_jaxjob, p->jj, r->events);
    return 0;
}

static int pass(struct jj_pass *p, bool *requeued)
{
    struct jjs_result r;
    int rc = observe(p);
    if (rc == 0 && p->js)
        rc = check_respec(p);
    if (rc == 0 && !p->respec)
        rc = jjs_finished(jx_obj(p->jj, "status")) /* runPolicy.suspend is the JobSet's */
                 ? 0
                 : ctl__kind_sync_suspend(p->c, LOGGER, p->key, p->js,
                                          jx_bool_or(jx_path(p->jj, "spec.runPolicy"), "suspend",
                                                     false));
    if (rc < 0)
        return rc;
    /* a JobSet being replaced counts for nothing: its pods are going */
    struct jjs_obs obs = {p->respec ? NULL : p->js, p->respec ? NULL : p->jobs, p->invalid,
                          p->respec};
    if ((rc = jjs_compute(p->jj, &obs, kt_now_ms(), &r)) < 0)
        return rc;
    rc = write_status(p, &r);
    if (rc == 0)
        rc = act(p, &r);
    if (rc == 0 && r.requeue_ms >= 0 && !r.delete_jaxjob)
        ctl__kind_requeue(p->c, &ctl__kind_jaxjob, p->key, r.requeue_ms, requeued);
    jjs_result_release(&r);
    return rc;
}

int ctl__jaxjob_reconcile(struct ctl *c, const char *key, bool *requeued)
{
    struct jj_pass p = {.c = c, .key = key};
    *requeued = false;
    if (!c->jaxjobs || !ctl__split_key(key, p.ns, sizeof(p.ns), &p.name))
        return 0;
    json_t *jj = cache_store_get(cache_inf_store(c->jaxjobs), p.ns, p.name);
    const json_t *m = jx_obj(jj, "metadata");
    int rc = 0;
    p.jj = jj;
    p.uid = jx_str(m, "uid");
    if (jj && !json_object_get(m, "deletionTimestamp"))
        rc = pass(&p, requeued);
    json_decref(p.js);
    json_decref(p.jobs);
    free(p.invalid);
    free(p.respec);
    json_decref(jj);
    return rc;
}
