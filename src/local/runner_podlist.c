/* pods.json: the run's pods as core/v1 Pod objects (metadata, hostname, phase, container
 * states), so that programs reading the run directory (the Python SDK) see each process. */
#include "local/runner_int.h"

#include "obj/jx.h"

static const char *phase_name(enum jobctl_phase ph)
{
    static const char *const names[] = {"Pending", "Running", "Succeeded", "Failed"};
    return names[ph];
}

/* {"running": ...}, {"terminated": ...} or {"waiting": ...} for container `c` of `p`. */
static json_t *cont_state(const struct rpod *p, const struct rcont *c)
{
    char ts[32];
    if (c->alive) {
        jobctl_rfc3339(p->jp.start_ms, ts);
        return json_pack("{s:{s:s}}", "running", "startedAt", ts);
    }
    if (c->done && p->jp.waiting && c->code != 0)
        return json_pack("{s:{s:s}}", "waiting", "reason", "CrashLoopBackOff");
    if (c->done) {
        json_t *t = json_pack("{s:i,s:s}", "exitCode", c->code, "reason",
                              c->code ? "Error" : "Completed");
        if (t && c->sig)
            jx_set_int(t, "signal", c->sig);
        return t ? json_pack("{s:o}", "terminated", t) : NULL;
    }
    return json_pack("{s:{s:s}}", "waiting", "reason",
                     p->jp.phase == JOBCTL_PENDING ? "ContainerCreating" : "PodInitializing");
}

static json_t *cont_status(const struct rpod *p, const struct rcont *c)
{
    const char *name = jx_str(c->spec, "name");
    return json_pack("{s:s,s:b,s:i,s:o}", "name", name ? name : "", "ready",
                     c->alive && !p->jp.waiting, "restartCount",
                     c->init ? 0 : p->jp.restart_count, "state", cont_state(p, c));
}

static json_t *pod_json(const struct rpod *p)
{
    json_t *inits = json_array(), *conts = json_array();
    for (size_t i = 0; inits && conts && i < p->n_c; i++)
        json_array_append_new(p->c[i].init ? inits : conts, cont_status(p, &p->c[i]));
    const json_t *labels = jx_obj(p->meta, "labels");
    json_t *pod = json_pack("{s:s,s:s,s:{s:s,s:s,s:O},s:{s:s,s:s},s:{s:s,s:s,s:s}}",
                            "apiVersion", "v1", "kind", "Pod", "metadata", "name", p->name,
                            "namespace", jx_str(p->meta, "namespace"), "labels",
                            labels ? labels : json_null(), "spec", "hostname", p->hostname,
                            "nodeName", "localhost", "status", "phase",
                            phase_name(p->jp.phase), "podIP", "127.0.0.1", "hostIP",
                            "127.0.0.1");
    json_t *st = jx_obj(pod, "status");
    if (st && inits && json_array_size(inits))
        json_object_set(st, "initContainerStatuses", inits);
    if (st && conts)
        json_object_set(st, "containerStatuses", conts);
    json_decref(inits);
    json_decref(conts);
    return pod;
}

json_t *run__pods_json(const struct run *r)
{
    json_t *pods = json_array();
    for (size_t k = 0; pods && k < r->n_jobs; k++)
        for (size_t i = 0; i < r->jobs[k]->n_pods; i++)
            if (json_array_append_new(pods, pod_json(r->jobs[k]->pods[i])) < 0) {
                json_decref(pods);
                return NULL;
            }
    return pods;
}
