/* Where the controller's objects are: the kinds it writes, their REST paths, and the keys of
 * the work queue ("ns/name" for a JobSet, "<kind prefix>ns/name" for the other kinds).  It
 * stands on ctl_obs.c alone, low enough for every file: the informers' callbacks
 * (ctl_main.c) and the status writes (ctl_ops.c) both queue keys through it. */
#include <stdio.h>
#include <string.h>

#include "kube/cache/cache_store.h"
#include "kube/ctl/ctl_int.h"
#include "obj/tree/jx.h"
#include "obj/base/sbuf.h"

const struct ctl_kind ctl__kind_js = {"jobset.x-k8s.io/v1alpha2", "JobSet",
                                    "/apis/jobset.x-k8s.io/v1alpha2", "jobsets", "jobset", ""};
const struct ctl_kind ctl__kind_jaxjob = {"kubeflow.org/v1", "JAXJob", "/apis/kubeflow.org/v1",
                                         "jaxjobs", "jaxjob-controller", CTL_KEY_JAXJOB};
const struct ctl_kind ctl__kind_trainjob = {
    "trainer.kubeflow.org/v1alpha1", "TrainJob", "/apis/trainer.kubeflow.org/v1alpha1",
    "trainjobs", "trainjob-controller", CTL_KEY_TRAINJOB};

char *ctl__path(const char *prefix, const char *resource, const char *ns, const char *name,
                const char *sub)
{
    struct sbuf b = SBUF_INIT;
    sb_printf(&b, "%s/namespaces/%s/%s", prefix, ns, resource);
    if (name)
        sb_printf(&b, "/%s", name);
    if (sub)
        sb_printf(&b, "/%s", sub);
    return sb_detach(&b);
}

bool ctl__split_key(const char *key, char *ns, size_t ns_n, const char **name)
{
    const char *slash = strchr(key, '/');
    if (!slash || (size_t)(slash - key) >= ns_n || !slash[1])
        return false;
    snprintf(ns, ns_n, "%.*s", (int)(slash - key), key);
    *name = slash + 1;
    return true;
}

json_t *ctl__owned(const struct cache_inf *inf, const char *ns, const char *uid)
{
    json_t *all = uid ? cache_store_owned(cache_inf_store(inf), uid) : json_array();
    for (size_t i = json_array_size(all); i-- > 0;) {
        const char *ons = jx_str(jx_obj(json_array_get(all, i), "metadata"), "namespace");
        if (!ns || !ons || strcmp(ons, ns) != 0)
            json_array_remove(all, i);
    }
    return all;
}

void ctl__enqueue(struct ctl *c, const char *prefix, const char *ns, const char *name)
{
    char key[600];
    snprintf(key, sizeof(key), "%s%s/%s", prefix, ns ? ns : "", name);
    size_t before = cache_queue_adds(c->q);
    cache_queue_add(c->q, key);
    if (cache_queue_adds(c->q) != before)
        ctl__obs_queued(c, false);
}

void ctl__owner_changed(struct ctl *c, const json_t *js)
{
    const json_t *m = jx_obj(js, "metadata"), *ref;
    const char *ns = jx_str(m, "namespace");
    size_t i;
    json_array_foreach (jx_arr(m, "ownerReferences"), i, ref) {
        const char *kind = jx_str(ref, "kind"), *name = jx_str(ref, "name");
        if (!jx_bool_or(ref, "controller", false) || !kind || !name)
            continue;
        if (c->jaxjobs && strcmp(kind, "JAXJob") == 0)
            ctl__enqueue(c, CTL_KEY_JAXJOB, ns, name);
        else if (c->trainjobs && strcmp(kind, "TrainJob") == 0)
            ctl__enqueue(c, CTL_KEY_TRAINJOB, ns, name);
    }
}
