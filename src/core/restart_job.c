/* restart_job: the RestartJob feature gate's part of the JobSet controller (reconcile_int.h,
 * "restart_job.c"). */
#include "core/reconcile_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/schema/keys.h"
#include "obj/tree/jx.h"

#define MSG_MAX 512

/* The status entry of replicated job `name` in `status`, or NULL. */
static const json_t *rj_status(const json_t *status, const char *name)
{
    return jx_named(jx_arr(status, "replicatedJobsStatus"), name);
}

/* A copy of a non-empty list, else NULL (omitempty: an empty list is no list). */
static json_t *list_copy(const json_t *a, bool *oom)
{
    if (!json_array_size(a))
        return NULL;
    json_t *copy = json_deep_copy(a);
    *oom |= !copy;
    return copy;
}

int rec_job_restarts_load(struct rec_ctx *c)
{
    size_t n = c->v.n_rj ? c->v.n_rj : 1;
    bool oom = false;
    c->job_restarts = calloc(n, sizeof(*c->job_restarts));
    c->job_restarts_max = calloc(n, sizeof(*c->job_restarts_max));
    if (!c->job_restarts || !c->job_restarts_max)
        return -ENOMEM;
    for (size_t i = 0; i < c->v.n_rj; i++) {
        const json_t *e = rj_status(c->old_status, c->v.rj[i].name);
        c->job_restarts[i] = list_copy(jx_arr(e, "jobRestarts"), &oom);
        c->job_restarts_max[i] = list_copy(jx_arr(e, "jobRestartsCountTowardsMax"), &oom);
    }
    return oom ? -ENOMEM : 0;
}

void rec_job_restarts_release(struct rec_ctx *c)
{
    for (size_t i = 0; c->job_restarts && i < c->v.n_rj; i++) {
        json_decref(c->job_restarts[i]);
        json_decref(c->job_restarts_max[i]);
    }
    free(c->job_restarts);
    free(c->job_restarts_max);
    c->job_restarts = c->job_restarts_max = NULL;
}

/* Length and value i of a per-Job list of RJ `rj` (upstream getJobRestarts: the stored list, or
 * replicas zeros when there is none; no list at all for a replicated job not in the spec). */
static long long list_len(const struct rec_ctx *c, json_t *const *lists, long rj)
{
    if (rj < 0)
        return 0;
    return lists[rj] ? (long long)json_array_size(lists[rj]) : c->v.rj[rj].replicas;
}

static long long list_at(json_t *const *lists, long rj, long long i)
{
    const json_t *v = lists[rj] ? json_array_get(lists[rj], (size_t)i) : NULL;
    return json_is_integer(v) ? json_integer_value(v) : 0;
}

int rec_job_restart_check(struct rec_ctx *c, struct rec_job *j)
{
    const json_t *labels = jx_obj(jx_obj(j->obj, "metadata"), "labels");
    const char *rj = jx_str(labels, LBL_RJ_NAME), *idx = jx_str(labels, LBL_JOB_INDEX);
    const char *attempt = jx_str(labels, LBL_JOB_RESTART_ATTEMPT);
    long long index, have;
    if (!rj || !idx)
        return err_set(c->e, -EINVAL, "job %s: missing label %s", j->name,
                       rj ? LBL_JOB_INDEX : LBL_RJ_NAME);
    if (!rec_atoi(idx, &index))
        return err_set(c->e, -EINVAL, "job %s: invalid value for label %s, must be integer",
                       j->name, LBL_JOB_INDEX);
    if (!attempt) /* a Job created before the gate was on: kept as it is */
        return 0;
    if (!rec_atoi(attempt, &have))
        return err_set(c->e, -EINVAL, "job %s: invalid value for label %s, must be integer",
                       j->name, LBL_JOB_RESTART_ATTEMPT);
    long r = js_view_find(&c->v, rj);
    if (index < 0 || index >= list_len(c, c->job_restarts, r))
        return err_set(c->e, -EINVAL, "job %s: job index %lld is out of bounds for replicated "
                                      "job %s", j->name, index, rj);
    if (have < list_at(c->job_restarts, r, index))
        j->bucket = REC_BUCKET_PREVIOUS;
    return 0;
}

