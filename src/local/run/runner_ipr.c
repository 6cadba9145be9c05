/* InPlaceRestart in the runner: jaxset is every pod's in-place restart agent.
 *
 * Upstream (kubernetes-sigs/jobset KEP-467, cmd/in-place-restart-agent) puts an agent in each
 * pod: at start it writes the pod's attempt (jobset.sigs.k8s.io/in-place-restart-attempt =
 * status.currentInPlaceRestartAttempt + 1, or 0 when unset) and holds the worker at a barrier;
 * it lifts the barrier once the controller sets currentInPlaceRestartAttempt to the pod's
 * attempt, and exits with a code that makes the kubelet restart every container of the pod
 * (restartPolicyRules RestartAllContainers) once previousInPlaceRestartAttempt reaches it.  A
 * worker that fails restarts its pod in place the same way (the rules upstream's examples put on
 * the worker container).  The controller's part is the reconcile core's (core/in_place.h).
 *
 * Here the same happens without an agent container: a pod of an InPlaceRestart JobSet starts
 * held (no container runs) with its attempt in its annotation; a container that exits non-zero
 * stops every container of its pod, which then comes back held at the next attempt (the same
 * pod: name, hostname, completion index, GPUs; its restart count + 1); after each reconcile
 * pass every pod reads the JobSet status as its agent would.  The pods are never deleted, so a
 * restart costs the processes' start only. */
#include "local/run/runner_int.h"

#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "api/schema/keys.h"
#include "obj/tree/jx.h"

bool run__ipr_active(const struct manifest *m)
{
    const json_t *js = m->jobset;
    const char *s = jx_str(jx_path(js, "spec.failurePolicy"), "restartStrategy");
    /* the agent bypasses its barrier for a JobSet with the disable annotation */
    return fg_enabled(&m->gates, FG_IN_PLACE_RESTART) && s && strcmp(s, "InPlaceRestart") == 0 &&
           !jx_get_meta(jx_obj(js, "metadata"), "annotations", ANN_DISABLE_IN_PLACE_RESTART);
}

static long long status_attempt(const struct run *r, const char *key)
{
    long long v;
    return jx_int(jx_obj(r->js, "status"), key, &v) == 0 ? v : -1;
}

/* The agent starting: the attempt it writes, and the barrier. */
static void agent_start(struct run *r, struct rpod *p)
{
    long long cur = status_attempt(r, "currentInPlaceRestartAttempt");
    char v[24];
    p->ipr_attempt = cur < 0 ? 0 : cur + 1;
    p->ipr_held = true;
    p->ipr_restarting = false;
    p->jp.ready = false;
    snprintf(v, sizeof(v), "%lld", p->ipr_attempt);
    if (jx_set_meta(p->meta, "annotations", ANN_IN_PLACE_RESTART_ATTEMPT, v) < 0)
        run__note(r, "out of memory: pod %s has no in-place restart attempt", p->name);
    r->status_dirty = true;
}

void run__ipr_pod_init(struct run *r, struct rpod *p)
{
    p->ipr_attempt = -1;
    if (r->ipr)
        agent_start(r, p);
}

/* Every container stopped: the pod's containers start over, held at the barrier. */
static void restart_done(struct run *r, struct rpod *p, int64_t now)
{
    for (size_t i = 0; i < p->n_c; i++) {
        p->c[i].done = false;
        p->c[i].code = p->c[i].sig = 0;
    }
    p->next_init = 0;
    p->kill_at_ms = 0;
    jobctl_pod_restarted(&p->jp, now);
    agent_start(r, p);
}

/* Stops every container of p for an in-place restart (the restart grace applies). */
static void restart_begin(struct run *r, struct rjob *j, struct rpod *p, int64_t now)
{
    int g = run__restart_grace_ms(r, j);
    p->ipr_restarting = true;
    p->ipr_held = false;
    p->jp.ready = false;
    if (!run__pod_alive(p)) {
        restart_done(r, p, now);
        return;
    }
    run__signal_pod(r, p, g ? SIGTERM : SIGKILL);
    p->kill_at_ms = now + g;
}

bool run__ipr_exited(struct run *r, struct rjob *j, struct rpod *p, const struct rcont *c,
                     int64_t now)
{
    if (p->ipr_attempt < 0 || p->jp.terminating)
        return false;
    if (p->ipr_restarting) {
        if (!run__pod_alive(p))
            restart_done(r, p, now);
        return true;
    }
    if (c->code == 0 || c->sidecar)
        return false; /* a success ends as it would anyway */
    char *said = run__container_said(r, p, c);
    run__note(r, "pod %s: container %s exited %d: the pod restarts in place (in-place restart "
                 "attempt %lld)%s%s",
              p->name, jx_str(c->spec, "name") ? jx_str(c->spec, "name") : "", c->code,
              p->ipr_attempt + 1, said ? ": " : "", said ? said : "");
    free(said);
    r->ipr_noted = p->ipr_attempt + 1;
    restart_begin(r, j, p, now);
    return true;
}

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
            run__note(r, "restarting every pod in place (in-place restart attempt %lld)",
                      prev + 1);
        }
        restart_begin(r, j, p, now);
        return true;
    }
    if (p->ipr_held && cur >= 0 && p->ipr_attempt == cur) {
        p->ipr_held = false;
        p->jp.ready = true;
        run__pod_advance(r, j, p, now);
        return true;
    }
    return false;
}

bool run__ipr_agents(struct run *r, int64_t now)
{
    bool acted = false;
    if (!r->ipr || r->signal)
        return false;
    long long prev = status_attempt(r, "previousInPlaceRestartAttempt");
    long long cur = status_attempt(r, "currentInPlaceRestartAttempt");
    for (size_t k = 0; k < r->n_jobs; k++) {
        struct rjob *j = r->jobs[k];
        for (size_t i = 0; !j->deleting && i < j->n_pods; i++)
            acted |= agent_step(r, j, j->pods[i], prev, cur, now);
    }
    if (acted)
        r->status_dirty = true;
    return acted;
}

static const char *const phases[] = {"Pending", "Running", "Succeeded", "Failed"};

/* The fields of a v1 Pod the core reads (core/in_place.h). */
static json_t *pod_json(const struct rpod *p)
{
    json_t *cs = json_array();
    if (!cs)
        return NULL;
    for (size_t i = 0; i < p->n_c; i++) {
        const char *name = jx_str(p->c[i].spec, "name");
        json_t *c = json_pack("{s:s,s:i}", "name", name ? name : "", "restartCount",
                              p->jp.restart_count);
        if (!c || json_array_append_new(cs, c) < 0) {
            json_decref(cs);
            return NULL;
        }
    }
    return json_pack("{s:{s:s,s:O?},s:{s:s,s:o}}", "metadata", "name", p->name, "annotations",
                     jx_obj(p->meta, "annotations"), "status", "phase", phases[p->jp.phase],
                     "containerStatuses", cs);
}

json_t *run__ipr_pods(const struct run *r)
{
    json_t *arr = json_array();
    for (size_t k = 0; arr && k < r->n_jobs; k++)
        for (size_t i = 0; i < r->jobs[k]->n_pods; i++)
            if (json_array_append_new(arr, pod_json(r->jobs[k]->pods[i])) < 0) {
                json_decref(arr);
                return NULL;
            }
    return arr;
}
