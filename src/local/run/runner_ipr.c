/* InPlaceRestart in the runner: jaxset is every pod's in-place restart agent.
 *
 * Upstream (kubernetes-sigs/jobset KEP-467, cmd/in-place-restart-agent) puts an agent in each
 * pod: at start it writes the pod's attempt (jobset.sigs.k8s.io/in-place-restart-attempt =
 * status.currentInPlaceRestartAttempt + 1, or 0 when unset) and holds the worker at a barrier;
 * it lifts the barrier once the controller sets currentInPlaceRestartAttempt to the pod's
 * attempt, and exits with a code that makes the kubelet restart every container of the pod
 * (restartPolicyRules RestartAllContainers) once previousInPlaceRestartAttempt reaches it.  A
 * worker that fails restarts its pod in place the same way (the rules upstream's examples put on
 * the worker container).  The controller's part is the reconcile core's (core/in_place.c).
 *
 * Here the same happens without an agent container: a pod of an InPlaceRestart JobSet starts
 * held (no container runs) with its attempt in its annotation; a container that exits non-zero
 * stops every container of its pod, which then comes back held at the next attempt (the same
 * pod: name, hostname, completion index, GPUs; its restart count + 1); after each reconcile
 * pass every pod reads the JobSet status as its agent would (runner_ipr_agents.c).  The pods are
 * never deleted, so a restart costs the processes' start only.  This file is below
 * runner_pod.c, which tells it of every new pod and every container's exit. */
#include "local/run/runner_int.h"

#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "api/schema/keys.h"
#include "obj/tree/jx.h"

bool runner__ipr_active(const struct manifest *m)
{
    const json_t *js = m->jobset;
    const char *s = jx_str(jx_path(js, "spec.failurePolicy"), "restartStrategy");
    /* the agent bypasses its barrier for a JobSet with the disable annotation */
    return fg_enabled(&m->gates, FG_IN_PLACE_RESTART) && s && strcmp(s, "InPlaceRestart") == 0 &&
           !jx_get_meta(jx_obj(js, "metadata"), "annotations", ANN_DISABLE_IN_PLACE_RESTART);
}

long long runner__ipr_status_attempt(const struct run *r, const char *key)
{
    long long v;
    return jx_int(jx_obj(r->js, "status"), key, &v) == 0 ? v : -1;
}

/* The agent starting: the attempt it writes, and the barrier. */
static void agent_start(struct run *r, struct rpod *p)
{
    long long cur = runner__ipr_status_attempt(r, "currentInPlaceRestartAttempt");
    char v[24];
    p->ipr_attempt = cur < 0 ? 0 : cur + 1;
    p->ipr_held = true;
    p->ipr_restarting = false;
    p->jp.ready = false;
    snprintf(v, sizeof(v), "%lld", p->ipr_attempt);
    if (jx_set_meta(p->meta, "annotations", ANN_IN_PLACE_RESTART_ATTEMPT, v) < 0)
        runner__note(r, ERR_OOM_MSG ": pod %s has no in-place restart attempt", p->name);
    r->status_dirty = true;
}

void runner__ipr_pod_init(struct run *r, struct rpod *p)
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

void runner__ipr_restart_begin(struct run *r, struct rjob *j, struct rpod *p, int64_t now)
{
    int g = runner__restart_grace_ms(r, j);
    p->ipr_restarting = true;
    p->ipr_held = false;
    p->jp.ready = false;
    if (!runner__pod_alive(p)) {
        restart_done(r, p, now);
        return;
    }
    runner__signal_pod(r, p, g ? SIGTERM : SIGKILL);
    p->kill_at_ms = now + g;
}

bool runner__ipr_exited(struct run *r, struct rjob *j, struct rpod *p, const struct rcont *c,
                        int64_t now)
{
    if (p->ipr_attempt < 0 || p->jp.terminating)
        return false;
    if (p->ipr_restarting) {
        if (!runner__pod_alive(p))
            restart_done(r, p, now);
        return true;
    }
    if (c->code == 0 || c->sidecar)
        return false; /* a success ends as it would anyway */
    char *said = runner__container_said(r, p, c);
    runner__note(r, "pod %s: container %s exited %d: the pod restarts in place (in-place restart "
                    "attempt %lld)%s%s",
                 p->name, jx_str(c->spec, "name") ? jx_str(c->spec, "name") : "", c->code,
                 p->ipr_attempt + 1, said ? ": " : "", said ? said : "");
    free(said);
    r->ipr_noted = p->ipr_attempt + 1;
    runner__ipr_restart_begin(r, j, p, now);
    return true;
}

static const char *const phases[] = {"Pending", "Running", "Succeeded", "Failed"};

/* The fields of a v1 Pod the core reads (core/in_place.c). */
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

json_t *runner__ipr_pods(const struct run *r)
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
