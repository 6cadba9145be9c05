/* jaxjob_status: the Training Operator v1 status rules for a JAXJob run as a JobSet (see the
 * header for the rules and their upstream files). */
#include "api/kubeflow/jaxjob_status.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/schema/keys.h"
#include "api/child/pod_meta.h"
#include "obj/tree/cond.h"
#include "obj/tree/jx.h"
#include "obj/base/ktime.h"

#define KIND "JAXJob"
#define RTYPE "Worker"

/* One pass: the JAXJob read, the status being written, the result. */
struct jjs_ctx {
    const json_t *job, *spec, *rp, *worker;
    const char *name, *ns;
    json_t *st;
    struct jjs_result *out;
    char now[KT_RFC3339_MAX];
    int64_t now_ms;
    long long replicas, active, succeeded, failed;
    int rc;
};

/* ---- conditions (pkg/util/status.go) ------------------------------------------------------ */

static bool finished(const json_t *st)
{
    return cond_true(st, "Succeeded") || cond_true(st, "Failed");
}

/* setCondition (cond_set_kubeflow) with the JobConditionTypes' rules: nothing changes once
 * Failed is True; Running and Restarting exclude each other (filterOutCondition); Succeeded and
 * Failed turn Running to False.  Returns true when the conditions changed. */
static bool condition(struct jjs_ctx *x, const char *type, const char *status, const char *why,
                      const char *msg)
{
    char reason[64];
    snprintf(reason, sizeof(reason), "%s%s", KIND, why);
    if (cond_true(x->st, "Failed"))
        return false;
    bool terminal = strcmp(type, "Failed") == 0 || strcmp(type, "Succeeded") == 0;
    const char *drop = strcmp(type, "Restarting") == 0 ? "Running"
                       : strcmp(type, "Running") == 0  ? "Restarting"
                                                       : NULL;
    const struct cond c = {.type = type, .status = status, .reason = reason, .message = msg,
                           .updated = x->now, .transition = x->now};
    int rc = cond_set_kubeflow(x->st, &c, drop, terminal ? "Running" : NULL);
    if (rc < 0)
        x->rc = -ENOMEM;
    return rc > 0;
}

static void event(struct jjs_ctx *x, const char *type, const char *why, const char *msg)
{
    char reason[64];
    snprintf(reason, sizeof(reason), "%s%s", KIND, why);
    json_t *e = json_pack("{s:s,s:s,s:s}", "type", type, "reason", reason, "message", msg);
    if (!e || json_array_append_new(x->out->events, e) < 0)
        x->rc = -ENOMEM;
}

static void set_time(struct jjs_ctx *x, const char *key)
{
    if (!json_object_get(x->st, key) && jx_set_str(x->st, key, x->now) < 0)
        x->rc = -ENOMEM;
}

static void fail(struct jjs_ctx *x, const char *type, const char *msg)
{
    set_time(x, "completionTime");
    if (condition(x, "Failed", "True", "Failed", msg))
        event(x, type, "Failed", msg);
}

/* ---- what the JobSet shows ---------------------------------------------------------------- */

static void count_pods(struct jjs_ctx *x, const json_t *jobs)
{
    size_t i;
    json_t *j;
    json_array_foreach (jobs, i, j) {
        const json_t *s = jx_obj(j, "status");
        x->active += jx_int_or(s, "active", 0);
        x->succeeded += jx_int_or(s, "succeeded", 0);
        x->failed += jx_int_or(s, "failed", 0);
    }
}

/* The reason of a failed Job of the JobSet ("" when none says). */
static const char *job_failure(const json_t *jobs)
{
    size_t i;
    json_t *j;
    json_array_foreach (jobs, i, j) {
        const json_t *c = cond_find(jx_obj(j, "status"), "Failed", NULL);
        if (cond_true(jx_obj(j, "status"), "Failed") && jx_str(c, "reason"))
            return jx_str(c, "reason");
    }
    return "";
}

