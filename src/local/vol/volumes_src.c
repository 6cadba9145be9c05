/* Making a pod's volumes on this machine, one kind at a time (see volumes.h), as the kubelet's
 * volume plugins make them on a node (kubernetes pkg/volume/emptydir, hostpath, configmap,
 * secret, downwardapi, projected). */
#include "local/vol/volumes_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "local/store/rundir.h"
#include "obj/tree/dns.h"
#include "obj/base/fs.h"
#include "obj/tree/jx.h"
#include "obj/base/sbuf.h"

static const struct {
    const char *key;
    enum vol__kind kind;
} kinds[] = {
    {"emptyDir", VK_EMPTY_DIR},       {"configMap", VK_CONFIG_MAP},
    {"secret", VK_SECRET},            {"hostPath", VK_HOST_PATH},
    {"persistentVolumeClaim", VK_PVC}, {"downwardAPI", VK_DOWNWARD_API},
    {"projected", VK_PROJECTED},
};

enum vol__kind vol__kind(const json_t *vol, const char **key)
{
    const char *k;
    json_t *v;
    json_object_foreach ((json_t *)vol, k, v) {
        if (!strcmp(k, "name") || json_is_null(v))
            continue;
        *key = k;
        for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
            if (!strcmp(k, kinds[i].key))
                return kinds[i].kind;
        return VK_UNSUPPORTED;
    }
    *key = "emptyDir";
    return VK_EMPTY_DIR;
}

void vol__src_release(struct vol__src *s)
{
    free(s->host);
    s->host = NULL;
}

/* Removes what is at `name` in dfd: never follows a symbolic link, never leaves device `dev`
 * (a container may have left anything in its emptyDir). */
static void rm_at(int dfd, const char *name, dev_t dev, int depth)
{
    struct stat st;
    if (depth > 256 || fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_dev != dev)
        return;
    if (!S_ISDIR(st.st_mode)) {
        unlinkat(dfd, name, 0);
        return;
    }
    int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    fchmod(fd, 0700); /* a directory its container made unwritable */
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            rm_at(fd, e->d_name, dev, depth + 1);
    closedir(d);
    unlinkat(dfd, name, AT_REMOVEDIR);
}

void vol__rm_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0)
        rm_at(AT_FDCWD, path, st.st_dev, 0);
}

/* <run dir>/pod-volumes/<pod>/<volume> for s, made with `mode`. */
static int pod_dir(struct vol_pod *vp, struct vol__src *s, mode_t mode, struct err *err)
{
    char *parent = vp->dir_made ? NULL : store_pod_volumes(vp->vr->run_dir, NULL);
    int rc = vp->dir_made || (parent && (mkdir(parent, 0700) == 0 || errno == EEXIST)) ? 0
             : parent ? -errno : -ENOMEM;
    free(parent);
    if (rc == 0 && !vp->dir_made && mkdir(vp->dir, 0700) < 0)
        rc = -errno;
    if (rc < 0)
        return err_set(err, rc, "%s: %s", vp->dir, strerror(-rc));
    vp->dir_made = true;
    s->host = sb_fmt("%s/%s", vp->dir, s->name);
    if (!s->host)
        return err_oom(err);
    if (mkdir(s->host, mode) < 0 || chmod(s->host, mode) < 0)
        return err_set(err, -errno, "%s: %s", s->host, strerror(errno));
    return 0;
}

static int make_empty_dir(struct vol_pod *vp, const json_t *ed, struct vol__src *s,
                          struct err *err)
{
    const char *medium = jx_str(ed, "medium");
    const json_t *limit = json_object_get(ed, "sizeLimit");
    long long bytes = 0;
    s->memory = medium && !strcmp(medium, "Memory");
    if (limit && vol__size_limit(limit, &bytes) < 0)
        return err_set(err, -EINVAL, "sizeLimit: not a quantity");
    if (bytes)
        snprintf(s->tmpfs, sizeof(s->tmpfs), "mode=0777,size=%lld", bytes);
    else
        snprintf(s->tmpfs, sizeof(s->tmpfs), "mode=0777");
    return pod_dir(vp, s, 0777, err); /* as the kubelet makes an emptyDir */
}

