/* jobview: state and counts of a job of any kind (jobview.h). */
#include "cli/jobview.h"

#include <string.h>

#include "obj/jx.h"

const json_t *jobview_condition(const json_t *obj, const char *type)
{
    const json_t *c;
    size_t i;
    json_array_foreach (jx_arr(jx_obj(obj, "status"), "conditions"), i, c) {
        const char *t = jx_str(c, "type");
        if (t && !strcmp(t, type))
            return c;
    }
    return NULL;
}

static bool cond_true(const json_t *obj, const char *type)
{
    const char *s = jx_str(jobview_condition(obj, type), "status");
    return s && !strcmp(s, "True");
}

static struct jobview_rj *add_rj(struct jobview *v, const char *name)
{
    for (size_t i = 0; i < v->n_rj; i++)
        if (name && v->rj[i].name && !strcmp(v->rj[i].name, name))
            return &v->rj[i];
    if (v->n_rj == JOBVIEW_MAX_RJ)
        return NULL;
    struct jobview_rj *r = &v->rj[v->n_rj++];
    *r = (struct jobview_rj){name, -1, -1, -1, -1, -1, -1};
    return r;
}

/* Counters of one status entry ({name, ready, active, succeeded, failed, suspended}). */
static void counts(struct jobview_rj *r, const json_t *st)
{
    if (!r)
        return;
    r->ready = jx_int_or(st, "ready", r->ready);
    r->active = jx_int_or(st, "active", 0);
    r->succeeded = jx_int_or(st, "succeeded", 0);
    r->failed = jx_int_or(st, "failed", 0);
    r->suspended = jx_int_or(st, "suspended", 0);
}

static void read_jobset(const json_t *obj, struct jobview *v)
{
    const json_t *x;
    size_t i;
    json_array_foreach (jx_arr(jx_obj(obj, "spec"), "replicatedJobs"), i, x) {
        struct jobview_rj *r = add_rj(v, jx_str(x, "name"));
        if (r) /* an absent counter of replicatedJobsStatus is 0 */
            *r = (struct jobview_rj){r->name, jx_int_or(x, "replicas", 1), 0, 0, 0, 0, 0};
    }
    json_array_foreach (jx_arr(jx_obj(obj, "status"), "replicatedJobsStatus"), i, x)
        counts(add_rj(v, jx_str(x, "name")), x);
    v->restarts = jx_int_or(jx_obj(obj, "status"), "restarts", 0);
}

static void read_trainjob(const json_t *obj, struct jobview *v)
{
    const json_t *x;
    size_t i;
    json_array_foreach (jx_arr(jx_obj(obj, "status"), "jobsStatus"), i, x)
        counts(add_rj(v, jx_str(x, "name")), x);
}

static void read_jaxjob(const json_t *obj, struct jobview *v)
{
    const char *k;
    const json_t *x;
    json_object_foreach (jx_obj(jx_obj(obj, "spec"), "jaxReplicaSpecs"), k, x) {
        struct jobview_rj *r = add_rj(v, k);
        if (r) /* replicaStatuses keeps no ready count */
            *r = (struct jobview_rj){r->name, jx_int_or(x, "replicas", 1), -1, 0, 0, 0, -1};
    }
    json_object_foreach (jx_obj(jx_obj(obj, "status"), "replicaStatuses"), k, x) {
        struct jobview_rj *r = add_rj(v, k);
        counts(r, x);
        if (r)
            r->suspended = -1;
    }
}

static bool any_active(const struct jobview *v)
{
    for (size_t i = 0; i < v->n_rj; i++)
        if (v->rj[i].active > 0 || v->rj[i].ready > 0)
            return true;
    return false;
}

static const char *state(const json_t *obj, const struct jobview *v)
{
    if (cond_true(obj, "Completed") || cond_true(obj, "Complete") ||
        cond_true(obj, "Succeeded"))
        return "Completed";
    if (cond_true(obj, "Failed"))
        return "Failed";
    if (cond_true(obj, "Suspended"))
        return "Suspended";
    if (cond_true(obj, "Restarting"))
        return "Restarting";
    if (cond_true(obj, "Running") || any_active(v))
        return "Running";
    return cond_true(obj, "Created") ? "Created" : "Pending";
}

void jobview_read(const struct kc_res *r, const json_t *obj, struct jobview *out)
{
    memset(out, 0, sizeof(*out));
    out->restarts = -1;
    if (r->family == KC_RES_JOBSET)
        read_jobset(obj, out);
    else if (r->family == KC_RES_TRAINJOB)
        read_trainjob(obj, out);
    else if (r->family == KC_RES_JAXJOB)
        read_jaxjob(obj, out);
    out->state = state(obj, out);
}

bool jobview_terminal(const struct jobview *v)
{
    return !strcmp(v->state, "Completed") || !strcmp(v->state, "Failed");
}