static void set_replica_status(struct jjs_ctx *x)
{
    char sel[512];
    snprintf(sel, sizeof(sel), "%s=%s,%s=%s,%s=worker", JJS_LBL_JOB_NAME, x->name,
             JJS_LBL_OPERATOR, JJS_OPERATOR, JJS_LBL_RTYPE);
    json_t *labels = jjs_pod_labels(x->name);
    json_t *rs = json_pack("{s:I,s:I,s:I,s:s,s:{s:o}}", "active", (json_int_t)x->active,
                           "succeeded", (json_int_t)x->succeeded, "failed",
                           (json_int_t)x->failed, "selector", sel, "labelSelector",
                           "matchLabels", labels);
    json_t *all = jx_ensure_obj(x->st, "replicaStatuses");
    if (!rs || !all || json_object_set_new(all, RTYPE, rs) < 0)
        x->rc = -ENOMEM;
}

/* ---- the rules ---------------------------------------------------------------------------- */

static void on_finished(struct jjs_ctx *x)
{
    json_t *w = jx_path(x->st, "replicaStatuses." RTYPE);
    if (w && cond_true(x->st, "Succeeded") && jx_int_or(w, "active", 0) > 0) {
        jx_set_int(w, "succeeded", jx_int_or(w, "succeeded", 0) + jx_int_or(w, "active", 0));
        jx_set_int(w, "active", 0);
    }
    const char *p = jx_str(x->rp, "cleanPodPolicy");
    x->out->cleanup = !p || strcmp(p, "None") == 0 ? JJS_CLEAN_NONE
                      : strcmp(p, "Running") == 0 ? JJS_CLEAN_RUNNING
                                                  : JJS_CLEAN_ALL;
    long long ttl;
    int64_t done;
    if (jx_int(x->rp, "ttlSecondsAfterFinished", &ttl) < 0 ||
        kt_parse(jx_str(x->st, "completionTime"), &done) < 0)
        return;
    if (x->now_ms >= done + ttl * 1000)
        x->out->delete_jaxjob = true;
    else
        x->out->requeue_ms = done + ttl * 1000 - x->now_ms;
}

static void on_suspended(struct jjs_ctx *x)
{
    char msg[512];
    snprintf(msg, sizeof(msg), "%s %s is suspended.", KIND, x->name);
    json_t *w = jx_path(x->st, "replicaStatuses." RTYPE);
    if (w && jx_int_or(w, "active", 0) != 0)
        jx_set_int(w, "active", 0);
    if (cond_true(x->st, "Running"))
        condition(x, "Running", "False", "Suspended", msg);
    if (!cond_true(x->st, "Suspended") && condition(x, "Suspended", "True", "Suspended", msg))
        event(x, "Normal", "Suspended", msg);
}

static void resume(struct jjs_ctx *x)
{
    char msg[512];
    snprintf(msg, sizeof(msg), "%s %s is resumed.", KIND, x->name);
    if (!cond_true(x->st, "Suspended"))
        return;
    condition(x, "Suspended", "False", "Resumed", msg);
    if (jx_set_str(x->st, "startTime", x->now) < 0)
        x->rc = -ENOMEM;
    event(x, "Normal", "Resumed", msg);
}

/* activeDeadlineSeconds from startTime: true when it has passed (the job is then Failed). */
static bool past_deadline(struct jjs_ctx *x)
{
    long long d;
    int64_t start;
    if (jx_int(x->rp, "activeDeadlineSeconds", &d) < 0 ||
        kt_parse(jx_str(x->st, "startTime"), &start) < 0)
        return false;
    if (x->now_ms < start + d * 1000) {
        x->out->requeue_ms = start + d * 1000 - x->now_ms;
        return false;
    }
    char msg[512];
    snprintf(msg, sizeof(msg),
             "Job %s has failed because it was active longer than specified deadline", x->name);
    fail(x, "Normal", msg);
    x->out->delete_jobset = true;
    return true;
}

