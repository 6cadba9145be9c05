#include "core/reconcile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/child/construct.h"
#include "api/schema/keys.h"
#include "core/failure.h"
#include "core/in_place.h"
#include "core/reconcile_int.h"
#include "core/restart_job.h"
#include "core/startup.h"
#include "core/success.h"
#include "core/suspend.h"
#include "obj/tree/jx.h"

/* ---- plan builders ------------------------------------------------------------------------- */

/* Makes room for element n of an array that grows 8, 16, 32, ... */
static int plan_grow(void **arr, size_t n, size_t elem)
{
    size_t cap;
    if (n == 0)
        cap = 8;
    else if (n >= 8 && (n & (n - 1)) == 0)
        cap = n * 2;
    else
        return 0;
    void *p = realloc(*arr, cap * elem);
    if (!p)
        return -ENOMEM;
    *arr = p;
    return 0;
}

int rec__event(struct rec_ctx *c, enum rec_event_type t, const char *reason, const char *msg)
{
    struct rec_plan *p = c->plan;
    if (plan_grow((void **)&p->events, p->n_events, sizeof(*p->events)))
        return -ENOMEM;
    struct rec_event ev = {t, strdup(reason), strdup(msg)};
    if (!ev.reason || !ev.message) {
        free(ev.reason);
        free(ev.message);
        return -ENOMEM;
    }
    p->events[p->n_events++] = ev;
    return 0;
}

int rec__delete(struct rec_ctx *c, const char *name)
{
    struct rec_plan *p = c->plan;
    if (plan_grow((void **)&p->deletes, p->n_deletes, sizeof(*p->deletes)))
        return -ENOMEM;
    struct rec_delete d = {strdup(name), true};
    if (!d.name)
        return -ENOMEM;
    p->deletes[p->n_deletes++] = d;
    return 0;
}

int rec__create(struct rec_ctx *c, json_t *job)
{
    struct rec_plan *p = c->plan;
    if (!job || plan_grow((void **)&p->creates, p->n_creates, sizeof(*p->creates))) {
        json_decref(job);
        return -ENOMEM;
    }
    p->creates[p->n_creates++] = job;
    return 0;
}

int rec__patch(struct rec_ctx *c, const char *name, bool suspend, bool clear_start, json_t *job)
{
    struct rec_plan *p = c->plan;
    struct rec_patch pa = {strdup(name), suspend, clear_start, job};
    if (!pa.name || !job || plan_grow((void **)&p->patches, p->n_patches, sizeof(*p->patches))) {
        free(pa.name);
        json_decref(job);
        return -ENOMEM;
    }
    p->patches[p->n_patches++] = pa;
    return 0;
}

void rec_plan_release(struct rec_plan *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n_creates; i++)
        json_decref(p->creates[i]);
    for (size_t i = 0; i < p->n_deletes; i++)
        free(p->deletes[i].name);
    for (size_t i = 0; i < p->n_patches; i++) {
        free(p->patches[i].name);
        json_decref(p->patches[i].job);
    }
    for (size_t i = 0; i < p->n_events; i++) {
        free(p->events[i].reason);
        free(p->events[i].message);
    }
    free(p->creates);
    free(p->deletes);
    free(p->patches);
    free(p->events);
    json_decref(p->status);
    json_decref(p->service);
    json_decref(p->pvcs);
    memset(p, 0, sizeof(*p));
    p->requeue_after_ms = -1;
}

/* ---- conditions with events ---------------------------------------------------------------- */

int rec__set_cond(struct rec_ctx *c, const struct rec_cond *cond)
{
    int rc = rec_cond_set(c->conds, cond, c->now);
    if (rc <= 0)
        return rc;
    return rec__event(c, cond->event, cond->reason, cond->message);
}

int rec__fail(struct rec_ctx *c, const char *reason, const char *msg)
{
    const struct rec_cond failed = {REC_COND_FAILED, true, reason, msg, REC_EVENT_WARNING};
    int rc = rec__set_cond(c, &failed);
    if (!rc)
        rc = rec__set_cond(c, &rec_cond_restarting_failed);
    c->terminal = "Failed";
    return rc;
}

