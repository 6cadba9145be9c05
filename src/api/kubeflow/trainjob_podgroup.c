/* trainjob_podgroup: see trainjob_podgroup.h. */
#include "api/kubeflow/trainjob_podgroup.h"

#include <errno.h>
#include <string.h>

#include "api/kubeflow/trainjob_init.h"
#include "obj/tree/jx.h"
#include "obj/base/qty.h"

static const struct tjpg_kind kinds[] = {
    {"coscheduling", "scheduling.x-k8s.io/v1alpha1", "/apis/scheduling.x-k8s.io/v1alpha1",
     "podgroups.scheduling.x-k8s.io"},
    {"volcano", "scheduling.volcano.sh/v1beta1", "/apis/scheduling.volcano.sh/v1beta1",
     "podgroups.scheduling.volcano.sh"},
};

_Static_assert(sizeof(kinds) / sizeof(kinds[0]) == TJPG_KINDS, "TJPG_KINDS");

const struct tjpg_kind *tjpg_kind_at(size_t i)
{
    return i < TJPG_KINDS ? &kinds[i] : NULL;
}

const struct tjpg_kind *tjpg_kind(const json_t *pg_policy)
{
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (json_object_get(pg_policy, kinds[i].plugin))
            return &kinds[i];
    return NULL;
}

/* ---- requests ---------------------------------------------------------------------------- */

#define RES_MAX 32 /* resource names of one pod */

struct res {
    size_t n;
    const char *name[RES_MAX];
    struct qty q[RES_MAX];
};

static struct qty *res_slot(struct res *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->name[i], name) == 0)
            return &r->q[i];
    if (r->n == RES_MAX)
        return NULL;
    r->name[r->n] = name;
    memset(&r->q[r->n], 0, sizeof(r->q[0]));
    return &r->q[r->n++];
}

/* r += list * n (a ResourceList: name -> quantity); quantities that do not parse are left out,
 * as the API server would have refused them. */
static int res_add(struct res *r, const json_t *list, long long n)
{
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)list, k, v) {
        struct qty q, *slot;
        if (qty_parse(v, &q) < 0)
            continue;
        if (!(slot = res_slot(r, k)))
            return -ERANGE;
        if (qty_add_mul(slot, &q, n) < 0)
            return -ERANGE;
    }
    return 0;
}

/* r = max(r, o) per resource. */
static int res_max(struct res *r, const struct res *o)
{
    for (size_t i = 0; i < o->n; i++) {
        struct qty *slot = res_slot(r, o->name[i]);
        if (!slot)
            return -ERANGE;
        if (qty_cmp(slot, &o->q[i]) < 0)
            *slot = o->q[i];
    }
    return 0;
}

static const json_t *requests(const json_t *ctr)
{
    return jx_path(ctr, "resources.requests");
}

/* PodRequests of one pod spec. */
static int pod_requests(const json_t *pspec, struct res *out)
{
    struct res sidecars = {0};
    size_t i;
    const json_t *c;
    int rc = 0;
    json_array_foreach(jx_arr(pspec, "containers"), i, c) rc = rc ? rc : res_add(out, requests(c), 1);
    json_array_foreach(jx_arr(pspec, "initContainers"), i, c) {
        const char *policy = jx_str(c, "restartPolicy");
        if (rc == 0 && policy && strcmp(policy, "Always") == 0) {
            rc = res_add(&sidecars, requests(c), 1);
            rc = rc ? rc : res_add(out, requests(c), 1);
            continue;
        }
        struct res one = sidecars;
        rc = rc ? rc : res_add(&one, requests(c), 1);
        rc = rc ? rc : res_max(out, &one);
    }
    return rc ? rc : res_add(out, jx_obj(pspec, "overhead"), 1);
}

/* ---- the object -------------------------------------------------------------------------- */

static json_t *res_json(const struct res *r)
{
    json_t *o = json_object();
    char buf[QTY_MAX];
    for (size_t i = 0; o && i < r->n; i++) {
        qty_format(&r->q[i], buf);
        if (jx_set_str(o, r->name[i], buf) < 0) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

/* minMember and minResources into spec; the last priorityClassName into *pc. */
static int totals(const json_t *jobset, json_t *spec, const char **pc)
{
    struct res total = {0};
    long long members = 0;
    size_t i;
    const json_t *rj;
    int rc = 0;
    json_array_foreach(jx_arr(jx_obj(jobset, "spec"), "replicatedJobs"), i, rj) {
        const json_t *pspec = jx_path(rj, "template.spec.template.spec");
        long long count = jx_int_or(jx_path(rj, "template.spec"), "parallelism", 1);
        struct res one = {0};
        count = count < 1 ? 1 : count;
        members += count;
        rc = rc ? rc : pod_requests(pspec, &one);
        for (size_t k = 0; rc == 0 && k < one.n; k++) {
            struct qty *slot = res_slot(&total, one.name[k]);
            rc = slot ? qty_add_mul(slot, &one.q[k], count) : -ERANGE;
        }
        *pc = jx_str(pspec, "priorityClassName") ? jx_str(pspec, "priorityClassName") : *pc;
    }
    if (rc < 0)
        return rc;
    if (jx_set_int(spec, "minMember", members) < 0)
        return -ENOMEM;
    return total.n ? jx_set_new(spec, "minResources", res_json(&total)) : 0;
}

static int volcano(const json_t *policy, const json_t *jobset, json_t *spec, const char *pc)
{
    const char *queue = jx_get_meta(jx_obj(jobset, "metadata"), "annotations",
                                    TJI_VOLCANO_QUEUE);
    const json_t *topo = jx_obj(jx_obj(policy, "volcano"), "networkTopology");
    if (queue && jx_set_str(spec, "queue", queue) < 0)
        return -ENOMEM;
    if (pc && jx_set_str(spec, "priorityClassName", pc) < 0)
        return -ENOMEM;
    return topo ? jx_set_new(spec, "networkTopology", json_deep_copy(topo)) : 0;
}

json_t *tjpg_build(const char *ns, const char *name, const json_t *pg_policy,
                   const json_t *jobset, int *rc)
{
    const struct tjpg_kind *k = tjpg_kind(pg_policy);
    const char *pc = NULL;
    *rc = 0;
    if (!k)
        return NULL;
    json_t *pg = json_pack("{s:s,s:s,s:{s:s,s:s},s:{}}", "apiVersion", k->api_version, "kind",
                           "PodGroup", "metadata", "name", name, "namespace", ns, "spec");
    json_t *spec = jx_obj(pg, "spec");
    *rc = pg ? totals(jobset, spec, &pc) : -ENOMEM;
    if (*rc == 0 && k == &kinds[0])
        *rc = jx_set_int(spec, "scheduleTimeoutSeconds",
                         jx_int_or(jx_obj(pg_policy, "coscheduling"), "scheduleTimeoutSeconds",
                                   60));
    else if (*rc == 0)
        *rc = volcano(pg_policy, jobset, spec, pc);
    if (*rc < 0) {
        json_decref(pg);
        return NULL;
    }
    return pg;
}
