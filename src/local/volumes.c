/* A pod's volumes: made on the host, then each container's mounts, then the pod's namespace
 * (see volumes.h). */
#include "local/volumes_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "local/rundir.h"
#include "obj/fs.h"
#include "obj/jx.h"
#include "obj/sbuf.h"

static const char *const ctr_lists[] = {"initContainers", "containers"};

bool vol_spec_mounts(const json_t *pod_spec)
{
    for (size_t l = 0; l < 2; l++) {
        size_t i;
        const json_t *c;
        json_array_foreach (jx_arr(pod_spec, ctr_lists[l]), i, c)
            if (json_array_size(jx_arr(c, "volumeMounts")))
                return true;
    }
    return false;
}

size_t vol__depth(const char *path)
{
    size_t n = 0;
    for (const char *p = path; *p; p++)
        n += *p == '/' && p[1] && p[1] != '/';
    return n;
}

/* `in` without "//", "/." components or a trailing '/' into out (PATH_MAX). */
static void clean(const char *in, char *out)
{
    size_t o = 0;
    while (*in && o < PATH_MAX - 2) {
        size_t n = strcspn(in, "/");
        if (n && !(n == 1 && in[0] == '.')) {
            out[o++] = '/';
            n = n < PATH_MAX - 1 - o ? n : PATH_MAX - 1 - o;
            memcpy(out + o, in, n);
            o += n;
        }
        in += n;
        in += *in == '/';
    }
    if (o == 0)
        out[o++] = '/';
    out[o] = '\0';
}

/* mountPath as this machine's root shows it: the longest prefix that exists resolved (its
 * symbolic links followed, as the pod's root has them too), the rest appended.  Malloc'd. */
static char *resolve_dst(const char *mount_path)
{
    char p[PATH_MAX];
    clean(mount_path, p);
    for (size_t len = strlen(p);;) {
        char save = p[len];
        p[len] = '\0';
        char *real = realpath(len ? p : "/", NULL);
        p[len] = save;
        if (real) {
            char *out = sb_fmt("%s%s", strcmp(real, "/") ? real : "", p + len);
            free(real);
            return out && !*out ? (free(out), strdup("/")) : out;
        }
        while (len > 0 && p[--len] != '/')
            ;
    }
}

static const struct vol__src *find_src(const struct vol_pod *vp, const char *name)
{
    for (size_t i = 0; name && i < vp->n_src; i++)
        if (vp->src[i].name && !strcmp(vp->src[i].name, name))
            return &vp->src[i];
    return NULL;
}

/* The mount's source: the volume, or its subPath, made when missing (as the kubelet makes
 * subPath directories) and never a way out of the volume. */
static int mount_src(struct vol__mnt *m, struct err *err)
{
    const struct vol__src *v = m->vol;
    struct stat st;
    m->src = m->sub && *m->sub ? sb_fmt("%s/%s", v->host, m->sub) : strdup(v->host);
    if (!m->src)
        return err_set(err, -ENOMEM, "out of memory");
    if (v->memory) { /* made in the pod's tmpfs */
        m->dir = true;
        return 0;
    }
    int rc = m->sub && *m->sub && stat(m->src, &st) < 0 ? fs_mkdir_p(m->src, 0755) : 0;
    char *real = rc == 0 ? realpath(m->src, NULL) : NULL, *base = realpath(v->host, NULL);
    size_t bl = base ? strlen(base) : 0;
    if (rc == 0 && (!real || !base || stat(real, &st) < 0))
        rc = -errno;
    else if (rc == 0 && (strncmp(real, base, bl) || (real[bl] && real[bl] != '/')))
        rc = -EXDEV;
    m->dir = rc == 0 && S_ISDIR(st.st_mode);
    free(real);
    free(base);
    if (rc == -EXDEV)
        return err_set(err, rc, "subPath %s leads out of the volume", m->sub);
    return rc < 0 ? err_set(err, rc, "%s: %s", m->src, strerror(-rc)) : 0;
}

