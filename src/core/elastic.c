/* elastic: the ElasticJobSet feature gate's part of the JobSet controller (reconcile_int.h,
 * "elastic.c"). */
#include "core/reconcile_int.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "api/schema/keys.h"
#include "obj/tree/jx.h"

static bool elastic_on(const struct rec_ctx *c)
{
    return fg_enabled(c->gates, FG_ELASTIC_JOBSET);
}

/* The job-index label of `job`, -1 when absent or not an integer. */
static long long job_index(const json_t *job)
{
    long long idx;
    const char *s = jx_get_meta(jx_obj(job, "metadata"), "labels", LBL_JOB_INDEX);
    return s && rec_atoi(s, &idx) && idx >= 0 ? idx : -1;
}

bool rec_elastic_excess(const struct rec_ctx *c, const struct rec_job *j)
{
    if (!elastic_on(c) || j->rj < 0)
        return false;
    long long idx = job_index(j->obj);
    return idx >= 0 && idx >= c->v.rj[j->rj].replicas;
}

/* list cut or padded with zeros to n entries; an absent list stays absent.  0 or -ENOMEM. */
static int fit_list(json_t *list, long long n)
{
    while (list && (long long)json_array_size(list) > n)
        json_array_remove(list, json_array_size(list) - 1);
    while (list && (long long)json_array_size(list) < n)
        if (json_array_append_new(list, json_integer(0)) < 0)
            return -ENOMEM;
    return 0;
}

int rec_elastic_fit_restarts(struct rec_ctx *c)
{
    for (size_t i = 0; elastic_on(c) && c->job_restarts && i < c->v.n_rj; i++)
        if (fit_list(c->job_restarts[i], c->v.rj[i].replicas) < 0 ||
            fit_list(c->job_restarts_max[i], c->v.rj[i].replicas) < 0)
            return -ENOMEM;
    return 0;
}

/* The excess Job of RJ `rj` not yet terminating with the highest job index below `below`
 * (-1: none). */
static long highest_below(const struct rec_ctx *c, long rj, long long below)
{
    long best = -1;
    long long best_idx = -1;
    for (size_t i = 0; i < c->n_jobs; i++) {
        const struct rec_job *j = &c->jobs[i];
        long long idx = j->excess && !j->terminating && j->rj == rj ? job_index(j->obj) : -1;
        if (idx >= 0 && idx < below && idx > best_idx) {
            best = (long)i;
            best_idx = idx;
        }
    }
    return best;
}

int rec_elastic_delete(struct rec_ctx *c)
{
    for (size_t rj = 0; elastic_on(c) && rj < c->v.n_rj; rj++) {
        long long below = INT64_MAX;
        long i;
        while ((i = highest_below(c, (long)rj, below)) >= 0) {
            if (rec__delete(c, c->jobs[i].name))
                return -ENOMEM;
            below = job_index(c->jobs[i].obj);
        }
    }
    return 0;
}

/* parallelism and completions of a Job spec as the Job API defaults them (-1: no completions). */
static void effective(const json_t *spec, long long *par, long long *comp)
{
    const json_t *p = json_object_get(spec, "parallelism"), *cm = json_object_get(spec,
                                                                                  "completions");
    *par = json_is_integer(p) ? json_integer_value(p) : 1;
    *comp = json_is_integer(cm) ? json_integer_value(cm) : (p ? -1 : 1);
}

/* ptr.Equal of two optional fields. */
static bool same(const json_t *a, const json_t *b)
{
    return (!a && !b) || (a && b && json_equal(a, b));
}

/* jobScalingNeedsPatch for Job spec `have` against the RJ's Job template spec `want`. */
static bool needs_patch(const json_t *have, const json_t *want)
{
    long long hp, hc, wp, wc;
    if (!same(json_object_get(want, "parallelism"), json_object_get(want, "completions")))
        return false;
    effective(have, &hp, &hc);
    effective(want, &wp, &wc);
    return hp != wp || hc != wc;
}

/* spec.<key> of `spec` set to `want`'s (removed when `want` has none).  0 or -ENOMEM. */
static int copy_key(json_t *spec, const json_t *want, const char *key)
{
    const json_t *v = json_object_get(want, key);
    if (!v) {
        json_object_del(spec, key);
        return 0;
    }
    return json_object_set(spec, key, (json_t *)v) == 0 ? 0 : -ENOMEM;
}

static int scale_patch(struct rec_ctx *c, const struct rec_job *j, const json_t *want)
{
    json_t *job = json_deep_copy(j->obj), *spec = jx_ensure_obj(job, "spec");
    if (!spec || copy_key(spec, want, "parallelism") || copy_key(spec, want, "completions")) {
        json_decref(job);
        return -ENOMEM;
    }
    return rec__patch_scale(c, j->name, j->suspended, job);
}

int rec_elastic_sync(struct rec_ctx *c)
{
    for (size_t i = 0; elastic_on(c) && i < c->n_jobs; i++) {
        const struct rec_job *j = &c->jobs[i];
        if (j->bucket != REC_BUCKET_ACTIVE || j->terminating || j->rj < 0)
            continue;
        const json_t *want = jx_obj(c->v.rj[j->rj].tmpl, "spec");
        if (needs_patch(jx_obj(j->obj, "spec"), want) && scale_patch(c, j, want))
            return -ENOMEM;
    }
    return 0;
}
