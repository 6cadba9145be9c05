/* The API server's rules for a pod template's volumes and volumeMounts (kubernetes
 * pkg/apis/core/validation/validation.go: validateVolumeSources, ValidateVolumeMounts,
 * validateKeyToPath, validateDownwardAPIVolumeFile, validateHostPathVolumeSource,
 * validatePersistentClaimVolumeSource, ValidateLocalNonReservedPath, validateLocalDescendingPath
 * and validatePathNoBacksteps), as far as a job's pods rely on them: one source per volume, a
 * mount names a volume of the pod (or a claim of spec.volumeClaimPolicies, which the JobSet
 * controller adds to the child Job's pods), mountPaths unique in a container, a subPath
 * relative and without ".."; the items[].path of configMap, secret, downwardAPI and projected
 * volumes relative, without "..", not starting with ".."; a hostPath's path without "..";
 * a claimName (the API server asks for one only: the claim's name rules are the claim's). */
#include "api/jobset/jobset_validate_int.h"
#include "obj/tree/jx.h"

#include <stdio.h>
#include <string.h>

#include "obj/tree/ferr.h"

static bool has_dotdot(const char *p)
{
    for (const char *c = p; *c; c += strcspn(c, "/"), c += *c == '/')
        if (strcspn(c, "/") == 2 && !strncmp(c, "..", 2))
            return true;
    return false;
}

/* Whether `name` is a volume of the pod or a template of spec.volumeClaimPolicies. */
static bool volume_known(const struct jsv *c, const json_t *ps, const char *name)
{
    size_t i, k;
    const json_t *v, *t;
    json_array_foreach (jx_arr(ps, "volumes"), i, v)
        if (jx_str(v, "name") && !strcmp(jx_str(v, "name"), name))
            return true;
    json_array_foreach (jx_arr(c->spec, "volumeClaimPolicies"), i, v)
        json_array_foreach (jx_arr(v, "templates"), k, t) {
            const char *n = jx_str(jx_obj(t, "metadata"), "name");
            if (n && !strcmp(n, name))
                return true;
        }
    return false;
}

static void check_mount(struct jsv *c, const json_t *ps, const json_t *mounts, size_t k,
                        const char *mp)
{
    const json_t *vm = json_array_get(mounts, k);
    const char *name = jx_str(vm, "name"), *path = jx_str(vm, "mountPath");
    const char *sub = jx_str(vm, "subPath");
    char p[FPATH_MAX];
    if (name && *name && !volume_known(c, ps, name))
        ferr_add_str(c->chk.errs, FERR_NOT_FOUND, fpath_field(p, mp, "name"), name, NULL);
    for (size_t i = 0; path && *path && i < k; i++) {
        const char *other = jx_str(json_array_get(mounts, i), "mountPath");
        if (other && !strcmp(other, path)) {
            ferr_add_str(c->chk.errs, FERR_INVALID, fpath_field(p, mp, "mountPath"), path,
                         "must be unique");
            break;
        }
    }
    if (sub && sub[0] == '/')
        ferr_add_str(c->chk.errs, FERR_INVALID, fpath_field(p, mp, "subPath"), sub,
                     "must be a relative path");
    else if (sub && has_dotdot(sub))
        ferr_add_str(c->chk.errs, FERR_INVALID, fpath_field(p, mp, "subPath"), sub,
                     "must not contain '..'");
}

/* ValidateLocalNonReservedPath of an items[].path (or a required one). */
static void check_item_path(struct jsv *c, const json_t *item, const char *ip)
{
    const char *path = jx_str(item, "path");
    char p[FPATH_MAX];
    fpath_field(p, ip, "path");
    if (!path || !*path)
        ferr_add(c->chk.errs, FERR_REQUIRED, p, NULL, NULL);
    else if (path[0] == '/')
        ferr_add_str(c->chk.errs, FERR_INVALID, p, path, "must be a relative path");
    else if (has_dotdot(path))
        ferr_add_str(c->chk.errs, FERR_INVALID, p, path, "must not contain '..'");
    else if (!strncmp(path, "..", 2))
        ferr_add_str(c->chk.errs, FERR_INVALID, p, path, "must not start with '..'");
}

