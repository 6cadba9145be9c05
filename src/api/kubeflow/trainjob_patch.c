/* trainjob_patch: see trainjob_patch.h. */
#include "api/kubeflow/trainjob_patch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "obj/tree/jx.h"
#include "obj/tree/smp.h"

#define POD "replicatedJobs.template.spec.template.spec"
#define CONTAINER_LISTS(c)                                                                      \
    {POD "." c ".ports", "containerPort"}, {POD "." c ".env", "name"},                          \
        {POD "." c ".volumeMounts", "mountPath"}, {POD "." c ".volumeDevices", "devicePath"}
#define META_LISTS(m) {m ".finalizers", ""}, {m ".ownerReferences", "uid"}

/* The patchMergeKey tags of sigs.k8s.io/jobset api/jobset/v1alpha2 (JobSetSpec, ReplicatedJob)
 * and of k8s.io/api core/v1 (PodSpec, Container, EphemeralContainerCommon) and meta/v1
 * (ObjectMeta) on the lists a JobSetSpec holds; batch/v1 JobSpec has none. */
static const struct smp_list JOBSET_LISTS[] = {
    {"replicatedJobs", "name"},
    {"replicatedJobs.dependsOn", "name"},
    META_LISTS("replicatedJobs.template.metadata"),
    META_LISTS("replicatedJobs.template.spec.template.metadata"),
    {POD ".volumes", "name"},
    {POD ".initContainers", "name"},
    {POD ".containers", "name"},
    {POD ".ephemeralContainers", "name"},
    {POD ".imagePullSecrets", "name"},
    {POD ".hostAliases", "ip"},
    {POD ".topologySpreadConstraints", "topologyKey"},
    {POD ".schedulingGates", "name"},
    {POD ".resourceClaims", "name"},
    CONTAINER_LISTS("initContainers"),
    CONTAINER_LISTS("containers"),
    CONTAINER_LISTS("ephemeralContainers"),
    {NULL, NULL},
};

/* newRuntimeInfo: the patch's labels and annotations over the template's. */
static int merge_meta(json_t *tmpl, const json_t *pmeta)
{
    static const char *const fields[] = {"labels", "annotations"};
    for (size_t f = 0; f < 2; f++) {
        const json_t *from = jx_obj(pmeta, fields[f]);
        if (json_object_size(from) == 0)
            continue;
        json_t *to = jx_ensure_obj(jx_ensure_obj(tmpl, "metadata"), fields[f]);
        if (!to || json_object_update(to, (json_t *)from) < 0)
            return -ENOMEM;
    }
    return 0;
}

static long position(const json_t *names, const json_t *rj)
{
    size_t i;
    const json_t *n;
    const char *name = jx_str(rj, "name");
    json_array_foreach (names, i, n)
        if (name && strcmp(json_string_value(n), name) == 0)
            return (long)i;
    return 0; /* a Go map's zero value: an unknown name sorts as the first job */
}

/* mergeRuntimePatches: the replicated jobs back in the runtime's order (a stable sort). */
static int restore_order(json_t *rjs, const json_t *names)
{
    size_t n = json_array_size(rjs);
    json_t **v = calloc(n ? n : 1, sizeof(*v));
    int rc = v ? 0 : -ENOMEM;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        json_t *x = json_incref(json_array_get(rjs, i));
        size_t j = i;
        for (; j > 0 && position(names, v[j - 1]) > position(names, x); j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
    if (rc == 0)
        json_array_clear(rjs);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = json_array_append_new(rjs, v[i]) < 0 ? -ENOMEM : 0;
    free(v);
    return rc;
}

static json_t *job_names(const json_t *rjs)
{
    json_t *names = json_array();
    size_t i;
    const json_t *rj;
    json_array_foreach (rjs, i, rj) {
        const char *name = jx_str(rj, "name");
        if (names && json_array_append_new(names, json_string(name ? name : "")) < 0) {
            json_decref(names);
            return NULL;
        }
    }
    return names;
}

/* Applies patch number i; 0, -ENOMEM or -EINVAL (reported in errs). */
static int apply_one(json_t *tmpl, const json_t *p, size_t i, struct ferr_list *errs)
{
    const json_t *pt = jx_path(p, "trainingRuntimeSpec.template");
    const json_t *pspec = jx_obj(pt, "spec");
    char why[512], path[FPATH_MAX];
    int rc = merge_meta(tmpl, jx_obj(pt, "metadata"));
    if (rc < 0 || !pspec)
        return rc;
    json_t *spec = jx_ensure_obj(tmpl, "spec");
    rc = spec ? smp_apply(spec, pspec, JOBSET_LISTS, why, sizeof(why)) : -ENOMEM;
    if (rc == -EINVAL) {
        fpath_fmt(path, "spec.runtimePatches[%zu].trainingRuntimeSpec.template.spec", i);
        if (ferr_add_raw(errs, FERR_INVALID, path, "object", "%s", why) < 0)
            rc = -ENOMEM;
    }
    return rc;
}

json_t *tjp_patched_runtime(const json_t *tj, const json_t *rt, struct ferr_list *errs)
{
    const json_t *patches = jx_arr(jx_obj(tj, "spec"), "runtimePatches");
    if (json_array_size(patches) == 0) /* nothing changes: the runtime itself, read only */
        return json_incref((json_t *)rt);
    json_t *out = json_deep_copy(rt), *names = NULL, *tmpl = NULL;
    size_t i;
    const json_t *p;
    int rc = out ? 0 : -ENOMEM;
    if (rc < 0)
        return out;
    if (!(tmpl = jx_ensure_obj(jx_ensure_obj(out, "spec"), "template")) ||
        !(names = job_names(jx_path(tmpl, "spec.replicatedJobs"))))
        rc = -ENOMEM;
    json_array_foreach (rc == 0 ? patches : NULL, i, p)
        if (rc == 0)
            rc = apply_one(tmpl, p, i, errs);
    json_t *rjs = jx_arr(jx_obj(tmpl, "spec"), "replicatedJobs");
    if (rc == 0 && rjs)
        rc = restore_order(rjs, names);
    json_decref(names);
    if (rc < 0) {
        json_decref(out);
        return NULL;
    }
    return out;
}
