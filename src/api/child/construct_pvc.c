/* PersistentVolumeClaims of spec.volumeClaimPolicies and the volumes child Jobs get for them,
 * as upstream builds them (kubernetes-sigs/jobset pkg/controllers/jobset_controller.go,
 * createPVCsIfNecessary and the volume added in constructJob). */
#include "api/child/construct.h"

#include <stdio.h>
#include <string.h>

#include "api/schema/keys.h"
#include "obj/tree/jx.h"

/* "<templateName>-<jsName>" into out; validation bounds it to 63 characters. */
static void claim_name(const struct js_view *v, const char *tmpl, char out[CONSTRUCT_NAME_MAX])
{
    snprintf(out, CONSTRUCT_NAME_MAX, "%s-%s", tmpl, v->name);
}

/* True when a container or init container of the pod spec mounts a volume named `name`. */
static bool mounts(const json_t *pspec, const char *name)
{
    static const char *const lists[] = {"initContainers", "containers"};
    for (size_t l = 0; l < 2; l++) {
        const json_t *cs = jx_arr(pspec, lists[l]);
        for (size_t i = 0; i < json_array_size(cs); i++) {
            const json_t *vm = jx_arr(json_array_get(cs, i), "volumeMounts");
            for (size_t k = 0; k < json_array_size(vm); k++) {
                const char *n = jx_str(json_array_get(vm, k), "name");
                if (n && !strcmp(n, name))
                    return true;
            }
        }
    }
    return false;
}

int construct_pvc_volumes(const json_t *js, const struct js_view *v, json_t *pspec)
{
    const json_t *vcps = jx_arr(jx_obj(js, "spec"), "volumeClaimPolicies");
    char claim[CONSTRUCT_NAME_MAX];
    for (size_t i = 0; i < json_array_size(vcps); i++) {
        const json_t *ts = jx_arr(json_array_get(vcps, i), "templates");
        for (size_t k = 0; k < json_array_size(ts); k++) {
            const char *name = jx_str(jx_obj(json_array_get(ts, k), "metadata"), "name");
            if (!name || !mounts(pspec, name))
                continue;
            claim_name(v, name, claim);
            json_t *vols = jx_ensure_arr(pspec, "volumes");
            json_t *vol = json_pack("{s:s,s:{s:s}}", "name", name, "persistentVolumeClaim",
                                    "claimName", claim);
            if (!vols || !vol || json_array_append_new(vols, vol) < 0)
                return -1;
        }
    }
    return 0;
}

static json_t *pvc(const struct js_view *v, const json_t *tmpl, bool owned)
{
    const json_t *tm = jx_obj(tmpl, "metadata");
    char claim[CONSTRUCT_NAME_MAX];
    claim_name(v, jx_str(tm, "name"), claim);
    json_t *labels = json_deep_copy(jx_obj(tm, "labels"));
    labels = labels ? labels : json_object();
    json_t *meta = json_pack("{s:s,s:s,s:o}", "name", claim, "namespace", v->ns, "labels",
                             labels);
    json_t *spec = json_deep_copy(jx_obj(tmpl, "spec"));
    json_t *out = json_pack("{s:s,s:s,s:o,s:o}", "apiVersion", "v1", "kind",
                            "PersistentVolumeClaim", "metadata", meta, "spec",
                            spec ? spec : json_object());
    if (!out || jx_set_str(jx_obj(meta, "labels"), LBL_JOBSET_NAME, v->name) < 0 ||
        (jx_obj(tm, "annotations") &&
         jx_set_new(meta, "annotations", json_deep_copy(jx_obj(tm, "annotations"))) < 0) ||
        (owned && jx_set_new(meta, "ownerReferences",
                             json_pack("[o]", construct_owner_ref(v))) < 0)) {
        json_decref(out);
        return NULL;
    }
    return out;
}

json_t *construct_pvcs(const json_t *js, const struct js_view *v)
{
    const json_t *vcps = jx_arr(jx_obj(js, "spec"), "volumeClaimPolicies");
    json_t *out = json_array();
    for (size_t i = 0; out && i < json_array_size(vcps); i++) {
        const json_t *vcp = json_array_get(vcps, i);
        const char *when = jx_str(jx_obj(vcp, "retentionPolicy"), "whenDeleted");
        bool owned = !when || strcmp(when, "Retain") != 0;
        const json_t *ts = jx_arr(vcp, "templates");
        for (size_t k = 0; k < json_array_size(ts); k++) {
            json_t *p = pvc(v, json_array_get(ts, k), owned);
            if (!p || json_array_append_new(out, p) < 0) {
                json_decref(out);
                return NULL;
            }
        }
    }
    return out;
}
