/* The API server's rules for a pod template's volumes and volumeMounts (kubernetes
 * pkg/apis/core/validation/validation.go: validateVolumeSources, ValidateVolumeMounts,
 * validateKeyToPath, validateDownwardAPIVolumeFile, validateHostPathVolumeSource,
 * validatePersistentClaimVolumeSource, ValidateLocalNonReservedPath, validateLocalDescendingPath
 * and validatePathNoBacksteps), as far as a job's pods rely on them: one source per volume, a
 * mount names a volume of the pod (or a claim of spec.volumeClaimPolicies, which the JobSet
 * controller adds to the child Job's pods), mountPaths unique in a container, a subPath
 * relative and without ".."; the items[].path of configMap, secret, downwardAPI and projected
 * volumes relative, without "..", not starting with "..", unique among a projected volume's
 * sources (validateProjectionSources); a hostPath's path without ".."; a claimName (the API
 * server asks for one only: the claim's name rules are the claim's).  And what the kubelet
 * would fail the pod on when it writes the items (pkg/volume/util/atomic_writer.go): a path
 * too long, one that names no file, one that is a directory of another's. */
#include "api/jobset/jobset_validate_int.h"
#include "obj/tree/jx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The kubelet's atomic writer refuses what the API server lets through (kubernetes
 * pkg/volume/util/atomic_writer.go, validatePath): a path longer than 4096 characters, an
 * element longer than 255.  A path that names no file ("." or ending in "/" or "/.") is
 * jaxset's to refuse: the pod could not start. */
#define ITEM_PATH_MAX 4096
#define ITEM_NAME_MAX 255

static const char *item_path_why(const char *path)
{
    const char *last = strrchr(path, '/');
    last = last ? last + 1 : path;
    if (strlen(path) > ITEM_PATH_MAX)
        return "must be no more than 4096 characters";
    for (const char *c = path; *c; c += strcspn(c, "/"), c += *c == '/')
        if (strcspn(c, "/") > ITEM_NAME_MAX)
            return "must have no element longer than 255 characters (a file name)";
    if (!*last || !strcmp(last, "."))
        return "must be the path of a file: not \".\", not ending in \"/\" or \"/.\"";
    return NULL;
}

/* ValidateLocalNonReservedPath of an items[].path (or a required one), then what the kubelet
 * writes no file at.  Whether the path is one to compare with the volume's others. */
static bool check_item_path(struct jsv *c, const json_t *item, const char *ip)
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
    else if (item_path_why(path))
        ferr_add_str(c->chk.errs, FERR_INVALID, p, path, "%s", item_path_why(path));
    else
        return true;
    return false;
}

/* An items[] entry of a volume, kept to compare it with the volume's others. */
struct item {
    const char *path;
    const char *owner; /* projected: the source's name (downwardAPI: the path), else NULL */
    size_t index;      /* in the volume, sources after sources */
    char at[96];       /* where in the volume: "items[1]", "sources[0].secret.items[1]" */
};

struct items {
    struct item *v;
    size_t n, cap;
    const char *vp; /* the volume's source: "...volumes[0].configMap", "...volumes[0].projected" */
    bool projected;
};

/* The items of a configMap, secret or downwardAPI source (at vp + "." + at), each checked;
 * those to compare kept in l (at: "" for a volume's own source). */
static void check_items(struct jsv *c, const json_t *src, const char *name, const char *at,
                        struct items *l)
{
    size_t i;
    const json_t *it;
    char p[FPATH_MAX];
    json_array_foreach (jx_arr(src, "items"), i, it) {
        struct item e = {.path = jx_str(it, "path"), .index = l->n};
        e.owner = !l->projected ? NULL : name ? name : e.path;
        snprintf(e.at, sizeof(e.at), "%s%sitems[%zu]", at, *at ? "." : "", i);
        fpath_fmt(p, "%s.%s", l->vp, e.at);
        if (!check_item_path(c, it, p))
            continue;
        if (l->n == l->cap) {
            size_t cap = l->cap ? 2 * l->cap : 8;
            struct item *v = realloc(l->v, cap * sizeof(*v));
            if (!v) {
                c->chk.rc = -ENOMEM;
                return;
            }
            l->v = v;
            l->cap = cap;
        }
        l->v[l->n++] = e;
    }
}

/* The next element of *p that is neither "" nor "." (as filepath.Clean reads a path, ".."
 * being refused before), its length in *n; NULL after the last. */
static const char *next_elem(const char **p, size_t *n)
{
    while (**p) {
        const char *e = *p;
        *n = strcspn(e, "/");
        *p = e + *n + (e[*n] == '/');
        if (*n && !(*n == 1 && *e == '.'))
            return e;
    }
    return NULL;
}

enum rel { REL_SAME, REL_ABOVE, REL_APART };