/* UpdateJobStatus of the JAX controller, for the one replica type. */
static void update_job_status(struct jjs_ctx *x)
{
    char msg[512];
    const char *restart = jx_str(x->worker, "restartPolicy");
    if (x->replicas - x->succeeded == 0) {
        snprintf(msg, sizeof(msg), "%s %s/%s successfully completed.", KIND, x->ns, x->name);
        set_time(x, "completionTime");
        if (condition(x, "Succeeded", "True", "Succeeded", msg))
            event(x, "Normal", "Succeeded", msg);
    } else if (x->active > 0) {
        snprintf(msg, sizeof(msg), "%s %s/%s is running.", KIND, x->ns, x->name);
        condition(x, "Running", "True", "Running", msg);
    }
    if (x->failed <= 0 || x->replicas <= x->succeeded + x->active)
        return;
    if (restart && strcmp(restart, "Never") != 0) {
        snprintf(msg, sizeof(msg), "%s %s is restarting because %lld %s replica(s) failed.",
                 KIND, x->name, x->failed, RTYPE);
        if (condition(x, "Restarting", "True", "Restarting", msg))
            event(x, "Warning", "Restarting", msg);
        return;
    }
    snprintf(msg, sizeof(msg), "%s %s is failed because %lld %s replica(s) failed.", KIND,
             x->name, x->failed, RTYPE);
    fail(x, "Normal", msg);
}

/* The JobSet finished on its own terms (its Job failed: deadline, backoff limit...). */
static void follow_jobset(struct jjs_ctx *x, const json_t *js, const json_t *jobs)
{
    char msg[512];
    const char *why = job_failure(jobs);
    if (cond_true(jx_obj(js, "status"), "Failed") && !finished(x->st)) {
        if (strcmp(why, "DeadlineExceeded") == 0)
            snprintf(msg, sizeof(msg), "Job %s has failed because it was active longer than "
                     "specified deadline", x->name);
        else if (strcmp(why, "BackoffLimitExceeded") == 0)
            snprintf(msg, sizeof(msg), "Job %s has failed because it has reached the specified "
                     "backoff limit", x->name);
        else
            snprintf(msg, sizeof(msg), "%s %s is failed because %lld %s replica(s) failed.",
                     KIND, x->name, x->failed, RTYPE);
        fail(x, "Normal", msg);
    } else if (cond_true(jx_obj(js, "status"), "Completed") && !finished(x->st)) {
        snprintf(msg, sizeof(msg), "%s %s/%s successfully completed.", KIND, x->ns, x->name);
        set_time(x, "completionTime");
        if (condition(x, "Succeeded", "True", "Succeeded", msg))
            event(x, "Normal", "Succeeded", msg);
    }
}

/* The gang restarts with a changed spec: the old pods are going, the new not yet there. */
static void respec(struct jjs_ctx *x, const char *why)
{
    json_t *w = jx_path(x->st, "replicaStatuses." RTYPE);
    if (w && jx_int_or(w, "active", 0) != 0 && jx_set_int(w, "active", 0) < 0)
        x->rc = -ENOMEM;
    if (condition(x, "Restarting", "True", "Restarting", why))
        event(x, "Normal", "Restarting", why);
}

static void created(struct jjs_ctx *x)
{
    char msg[512];
    snprintf(msg, sizeof(msg), "%s %s is created.", KIND, x->name);
    if (!cond_find(x->st, "Created", NULL))
        condition(x, "Created", "True", "Created", msg);
}

static void invalid(struct jjs_ctx *x, const char *why)
{
    char msg[1024];
    snprintf(msg, sizeof(msg), "%s %s/%s cannot be run: %s", KIND, x->ns, x->name, why);
    fail(x, "Warning", msg);
}

