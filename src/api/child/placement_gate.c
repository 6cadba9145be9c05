/* Exclusive placement in jaxset's gated order (see placement.h): followers admitted behind the
 * scheduling gate PLACE_GATE and given their leader's domain once it is scheduled. */
#include "api/child/placement.h"

#include <errno.h>
#include <string.h>

#include "api/schema/keys.h"
#include "obj/tree/jx.h"

static const char *topology(const json_t *pod)
{
    return jx_get_meta(jx_obj(pod, "metadata"), "annotations", ANN_EXCLUSIVE_TOPOLOGY);
}

/* A follower placed by its leader: exclusive placement, not the node-selector strategy. */
static bool follower(const json_t *pod)
{
    const json_t *m = jx_obj(pod, "metadata");
    return jx_get_meta(m, "annotations", LBL_JOBSET_NAME) && topology(pod) &&
           !jx_get_meta(m, "annotations", ANN_NODE_SELECTOR) && !place_is_leader(pod);
}

static bool has_domain(const json_t *pod)
{
    return jx_str(jx_obj(jx_obj(pod, "spec"), "nodeSelector"), topology(pod)) != NULL;
}

int place_gate_default(json_t *pod)
{
    if (!follower(pod) || has_domain(pod) || place_gated(pod))
        return 0;
    json_t *gates = jx_ensure_arr(jx_ensure_obj(pod, "spec"), "schedulingGates");
    return gates && json_array_append_new(gates, json_pack("{s:s}", "name", PLACE_GATE)) == 0
               ? 0
               : -ENOMEM;
}

bool place_gate_admits(const json_t *pod)
{
    return follower(pod) && place_gated(pod) && !has_domain(pod);
}

/* The follower's gates without PLACE_GATE: a new array, NULL on OOM. */
static json_t *other_gates(const json_t *gates)
{
    json_t *out = json_array();
    const json_t *g;
    size_t i;
    json_array_foreach (gates, i, g) {
        const char *n = jx_str(g, "name");
        if (out && !(n && strcmp(n, PLACE_GATE) == 0) && json_array_append(out, (json_t *)g) < 0) {
            json_decref(out);
            return NULL;
        }
    }
    return out;
}

json_t *place_ungate_patch(const json_t *follower_pod, const char *dom)
{
    const json_t *spec = jx_obj(follower_pod, "spec");
    const json_t *gates = jx_arr(spec, "schedulingGates");
    json_t *rest = other_gates(gates);
    json_t *sel = json_is_object(json_object_get(spec, "nodeSelector"))
                      ? json_deep_copy(json_object_get(spec, "nodeSelector"))
                      : json_object();
    json_t *patch = NULL;
    if (rest && sel && jx_set_str(sel, topology(follower_pod), dom) == 0)
        patch = json_array_size(rest)
                    ? json_pack("[{s:s,s:s,s:O},{s:s,s:s,s:O},{s:s,s:s,s:O}]", "op", "test",
                                "path", "/spec/schedulingGates", "value", gates, "op",
                                "replace", "path", "/spec/schedulingGates", "value", rest,
                                "op", "add", "path", "/spec/nodeSelector", "value", sel)
                    : json_pack("[{s:s,s:s,s:O},{s:s,s:s},{s:s,s:s,s:O}]", "op", "test", "path",
                                "/spec/schedulingGates", "value", gates, "op", "remove",
                                "path", "/spec/schedulingGates", "op", "add", "path",
                                "/spec/nodeSelector", "value", sel);
    json_decref(rest);
    json_decref(sel);
    return patch;
}

int place_ungate_one(const json_t *pod, const struct place_src *src, json_t **patch,
                     struct place_err *pe)
{
    char dom[256];
    bool have;
    *patch = NULL;
    if (!place_gate_admits(pod) || jx_str(jx_obj(pod, "metadata"), "deletionTimestamp"))
        return 0; /* a pod being deleted is not let go */
    int rc = place_follower_domain(pod, src, dom, sizeof(dom), &have, pe);
    if (rc != 0 || !have)
        return rc; /* not yet: the leader's scheduling brings it back */
    *patch = place_ungate_patch(pod, dom);
    return *patch ? 0 : -ENOMEM;
}
