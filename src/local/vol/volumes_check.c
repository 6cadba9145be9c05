/* What one machine cannot give a manifest's volumes, found before anything starts (see
 * volumes.h, vol_check).  The API server's own rules (a mount naming no volume, mountPaths
 * that repeat) are js_validate's. */
#include "local/vol/volumes_int.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj/tree/dns.h"
#include "obj/tree/ferr.h"
#include "obj/tree/jx.h"

static const char *const ctr_lists[] = {"initContainers", "containers"};

static bool has_key(const json_t *o, bool secret, const char *key)
{
    const char *maps[2] = {"data", secret ? "stringData" : "binaryData"};
    return key && (json_object_get(jx_obj(o, maps[0]), key) ||
                   json_object_get(jx_obj(o, maps[1]), key));
}

static bool named(const json_t *list, const char *name)
{
    size_t i;
    const json_t *c;
    json_array_foreach (list, i, c)
        if (jx_str(c, "name") && !strcmp(jx_str(c, "name"), name))
            return true;
    return false;
}

static bool bad_mode(const json_t *o, const char *field)
{
    const json_t *v = json_object_get(o, field);
    return v && (!json_is_integer(v) || json_integer_value(v) < 0 ||
                 json_integer_value(v) > 0777);
}

/* A configMap or secret source: the object in the files (its keys too) unless optional. */
static int check_object(const struct manifest *m, const json_t *s, bool secret,
                        const char *name_key, const char *p, struct err *err)
{
    const char *name = jx_str(s, name_key), *kind = secret ? "Secret" : "ConfigMap";
    bool optional = jx_bool_or(s, "optional", false);
    const json_t *o = name ? podenv_object(m->objects, kind, m->view.ns, name) : NULL;
    if (bad_mode(s, "defaultMode"))
        return err_set(err, -EINVAL, "%s.defaultMode: Invalid value: must be a number between "
                                     "0 and 0777 (octal), both inclusive", p);
    if (!o && !optional)
        return err_set(err, -ENOENT, "%s.%s: Not found: \"%s\": jaxset run reads %ss from the "
                                     "manifest files, and no file has this one (optional: true "
                                     "runs without it)", p, name_key, name ? name : "", kind);
    size_t i;
    const json_t *it;
    json_array_foreach (jx_arr(s, "items"), i, it) {
        const char *key = jx_str(it, "key");
        if (bad_mode(it, "mode"))
            return err_set(err, -EINVAL, "%s.items[%zu].mode: Invalid value: must be a number "
                                         "between 0 and 0777 (octal), both inclusive", p, i);
        if (o && !optional && !has_key(o, secret, key))
            return err_set(err, -ENOENT, "%s.items[%zu].key: Not found: \"%s\": %s \"%s\" has "
                                         "no such key", p, i, key ? key : "", kind, name);
    }
    return 0;
}

/* Whether resourceFieldRef rf's value can be written (or, out of memory, might be). */
static bool resource_given(const json_t *pod_spec, const json_t *rf)
{
    errno = 0;
    char *v = vol__resource_value(pod_spec, rf);
    free(v);
    return v != NULL || errno == ENOMEM;
}

static int check_downward(const json_t *pod_spec, const json_t *items, const char *p,
                          struct err *err)
{
    size_t i;
    const json_t *it;
    json_array_foreach (items, i, it) {
        const char *fp = jx_str(jx_obj(it, "fieldRef"), "fieldPath");
        const json_t *rf = jx_obj(it, "resourceFieldRef");
        const char *res = jx_str(rf, "resource"), *cn = jx_str(rf, "containerName");
        bool cn_ok = false;
        for (size_t l = 0; cn && l < 2; l++)
            cn_ok |= named(jx_arr(pod_spec, ctr_lists[l]), cn);
        if (fp && !vol__field_ok(fp))
            return err_set(err, -EINVAL, "%s.items[%zu].fieldRef.fieldPath: Unsupported value: "
                                         "\"%s\": jaxset run gives metadata.name, namespace, "
                                         "uid, labels and annotations", p, i, fp);
        if (rf && !vol__resource_ok(res))
            return err_set(err, -EINVAL, "%s.items[%zu].resourceFieldRef.resource: Unsupported "
                                         "value: \"%s\": supported values: \"limits.cpu\", "
                                         "\"limits.memory\", \"requests.cpu\", "
                                         "\"requests.memory\"", p, i, res ? res : "");
        if (rf && !cn_ok)
            return err_set(err, -EINVAL, "%s.items[%zu].resourceFieldRef.containerName: Not "
                                         "found: \"%s\"", p, i, cn ? cn : "");
        if (rf && !resource_given(pod_spec, rf))
            return err_set(err, -EINVAL, "%s.items[%zu].resourceFieldRef: Invalid value: "
                                         "\"%s\": in units of its divisor, more than a 64-bit "
                                         "count holds (jaxset run writes the exact value)", p, i,
                           res);
        if (!fp && !rf)
            return err_set(err, -EINVAL, "%s.items[%zu]: Required value: fieldRef or "
                                         "resourceFieldRef", p, i);
    }
    return 0;
}