static int host_type_ok(const char *type, mode_t m)
{
    if (!strcmp(type, "Directory") || !strcmp(type, "DirectoryOrCreate"))
        return S_ISDIR(m);
    if (!strcmp(type, "File") || !strcmp(type, "FileOrCreate"))
        return S_ISREG(m);
    if (!strcmp(type, "Socket"))
        return S_ISSOCK(m);
    if (!strcmp(type, "CharDevice"))
        return S_ISCHR(m);
    return !strcmp(type, "BlockDevice") ? S_ISBLK(m) : 1;
}

const char *vol__host_missing_parent(const char *path, char *out)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--; /* "/a/f/": the parent of f */
    while (n > 0 && path[n - 1] != '/')
        n--;
    while (n > 1 && path[n - 1] == '/')
        n--;
    struct stat st;
    if (n == 0 || n >= PATH_MAX)
        return NULL;
    snprintf(out, PATH_MAX, "%.*s", (int)n, path);
    return stat(out, &st) < 0 && errno == ENOENT ? out : NULL;
}

int vol__host_parent_error(const char *path, const char *parent, struct err *err)
{
    return err_set(err, -ENOENT, "%s (type FileOrCreate): the parent directory %s does not "
                                 "exist: FileOrCreate does not create the parent directory of "
                                 "the file (make it first, or mount a hostPath of type "
                                 "DirectoryOrCreate)", path, parent);
}

/* An empty file at path, as the kubelet's makeFile makes one (kubernetes
 * pkg/volume/hostpath/host_path.go); its missing parent said so. */
static int make_host_file(const char *path, struct err *err)
{
    char parent[PATH_MAX];
    int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    int rc = fd < 0 ? -errno : close(fd);
    if (rc == -ENOENT && vol__host_missing_parent(path, parent))
        return vol__host_parent_error(path, parent, err);
    return rc < 0 ? err_set(err, rc, "%s (type FileOrCreate): %s", path, strerror(-rc)) : 0;
}

int vol__host_path_check(const json_t *hp, bool create, struct err *err)
{
    const char *path = jx_str(hp, "path"), *type = jx_str(hp, "type");
    struct stat st;
    type = type ? type : "";
    if (!path || path[0] != '/')
        return err_set(err, -EINVAL, "path: must be an absolute path");
    if (stat(path, &st) == 0)
        return host_type_ok(type, st.st_mode)
                   ? 0
                   : err_set(err, -EINVAL, "%s is not of type %s on this machine", path, type);
    bool dir = !strcmp(type, "DirectoryOrCreate") || !*type; /* unset: made as runtimes do */
    bool file = !strcmp(type, "FileOrCreate");
    if (errno != ENOENT || (!dir && !file))
        return err_set(err, -errno, "%s (type %s): %s", path, type, strerror(errno));
    if (!create)
        return 0; /* made before the run starts */
    if (file)
        return make_host_file(path, err);
    int rc = fs_mkdir_p(path, 0755);
    return rc < 0 ? err_set(err, rc, "%s (type %s): %s", path, type, strerror(-rc)) : 0;
}

static int make_host_path(const json_t *hp, struct vol__src *s, struct err *err)
{
    int rc = vol__host_path_check(hp, true, err);
    if (rc < 0)
        return rc;
    s->host = strdup(jx_str(hp, "path"));
    return s->host ? 0 : err_oom(err);
}

static const json_t *find_volume(const json_t *pod_spec, const char *name)
{
    size_t i;
    const json_t *v;
    json_array_foreach (jx_arr(pod_spec, "volumes"), i, v)
        if (name && jx_str(v, "name") && !strcmp(jx_str(v, "name"), name))
            return v;
    return NULL;
}

/* Whether host path `p` is a directory, or will be made one (missing). */
static bool host_dir(const char *p)
{
    struct stat st;
    return !p || stat(p, &st) < 0 || S_ISDIR(st.st_mode);
}

