/* trainjob_init: see trainjob_init.h. */
#include "api/kubeflow/trainjob_init.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "obj/tree/jx.h"

static void check_one(struct chk *c, const json_t *init, const char *key)
{
    char path[FPATH_MAX], ipath[FPATH_MAX], epath[FPATH_MAX];
    size_t i;
    const json_t *e;
    const json_t *o = chk_obj(c, init, key, "spec.initializer", false);
    if (!o)
        return;
    fpath_field(path, "spec.initializer", key);
    (void)chk_str(c, o, "storageUri", path, false);
    const json_t *secret = chk_obj(c, o, "secretRef", path, false);
    if (secret)
        (void)chk_str(c, secret, "name", fpath_field(ipath, path, "secretRef"), true);
    fpath_field(epath, path, "env");
    json_array_foreach(chk_arr(c, o, "env", path, false), i, e) {
        fpath_index(ipath, path, "env", i);
        if (!json_is_object(e))
            chk_type_error(c, ipath, e, CHK_OBJ);
        else
            (void)chk_str(c, e, "name", ipath, true);
    }
}

void tji_check(struct chk *c, const json_t *spec)
{
    const json_t *init = chk_obj(c, spec, "initializer", "spec", false);
    check_one(c, init, "dataset");
    check_one(c, init, "model");
}

int tji_merge_env(json_t *node, const json_t *env)
{
    json_t *dst = jx_ensure_arr(node, "env");
    size_t i, k;
    const json_t *e;
    if (!dst)
        return -ENOMEM;
    json_array_foreach(env, i, e) {
        json_t *copy = json_deep_copy(e);
        int rc = chk_named(dst, jx_str(e, "name"), SIZE_MAX, &k) ? json_array_set_new(dst, k, copy)
                                                                 : json_array_append_new(dst, copy);
        if (rc < 0)
            return -ENOMEM;
    }
    return 0;
}

/* The initializer container `ctr` takes the TrainJob's initializer `cfg`. */
static int fill_container(json_t *ctr, const json_t *cfg)
{
    const char *uri = jx_str(cfg, "storageUri");
    const char *secret = jx_str(jx_obj(cfg, "secretRef"), "name");
    json_t *env = uri ? json_pack("[{s:s,s:s}]", "name", TJI_ENV_STORAGE_URI, "value", uri)
                      : json_array();
    int rc = env ? tji_merge_env(ctr, env) : -ENOMEM;
    json_decref(env);
    if (rc == 0 && jx_arr(cfg, "env"))
        rc = tji_merge_env(ctr, jx_arr(cfg, "env"));
    if (rc == 0 && secret) {
        json_t *from = jx_ensure_arr(ctr, "envFrom");
        rc = from && json_array_append_new(from, json_pack("{s:{s:s}}", "secretRef", "name",
                                                           secret)) == 0
                 ? 0
                 : -ENOMEM;
    }
    return rc;
}

int tji_apply(json_t *jspec, const json_t *tj_spec)
{
    const json_t *init = jx_obj(tj_spec, "initializer");
    size_t i;
    json_t *rj;
    json_array_foreach(jx_arr(jspec, "replicatedJobs"), i, rj) {
        const char *step = jx_get_meta(jx_path(rj, "template.metadata"), "labels", TJI_ANCESTOR);
        bool dataset = step && strcmp(step, TJI_DATASET) == 0;
        if (!dataset && !(step && strcmp(step, TJI_MODEL) == 0))
            continue;
        if (jx_set_int(rj, "replicas", 1) < 0)
            return -ENOMEM;
        const json_t *cfg = jx_obj(init, dataset ? "dataset" : "model");
        json_t *ctr = chk_named(jx_arr(jx_path(rj, "template.spec.template.spec"), "containers"),
                                step, SIZE_MAX, NULL);
        int rc = cfg && ctr ? fill_container(ctr, cfg) : 0;
        if (rc < 0)
            return rc;
    }
    return 0;
}

int tji_pod_group(json_t *jspec, const json_t *pg_policy, const char *name)
{
    const char *field = json_object_get(pg_policy, "coscheduling") ? "labels"
                        : json_object_get(pg_policy, "volcano")    ? "annotations"
                                                                   : NULL;
    const char *key = field && field[0] == 'l' ? TJI_COSCHED_LABEL : TJI_VOLCANO_ANN;
    size_t i;
    json_t *rj;
    if (!field)
        return 0;
    json_array_foreach(jx_arr(jspec, "replicatedJobs"), i, rj) {
        json_t *pod = jx_ensure_obj(jx_ensure_obj(rj, "template"), "spec");
        json_t *m = jx_ensure_obj(jx_ensure_obj(jx_ensure_obj(pod, "template"), "metadata"),
                                  field);
        if (!m || jx_set_str(m, key, name) < 0)
            return -ENOMEM;
    }
    return 0;
}
