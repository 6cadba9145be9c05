/* Signals to a pod's processes and the grace they get before SIGKILL: which pods still run,
 * the grace of a deletion and of a restart (--grace, --restart-grace, the JobSet's annotation,
 * the pod's terminationGracePeriodSeconds), and the SIGKILL deadlines.  Below runner_pod.c and
 * runner_ipr.c, which stop pods with them. */
#include "local/run/runner_int.h"

#include <signal.h>
#include <stdint.h>

#include "api/schema/keys.h"
#include "obj/tree/jx.h"

static const json_t *pod_spec(const struct rjob *j)
{
    return jx_obj(jx_path(j->obj, "spec.template"), "spec");
}

bool runner__pod_alive(const struct rpod *p)
{
    for (size_t i = 0; i < p->n_c; i++)
        if (p->c[i].alive)
            return true;
    return false;
}

/* The restart grace in force (option, else annotation), -1 when none. */
static long long restart_grace_s(const struct run *r)
{
    return r->o->restart_grace_s >= 0 ? r->o->restart_grace_s : r->m->restart_grace_s;
}

int runner__restart_grace_ms(const struct run *r, const struct rjob *j)
{
    long long g = restart_grace_s(r);
    if (g < 0 && r->o->grace_s >= 0)
        g = r->o->grace_s;
    if (g < 0)
        g = jx_int_or(pod_spec(j), "terminationGracePeriodSeconds", 30);
    return (int)(g < 0 ? 0 : g * 1000);
}

int runner__grace_ms(const struct run *r, const struct rjob *j)
{
    if (j->restart_teardown && restart_grace_s(r) >= 0)
        return (int)(restart_grace_s(r) * 1000);
    if (r->o->grace_s >= 0)
        return r->o->grace_s * 1000;
    long long g = jx_int_or(pod_spec(j), "terminationGracePeriodSeconds", 30);
    return (int)(g < 0 ? 0 : g * 1000);
}

void runner__signal_pod(struct run *r, struct rpod *p, int sig)
{
    for (size_t i = 0; i < p->n_c; i++)
        if (p->c[i].alive)
            sup_kill(r->sup, p->c[i].sup_id, sig);
}

/* A gang restart waited out a grace period for processes that ignored SIGTERM: say once why
 * and what shortens it. */
static void note_restart_kill(struct run *r, const struct rjob *j, const struct rpod *p)
{
    if (r->restart_kill_noted || !j->restart_teardown || !runner__pod_alive(p) ||
        runner__grace_ms(r, j) == 0)
        return;
    r->restart_kill_noted = true;
    runner__note(r, "the restart waited %d s for pods that ignored SIGTERM (JAX treats it as a "
                    "preemption notice and keeps running); set the JobSet annotation %s or "
                    "--restart-grace SECONDS to restart sooner",
                 runner__grace_ms(r, j) / 1000, ANN_RESTART_GRACE);
}

void runner__escalate_kills(struct run *r, int64_t now)
{
    for (size_t k = 0; k < r->n_jobs; k++)
        for (size_t i = 0; i < r->jobs[k]->n_pods; i++) {
            struct rpod *p = r->jobs[k]->pods[i];
            if (p->kill_at_ms && now >= p->kill_at_ms) {
                note_restart_kill(r, r->jobs[k], p);
                runner__signal_pod(r, p, SIGKILL);
            }
        }
}

int64_t runner__next_kill(const struct run *r)
{
    int64_t t = INT64_MAX;
    for (size_t k = 0; k < r->n_jobs; k++)
        for (size_t i = 0; i < r->jobs[k]->n_pods; i++) {
            const struct rpod *p = r->jobs[k]->pods[i];
            if (p->kill_at_ms && p->kill_at_ms < t && runner__pod_alive(p))
                t = p->kill_at_ms;
        }
    return t;
}

size_t runner__alive(const struct run *r)
{
    size_t n = 0;
    for (size_t k = 0; k < r->n_jobs; k++)
        for (size_t i = 0; i < r->jobs[k]->n_pods; i++)
            n += runner__pod_alive(r->jobs[k]->pods[i]);
    return n;
}