int rec__complete(struct rec_ctx *c)
{
    int rc = rec__set_cond(c, &rec_cond_completed);
    if (!rc)
        rc = rec__set_cond(c, &rec_cond_restarting_completed);
    c->terminal = "Completed";
    return rc;
}

/* ---- context ------------------------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool rec__job_exists(const struct rec_ctx *c, const char *name)
{
    return c->n_jobs && bsearch(&name, c->names, c->n_jobs, sizeof(*c->names), cmp_str);
}

static int classify_one(struct rec_ctx *c, const json_t *job)
{
    struct rec_job *j = &c->jobs[c->n_jobs];
    const json_t *meta = jx_obj(job, "metadata");
    const char *rj = jx_get_meta(meta, "labels", LBL_RJ_NAME);
    j->obj = job;
    j->name = jx_str(meta, "name") ? jx_str(meta, "name") : "";
    j->rj_name = rj && *rj ? rj : NULL;
    j->rj = js_view_find(&c->v, j->rj_name);
    if (rec_job_classify(job, c->v.restarts, &j->bucket, &j->failed_cond))
        return err_set(c->e, -EINVAL, "job %s: invalid value for label %s, must be integer",
                       j->name, LBL_RESTART_ATTEMPT);
    if (j->bucket != REC_BUCKET_PREVIOUS && c->job_restarts) {
        int rc = rec_job_restart_check(c, j);
        if (rc)
            return rc;
    }
    const json_t *del = json_object_get(meta, "deletionTimestamp");
    j->terminating = del && !json_is_null(del);
    j->suspended = jx_bool_or(jx_obj(job, "spec"), "suspend", false);
    c->n_bucket[j->bucket]++;
    if (j->bucket != REC_BUCKET_PREVIOUS && j->rj >= 0)
        rec_rj_count_add(&c->counts[j->rj], job, j->bucket);
    c->names[c->n_jobs++] = j->name;
    return 0;
}

static int ctx_jobs(struct rec_ctx *c, const json_t *jobs)
{
    size_t n = json_array_size(jobs), i;
    const json_t *job;
    c->jobs = calloc(n ? n : 1, sizeof(*c->jobs));
    c->names = calloc(n ? n : 1, sizeof(*c->names));
    c->counts = calloc(c->v.n_rj ? c->v.n_rj : 1, sizeof(*c->counts));
    if (!c->jobs || !c->names || !c->counts)
        return err_set(c->e, -ENOMEM, "out of memory");
    json_array_foreach (jobs, i, job) {
        int rc = classify_one(c, job);
        if (rc)
            return rc;
    }
    qsort(c->names, c->n_jobs, sizeof(*c->names), cmp_str);
    return 0;
}

/* The JAX runtime of a valid JobSet; an error here means the JobSet was never validated. */
static int ctx_jaxrt(struct rec_ctx *c)
{
    struct ferr_list errs;
    ferr_list_init(&errs);
    int rc = jaxrt_init(&c->rt, c->js, &c->v, &errs);
    if (rc > 0) {
        char *first = ferr_format(&errs.v[0]);
        rc = err_set(c->e, -EINVAL, "jobset: %s", first ? first : "invalid JAX runtime");
        free(first);
    } else if (rc < 0) {
        rc = err_set(c->e, rc, "out of memory");
    }
    ferr_list_release(&errs);
    return rc;
}

/* An integer field of the observed status, -1 when absent. */
static long long status_int(const struct rec_ctx *c, const char *key)
{
    long long v;
    return jx_int(c->old_status, key, &v) == 0 ? v : -1;
}

