/* InPlaceRestart in the runner, its agents' side (see runner_ipr.c): after each reconcile pass
 * every pod reads the JobSet status as upstream's in-place restart agent would
 * (kubernetes-sigs/jobset cmd/in-place-restart-agent): pods at or below
 * previousInPlaceRestartAttempt restart in place, held pods at currentInPlaceRestartAttempt
 * pass the barrier and start.  Above runner_pod.c, whose containers it starts. */
#include "local/run/runner_int.h"

/* One pod's agent reading the status; true when it acted. */
static bool agent_step(struct run *r, struct rjob *j, struct rpod *p, long long prev,
                       long long cur, int64_t now)
{
    if (p->ipr_attempt < 0 || p->ipr_restarting || p->jp.terminating ||
        p->jp.phase != JOBCTL_RUNNING)
        return false;
    if (prev >= 0 && p->ipr_attempt <= prev) {
        if (r->ipr_noted < prev + 1) {
            r->ipr_noted = prev + 1;
            runner__note(r, "restarting every pod in place (in-place restart attempt %lld)",
                         prev + 1);
        }
        runner__ipr_restart_begin(r, j, p, now);
        return true;
    }
    if (p->ipr_held && cur >= 0 && p->ipr_attempt == cur) {
        p->ipr_held = false;
        p->jp.ready = true;
        runner__pod_advance(r, j, p, now);
        return true;
    }
    return false;
}

bool runner__ipr_agents(struct run *r, int64_t now)
{
    bool acted = false;
    if (!r->ipr || r->signal)
        return false;
    long long prev = runner__ipr_status_attempt(r, "previousInPlaceRestartAttempt");
    long long cur = runner__ipr_status_attempt(r, "currentInPlaceRestartAttempt");
    for (size_t k = 0; k < r->n_jobs; k++) {
        struct rjob *j = r->jobs[k];
        for (size_t i = 0; !j->deleting && i < j->n_pods; i++)
            acted |= agent_step(r, j, j->pods[i], prev, cur, now);
    }
    if (acted)
        r->status_dirty = true;
    return acted;
}