static int mount_new(const struct vol_pod *vp, const json_t *vm, struct vol__mnt *m,
                     struct err *err)
{
    const char *rro = jx_str(vm, "recursiveReadOnly");
    *m = (struct vol__mnt){.inside = -1, .sub = jx_str(vm, "subPath")};
    m->vol = find_src(vp, jx_str(vm, "name"));
    if (!m->vol)
        return err_set(err, -EINVAL, "no volume \"%s\"", jx_str(vm, "name"));
    m->dst = resolve_dst(jx_str(vm, "mountPath") ? jx_str(vm, "mountPath") : "/");
    if (!m->dst)
        return err_set(err, -ENOMEM, "out of memory");
    if (jx_bool_or(vm, "readOnly", false) || m->vol->ro)
        m->flags |= NSR_RDONLY;
    if ((m->flags & NSR_RDONLY) && rro && strcmp(rro, "Disabled"))
        m->flags |= NSR_RECURSIVE;
    return mount_src(m, err);
}

/* Mounts in order of depth (a mount inside another comes after it), and which earlier mount of
 * the container each one lies in. */
static void order_mounts(struct vol__ctr *c)
{
    for (size_t i = 1; i < c->n; i++)
        for (size_t k = i; k > 0 && vol__depth(c->m[k].dst) < vol__depth(c->m[k - 1].dst); k--) {
            struct vol__mnt t = c->m[k];
            c->m[k] = c->m[k - 1];
            c->m[k - 1] = t;
        }
    for (size_t i = 0; i < c->n; i++)
        for (size_t k = 0; k < i; k++) {
            size_t l = strlen(c->m[k].dst);
            if (!strncmp(c->m[i].dst, c->m[k].dst, l) &&
                (c->m[i].dst[l] == '/' || !strcmp(c->m[k].dst, "/")))
                c->m[i].inside = (long)k;
        }
}

/* The mount point of a mount inside another, made in that one's source on the host (as a
 * container runtime makes it in the volume); in a tmpfs source the pod's plan makes it. */
static int inner_point(const struct vol__ctr *c, const struct vol__mnt *m, struct err *err)
{
    const struct vol__mnt *outer = &c->m[m->inside];
    const char *rest = m->dst + strlen(outer->dst);
    if (outer->vol->memory)
        return 0;
    char *p = sb_fmt("%s%s", outer->src, rest);
    int rc = p ? 0 : -ENOMEM;
    if (rc == 0 && m->dir) {
        rc = fs_mkdir_p(p, 0755);
    } else if (rc == 0) {
        char *slash = strrchr(p, '/');
        *slash = '\0';
        rc = fs_mkdir_p(p, 0755);
        *slash = '/';
        FILE *f = rc == 0 ? fopen(p, "ae") : NULL;
        rc = rc < 0 ? rc : f ? fclose(f) : -errno;
    }
    if (rc < 0)
        err_set(err, rc, "mount point %s: %s", p ? p : m->dst, strerror(-rc));
    free(p);
    return rc;
}

static int ctr_new(const struct vol_pod *vp, const json_t *spec, struct vol__ctr *c,
                   struct err *err)
{
    const json_t *vms = jx_arr(spec, "volumeMounts");
    c->name = jx_str(spec, "name");
    c->m = calloc(json_array_size(vms), sizeof(*c->m));
    c->nm = calloc(json_array_size(vms), sizeof(*c->nm));
    if (!c->m || !c->nm)
        return err_set(err, -ENOMEM, "out of memory");
    for (; c->n < json_array_size(vms); c->n++) {
        int rc = mount_new(vp, json_array_get(vms, c->n), &c->m[c->n], err);
        if (rc < 0) {
            c->n++; /* what it took is freed with the others */
            return rc;
        }
    }
    order_mounts(c);
    for (size_t i = 0; i < c->n; i++) {
        int rc = c->m[i].inside >= 0 ? inner_point(c, &c->m[i], err) : 0;
        if (rc < 0)
            return rc;
        c->nm[i] = (struct nsr_mount){c->m[i].src, c->m[i].dst, c->m[i].flags};
    }
    c->enter = (struct nsr_enter){NSR_NS_NONE, c->nm, c->n};
    return 0;
}