bool vol__src_dir(const struct vol_run *vr, const json_t *pod_spec, const json_t *vm,
                  const char *ns)
{
    const char *key, *sub = jx_str(vm, "subPath");
    const json_t *vol = find_volume(pod_spec, jx_str(vm, "name"));
    enum vol__kind k = vol ? vol__kind(vol, &key) : VK_EMPTY_DIR;
    const json_t *src = vol ? jx_obj(vol, key) : NULL;
    bool sub_set = sub && *sub, dir;
    char *p = NULL;
    switch (k) {
    case VK_HOST_PATH:
        if (!sub_set && jx_str(src, "type") && strstr(jx_str(src, "type"), "File"))
            return false;
        p = sb_fmt("%s%s%s", jx_str(src, "path") ? jx_str(src, "path") : "",
                   sub_set ? "/" : "", sub_set ? sub : "");
        break;
    case VK_PVC: {
        char *claim = vol_claim_dir(vr, jx_str(src, "claimName") ? jx_str(src, "claimName") : "");
        p = claim && sub_set ? sb_fmt("%s/%s", claim, sub) : claim;
        if (p != claim)
            free(claim);
        break;
    }
    case VK_CONFIG_MAP:
    case VK_SECRET:
    case VK_DOWNWARD_API:
    case VK_PROJECTED:
        return !sub_set || !vol__files_has(vr, vol, k, ns, sub);
    default:
        return true;
    }
    dir = host_dir(p);
    free(p);
    return dir;
}

char *vol_claim_dir(const struct vol_run *vr, const char *claim)
{
    size_t cl = strlen(claim);
    for (size_t i = 0; i < vr->n_pvc; i++) {
        const char *a = vr->pvc[i];
        if (!strncmp(a, claim, cl) && a[cl] == '=') {
            char *real = realpath(a + cl + 1, NULL);
            return real ? real : strdup(a + cl + 1);
        }
    }
    return store_claim_dir(vr->run_dir, claim);
}

int vol_pvc_check(const char *arg, struct err *err)
{
    const char *eq = strchr(arg, '=');
    struct stat st;
    if (!eq || eq == arg || !eq[1])
        return err_set(err, -EINVAL, "--pvc %s: expected CLAIM=PATH", arg);
    if (stat(eq + 1, &st) < 0 || !S_ISDIR(st.st_mode))
        return err_set(err, -EINVAL, "--pvc %s: %s is not a directory", arg, eq + 1);
    return 0;
}

int vol__claim_name_check(const char *claim, const char *p, struct err *err)
{
    struct dns_msgs msgs;
    if (claim && !dns_1123_subdomain(claim, &msgs))
        return 0;
    return err_set(err, -EINVAL, "%s%sclaimName: Invalid value: \"%s\": %s (a claim is a "
                                 "PersistentVolumeClaim, named so; jaxset run makes it "
                                 "<run dir>/volumes/<claimName>)",
                   p ? p : "", p ? "." : "", claim ? claim : "",
                   claim ? msgs.v[0] : "a claim's name is required");
}

static int make_claim(struct vol_pod *vp, const json_t *pvc, struct vol__src *s,
                      struct err *err)
{
    const char *claim = jx_str(pvc, "claimName");
    int rc = vol__claim_name_check(claim, NULL, err);
    if (rc < 0)
        return rc;
    s->ro = jx_bool_or(pvc, "readOnly", false);
    s->host = vol_claim_dir(vp->vr, claim);
    if (!s->host)
        return err_oom(err);
    rc = fs_mkdir_p(s->host, 0700); /* an existing one (--pvc, an earlier pod) is kept */
    return rc < 0 ? err_set(err, rc, "%s: %s", s->host, strerror(-rc)) : 0;
}

int vol__src_make(struct vol_pod *vp, const json_t *vol, const json_t *pod_spec,
                  const struct podenv_pod *pod, struct vol__src *s, struct err *err)
{
    const char *key;
    enum vol__kind k = vol__kind(vol, &key);
    int rc;
    s->name = jx_str(vol, "name");
    s->kind = key;
    switch (k) {
    case VK_EMPTY_DIR:
        return make_empty_dir(vp, jx_obj(vol, "emptyDir"), s, err);
    case VK_HOST_PATH:
        return make_host_path(jx_obj(vol, "hostPath"), s, err);
    case VK_PVC:
        return make_claim(vp, jx_obj(vol, key), s, err);
    case VK_UNSUPPORTED:
        return err_set(err, -EINVAL, "%s volumes are not supported by jaxset run", key);
    default:
        s->ro = true; /* as the kubelet mounts API data */
        if ((rc = pod_dir(vp, s, 0755, err)) < 0)
            return rc;
        return vol__files_write(vp->vr, vol, k, pod_spec, pod, s->host, err);
    }
}
