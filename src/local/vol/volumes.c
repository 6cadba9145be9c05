/* Pod templates' namespaces and pods' volumes (see volumes.h). */
#include "local/vol/volumes_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "local/store/rundir.h"
#include "obj/tree/ferr.h"
#include "obj/tree/jx.h"
#include "obj/base/sbuf.h"

bool vol_spec_mounts(const json_t *pod_spec)
{
    static const char *const lists[] = {"initContainers", "containers"};
    for (size_t l = 0; l < 2; l++) {
        size_t i;
        const json_t *c;
        json_array_foreach (jx_arr(pod_spec, lists[l]), i, c)
            if (json_array_size(jx_arr(c, "volumeMounts")))
                return true;
    }
    return false;
}

/* hostPaths of type DirectoryOrCreate and FileOrCreate (and unset: a directory, as container
 * runtimes make a missing bind source), the directories first: a FileOrCreate's parent may be
 * one of them. */
int vol_host_paths(const json_t *pod_spec, const char *psp, struct err *err)
{
    size_t i;
    const json_t *v;
    for (int files = 0; files < 2; files++)
        json_array_foreach (jx_arr(pod_spec, "volumes"), i, v) {
            const json_t *hp = jx_obj(v, "hostPath");
            const char *type = jx_str(hp, "type");
            bool file = type && !strcmp(type, "FileOrCreate");
            int rc = hp && file == files ? vol__host_path_check(hp, true, err) : 0;
            char what[FPATH_MAX + 320];
            if (rc == 0)
                continue;
            if (psp)
                snprintf(what, sizeof(what), "%s.volumes[%zu].hostPath", psp, i);
            else
                snprintf(what, sizeof(what), "volume \"%s\" (hostPath)", jx_str(v, "name"));
            err_prefix(err, what);
            return rc;
        }
    return 0;
}

/* A container's volumeMounts are each held open at once while it starts (nsr__enter): more
 * than the hard limit of open files lets it hold is refused before the run starts. */
static int check_fd_limit(const json_t *pod_spec, struct err *err)
{
    static const char *const lists[] = {"initContainers", "containers"};
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r) < 0 || r.rlim_max == RLIM_INFINITY)
        return 0;
    for (size_t l = 0; l < 2; l++) {
        size_t i, n;
        const json_t *c;
        json_array_foreach (jx_arr(pod_spec, lists[l]), i, c)
            if ((n = json_array_size(jx_arr(c, "volumeMounts"))) + NSR_FD_RESERVE > r.rlim_max)
                return err_set(err, -EMFILE, "container %s: %zu volumeMounts: its process holds "
                                             "each one open while it starts, and the limit of "
                                             "open files here is %llu (ulimit -Hn; %zu needed)",
                               jx_str(c, "name") ? jx_str(c, "name") : "", n,
                               (unsigned long long)r.rlim_max, n + NSR_FD_RESERVE);
    }
    return 0;
}

void vol_tmpl_free(struct vol_tmpl *t)
{
    if (!t)
        return;
    nsr_close(&t->ns);
    vol__ctrs_free(t->ctr, t->n_ctr);
    json_decref(t->spec);
    free(t);
}

int vol_tmpl_new(const struct vol_run *vr, json_t *pod_spec, const char *ns,
                 struct vol_tmpl **out, struct err *err)
{
    struct nsr_plan plan = {0};
    struct vol_tmpl *t = NULL;
    int rc = 0;
    *out = NULL;
    if (!vol_spec_mounts(pod_spec))
        return 0;
    if (!(t = calloc(1, sizeof(*t))))
        return err_oom(err);
    t->ns = NSR_NS_NONE;
    t->spec = json_incref(pod_spec);
    if ((rc = check_fd_limit(pod_spec, err)) < 0 ||
        (rc = vol_host_paths(pod_spec, NULL, err)) < 0 ||
        (rc = vol__ctrs_new(pod_spec, vr, ns, &t->ctr, &t->n_ctr, err)) < 0 ||
        (rc = vol__plan(t, &plan, err)) < 0)
        goto out;
    rc = nsr_build(&plan, &t->ns, err);
out:
    nsr_plan_release(&plan);
    if (rc < 0)
        vol_tmpl_free(t);
    else
        *out = t;
    return rc;
}

int vol_tmpl_probe(const struct vol_tmpl *t, struct err *err)
{
    return nsr_probe_enter(&t->ns, err);
}

static const struct vol__src *find_src(const struct vol_pod *vp, const char *name)
{
    for (size_t i = 0; name && i < vp->n_src; i++)
        if (vp->src[i].name && !strcmp(vp->src[i].name, name))
            return &vp->src[i];
    return NULL;
}

/* The real path of descriptor fd, malloc'd; NULL with errno set. */
static char *fd_path(int fd)
{
    char proc[64];
    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
    return realpath(proc, NULL);
}

static bool lies_in(const char *real, const char *base)
{
    size_t bl = strlen(base);
    return !strcmp(base, "/") ||
           (!strncmp(real, base, bl) && (real[bl] == '\0' || real[bl] == '/'));
}

