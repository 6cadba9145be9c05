/* reconcile: one pass of the JobSet controller (reconcile.h), on top of the other files of the
 * core: it reads the inputs into the pass (struct rec_ctx), runs the steps in upstream's order
 * and assembles the new status; nothing in the core calls into this file. */
#include "core/reconcile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/child/construct.h"
#include "api/schema/keys.h"
#include "core/reconcile_int.h"
#include "core/success.h"
#include "obj/tree/cond.h"
#include "obj/tree/jx.h"

/* ---- context ------------------------------------------------------------------------------- */

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
    if (j->bucket != REC_BUCKET_PREVIOUS && rec_elastic_excess(c, j)) {
        j->excess = true; /* scaled away: neither counted nor restarted */
        j->bucket = REC_BUCKET_PREVIOUS;
    }
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
        return err_oom(c->e);
    json_array_foreach (jobs, i, job) {
        int rc = classify_one(c, job);
        if (rc)
            return rc;
    }
    rec__names_sort(c);
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
        rc = err_set(c->e, rc, ERR_OOM_MSG);
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
    if (fg_enabled(c->gates, FG_RESTART_JOB) &&
        (rec_job_restarts_load(c) < 0 || rec_elastic_fit_restarts(c) < 0))
        return err_oom(c->e);
    old_conds = cond_list(c->old_status);
    c->conds = json_object();
    if (!c->conds || (old_conds && cond_list_set(c->conds, json_deep_copy(old_conds))))
        return err_oom(c->e);
    while (cond_remove(c->conds, REC_COND_JOB_NAME_CONFLICT) == 1) /* the backend's (status.h) */
        ;
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

/* The Jobs of bucket `b` not yet terminating, after the excess ones (elastic.c), which go
 * first, highest index first. */
static int delete_bucket(struct rec_ctx *c, enum rec_bucket b)
{
    if (rec_elastic_delete(c))
        return -ENOMEM;
    for (size_t i = 0; i < c->n_jobs; i++) {
        const struct rec_job *j = &c->jobs[i];
        if (j->bucket == b && !j->terminating && !j->excess && rec__delete(c, j->name))
            return -ENOMEM;
    }
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
    if (rec_elastic_sync(c))
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
    if (rec_finished(cond_list(c->old_status), &fin)) {
        int rc = delete_bucket(c, REC_BUCKET_ACTIVE);
        return rc ? rc : rec__ttl_after_finished(c, fin);
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
    json_t *s = json_object(), *conds = cond_list(c->conds), *v;
    const char *k;
    if (!s || (json_array_size(conds) && cond_list_set(s, json_incref(conds))) ||
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
        err_set(e, rc, ERR_OOM_MSG);
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