static void run_rules(struct jjs_ctx *x, const struct jjs_obs *obs)
{
    created(x);
    if (obs->invalid && !finished(x->st)) {
        invalid(x, obs->invalid);
        x->out->delete_jobset = obs->jobset != NULL; /* nothing runs what cannot be run */
    }
    if (finished(x->st)) {
        on_finished(x);
        return;
    }
    if (jx_bool_or(x->rp, "suspend", false)) {
        on_suspended(x);
        return;
    }
    resume(x);
    if (obs->respec) {
        respec(x, obs->respec);
        return;
    }
    count_pods(x, obs->jobs);
    if (!json_object_get(x->st, "startTime"))
        set_time(x, "startTime");
    if (past_deadline(x))
        return;
    set_replica_status(x);
    if (obs->jobset)
        follow_jobset(x, obs->jobset, obs->jobs);
    if (!finished(x->st))
        update_job_status(x);
}

static const json_t *find_worker(const json_t *spec)
{
    const char *k;
    json_t *v;
    json_object_foreach ((json_t *)jx_obj(spec, "jaxReplicaSpecs"), k, v)
        if (strcasecmp(k, RTYPE) == 0)
            return v;
    return NULL;
}

int jjs_compute(const json_t *jaxjob, const struct jjs_obs *obs, int64_t now_ms,
                struct jjs_result *out)
{
    const json_t *m = jx_obj(jaxjob, "metadata"), *old = jx_obj(jaxjob, "status");
    struct jjs_ctx x = {.job = jaxjob, .spec = jx_obj(jaxjob, "spec"), .out = out,
                        .now_ms = now_ms, .name = jx_str(m, "name"), .ns = jx_str(m, "namespace")};
    memset(out, 0, sizeof(*out));
    out->requeue_ms = -1;
    x.rp = jx_obj(x.spec, "runPolicy");
    x.worker = find_worker(x.spec);
    x.replicas = jx_int_or(x.worker, "replicas", 1);
    x.name = x.name ? x.name : "";
    x.ns = x.ns ? x.ns : "";
    kt_format(now_ms, x.now);
    x.st = old ? json_deep_copy(old) : json_object();
    out->events = json_array();
    out->status = x.st;
    if (!x.st || !out->events || (!cond_list(x.st) && cond_list_set(x.st, json_array())))
        x.rc = -ENOMEM;
    if (x.rc == 0)
        run_rules(&x, obs);
    if (x.rc < 0) {
        jjs_result_release(out);
        return x.rc;
    }
    out->finished = finished(x.st);
    out->changed = !old || !json_equal(old, x.st);
    if (out->changed && jx_set_str(x.st, "lastReconcileTime", x.now) < 0) {
        jjs_result_release(out);
        return -ENOMEM;
    }
    return 0;
}

void jjs_result_release(struct jjs_result *r)
{
    json_decref(r->status);
    json_decref(r->events);
    r->status = r->events = NULL;
}

bool jjs_finished(const json_t *status)
{
    return finished(status);
}

json_t *jjs_pod_labels(const char *name)
{
    return json_pack("{s:s,s:s,s:s}", JJS_LBL_JOB_NAME, name, JJS_LBL_OPERATOR, JJS_OPERATOR,
                     JJS_LBL_RTYPE, "worker");
}

static int want_label(json_t *out, const json_t *meta, const char *k, const char *v)
{
    const char *have = jx_get_meta(meta, "labels", k);
    return have && strcmp(have, v) == 0 ? 0 : jx_set_str(out, k, v);
}

json_t *jjs_pod_index_labels(const json_t *meta)
{
    const char *op = jx_get_meta(meta, "labels", JJS_LBL_OPERATOR);
    const char *rt = jx_get_meta(meta, "labels", JJS_LBL_RTYPE);
    long long idx = pod_completion_index(meta);
    json_t *out = json_object();
    char v[24];
    if (!out || !op || strcmp(op, JJS_OPERATOR) != 0 || !rt || strcmp(rt, "worker") != 0 ||
        idx < 0)
        return out;
    snprintf(v, sizeof(v), "%lld", idx);
    int rc = want_label(out, meta, JJS_LBL_RINDEX, v);
    if (rc == 0 && idx == 0)
        rc = want_label(out, meta, JJS_LBL_ROLE, JJS_ROLE_MASTER);
    if (rc < 0) {
        json_decref(out);
        return NULL;
    }
    return out;
}