static void ctr_release(struct vol__ctr *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->m[i].src);
        free(c->m[i].dst);
    }
    free(c->m);
    free(c->nm);
}

void vol_pod_free(struct vol_pod *vp)
{
    if (!vp)
        return;
    nsr_close(&vp->ns);
    for (size_t i = 0; i < vp->n_ctr; i++)
        ctr_release(&vp->ctr[i]);
    for (size_t i = 0; i < vp->n_src; i++)
        vol__src_release(&vp->src[i]);
    if (vp->dir_made)
        vol__rm_tree(vp->dir);
    free(vp->ctr);
    free(vp->src);
    free(vp->dir);
    free(vp);
}

static int make_sources(struct vol_pod *vp, const json_t *pod_spec, const struct podenv_pod *pod,
                        struct err *err)
{
    const json_t *vols = jx_arr(pod_spec, "volumes");
    vp->src = calloc(json_array_size(vols) + 1, sizeof(*vp->src));
    if (!vp->src)
        return err_set(err, -ENOMEM, "out of memory");
    for (; vp->n_src < json_array_size(vols); vp->n_src++) {
        const json_t *v = json_array_get(vols, vp->n_src);
        struct vol__src *s = &vp->src[vp->n_src];
        int rc = vol__src_make(vp, v, pod_spec, pod, s, err);
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

static int make_containers(struct vol_pod *vp, const json_t *pod_spec, struct err *err)
{
    vp->ctr = calloc(json_array_size(jx_arr(pod_spec, "initContainers")) +
                         json_array_size(jx_arr(pod_spec, "containers")) + 1,
                     sizeof(*vp->ctr));
    if (!vp->ctr)
        return err_set(err, -ENOMEM, "out of memory");
    for (size_t l = 0; l < 2; l++) {
        size_t i;
        const json_t *c;
        json_array_foreach (jx_arr(pod_spec, ctr_lists[l]), i, c) {
            if (!json_array_size(jx_arr(c, "volumeMounts")))
                continue;
            int rc = ctr_new(vp, c, &vp->ctr[vp->n_ctr++], err);
            if (rc < 0) {
                char what[320];
                snprintf(what, sizeof(what), "container %s", jx_str(c, "name"));
                err_prefix(err, what);
                return rc;
            }
        }
    }
    return 0;
}

static int build_ns(struct vol_pod *vp, struct err *err)
{
    struct nsr_plan plan = {0};
    int rc = vol__plan(vp, &plan, err);
    if (rc == 0 && (rc = nsr_build(&plan, &vp->ns, err)) < 0)
        err_prefix(err, "the pod's mount namespace");
    nsr_plan_release(&plan);
    for (size_t i = 0; rc == 0 && i < vp->n_ctr; i++)
        vp->ctr[i].enter.ns = vp->ns;
    return rc;
}

int vol_pod_new(const struct vol_run *vr, const json_t *pod_spec, const struct podenv_pod *pod,
                const char *pod_name, struct vol_pod **out, struct err *err)
{
    *out = NULL;
    if (!vol_spec_mounts(pod_spec))
        return 0;
    struct vol_pod *vp = calloc(1, sizeof(*vp));
    int rc = vp ? 0 : err_set(err, -ENOMEM, "out of memory");
    if (rc == 0) {
        vp->vr = vr;
        vp->ns = NSR_NS_NONE;
        vp->dir = sb_fmt("%s/" RD_POD_VOLUMES "/%s", vr->run_dir, pod_name);
        rc = vp->dir ? 0 : err_set(err, -ENOMEM, "out of memory");
    }
    if (rc == 0)
        rc = make_sources(vp, pod_spec, pod, err);
    if (rc == 0)
        rc = make_containers(vp, pod_spec, err);
    if (rc == 0)
        rc = build_ns(vp, err);
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
