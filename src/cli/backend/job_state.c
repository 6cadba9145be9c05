/* job_state: state and counts of a job of any kind (job_state.h). */
#include "cli/backend/job_state.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/backend/backend.h"
#include "kube/client/kc_res.h"
#include "local/store/store_state.h"
#include "obj/tree/cond.h"
#include "obj/tree/jx.h"

const json_t *job_state_condition(const json_t *obj, const char *type)
{
    return cond_find(jx_obj(obj, "status"), type, NULL);
}

/* The entry of replicated job `name` (added when new), or NULL on out of memory. */
static struct job_state_rj *rj_of(struct job_state *s, size_t *cap, const char *name)
{
    for (size_t i = 0; i < s->n_rj; i++)
        if (name && s->rj[i].name && !strcmp(s->rj[i].name, name))
            return &s->rj[i];
    if (s->n_rj == *cap) {
        size_t n = *cap ? *cap * 2 : 4;
        struct job_state_rj *rj = realloc(s->rj, n * sizeof(*rj));
        if (!rj)
            return NULL;
        s->rj = rj;
        *cap = n;
    }
    struct job_state_rj *r = &s->rj[s->n_rj++];
    *r = (struct job_state_rj){name, -1, -1, -1, -1, -1, -1};
    return r;
}

/* Counters of one status entry ({name, ready, active, succeeded, failed, suspended}). */
static void counts(struct job_state_rj *r, const json_t *st)
{
    r->ready = jx_int_or(st, "ready", r->ready);
    r->active = jx_int_or(st, "active", 0);
    r->succeeded = jx_int_or(st, "succeeded", 0);
    r->failed = jx_int_or(st, "failed", 0);
    r->suspended = jx_int_or(st, "suspended", 0);
}

static int read_jobset(const json_t *obj, struct job_state *s, size_t *cap)
{
    const json_t *x;
    size_t i;
    json_array_foreach (jx_arr(jx_obj(obj, "spec"), "replicatedJobs"), i, x) {
        struct job_state_rj *r = rj_of(s, cap, jx_str(x, "name"));
        if (!r)
            return -ENOMEM;
        /* an absent counter of replicatedJobsStatus is 0 */
        *r = (struct job_state_rj){r->name, jx_int_or(x, "replicas", 1), 0, 0, 0, 0, 0};
    }
    json_array_foreach (jx_arr(jx_obj(obj, "status"), "replicatedJobsStatus"), i, x) {
        struct job_state_rj *r = rj_of(s, cap, jx_str(x, "name"));
        if (!r)
            return -ENOMEM;
        counts(r, x);
    }
    s->restarts = jx_int_or(jx_obj(obj, "status"), "restarts", 0);
    return 0;
}

static int read_trainjob(const json_t *obj, struct job_state *s, size_t *cap)
{
    const json_t *x;
    size_t i;
    json_array_foreach (jx_arr(jx_obj(obj, "status"), "jobsStatus"), i, x) {
        struct job_state_rj *r = rj_of(s, cap, jx_str(x, "name"));
        if (!r)
            return -ENOMEM;
        counts(r, x);
    }
    return 0;
}

static int read_jaxjob(const json_t *obj, struct job_state *s, size_t *cap)
{
    const char *k;
    const json_t *x;
    json_object_foreach (jx_obj(jx_obj(obj, "spec"), "jaxReplicaSpecs"), k, x) {
        struct job_state_rj *r = rj_of(s, cap, k);
        if (!r)
            return -ENOMEM;
        /* replicaStatuses keeps no ready count */
        *r = (struct job_state_rj){r->name, jx_int_or(x, "replicas", 1), -1, 0, 0, 0, -1};
    }
    json_object_foreach (jx_obj(jx_obj(obj, "status"), "replicaStatuses"), k, x) {
        struct job_state_rj *r = rj_of(s, cap, k);
        if (!r)
            return -ENOMEM;
        counts(r, x);
        r->suspended = -1;
    }
    return 0;
}

static bool any_active(const struct job_state *s)
{
    for (size_t i = 0; i < s->n_rj; i++)
        if (s->rj[i].active > 0 || s->rj[i].ready > 0)
            return true;
    return false;
}

/* The conditions first, in the order a job reaches them; then what runs. */
static const char *state(const json_t *obj, const struct job_state *s)
{
    const json_t *st = jx_obj(obj, "status");
    if (cond_true(st, "Completed") || cond_true(st, "Complete") || cond_true(st, "Succeeded"))
        return "Completed";
    if (cond_true(st, "Failed"))
        return "Failed";
    if (cond_true(st, "Suspended"))
        return "Suspended";
    if (cond_true(st, "Restarting"))
        return "Restarting";
    if (cond_true(st, "Running") || any_active(s))
        return "Running";
    return cond_true(st, "Created") ? "Created" : "Pending";
}

int job_state_read(enum job_kind kind, const json_t *obj, struct job_state *out)
{
    size_t cap = 0;
    int rc = 0;
    memset(out, 0, sizeof(*out));
    out->restarts = -1;
    if (kind == JOB_KIND_JOBSET)
        rc = read_jobset(obj, out, &cap);
    else if (kind == JOB_KIND_TRAINJOB)
        rc = read_trainjob(obj, out, &cap);
    else if (kind == JOB_KIND_JAXJOB)
        rc = read_jaxjob(obj, out, &cap);
    if (rc < 0) {
        job_state_release(out);
        return rc;
    }
    out->state = state(obj, out);
    return 0;
}

void job_state_release(struct job_state *s)
{
    free(s->rj);
    s->rj = NULL;
    s->n_rj = 0;
}

bool job_state_terminal(const struct job_state *s)
{
    return !strcmp(s->state, "Completed") || !strcmp(s->state, "Failed");
}

const char *job_state_shown(const struct kc_res *k, const json_t *obj, bool *final)
{
    const json_t *meta = jx_obj(obj, "metadata");
    const char *run = jx_get_meta(meta, "annotations", BACKEND_ANN_RUN_STATE);
    struct job_state v;
    enum store_state rs;
    const char *st = "Unknown";
    *final = false;
    if (run) { /* a live run's JobSet state (Suspended...) is in no table: not final */
        *final = store_state_parse(run, &rs) == 0 && store_state_final(rs);
        return run;
    }
    if (job_state_read(k->family, obj, &v) == 0) { /* else out of memory: Unknown */
        st = v.state;
        *final = job_state_terminal(&v);
        job_state_release(&v);
    }
    if (jx_str(meta, "deletionTimestamp"))
        return "Terminating";
    return st;
}
