/* What the controller's caches keep of each object (controller-runtime's cache transforms):
 * only the fields the reconcile core and the backend read, so that memory stays small with
 * tens of thousands of Jobs.  A Job keeps its name, namespace, uid and resourceVersion, its
 * deletionTimestamp, the labels the core reads (replicatedjob-name, restart-attempt, job-index,
 * job-restart-attempt), its controller owner, spec.suspend, parallelism and completions, and
 * its status counters, start and completion times and conditions.  Its pod template is not
 * kept: a resume reads the whole Job from the server and merges the JobSet's template into it
 * (ctl_ops.c op_update_job), which gives what the core's merge into the cached copy would. */
#include <string.h>

#include "api/schema/keys.h"
#include "kube/ctl/ctl_int.h"
#include "obj/tree/cond.h"
#include "obj/tree/jx.h"

static void copy(json_t *dst, const json_t *src, const char *key)
{
    json_t *v = json_object_get(src, key);
    if (v)
        json_object_set(dst, key, v);
}

static void copy_keys(json_t *dst, const json_t *src, const char *const *keys)
{
    for (; *keys; keys++)
        copy(dst, src, *keys);
}

static json_t *slim_meta(const json_t *m, bool all_labels)
{
    static const char *const keys[] = {"name", "namespace", "uid", "resourceVersion",
                                       "deletionTimestamp", NULL};
    json_t *out = json_object();
    copy_keys(out, m, keys);
    if (all_labels) {
        copy(out, m, "labels");
    } else {
        static const char *const lbls[] = {LBL_RJ_NAME, LBL_RESTART_ATTEMPT, LBL_JOB_INDEX,
                                           LBL_JOB_RESTART_ATTEMPT, NULL};
        json_t *l = json_object();
        copy_keys(l, jx_obj(m, "labels"), lbls);
        json_object_set_new(out, "labels", l);
    }
    size_t i;
    json_t *ref;
    static const char *const rkeys[] = {"kind", "name", "uid", "controller", NULL};
    json_array_foreach (jx_arr(m, "ownerReferences"), i, ref) {
        if (!jx_bool_or(ref, "controller", false))
            continue;
        json_t *r = json_object();
        copy_keys(r, ref, rkeys);
        json_object_set_new(out, "ownerReferences", json_pack("[o]", r));
    }
    return out;
}

static json_t *slim_status(const json_t *st)
{
    static const char *const keys[] = {"active", "ready", "succeeded", "failed", "startTime",
                                       "completionTime", NULL};
    static const char *const ckeys[] = {"type", "status", "reason", "message",
                                        "lastTransitionTime", NULL};
    json_t *out = json_object();
    copy_keys(out, st, keys);
    size_t i;
    json_t *c;
    cond_list_set(out, json_array());
    json_array_foreach (cond_list(st), i, c) {
        json_t *k = json_object();
        copy_keys(k, c, ckeys);
        cond_append(out, k);
    }
    return out;
}

json_t *ctl_slim_job(const json_t *job)
{
    static const char *const skeys[] = {"suspend", "parallelism", "completions", NULL};
    json_t *s = json_object();
    copy_keys(s, jx_obj(job, "spec"), skeys);
    return json_pack("{s:o,s:o,s:o}", "metadata", slim_meta(jx_obj(job, "metadata"), false),
                     "spec", s, "status", slim_status(jx_obj(job, "status")));
}

static bool controlled_by(const json_t *obj, const char *kind)
{
    bool owned = false;
    size_t i;
    json_t *ref;
    json_array_foreach (jx_arr(jx_obj(obj, "metadata"), "ownerReferences"), i, ref)
        owned = owned || (jx_bool_or(ref, "controller", false) && jx_str(ref, "kind") &&
                          strcmp(jx_str(ref, "kind"), kind) == 0);
    return owned;
}

/* Only Services a JobSet controls are kept (others: NULL, not cached). */
json_t *ctl_slim_service(const json_t *svc)
{
    if (!controlled_by(svc, "JobSet"))
        return NULL;
    return json_pack("{s:s,s:s,s:o}", "apiVersion", "v1", "kind", "Service", "metadata",
                     slim_meta(jx_obj(svc, "metadata"), false));
}

/* Only PodGroups a TrainJob controls are kept, their metadata only: the TrainJob controller
 * asks whether its PodGroup is there (ctl_trainjob.c). */
json_t *ctl_slim_pod_group(const json_t *pg)
{
    if (!controlled_by(pg, "TrainJob"))
        return NULL;
    return json_pack("{s:s?,s:s,s:o}", "apiVersion", jx_str(pg, "apiVersion"), "kind",
                     "PodGroup", "metadata", slim_meta(jx_obj(pg, "metadata"), false));
}

/* A JobSet is kept whole, less metadata.managedFields (as TransformStripManagedFields). */
json_t *ctl_slim_jobset(const json_t *js)
{
    json_t *out = json_deep_copy(js);
    json_object_del(jx_obj(out, "metadata"), "managedFields");
    return out;
}
