#include "core/status.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/schema/keys.h"
#include "obj/tree/cond.h"
#include "obj/tree/jx.h"

/* ---- conditions ---------------------------------------------------------------------------- */

#define N REC_EVENT_NORMAL
const struct rec_cond rec_cond_completed = {REC_COND_COMPLETED, true, "AllJobsCompleted",
                                            "jobset completed successfully", N};
const struct rec_cond rec_cond_suspended = {REC_COND_SUSPENDED, true, "SuspendedJobs",
                                            "jobset is suspended", N};
const struct rec_cond rec_cond_resumed = {REC_COND_SUSPENDED, false, "ResumeJobs",
                                          "jobset is resumed", N};
const struct rec_cond rec_cond_startup_in_progress = {
    REC_COND_STARTUP_IN_PROGRESS, true, "InOrderStartupPolicyInProgress",
    "in order startup policy is in progress", N};
const struct rec_cond rec_cond_startup_completed = {
    REC_COND_STARTUP_COMPLETED, true, "InOrderStartupPolicyCompleted",
    "in order startup policy has completed", N};
const struct rec_cond rec_cond_restarting_jobs_ready = {REC_COND_RESTARTING, false, "JobsReady",
                                                        "all jobs are ready", N};
const struct rec_cond rec_cond_restarting_failed = {REC_COND_RESTARTING, false, "JobSetFailed",
                                                    "jobset failed", N};
const struct rec_cond rec_cond_restarting_completed = {
    REC_COND_RESTARTING, false, "JobSetCompleted", "jobset completed successfully", N};
const struct rec_cond rec_cond_restarting_suspended = {
    REC_COND_RESTARTING, false, "JobSetSuspended", "jobset is suspended", N};
#undef N

static bool str_eq(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

/* The one pair of condition types that exclude each other (upstream updateCondition). */
static const char *startup_complement(const char *type)
{
    if (str_eq(type, REC_COND_STARTUP_IN_PROGRESS))
        return REC_COND_STARTUP_COMPLETED;
    if (str_eq(type, REC_COND_STARTUP_COMPLETED))
        return REC_COND_STARTUP_IN_PROGRESS;
    return NULL;
}

int rec_cond_set(json_t *status, const struct rec_cond *c, const char *now)
{
    const struct cond k = {.type = c->type,
                           .status = c->status ? COND_TRUE : COND_FALSE,
                           .reason = c->reason,
                           .message = c->message,
                           .transition = now,
                           .transition_first = true};
    return cond_update(status, &k, startup_complement(c->type));
}

bool rec_finished(const json_t *conditions, const json_t **out_cond)
{
    size_t i;
    const json_t *c;
    json_array_foreach (conditions, i, c) {
        const char *t = jx_str(c, "type");
        if ((str_eq(t, REC_COND_COMPLETED) || str_eq(t, REC_COND_FAILED)) &&
            str_eq(jx_str(c, "status"), COND_TRUE)) {
            if (out_cond)
                *out_cond = c;
            return true;
        }
    }
    return false;
}

/* ---- child Jobs ---------------------------------------------------------------------------- */

bool rec_atoi(const char *s, long long *out)
{
    if (!s || !*s || (*s != '+' && *s != '-' && (*s < '0' || *s > '9')))
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || end == s || ((*s == '+' || *s == '-') && end == s + 1))
        return false;
    *out = v;
    return true;
}

int rec_job_classify(const json_t *job, long long restarts, enum rec_bucket *out_bucket,
                     const json_t **out_failed)
{
    long long attempt;
    const char *lbl = jx_get_meta(jx_obj(job, "metadata"), "labels", LBL_RESTART_ATTEMPT);
    if (!rec_atoi(lbl, &attempt))
        return -EINVAL;
    if (attempt < restarts) {
        *out_bucket = REC_BUCKET_PREVIOUS;
        return 0;
    }
    *out_bucket = REC_BUCKET_ACTIVE;
    size_t i;
    const json_t *c;
    json_array_foreach (cond_list(jx_obj(job, "status")), i, c) {
        const char *t = jx_str(c, "type");
        if (!str_eq(jx_str(c, "status"), COND_TRUE))
            continue;
        if (str_eq(t, "Complete")) {
            *out_bucket = REC_BUCKET_SUCCEEDED;
            return 0;
        }
        if (str_eq(t, "Failed")) {
            *out_bucket = REC_BUCKET_FAILED;
            if (out_failed)
                *out_failed = c;
            return 0;
        }
    }
    return 0;
}

bool rec_job_ready(const json_t *job)
{
    const json_t *spec = jx_obj(job, "spec"), *st = jx_obj(job, "status");
    long long pods = jx_int_or(spec, "parallelism", 1), comp;
    if (jx_int(spec, "completions", &comp) == 0 && comp < pods)
        pods = comp;
    return jx_int_or(st, "succeeded", 0) + jx_int_or(st, "ready", 0) >= pods;
}