static const char *const source_kinds[] = {"configMap", "secret", "downwardAPI"};

/* The files a projected volume's configMap and secret sources without items give: their
 * objects' keys, each with the index of its source.  A new object, NULL on OOM. */
static json_t *key_files(const struct manifest *m, const json_t *pr)
{
    static const char *const maps[2][2] = {{"data", "binaryData"}, {"data", "stringData"}};
    json_t *files = json_object();
    bool ok = files != NULL;
    size_t i;
    const json_t *s;
    json_t *v;
    const char *key;
    json_array_foreach (jx_arr(pr, "sources"), i, s) {
        bool secret = !jx_obj(s, "configMap");
        const json_t *src = jx_obj(s, secret ? "secret" : "configMap");
        const char *name = jx_arr(src, "items") ? NULL : jx_str(src, "name");
        const json_t *o = name ? podenv_object(m->objects, secret ? "Secret" : "ConfigMap",
                                               m->view.ns, name) : NULL;
        for (size_t k = 0; ok && o && k < 2; k++)
            json_object_foreach ((json_t *)jx_obj(o, maps[secret][k]), key, v)
                ok = ok && json_object_set_new(files, key, json_integer((json_int_t)i)) == 0;
    }
    if (!ok)
        json_decref(files);
    return ok ? files : NULL;
}

static int key_dir_error(const json_t *pr, const json_t *file, const char *path,
                         const char *key, size_t n, const char *ip, struct err *err)
{
    size_t at = (size_t)json_integer_value(file);
    const json_t *s = json_array_get(jx_arr(pr, "sources"), at);
    const char *kind = jx_obj(s, "configMap") ? "configMap" : "secret";
    return err_set(err, -EINVAL, "%s.path: Invalid value: \"%s\": sources[%zu].%s \"%s\" has "
                                 "no items: its key \"%.*s\" is a file: it cannot also be this "
                                 "path's directory",
                   ip, path, at, kind, jx_str(jx_obj(s, kind), "name"), (int)n, key);
}

/* A key of a source without items is a file at the top of the volume: no other source's item
 * may have its path below it (the kubelet's atomic writer, kubernetes
 * pkg/volume/util/atomic_writer.go, would fail the pod: "not a directory").  The API server
 * refuses what items[].path alone makes impossible (js_validate); the keys are in the
 * objects of the manifest files. */
static int check_key_dirs(const struct manifest *m, const json_t *pr, const char *p,
                          struct err *err)
{
    json_t *files = key_files(m, pr);
    int rc = files ? 0 : err_oom(err);
    size_t i, k;
    const json_t *s, *it;
    char ip[FPATH_MAX];
    json_array_foreach (jx_arr(pr, "sources"), i, s)
        for (size_t kind = 0; kind < 3; kind++)
            json_array_foreach (jx_arr(jx_obj(s, source_kinds[kind]), "items"), k, it) {
                const char *path = jx_str(it, "path"), *c = path ? path : "";
                while (*c == '/' || (c[0] == '.' && c[1] == '/'))
                    c += *c == '/' ? 1 : 2; /* "./a", ".//a": a */
                size_t n = strcspn(c, "/");
                const json_t *file = c[n] && files ? json_object_getn(files, c, n) : NULL;
                fpath_fmt(ip, "%s.sources[%zu].%s.items[%zu]", p, i, source_kinds[kind], k);
                if (file && rc == 0)
                    rc = key_dir_error(pr, file, path, c, n, ip, err);
            }
    json_decref(files);
    return rc;
}

static int check_projected(const struct manifest *m, const json_t *pod_spec, const json_t *pr,
                           const char *p, struct err *err)
{
    size_t i;
    const json_t *s;
    char sp[FPATH_MAX];
    json_array_foreach (jx_arr(pr, "sources"), i, s) {
        int rc;
        fpath_fmt(sp, "%s.sources[%zu]", p, i);
        if (jx_obj(s, "configMap"))
            rc = check_object(m, jx_obj(s, "configMap"), false, "name", sp, err);
        else if (jx_obj(s, "secret"))
            rc = check_object(m, jx_obj(s, "secret"), true, "name", sp, err);
        else if (jx_obj(s, "downwardAPI"))
            rc = check_downward(pod_spec, jx_arr(jx_obj(s, "downwardAPI"), "items"), sp, err);
        else
            rc = err_set(err, -EINVAL, "%s: only configMap, secret and downwardAPI sources of "
                                       "a projected volume can be given by jaxset run", sp);
        if (rc < 0)
            return rc;
    }
    return check_key_dirs(m, pr, p, err);
}