static int ctx_init(struct rec_ctx *c, const json_t *js, const json_t *jobs, int64_t now_ms)
{
    const json_t *old_conds;
    c->js = js;
    c->spec = jx_obj(js, "spec");
    c->old_status = jx_obj(js, "status");
    int rc = js_view_init(&c->v, js);
    if (rc)
        return err_set(c->e, rc, "jobset: cannot read metadata.name or spec.replicatedJobs");
    if ((rc = ctx_jaxrt(c)) < 0)
        return rc;
    if (kt_format(now_ms, c->now) < 0)
        return err_set(c->e, -EINVAL, "now: %lld ms is not a time a timestamp can hold",
                       (long long)now_ms);
    c->now_ms = now_ms;
    c->restarts = c->v.restarts;
    c->restarts_max = jx_int_or(c->old_status, "restartsCountTowardsMax", 0);
    c->terminal = jx_str(c->old_status, "terminalState") ? jx_str(c->old_status, "terminalState")
                                                          : "";
    c->ipr_previous = status_int(c, "previousInPlaceRestartAttempt");
    c->ipr_current = status_int(c, "currentInPlaceRestartAttempt");
    if (fg_enabled(c->gates, FG_RESTART_JOB) && rec_job_restarts_load(c) < 0)
        return err_set(c->e, -ENOMEM, "out of memory");
    old_conds = jx_arr(c->old_status, "conditions");
    c->conds = json_object();
    if (!c->conds || (old_conds && jx_set_new(c->conds, "conditions", json_deep_copy(old_conds))))
        return err_set(c->e, -ENOMEM, "out of memory");
    return ctx_jobs(c, jobs);
}

static void ctx_release(struct rec_ctx *c)
{
    rec_job_restarts_release(c);
    jaxrt_release(&c->rt);
    js_view_release(&c->v);
    free(c->jobs);
    free(c->names);
    free(c->counts);
    json_decref(c->conds);
}

/* ---- steps --------------------------------------------------------------------------------- */

static int delete_bucket(struct rec_ctx *c, enum rec_bucket b)
{
    for (size_t i = 0; i < c->n_jobs; i++) {
        const struct rec_job *j = &c->jobs[i];
        if (j->bucket == b && !j->terminating && rec__delete(c, j->name))
            return -ENOMEM;
    }
    return 0;
}

/* Deletes or requeues a finished JobSet with ttlSecondsAfterFinished (upstream
 * executeTTLAfterFinishedPolicy). */
static int ttl_after_finished(struct rec_ctx *c, const json_t *fin)
{
    long long ttl;
    int64_t at;
    if (jx_int(c->spec, "ttlSecondsAfterFinished", &ttl))
        return 0;
    if (kt_parse(jx_str(fin, "lastTransitionTime"), &at))
        return err_set(c->e, -EINVAL, "unable to find the time when the JobSet %s/%s finished",
                       c->v.ns, c->v.name);
    int64_t left = at + ttl * 1000 - c->now_ms;
    if (left <= 0)
        c->plan->delete_jobset = true;
    else
        c->plan->requeue_after_ms = left;
    return 0;
}

static bool all_jobs_ready(const struct rec_ctx *c)
{
    long long want = 0, have = 0;
    for (size_t i = 0; i < c->v.n_rj; i++) {
        want += c->v.rj[i].replicas;
        have += c->counts[i].ready + c->counts[i].succeeded;
    }
    return want == have;
}

/* Upstream reconcile() after the finished check. */
static int reconcile_running(struct rec_ctx *c)
{
    int rc = delete_bucket(c, REC_BUCKET_PREVIOUS);
    if (!rc && !c->v.suspend && all_jobs_ready(c))
        rc = rec__set_cond(c, &rec_cond_restarting_jobs_ready);
    if (rc)
        return rc;
    if (c->n_bucket[REC_BUCKET_FAILED])
        return rec_failure_execute(c);
    if (c->n_bucket[REC_BUCKET_SUCCEEDED] && rec_success_met(c))
        return rec__complete(c);
    if (c->v.dns_hostnames && !(c->plan->service = construct_service(c->js, &c->v)))
        return -ENOMEM;
    if (json_array_size(jx_arr(c->spec, "volumeClaimPolicies")) &&
        !(c->plan->pvcs = construct_pvcs(c->js, &c->v)))
        return -ENOMEM;
    rc = rec_create_jobs(c);
    if (rc)
        return rc;
    rc = c->v.suspend ? rec_suspend_jobs(c) : rec_resume_jobs(c);
    return rc ? rc : rec_in_place_restart(c);
}

