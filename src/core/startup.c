/* startup: creating the missing child Jobs (reconcile_int.h, "startup.c"). */
#include "core/reconcile_int.h"

#include <errno.h>
#include <string.h>

#include "api/child/construct.h"
#include "obj/tree/jx.h"

#define JOB_NAME_MAX 512

static const json_t *rj_obj(const struct rec_ctx *c, size_t rj)
{
    return json_array_get(jx_arr(c->spec, "replicatedJobs"), rj);
}

static bool dep_met(const struct rec_ctx *c, size_t rj, const json_t *dep)
{
    const char *name = jx_str(dep, "name"), *want = jx_str(dep, "status");
    long idx = js_view_find(&c->v, name);
    if (idx < 0)
        return false;
    const struct rec_rj_count *n = &c->counts[idx];
    /* upstream only knows the replicas of RJs up to and including this one */
    long long replicas = (size_t)idx <= rj ? c->v.rj[idx].replicas : 0;
    if (want && strcmp(want, "Complete") == 0 && replicas != n->succeeded)
        return false;
    if (want && strcmp(want, "Ready") == 0 && replicas != n->ready + n->succeeded + n->failed)
        return false;
    return true;
}

bool rec_deps_met(const struct rec_ctx *c, size_t rj)
{
    size_t i;
    const json_t *dep;
    json_array_foreach (jx_arr(rj_obj(c, rj), "dependsOn"), i, dep)
        if (!dep_met(c, rj, dep))
            return false;
    return true;
}

bool rec_rj_started(const struct rec_ctx *c, size_t rj)
{
    const struct rec_rj_count *n = &c->counts[rj];
    return c->v.rj[rj].replicas == n->failed + n->ready + n->succeeded;
}

bool rec_in_order(const struct rec_ctx *c)
{
    const char *order = jx_str(jx_obj(c->spec, "startupPolicy"), "startupPolicyOrder");
    return order && strcmp(order, "InOrder") == 0;
}

static bool blocking_recreate(const struct rec_ctx *c)
{
    const char *s = jx_str(jx_obj(c->spec, "failurePolicy"), "restartStrategy");
    return s && strcmp(s, "BlockingRecreate") == 0 && c->n_bucket[REC_BUCKET_PREVIOUS] > 0;
}

static int create_rj(struct rec_ctx *c, size_t rj)
{
    char name[JOB_NAME_MAX];
    for (long long idx = 0; idx < c->v.rj[rj].replicas; idx++) {
        js_job_name(&c->v, rj, idx, name, sizeof(name));
        if (rec__job_exists(c, name))
            continue;
        if (rec__create(c, construct_job_gated(c->js, &c->v, &c->rt, c->gates, rj, idx)))
            return -ENOMEM;
    }
    return 0;
}

int rec_create_jobs(struct rec_ctx *c)
{
    bool gated = !c->v.suspend && rec_in_order(c);
    bool blocked = blocking_recreate(c);
    for (size_t i = 0; i < c->v.n_rj; i++) {
        if (!rec_deps_met(c, i) || (gated && rec_rj_started(c, i)))
            continue;
        if (!blocked && create_rj(c, i))
            return -ENOMEM;
        if (gated)
            return rec__set_cond(c, &rec_cond_startup_in_progress);
    }
    return gated ? rec__set_cond(c, &rec_cond_startup_completed) : 0;
}