void rec_rj_count_add(struct rec_rj_count *c, const json_t *job, enum rec_bucket bucket)
{
    switch (bucket) {
    case REC_BUCKET_ACTIVE:
        c->ready += rec_job_ready(job);
        c->active += jx_int_or(jx_obj(job, "status"), "active", 0) > 0;
        c->suspended += jx_bool_or(jx_obj(job, "spec"), "suspend", false);
        break;
    case REC_BUCKET_SUCCEEDED:
        c->succeeded++;
        break;
    case REC_BUCKET_FAILED:
        c->failed++;
        break;
    default:
        break;
    }
}

static int cmp_name_desc(const void *a, const void *b)
{
    const char *na = jx_str(*(json_t *const *)a, "name");
    const char *nb = jx_str(*(json_t *const *)b, "name");
    return -strcmp(na ? na : "", nb ? nb : "");
}

/* Sorts the objects of `arr` by "name" (descending) in place. */
static int sort_by_name(json_t *arr)
{
    size_t n = json_array_size(arr);
    json_t **items = calloc(n ? n : 1, sizeof(*items));
    if (!items)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++)
        items[i] = json_incref(json_array_get(arr, i));
    qsort(items, n, sizeof(*items), cmp_name_desc);
    int rc = 0;
    for (size_t i = 0; i < n; i++)
        if (json_array_set_new(arr, i, items[i]))
            rc = -ENOMEM;
    free(items);
    return rc;
}

json_t *rec_rj_status_json(const struct js_view *v, const struct rec_rj_count *counts)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < v->n_rj; i++) {
        const struct rec_rj_count *c = &counts[i];
        json_t *o = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I}", "name", v->rj[i].name, "ready",
                              (json_int_t)c->ready, "succeeded", (json_int_t)c->succeeded,
                              "failed", (json_int_t)c->failed, "active", (json_int_t)c->active,
                              "suspended", (json_int_t)c->suspended);
        if (json_array_append_new(arr, o)) {
            json_decref(arr);
            return NULL;
        }
    }
    if (arr && sort_by_name(arr)) {
        json_decref(arr);
        return NULL;
    }
    return arr;
}

/* ---- semantic status comparison ------------------------------------------------------------ */

static const char *const rj_counters[] = {"ready", "succeeded", "failed", "active", "suspended"};

static bool empty_value(const json_t *v)
{
    return json_is_null(v) || (json_is_array(v) && json_array_size(v) == 0);
}

static json_t *canon_rj(const json_t *e)
{
    json_t *o = json_object();
    const char *k;
    json_t *val;
    json_object_foreach ((json_t *)e, k, val)
        if (!empty_value(val) && json_object_set(o, k, val))
            goto fail;
    for (size_t i = 0; i < sizeof(rj_counters) / sizeof(rj_counters[0]); i++)
        if (jx_set_int(o, rj_counters[i], jx_int_or(e, rj_counters[i], 0)))
            goto fail;
    return o;
fail:
    json_decref(o);
    return NULL;
}

static int canon_rjs(json_t *out, const json_t *rjs)
{
    json_t *arr = json_array();
    size_t i;
    const json_t *e;
    if (!arr)
        return -ENOMEM;
    json_array_foreach (rjs, i, e)
        if (json_array_append_new(arr, canon_rj(e)))
            goto fail;
    if (sort_by_name(arr))
        goto fail;
    if (!json_array_size(arr)) {
        json_decref(arr);
        return 0;
    }
    return json_object_set_new(out, "replicatedJobsStatus", arr) ? -ENOMEM : 0;
fail:
    json_decref(arr);
    return -ENOMEM;
}

static const char *const status_special[] = {"restarts", "restartsCountTowardsMax",
                                             "terminalState", "replicatedJobsStatus"};

static bool special_key(const char *k)
{
    for (size_t i = 0; i < sizeof(status_special) / sizeof(status_special[0]); i++)
        if (strcmp(k, status_special[i]) == 0)
            return true;
    return false;
}

static json_t *canon_status(const json_t *s)
{
    json_t *o = json_object(), *val;
    const char *k, *ts = jx_str(s, "terminalState");
    long long rcm = jx_int_or(s, "restartsCountTowardsMax", 0);
    if (!o)
        return NULL;
    json_object_foreach ((json_t *)s, k, val)
        if (!special_key(k) && !empty_value(val) && json_object_set(o, k, val))
            goto fail;
    if (jx_set_int(o, "restarts", jx_int_or(s, "restarts", 0)) ||
        (rcm && jx_set_int(o, "restartsCountTowardsMax", rcm)) ||
        (ts && *ts && jx_set_str(o, "terminalState", ts)) ||
        canon_rjs(o, jx_arr(s, "replicatedJobsStatus")))
        goto fail;
    return o;
fail:
    json_decref(o);
    return NULL;
}

bool rec_status_equal(const json_t *a, const json_t *b)
{
    json_t *ca = canon_status(a), *cb = canon_status(b);
    bool eq = ca && cb && json_equal(ca, cb);
    json_decref(ca);
    json_decref(cb);
    return eq;
}