static int reconcile_steps(struct rec_ctx *c)
{
    const json_t *fin = NULL;
    if (rec_finished(jx_arr(c->old_status, "conditions"), &fin)) {
        int rc = delete_bucket(c, REC_BUCKET_ACTIVE);
        return rc ? rc : ttl_after_finished(c, fin);
    }
    return reconcile_running(c);
}

/* ---- status -------------------------------------------------------------------------------- */

static bool status_key_own(const char *k)
{
    static const char *const own[] = {"conditions",
                                      "restarts",
                                      "restartsCountTowardsMax",
                                      "terminalState",
                                      "replicatedJobsStatus",
                                      "previousInPlaceRestartAttempt",
                                      "currentInPlaceRestartAttempt"};
    for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
        if (strcmp(k, own[i]) == 0)
            return true;
    return false;
}

/* replicatedJobsStatus, with the per-Job restart lists under the RestartJob gate. */
static json_t *rj_statuses(const struct rec_ctx *c)
{
    json_t *rjs = rec_rj_status_json(&c->v, c->counts);
    if (rjs && c->job_restarts && rec_job_restarts_status(c, rjs) < 0) {
        json_decref(rjs);
        return NULL;
    }
    return rjs;
}

/* The new status in upstream's field order; fields this core does not manage are kept. */
static json_t *status_assemble(const struct rec_ctx *c)
{
    json_t *s = json_object(), *conds = json_object_get(c->conds, "conditions"), *v;
    const char *k;
    if (!s || (json_array_size(conds) && json_object_set(s, "conditions", conds)) ||
        jx_set_int(s, "restarts", c->restarts) ||
        (c->restarts_max && jx_set_int(s, "restartsCountTowardsMax", c->restarts_max)) ||
        (*c->terminal && jx_set_str(s, "terminalState", c->terminal)) ||
        (c->v.n_rj && jx_set_new(s, "replicatedJobsStatus", rj_statuses(c))) ||
        (c->ipr_previous >= 0 && jx_set_int(s, "previousInPlaceRestartAttempt", c->ipr_previous)) ||
        (c->ipr_current >= 0 && jx_set_int(s, "currentInPlaceRestartAttempt", c->ipr_current)))
        goto fail;
    json_object_foreach ((json_t *)c->old_status, k, v)
        if (!status_key_own(k) && jx_set_new(s, k, json_deep_copy(v)))
            goto fail;
    return s;
fail:
    json_decref(s);
    return NULL;
}

static bool skipped(const json_t *js)
{
    const json_t *del = json_object_get(jx_obj(js, "metadata"), "deletionTimestamp");
    const char *mb = jx_str(jx_obj(js, "spec"), "managedBy");
    return (del && !json_is_null(del)) || (mb && strcmp(mb, JOBSET_CONTROLLER_NAME) != 0);
}

int rec_reconcile(const json_t *js, const json_t *jobs, int64_t now_ms, struct rec_plan *out_plan,
                  struct err *e)
{
    return rec_reconcile_gated(js, jobs, NULL, now_ms, NULL, out_plan, e);
}

int rec_reconcile_gated(const json_t *js, const json_t *jobs, const json_t *pods, int64_t now_ms,
                        const struct feature_gates *gates, struct rec_plan *out_plan,
                        struct err *e)
{
    struct rec_plan plan = {.requeue_after_ms = -1};
    struct rec_ctx c = {.plan = &plan, .e = e, .gates = gates, .pods = pods};
    int rc = 0;
    if (skipped(js)) {
        plan.skipped = true;
        goto out;
    }
    rc = ctx_init(&c, js, jobs, now_ms);
    if (!rc)
        rc = reconcile_steps(&c);
    if (!rc && !(plan.status = status_assemble(&c)))
        rc = -ENOMEM;
    if (rc == -ENOMEM)
        err_set(e, rc, "out of memory");
    if (!rc)
        plan.status_changed = !rec_status_equal(c.old_status, plan.status);
out:
    ctx_release(&c);
    if (rc)
        rec_plan_release(&plan);
    else
        *out_plan = plan;
    return rc;
}