static int check_empty_dir(const json_t *ed, const char *p, struct err *err)
{
    const char *medium = jx_str(ed, "medium");
    const json_t *limit = json_object_get(ed, "sizeLimit");
    long long size;
    if (medium && *medium && strcmp(medium, "Memory"))
        return err_set(err, -EINVAL, "%s.medium: Unsupported value: \"%s\": jaxset run makes "
                                     "\"\" (a directory) and \"Memory\" (a tmpfs)", p, medium);
    if (limit && vol__size_limit(limit, &size) < 0)
        return err_set(err, -EINVAL, "%s.sizeLimit: Invalid value: not a quantity", p);
    return 0;
}

/* Whether pod spec ps has a hostPath that makes directory `dir` (DirectoryOrCreate, or no
 * type: mkdir -p of its path makes each directory above it too). */
static bool dir_made_in(const json_t *ps, const char *dir)
{
    size_t i, n = strlen(dir);
    const json_t *v;
    json_array_foreach (jx_arr(ps, "volumes"), i, v) {
        const char *path = jx_str(jx_obj(v, "hostPath"), "path");
        const char *type = jx_str(jx_obj(v, "hostPath"), "type");
        if (path && (!type || !*type || !strcmp(type, "DirectoryOrCreate")) &&
            !strncmp(path, dir, n) && (!path[n] || path[n] == '/'))
            return true;
    }
    return false;
}

/* A FileOrCreate hostPath of replicated job rj's pod spec ps whose parent directory is missing
 * and made by no hostPath before it: those of the same pod (made first, volumes.c) and of the
 * replicated jobs before (their pods' volumes are made first). */
static int check_host_path(const struct manifest *m, size_t rj, const json_t *ps,
                           const json_t *hp, const char *p, struct err *err)
{
    const char *type = jx_str(hp, "type"), *path = jx_str(hp, "path");
    char parent[PATH_MAX];
    int rc = vol__host_path_check(hp, false, err);
    bool made = false;
    if (rc == 0 && type && !strcmp(type, "FileOrCreate") &&
        vol__host_missing_parent(path, parent)) {
        made = dir_made_in(ps, parent);
        for (size_t r = 0; !made && r < rj; r++)
            made = dir_made_in(jx_path(m->view.rj[r].tmpl, "spec.template.spec"), parent);
        rc = made ? 0 : vol__host_parent_error(path, parent, err);
    }
    if (rc < 0)
        err_prefix(err, p);
    return rc;
}

static int check_volume(const struct manifest *m, size_t rj, const json_t *pod_spec,
                        const json_t *vol, const char *vp, struct err *err)
{
    const char *key;
    enum vol__kind k = vol__kind(vol, &key);
    char p[FPATH_MAX];
    fpath_fmt(p, "%s.%s", vp, key);
    const json_t *src = jx_obj(vol, key);
    switch (k) {
    case VK_EMPTY_DIR:
        return check_empty_dir(src, p, err);
    case VK_CONFIG_MAP:
        return check_object(m, src, false, "name", p, err);
    case VK_SECRET:
        return check_object(m, src, true, "secretName", p, err);
    case VK_HOST_PATH:
        return check_host_path(m, rj, pod_spec, src, p, err);
    case VK_PVC:
        return vol__claim_name_check(jx_str(src, "claimName"), p, err);
    case VK_DOWNWARD_API:
        return check_downward(pod_spec, jx_arr(src, "items"), p, err);
    case VK_PROJECTED:
        return check_projected(m, pod_spec, src, p, err);
    default:
        return err_set(err, -EINVAL, "%s: volume \"%s\": %s volumes are not supported by jaxset "
                                     "run (it mounts emptyDir, configMap, secret, hostPath, "
                                     "persistentVolumeClaim, downwardAPI and projected volumes)",
                       vp, jx_str(vol, "name"), key);
    }
}

