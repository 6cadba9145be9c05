/* suspend: suspending and resuming the child Jobs (reconcile_int.h, "suspend.c"). */
#include "core/reconcile_int.h"

#include <errno.h>
#include <string.h>

#include "obj/tree/jx.h"

int rec_suspend_jobs(struct rec_ctx *c)
{
    for (size_t i = 0; i < c->n_jobs; i++) {
        const struct rec_job *j = &c->jobs[i];
        if (j->bucket != REC_BUCKET_ACTIVE || j->suspended)
            continue;
        json_t *job = json_deep_copy(j->obj);
        if (!job || jx_set_bool(jx_ensure_obj(job, "spec"), "suspend", true) ||
            rec__patch(c, j->name, true, false, job))
            return -ENOMEM;
    }
    int rc = rec__set_cond(c, &rec_cond_suspended);
    return rc ? rc : rec__set_cond(c, &rec_cond_restarting_suspended);
}

/* dst[key] = dst[key] ∪ src[key] for maps, src winning (only when src has entries). */
static int merge_map(json_t *dst, const json_t *src, const char *key)
{
    const json_t *from = jx_obj(src, key);
    const char *k;
    json_t *v;
    if (!json_object_size(from))
        return 0;
    json_t *to = jx_ensure_obj(dst, key);
    if (!to)
        return -ENOMEM;
    json_object_foreach ((json_t *)from, k, v)
        if (jx_set_new(to, k, json_deep_copy(v)))
            return -ENOMEM;
    return 0;
}

static bool array_has(const json_t *arr, const json_t *item)
{
    size_t i;
    const json_t *v;
    json_array_foreach (arr, i, v)
        if (json_equal(v, item))
            return true;
    return false;
}

/* dst[key] keeps its items and gains the items of src[key] it lacks. */
static int merge_slice(json_t *dst, const json_t *src, const char *key)
{
    const json_t *from = jx_arr(src, key), *v;
    size_t i;
    if (!json_array_size(from))
        return 0;
    json_t *to = jx_ensure_arr(dst, key);
    if (!to)
        return -ENOMEM;
    json_array_foreach (from, i, v)
        if (!array_has(to, v) && json_array_append_new(to, json_deep_copy(v)))
            return -ENOMEM;
    return 0;
}

/* The resume Update (upstream resumeJob) for Job j of RJ rj. */
static int resume_job(struct rec_ctx *c, const struct rec_job *j, size_t rj)
{
    const json_t *tmpl = jx_path(c->v.rj[rj].tmpl, "spec.template");
    json_t *job = json_deep_copy(j->obj), *status = jx_obj(job, "status");
    const json_t *st = json_object_get(status, "startTime");
    bool clear = st && !json_is_null(st);
    json_t *spec = jx_ensure_obj(job, "spec");
    json_t *pt = jx_ensure_obj(spec, "template");
    json_t *meta = jx_ensure_obj(pt, "metadata"), *pspec = jx_ensure_obj(pt, "spec");
    if (!job || !meta || !pspec)
        goto fail;
    if (clear)
        json_object_del(status, "startTime");
    if (merge_map(meta, jx_obj(tmpl, "metadata"), "labels") ||
        merge_map(meta, jx_obj(tmpl, "metadata"), "annotations") ||
        merge_map(pspec, jx_obj(tmpl, "spec"), "nodeSelector") ||
        merge_slice(pspec, jx_obj(tmpl, "spec"), "tolerations") ||
        merge_slice(pspec, jx_obj(tmpl, "spec"), "schedulingGates") ||
        jx_set_bool(spec, "suspend", false))
        goto fail;
    return rec__patch(c, j->name, false, clear, job);
fail:
    json_decref(job);
    return -ENOMEM;
}

static int resume_rj(struct rec_ctx *c, size_t rj)
{
    for (size_t i = 0; i < c->n_jobs; i++) {
        const struct rec_job *j = &c->jobs[i];
        if (j->bucket != REC_BUCKET_ACTIVE || !j->suspended || !j->rj_name ||
            strcmp(j->rj_name, c->v.rj[rj].name) != 0)
            continue;
        if (resume_job(c, j, rj))
            return -ENOMEM;
    }
    return 0;
}

int rec_resume_jobs(struct rec_ctx *c)
{
    bool in_order = rec_in_order(c);
    for (size_t i = 0; i < c->v.n_rj; i++) {
        if (!rec_deps_met(c, i) || (in_order && rec_rj_started(c, i)))
            continue;
        if (resume_rj(c, i))
            return -ENOMEM;
        if (in_order)
            return rec__set_cond(c, &rec_cond_startup_in_progress);
    }
    return rec__set_cond(c, &rec_cond_resumed);
}
