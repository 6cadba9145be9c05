/* Pod templates' namespaces and pods' volumes (see volumes.h). */
#include "local/volumes_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "local/rundir.h"
#include "obj/fs.h"
#include "obj/jx.h"
#include "obj/sbuf.h"

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
 * runtimes make a missing bind source) made before the template's root is planned. */
static int make_host_paths(const json_t *pod_spec, struct err *err)
{
    size_t i;
    const json_t *v;
    json_array_foreach (jx_arr(pod_spec, "volumes"), i, v) {
        const json_t *hp = jx_obj(v, "hostPath");
        int rc = hp ? vol__host_path_check(hp, true, err) : 0;
        if (rc < 0) {
            char what[320];
            snprintf(what, sizeof(what), "volume \"%s\" (hostPath)", jx_str(v, "name"));
            err_prefix(err, what);
            return rc;
        }
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
        return err_set(err, -ENOMEM, "out of memory");
    t->ns = NSR_NS_NONE;
    t->spec = json_incref(pod_spec);
    if ((rc = make_host_paths(pod_spec, err)) < 0 ||
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

/* The mount's source: the volume, or its subPath, made when missing (as the kubelet makes
 * subPath directories) and never a way out of the volume. */
static int mount_src(struct vol__mnt *m, struct err *err)
{
    const struct vol__src *v = m->vol;
    const char *sub = jx_str(m->vm, "subPath");
    struct stat st;
    m->src = sub && *sub ? sb_fmt("%s/%s", v->host, sub) : strdup(v->host);
    if (!m->src)
        return err_set(err, -ENOMEM, "out of memory");
    if (v->memory) { /* made in the pod's tmpfs */
        m->dir = true;
        return 0;
    }
    int rc = sub && *sub && stat(m->src, &st) < 0 ? fs_mkdir_p(m->src, 0755) : 0;
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
        return err_set(err, rc, "subPath %s leads out of the volume", sub);
    return rc < 0 ? err_set(err, rc, "%s: %s", m->src, strerror(-rc)) : 0;
}

/* The mount point of a mount inside another, made in that one's source on the host (as a
 * container runtime makes it in the volume); in a tmpfs source vol__plan_memory makes it. */
static int inner_point(const struct vol__ctr *c, const struct vol__mnt *m, struct err *err)
{
    const struct vol__mnt *outer = &c->m[m->inside];
    if (outer->vol->memory)
        return 0;
    char *p = sb_fmt("%s%s", outer->src, m->dst + strlen(outer->dst));
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
    c->enter = (struct nsr_enter){t->ns, c->nm, c->n};
    return 0;
}

static int make_sources(struct vol_pod *vp, const json_t *pod_spec, const struct podenv_pod *pod,
                        struct err *err)
{
    const json_t *vols = jx_arr(pod_spec, "volumes");
    vp->src = calloc(json_array_size(vols) + 1, sizeof(*vp->src));
    if (!vp->src)
        return err_set(err, -ENOMEM, "out of memory");
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
        err_set(err, rc, "out of memory");
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
    int rc = vp ? 0 : err_set(err, -ENOMEM, "out of memory");
    if (rc == 0) {
        vp->vr = vr;
        vp->ns = t->ns;
        vp->dir = sb_fmt("%s/" RD_POD_VOLUMES "/%s", vr->run_dir, pod_name);
        rc = vp->dir ? 0 : err_set(err, -ENOMEM, "out of memory");
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