int vol__check_mount(const json_t *vm, const char *p, struct err *err)
{
    const char *mp = jx_str(vm, "mountPath");
    bool up = false, root = true, ours = false; /* root: "/", "//", "/." */
    for (const char *c = mp ? mp : ""; *c; c += strcspn(c, "/"), c += *c == '/') {
        size_t n = strcspn(c, "/");
        up |= n == 2 && !strncmp(c, "..", 2);
        ours |= root && n == strlen(&NSR_HOST[1]) && !strncmp(c, &NSR_HOST[1], n);
        root &= n == 0 || (n == 1 && *c == '.');
    }
    if (!mp || mp[0] != '/')
        return err_set(err, -EINVAL, "%s.mountPath: Invalid value: \"%s\": must be an absolute "
                                     "path: jaxset run mounts it in the pod's root",
                       p, mp ? mp : "");
    if (up || root)
        return err_set(err, -EINVAL, "%s.mountPath: Invalid value: \"%s\": %s", p, mp,
                       up ? "must not contain '..'" : "cannot be mounted over the root");
    if (ours)
        return err_set(err, -EINVAL, "%s.mountPath: Invalid value: \"%s\": " NSR_HOST " is "
                                     "jaxset run's own (the host's large shadowed directories "
                                     "are there)", p, mp);
    if (jx_str(vm, "subPathExpr"))
        return err_set(err, -EINVAL, "%s.subPathExpr: Forbidden: not supported by jaxset run "
                                     "(use subPath)", p);
    return 0;
}

static int check_pod(const struct manifest *m, size_t rj, const json_t *ps, const char *base,
                     struct err *err)
{
    char p[FPATH_MAX];
    size_t i, k;
    const json_t *v, *c;
    json_array_foreach (jx_arr(ps, "volumes"), i, v) {
        fpath_fmt(p, "%s.volumes[%zu]", base, i);
        int rc = check_volume(m, rj, ps, v, p, err);
        if (rc < 0)
            return rc;
    }
    for (size_t l = 0; l < 2; l++)
        json_array_foreach (jx_arr(ps, ctr_lists[l]), i, c)
            json_array_foreach (jx_arr(c, "volumeMounts"), k, v) {
                fpath_fmt(p, "%s.%s[%zu].volumeMounts[%zu]", base, ctr_lists[l], i, k);
                int rc = vol__check_mount(v, p, err);
                if (rc < 0)
                    return rc;
            }
    return 0;
}

int vol_check(const struct manifest *m, struct err *err)
{
    char base[FPATH_MAX];
    for (size_t i = 0; i < m->view.n_rj; i++) {
        fpath_fmt(base, "spec.replicatedJobs[%zu].template.spec.template.spec", i);
        int rc = check_pod(m, i, jx_path(m->view.rj[i].tmpl, "spec.template.spec"), base, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* The kind of the volume a mount names: a volume of the pod, or a claim of
 * spec.volumeClaimPolicies. */
static const char *mount_kind(const json_t *ps, const char *name)
{
    size_t i;
    const json_t *v;
    const char *key = "persistentVolumeClaim";
    json_array_foreach (jx_arr(ps, "volumes"), i, v)
        if (name && jx_str(v, "name") && !strcmp(jx_str(v, "name"), name))
            vol__kind(v, &key);
    return key;
}

void vol_each_mount(const struct manifest *m, size_t rj,
                    void (*fn)(void *ctx, const char *what), void *ctx)
{
    char what[FPATH_MAX + 512];
    for (size_t r = 0; r < m->view.n_rj; r++) {
        if (rj != SIZE_MAX && r != rj)
            continue;
        const json_t *ps = jx_path(m->view.rj[r].tmpl, "spec.template.spec"), *c, *vm;
        size_t i, k;
        for (size_t l = 0; l < 2; l++)
            json_array_foreach (jx_arr(ps, ctr_lists[l]), i, c)
                json_array_foreach (jx_arr(c, "volumeMounts"), k, vm) {
                    const char *name = jx_str(vm, "name");
                    snprintf(what, sizeof(what),
                             "spec.replicatedJobs[%zu].template.spec.template.spec.%s[%zu]."
                             "volumeMounts[%zu] (%s volume \"%s\" at %s)",
                             r, ctr_lists[l], i, k, mount_kind(ps, name), name ? name : "",
                             jx_str(vm, "mountPath") ? jx_str(vm, "mountPath") : "");
                    fn(ctx, what);
                }
    }
}

struct first {
    char *out;
    size_t n;
    bool found;
};

static void take_first(void *ctx, const char *what)
{
    struct first *f = ctx;
    if (!f->found)
        snprintf(f->out, f->n, "%s", what);
    f->found = true;
}

bool vol_first_mount(const struct manifest *m, size_t rj, char *out, size_t n)
{
    struct first f = {out, n, false};
    vol_each_mount(m, rj, take_first, &f);
    return f.found;
}
