/* in_place: the InPlaceRestart feature gate's part of the JobSet controller (reconcile_int.h,
 * "in_place.c"). */
#include "core/reconcile_int.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "api/schema/keys.h"
#include "obj/tree/jx.h"

#define MAX_RESTARTS_MSG "jobset failed due to reaching max number of restarts"

/* The most restarts of any container of any pod (getMaxContainerRestartCount). */
static long long max_container_restarts(const json_t *pods)
{
    static const char *const lists[] = {"initContainerStatuses", "containerStatuses"};
    long long most = 0;
    size_t i, k;
    const json_t *pod, *cs;
    json_array_foreach (pods, i, pod)
        for (size_t l = 0; l < 2; l++)
            json_array_foreach (jx_arr(jx_obj(pod, "status"), lists[l]), k, cs) {
                long long n = jx_int_or(cs, "restartCount", 0);
                most = n > most ? n : most;
            }
    return most;
}

/* The attempts of the pods (getPodInPlaceRestartAttempts): count, lowest, highest. */
struct attempts {
    size_t n;
    long long lo, hi;
};

static int read_attempts(struct rec_ctx *c, struct attempts *a)
{
    size_t i;
    const json_t *pod;
    *a = (struct attempts){0, INT64_MAX, 0};
    json_array_foreach (c->pods, i, pod) {
        const char *phase = jx_str(jx_obj(pod, "status"), "phase");
        const char *s = jx_get_meta(jx_obj(pod, "metadata"), "annotations",
                                    ANN_IN_PLACE_RESTART_ATTEMPT);
        long long v;
        if ((phase && strcmp(phase, "Failed") == 0) || !s)
            continue;
        if (!rec_atoi(s, &v) || v < 0)
            return err_set(c->e, -EINVAL, "invalid value for annotation %s, must be "
                                          "non-negative integer", ANN_IN_PLACE_RESTART_ATTEMPT);
        a->n++;
        a->lo = v < a->lo ? v : a->lo;
        a->hi = v > a->hi ? v : a->hi;
    }
    return 0;
}

/* replicas x parallelism over the replicated jobs (getTotalNumberOfPods). */
static int total_pods(struct rec_ctx *c, long long *out)
{
    *out = 0;
    for (size_t i = 0; i < c->v.n_rj; i++) {
        const json_t *spec = jx_obj(c->v.rj[i].tmpl, "spec");
        long long comp, par;
        if (jx_int(spec, "completions", &comp) || jx_int(spec, "parallelism", &par) ||
            comp != par)
            return err_set(c->e, -EINVAL, "%s: in-place restart requires "
                                          "jobTemplate.spec.completions == "
                                          "jobTemplate.spec.parallelism != nil",
                           c->v.rj[i].name);
        *out += c->v.rj[i].replicas * par;
    }
    return 0;
}

static bool in_place_strategy(const struct rec_ctx *c)
{
    const char *s = jx_str(jx_obj(c->spec, "failurePolicy"), "restartStrategy");
    return s && strcmp(s, "InPlaceRestart") == 0;
}

int rec_in_place_restart(struct rec_ctx *c)
{
    struct attempts a;
    long long total, max = jx_int_or(jx_obj(c->spec, "failurePolicy"), "maxRestarts", 0);
    if (!fg_enabled(c->gates, FG_IN_PLACE_RESTART) || !in_place_strategy(c))
        return 0;
    if (max_container_restarts(c->pods) > max)
        return rec__fail(c, "ReachedMaxRestarts", MAX_RESTARTS_MSG);
    int rc = read_attempts(c, &a);
    if (rc)
        return rc;
    /* restarts that do not count (RestartJobSetAndIgnoreMaxRestarts) do not count here either */
    if (a.hi - (c->restarts - c->restarts_max) > max)
        return rec__fail(c, "ReachedMaxRestarts", MAX_RESTARTS_MSG);
    if ((rc = total_pods(c, &total)))
        return rc;
    if ((long long)a.n == total && a.n && a.lo == a.hi) {
        c->ipr_current = a.hi; /* every pod is at one attempt: the barriers lift */
        return 0;
    }
    if (a.n == 0 || a.hi == 0) /* the JobSet is starting */
        return 0;
    if (a.hi - 1 > c->ipr_previous) /* never lowered while pods are being recreated */
        c->ipr_previous = a.hi - 1;
    return 0;
}
