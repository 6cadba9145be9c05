/* ttl: deleting a finished JobSet once spec.ttlSecondsAfterFinished has passed
 * (kubernetes-sigs/jobset pkg/controllers/ttl_after_finished.go, executeTTLAfterFinishedPolicy):
 * the time left counts from the lastTransitionTime of the condition that finished it. */
#include "core/reconcile_int.h"

#include <errno.h>

#include "obj/tree/cond.h"
#include "obj/tree/jx.h"

int rec__ttl_after_finished(struct rec_ctx *c, const json_t *fin)
{
    long long ttl;
    int64_t at;
    if (jx_int(c->spec, "ttlSecondsAfterFinished", &ttl))
        return 0;
    if (kt_parse(cond_transition(fin), &at))
        return err_set(c->e, -EINVAL, "unable to find the time when the JobSet %s/%s finished",
                       c->v.ns, c->v.name);
    int64_t left = at + ttl * 1000 - c->now_ms;
    if (left <= 0)
        c->plan->delete_jobset = true;
    else
        c->plan->requeue_after_ms = left;
    return 0;
}