/* The items of a configMap, secret or downwardAPI source at sp. */
static void check_items(struct jsv *c, const json_t *src, const char *sp)
{
    size_t i;
    const json_t *it;
    char p[FPATH_MAX];
    json_array_foreach (jx_arr(src, "items"), i, it) {
        fpath_fmt(p, "%s.items[%zu]", sp, i);
        check_item_path(c, it, p);
    }
}

static void check_projected(struct jsv *c, const json_t *pr, const char *pp)
{
    static const char *const kinds[] = {"configMap", "secret", "downwardAPI"};
    size_t i;
    const json_t *s;
    char p[FPATH_MAX];
    json_array_foreach (jx_arr(pr, "sources"), i, s)
        for (size_t k = 0; k < 3; k++)
            if (jx_obj(s, kinds[k])) {
                fpath_fmt(p, "%s.sources[%zu].%s", pp, i, kinds[k]);
                check_items(c, jx_obj(s, kinds[k]), p);
            }
}

/* The paths of a volume's source. */
static void check_paths(struct jsv *c, const json_t *vol, const char *vp)
{
    static const char *const with_items[] = {"configMap", "secret", "downwardAPI"};
    const json_t *hp = jx_obj(vol, "hostPath"), *pvc = jx_obj(vol, "persistentVolumeClaim");
    char p[FPATH_MAX];
    for (size_t k = 0; k < 3; k++)
        if (jx_obj(vol, with_items[k]))
            check_items(c, jx_obj(vol, with_items[k]), fpath_field(p, vp, with_items[k]));
    if (jx_obj(vol, "projected"))
        check_projected(c, jx_obj(vol, "projected"), fpath_field(p, vp, "projected"));
    const char *path = jx_str(hp, "path"), *claim = jx_str(pvc, "claimName");
    fpath_fmt(p, "%s.hostPath.path", vp);
    if (hp && (!path || !*path))
        ferr_add(c->chk.errs, FERR_REQUIRED, p, NULL, NULL);
    else if (hp && has_dotdot(path))
        ferr_add_str(c->chk.errs, FERR_INVALID, p, path, "must not contain '..'");
    fpath_fmt(p, "%s.persistentVolumeClaim.claimName", vp);
    if (pvc && (!claim || !*claim))
        ferr_add(c->chk.errs, FERR_REQUIRED, p, NULL, NULL);
}

/* A volume has at most one source (none: the API server defaults it to emptyDir). */
static void check_sources(struct jsv *c, const json_t *vol, const char *vp)
{
    const char *k, *first = NULL;
    json_t *v;
    char p[FPATH_MAX];
    json_object_foreach ((json_t *)vol, k, v) {
        if (!strcmp(k, "name") || json_is_null(v))
            continue;
        if (first) {
            ferr_add(c->chk.errs, FERR_FORBIDDEN, fpath_field(p, vp, k), NULL,
                     "may not specify more than 1 volume type");
            return;
        }
        first = k;
    }
}

void js__volumes(struct jsv *c, const json_t *ps, const char *psp)
{
    static const char *const lists[] = {"initContainers", "containers"};
    char p[FPATH_MAX];
    size_t i, k;
    const json_t *v;
    json_array_foreach (jx_arr(ps, "volumes"), i, v) {
        fpath_index(p, psp, "volumes", i);
        check_sources(c, v, p);
        check_paths(c, v, p);
    }
    for (size_t l = 0; l < 2; l++)
        json_array_foreach (jx_arr(ps, lists[l]), i, v) {
            const json_t *mounts = jx_arr(v, "volumeMounts");
            for (k = 0; k < json_array_size(mounts); k++) {
                fpath_fmt(p, "%s.%s[%zu].volumeMounts[%zu]", psp, lists[l], i, k);
                check_mount(c, ps, mounts, k, p);
            }
        }
}