long long rec_restarts_towards_max(const struct rec_ctx *c)
{
    long long n = c->restarts_max;
    for (size_t i = 0; c->job_restarts_max && i < c->v.n_rj; i++) {
        size_t k;
        const json_t *v;
        json_array_foreach (c->job_restarts_max[i], k, v)
            n += json_is_integer(v) ? json_integer_value(v) : 0;
    }
    return n;
}

/* lists[rj][index] += 1, the list made of replicas zeros first when absent.  0 or -ENOMEM. */
static int list_bump(struct rec_ctx *c, json_t **lists, long rj, long long index)
{
    if (!lists[rj]) {
        lists[rj] = json_array();
        for (long long i = 0; lists[rj] && i < c->v.rj[rj].replicas; i++)
            if (json_array_append_new(lists[rj], json_integer(0)) < 0)
                return -ENOMEM;
        if (!lists[rj])
            return -ENOMEM;
    }
    json_t *v = json_integer(list_at(lists, rj, index) + 1);
    return json_array_set_new(lists[rj], (size_t)index, v) < 0 ? -ENOMEM : 0;
}

/* upstream failurePolicyRecreateJob: the Job's labels name its place in the lists. */
static int recreate_job(struct rec_ctx *c, const struct rec_job *j, bool counts)
{
    const json_t *labels = jx_obj(jx_obj(j->obj, "metadata"), "labels");
    const char *rj = jx_str(labels, LBL_RJ_NAME), *idx = jx_str(labels, LBL_JOB_INDEX);
    long long index;
    if (!rj || !idx)
        return err_set(c->e, -EINVAL, "failed job %s missing %s label", j->name,
                       rj ? LBL_JOB_INDEX : LBL_RJ_NAME);
    if (!rec_atoi(idx, &index))
        return err_set(c->e, -EINVAL, "failed job %s has invalid %s label: %s", j->name,
                       LBL_JOB_INDEX, idx);
    long r = js_view_find(&c->v, rj);
    long long len = list_len(c, c->job_restarts, r);
    if (index < 0 || index >= len || (counts && index >= list_len(c, c->job_restarts_max, r)))
        return err_set(c->e, -EINVAL, "failed job %s has index %lld out of bounds for "
                                      "replicated job %s (replicas: %lld)", j->name, index, rj,
                       len);
    if (list_bump(c, c->job_restarts, r, index) ||
        (counts && list_bump(c, c->job_restarts_max, r, index)))
        return -ENOMEM;
    return 0;
}

int rec_restart_job(struct rec_ctx *c, const struct rec_job *j, bool counts)
{
    const char *action = counts ? "RestartJob" : "RestartJobAndIgnoreMaxRestarts";
    char msg[MSG_MAX], reason[MSG_MAX];
    long long max = jx_int_or(jx_obj(c->spec, "failurePolicy"), "maxRestarts", 0);
    if (counts && rec_restarts_towards_max(c) >= max) {
        snprintf(msg, sizeof(msg), "jobset failed due to reaching max number of restarts "
                                   "(first failed job: %s)", j->name);
        return rec__fail(c, "ReachedMaxRestarts", msg);
    }
    snprintf(msg, sizeof(msg), "applying %s failure policy action (first failed job: %s)",
             action, j->name);
    snprintf(reason, sizeof(reason), "%sFailurePolicyAction", action);
    int rc = recreate_job(c, j, counts);
    return rc ? rc : rec__event(c, REC_EVENT_WARNING, reason, msg);
}

int rec_job_restarts_status(const struct rec_ctx *c, json_t *rjs)
{
    size_t i;
    json_t *e;
    json_array_foreach (rjs, i, e) {
        long r = js_view_find(&c->v, jx_str(e, "name"));
        if (r < 0)
            continue;
        if (c->job_restarts[r] && json_object_set(e, "jobRestarts", c->job_restarts[r]) < 0)
            return -ENOMEM;
        if (c->job_restarts_max[r] &&
            json_object_set(e, "jobRestartsCountTowardsMax", c->job_restarts_max[r]) < 0)
            return -ENOMEM;
    }
    return 0;
}