/* The next component of `name` under directory dfd, made when missing (a directory, or an
 * empty file when `file`), a symbolic link followed: an O_PATH descriptor, or a negative
 * errno. */
static int step_in(int dfd, const char *name, bool file)
{
    int fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
        int made = file ? openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
                                                O_CLOEXEC, 0644)
                        : mkdirat(dfd, name, 0755);
        if (made < 0 && errno != EEXIST)
            return -errno;
        if (file)
            close(made);
        fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    }
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISLNK(st.st_mode)) {
        close(fd); /* where it leads is checked by the caller before anything is made there */
        fd = openat(dfd, name, O_PATH | O_CLOEXEC);
    }
    return fd < 0 ? -errno : fd;
}

/* `rel` (a subPath, or a mount point's path in its volume) under the volume `base`, resolved
 * one component at a time: a missing one made (a directory, the last one a file when `file`)
 * only in a directory already known to lie in the volume, a symbolic link followed only when
 * where it leads still lies in it, so nothing is ever made outside (as the kubelet makes
 * subPaths, kubernetes pkg/volume/util/subpath/subpath_linux.go, doSafeMakeDir).  *real: the
 * resolved path (malloc'd).  0, -EXDEV when it leads out of the volume, or a negative errno. */
static int resolve_in(const char *base, const char *rel, bool file, char **real)
{
    char *root = realpath(base, NULL), *copy = strdup(rel), *save = NULL;
    int rc = root && copy ? 0 : -errno, fd = -1;
    if (rc == 0 && (fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
        rc = -errno;
    for (char *c = rc == 0 ? strtok_r(copy, "/", &save) : NULL; c && rc == 0;) {
        char *next = strtok_r(NULL, "/", &save);
        if (strcmp(c, ".")) {
            int nfd = step_in(fd, c, file && !next);
            char *at = nfd >= 0 ? fd_path(nfd) : NULL;
            rc = nfd < 0 ? nfd : !at ? -errno : lies_in(at, root) ? 0 : -EXDEV;
            free(at);
            close(fd);
            fd = nfd;
        }
        c = next;
    }
    if (rc == 0 && !(*real = fd_path(fd)))
        rc = -errno;
    if (fd >= 0)
        close(fd);
    free(root);
    free(copy);
    return rc;
}

/* The mount's source: the volume, or its subPath, made when missing (as the kubelet makes
 * subPath directories) and never a way out of the volume. */
static int mount_src(struct vol__mnt *m, struct err *err)
{
    const struct vol__src *v = m->vol;
    const char *sub = jx_str(m->vm, "subPath");
    struct stat st;
    int rc = 0;
    if (v->memory || !sub || !*sub) { /* a tmpfs source's subPath is made in the pod's tmpfs */
        m->src = sub && *sub ? sb_fmt("%s/%s", v->host, sub) : strdup(v->host);
        if (!m->src)
            return err_oom(err);
    } else if ((rc = resolve_in(v->host, sub, false, &m->src)) == -EXDEV) {
        return err_set(err, rc, "subPath %s leads out of the volume", sub);
    } else if (rc < 0) {
        return err_set(err, rc, "subPath %s of %s: %s", sub, v->host, strerror(-rc));
    }
    if (v->memory) {
        m->dir = true;
        return 0;
    }
    if (stat(m->src, &st) < 0)
        return err_set(err, -errno, "%s: %s", m->src, strerror(errno));
    m->dir = S_ISDIR(st.st_mode);
    return 0;
}

/* The mount point of a mount inside another, made in that one's source on the host (as a
 * container runtime makes it in the volume, never outside it); in a tmpfs source
 * vol__plan_memory makes it. */
static int inner_point(const struct vol__ctr *c, const struct vol__mnt *m, struct err *err)
{
    const struct vol__mnt *outer = &c->m[m->inside];
    if (outer->vol->memory)
        return 0;
    char *real = NULL;
    int rc = resolve_in(outer->src, m->dst + strlen(outer->dst) + 1, !m->dir, &real);
    free(real);
    if (rc == -EXDEV)
        return err_set(err, rc, "mount point %s leads out of the volume %s", m->dst,
                       outer->src);
    return rc < 0 ? err_set(err, rc, "mount point %s in %s: %s", m->dst, outer->src,
                            strerror(-rc))
                  : 0;
}

/* Whether the template made dst as a directory (true when it did not make it). */
static bool made_dir(const struct vol_tmpl *t, const char *ctr, const char *dst)
{
    for (size_t k = 0; k < t->n_ctr; k++)
        for (size_t i = 0; ctr && !strcmp(t->ctr[k].name, ctr) && i < t->ctr[k].n; i++)
            if (!strcmp(t->ctr[k].m[i].dst, dst) && t->ctr[k].m[i].inside < 0)
                return t->ctr[k].m[i].dir;
    return true;
}

static int ctr_mounts(const struct vol_pod *vp, const struct vol_tmpl *t, struct vol__ctr *c,
                      struct err *err)
{
    for (size_t i = 0; i < c->n; i++) {
        struct vol__mnt *m = &c->m[i];
        const char *rro = jx_str(m->vm, "recursiveReadOnly");
        int rc;
        if (!(m->vol = find_src(vp, jx_str(m->vm, "name"))))
            return err_set(err, -EINVAL, "no volume \"%s\"", jx_str(m->vm, "name"));
        m->flags = jx_bool_or(m->vm, "readOnly", false) || m->vol->ro ? NSR_RDONLY : 0;
        if (m->flags && rro && strcmp(rro, "Disabled"))
            m->flags |= NSR_RECURSIVE;
        if ((rc = mount_src(m, err)) < 0)
            return rc;
        if (m->inside < 0 && made_dir(t, c->name, m->dst) != m->dir)
            return err_set(err, -EINVAL, "mount point %s was made as a %s when the run "
                                         "started; the volume's %s is now a %s",
                           m->dst, m->dir ? "file" : "directory", m->src,
                           m->dir ? "directory" : "file");
        if (m->inside >= 0 && (rc = inner_point(c, m, err)) < 0)
            return rc;
        c->nm[i] = (struct nsr_mount){m->src, m->dst, m->flags};
    }
    c->enter = (struct nsr_enter){t->ns, c->nm, c->n, NULL};
    return 0;
}

static int make_sources(struct vol_pod *vp, const json_t *pod_spec, const struct podenv_pod *pod,
                        struct err *err)
{
    const json_t *vols = jx_arr(pod_spec, "volumes");
    vp->src = calloc(json_array_size(vols) + 1, sizeof(*vp->src));
    if (!vp->src)
        return err_oom(err);
    for (; vp->n_src < json_array_size(vols); vp->n_src++) {
        struct vol__src *s = &vp->src[vp->n_src];
        int rc = vol__src_make(vp, json_array_get(vols, vp->n_src), pod_spec, pod, s, err);
        if (rc < 0) {
            char what[320];
            snprintf(what, sizeof(what), "volume \"%s\" (%s)", s->name ? s->name : "", s->kind);
            err_prefix(err, what);
            vp->n_src++;
            return rc;
        }
    }
    return 0;
}

static int make_mounts(struct vol_pod *vp, const struct vol_tmpl *t, const json_t *pod_spec,
                       const char *ns, struct err *err)
{
    int rc = vol__ctrs_new(pod_spec, NULL, ns, &vp->ctr, &vp->n_ctr, err);
    for (size_t i = 0; rc == 0 && i < vp->n_ctr; i++)
        if ((rc = ctr_mounts(vp, t, &vp->ctr[i], err)) < 0) {
            char what[320];
            snprintf(what, sizeof(what), "container %s", vp->ctr[i].name);
            err_prefix(err, what);
        }
    return rc;
}

/* The pod's tmpfs volumes, mounted in the template's namespace by a child that joins it. */
static int mount_memory(struct vol_pod *vp, struct err *err)
{
    struct nsr_plan plan = {0};
    int rc = vol__plan_memory(vp, &plan, &vp->undo);
    if (rc < 0)
        err_set(err, rc, ERR_OOM_MSG);
    else if (plan.n)
        rc = nsr_exec(&vp->ns, &plan, err); /* what it mounted before failing is undone */
    nsr_plan_release(&plan);
    return rc;
}

void vol_pod_free(struct vol_pod *vp)
{
    if (!vp)
        return;
    if (vp->undo.n)
        (void)nsr_exec(&vp->ns, &vp->undo, NULL);
    nsr_plan_release(&vp->undo);
    vol__ctrs_free(vp->ctr, vp->n_ctr);
    for (size_t i = 0; i < vp->n_src; i++)
        vol__src_release(&vp->src[i]);
    if (vp->dir_made)
        vol__rm_tree(vp->dir);
    free(vp->src);
    free(vp->dir);
    free(vp);
}

int vol_pod_new(const struct vol_run *vr, const struct vol_tmpl *t, const json_t *pod_spec,
                const struct podenv_pod *pod, const char *pod_name, struct vol_pod **out,
                struct err *err)
{
    *out = NULL;
    if (!t)
        return 0;
    struct vol_pod *vp = calloc(1, sizeof(*vp));
    int rc = vp ? 0 : err_oom(err);
    if (rc == 0) {
        vp->vr = vr;
        vp->ns = t->ns;
        vp->dir = store_pod_volumes(vr->run_dir, pod_name);
        rc = vp->dir ? 0 : err_oom(err);
    }
    if (rc == 0)
        rc = make_sources(vp, pod_spec, pod, err);
    if (rc == 0)
        rc = make_mounts(vp, t, pod_spec, pod->ns, err);
    if (rc == 0)
        rc = mount_memory(vp, err);
    if (rc < 0) {
        vol_pod_free(vp);
        return rc;
    }
    *out = vp;
    return 0;
}

const struct nsr_enter *vol_pod_enter(const struct vol_pod *vp, const char *name)
{
    for (size_t i = 0; vp && name && i < vp->n_ctr; i++)
        if (vp->ctr[i].name && !strcmp(vp->ctr[i].name, name))
            return &vp->ctr[i].enter;
    return NULL;
}
