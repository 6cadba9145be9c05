#include "core/success.h"

#include <string.h>

#include "core/reconcile_int.h"
#include "obj/tree/jx.h"

static bool targeted(const json_t *targets, const char *rj)
{
    size_t i;
    const json_t *v;
    if (!json_array_size(targets))
        return true;
    json_array_foreach (targets, i, v)
        if (json_is_string(v) && strcmp(json_string_value(v), rj ? rj : "") == 0)
            return true;
    return false;
}

bool rec_success_met(const struct rec_ctx *c)
{
    const json_t *sp = jx_obj(c->spec, "successPolicy");
    const json_t *targets = jx_arr(sp, "targetReplicatedJobs");
    const char *op = jx_str(sp, "operator") ? jx_str(sp, "operator") : "All";
    long long matching = 0, needed = 0;
    for (size_t i = 0; i < c->n_jobs; i++)
        if (c->jobs[i].bucket == REC_BUCKET_SUCCEEDED && targeted(targets, c->jobs[i].rj_name))
            matching++;
    if (strcmp(op, "Any") == 0)
        needed = 1;
    else if (strcmp(op, "All") == 0)
        for (size_t i = 0; i < c->v.n_rj; i++)
            if (targeted(targets, c->v.rj[i].name))
                needed += c->v.rj[i].replicas;
    return matching >= needed;
}