/* Paths in the order of their elements (a directory right before what it holds), and how
 * the first relates to the second: the same file, a directory of it (REL_ABOVE), neither. */
static int path_cmp(const char *a, const char *b, enum rel *rel)
{
    const char *ea, *eb;
    size_t na = 0, nb = 0;
    while ((ea = next_elem(&a, &na)), (eb = next_elem(&b, &nb)), ea && eb) {
        int d = memcmp(ea, eb, na < nb ? na : nb);
        if (d || na != nb) {
            *rel = REL_APART;
            return d ? d : na < nb ? -1 : 1;
        }
    }
    *rel = !ea && !eb ? REL_SAME : !ea ? REL_ABOVE : REL_APART;
    return !ea && !eb ? 0 : !ea ? -1 : 1;
}

static int item_cmp(const void *x, const void *y)
{
    const struct item *a = x, *b = y;
    enum rel rel;
    int d = path_cmp(a->path, b->path, &rel);
    d = d ? d : strcmp(a->path, b->path);
    return d ? d : a->index < b->index ? -1 : a->index > b->index;
}

/* The later of a file `f` and a path `d` below it (which needs f to be a directory) is
 * refused, naming the other. */
static void file_and_dir(struct jsv *c, const struct items *l, const struct item *f,
                         const struct item *d)
{
    char p[FPATH_MAX];
    if (d->index > f->index)
        ferr_add_str(c->chk.errs, FERR_INVALID, fpath_fmt(p, "%s.%s.path", l->vp, d->at),
                     d->path, "%s.path \"%s\" is a file: it cannot also be this path's "
                     "directory", f->at, f->path);
    else
        ferr_add_str(c->chk.errs, FERR_INVALID, fpath_fmt(p, "%s.%s.path", l->vp, f->at),
                     f->path, "%s.path \"%s\" needs it to be a directory: it cannot also be a "
                     "file", d->at, d->path);
}

/* Every items[].path of a volume is a file of it: none may be a directory of another (the
 * kubelet's atomic writer would fail the pod: "not a directory").  The paths of a projected
 * volume's sources are also unique (validateProjectionSources: "conflicting duplicate
 * paths").  Sorted, a directory comes right before the paths below it. */
static void check_item_paths(struct jsv *c, struct items *l)
{
    enum rel rel;
    if (l->n > 1)
        qsort(l->v, l->n, sizeof(*l->v), item_cmp);
    for (size_t i = 0; i + 1 < l->n; i++) {
        const struct item *a = &l->v[i], *b = &l->v[i + 1];
        if (l->projected && !strcmp(a->path, b->path))
            ferr_add_str(c->chk.errs, FERR_INVALID, l->vp, b->owner,
                         "conflicting duplicate paths");
        size_t k = i + 1;
        while (k < l->n && (path_cmp(a->path, l->v[k].path, &rel), rel == REL_SAME))
            k++; /* the same file again: the last one written is kept, as the kubelet does */
        if (k < l->n && (path_cmp(a->path, l->v[k].path, &rel), rel == REL_ABOVE))
            file_and_dir(c, l, a, &l->v[k]);
    }
}

static void check_projected(struct jsv *c, const json_t *pr, struct items *l)
{
    static const char *const kinds[] = {"configMap", "secret", "downwardAPI"};
    size_t i;
    const json_t *s;
    char at[64];
    json_array_foreach (jx_arr(pr, "sources"), i, s)
        for (size_t k = 0; k < 3; k++)
            if (jx_obj(s, kinds[k])) {
                snprintf(at, sizeof(at), "sources[%zu].%s", i, kinds[k]);
                check_items(c, jx_obj(s, kinds[k]), k < 2 ? jx_str(jx_obj(s, kinds[k]), "name")
                                                          : NULL, at, l);
            }
}

/* The items of the volume's source `key` (configMap, secret, downwardAPI, projected). */
static void check_volume_items(struct jsv *c, const json_t *vol, const char *key, const char *vp)
{
    char p[FPATH_MAX];
    struct items l = {.vp = fpath_field(p, vp, key), .projected = !strcmp(key, "projected")};
    if (l.projected)
        check_projected(c, jx_obj(vol, key), &l);
    else
        check_items(c, jx_obj(vol, key), NULL, "", &l);
    check_item_paths(c, &l);
    free(l.v);
}

/* The paths of a volume's source. */
static void check_paths(struct jsv *c, const json_t *vol, const char *vp)
{
    static const char *const with_items[] = {"configMap", "secret", "downwardAPI", "projected"};
    const json_t *hp = jx_obj(vol, "hostPath"), *pvc = jx_obj(vol, "persistentVolumeClaim");
    char p[FPATH_MAX];
    for (size_t k = 0; k < 4; k++)
        if (jx_obj(vol, with_items[k]))
            check_volume_items(c, vol, with_items[k], vp);
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
