/* The RestartJob feature gate in the runner: a Job restarted on its own (kubernetes-sigs/jobset
 * failure_policy.go, RestartJob actions) is deleted and created again by the reconcile core's
 * plans; the runner gives its teardown the restart grace, as a gang restart's, and paces a Job
 * that fails at once with the crash-loop backoff gang restarts have. */
#include "local/run/runner_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/schema/keys.h"
#include "obj/tree/jx.h"

static int64_t backoff_delay(const struct run *r, int quick)
{
    int64_t delay = 0;
    if (quick >= 2) {
        delay = r->o->restart_base_ms;
        for (int i = 2; i < quick && delay < RUN_GANG_BACKOFF_MAX_MS; i++)
            delay *= 2;
        delay = delay > RUN_GANG_BACKOFF_MAX_MS ? RUN_GANG_BACKOFF_MAX_MS : delay;
    }
    return delay;
}

int64_t runner__backoff_begin(const struct run *r, int *quick, int64_t *started_ms,
                              int64_t *hold_ms, int64_t now)
{
    *quick = now - *started_ms < RUN_GANG_STABLE_MS ? *quick + 1 : 0;
    int64_t delay = backoff_delay(r, *quick);
    *started_ms = *hold_ms = now + delay;
    return delay;
}

/* The job-restart-attempt label of a Job, -1 when it has none. */
static long long job_attempt(const json_t *job)
{
    const char *a = jx_get_meta(jx_obj(job, "metadata"), "labels", LBL_JOB_RESTART_ATTEMPT);
    return a ? strtoll(a, NULL, 10) : -1;
}

bool runner__job_outdated(const struct run *r, const struct rjob *j)
{
    long long have = job_attempt(j->obj);
    return !r->signal && have >= 0 &&
           have < js_job_restarts(r->js, r->m->view.rj[j->rj].name, j->index);
}

static struct run_job_backoff *backoff_of(struct run *r, const char *name)
{
    for (size_t i = 0; i < r->n_job_backoff; i++)
        if (strcmp(r->job_backoff[i].name, name) == 0)
            return &r->job_backoff[i];
    struct run_job_backoff *nb = realloc(r->job_backoff, (r->n_job_backoff + 1) * sizeof(*nb));
    if (!nb)
        return NULL;
    r->job_backoff = nb;
    struct run_job_backoff *b = &nb[r->n_job_backoff++];
    memset(b, 0, sizeof(*b));
    snprintf(b->name, sizeof(b->name), "%s", name);
    b->started_ms = r->started_ms;
    return b;
}

int64_t runner__job_restart_hold(struct run *r, const json_t *job, int64_t now)
{
    long long attempt = job_attempt(job);
    const char *name = jx_str(jx_obj(job, "metadata"), "name");
    if (attempt <= 0 || !name)
        return 0; /* its first incarnation (or no RestartJob gate) */
    struct run_job_backoff *b = backoff_of(r, name);
    if (!b)
        return -ENOMEM;
    if (attempt > b->attempt) {
        int64_t delay = runner__backoff_begin(r, &b->quick, &b->started_ms, &b->hold_ms, now);
        b->attempt = attempt;
        if (delay > 0)
            runner__note(r, "job %s restarts (job restart attempt %lld) in %.1f s: it failed %d "
                            "times in a row within %d s (crash-loop backoff; --restart-backoff "
                            "sets its base)",
                         name, attempt, (double)delay / 1000, b->quick, RUN_GANG_STABLE_MS / 1000);
    }
    return now < b->hold_ms ? b->hold_ms : 0;
}
