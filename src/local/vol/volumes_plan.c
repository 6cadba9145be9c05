/* The plan of a pod template's root (local/ns/nsroot.h): this machine's root and the mount points
 * every container of the template needs, made without touching the host; and the plan that
 * mounts a pod's tmpfs volumes in it.
 *
 * A mount point is made, as bubblewrap's --dir and --file make theirs, in a directory of the
 * new root that is a tmpfs: the root itself, a directory made there, or a host directory that
 * lacked it, shadowed (a tmpfs over it with its entries bound back, nsr_plan_shadow).  A
 * mountPath that exists on the host is mounted over as it is. */
#include "local/vol/volumes_int.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "obj/tree/jx.h"
#include "obj/base/sbuf.h"

struct strset {
    char **v;
    size_t n;
};

static bool set_has(const struct strset *s, const char *p)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->v[i], p))
            return true;
    return false;
}

static int set_add(struct strset *s, const char *p)
{
    char **v = realloc(s->v, (s->n + 1) * sizeof(*v));
    if (!v)
        return -ENOMEM;
    s->v = v;
    return (s->v[s->n] = strdup(p)) ? (s->n++, 0) : -ENOMEM;
}

static void set_release(struct strset *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
}

struct plan {
    struct nsr_plan *p;
    struct strset dirs, files, shadows; /* made by the plan, or shadowed */
    struct strset linked;               /* shadows whose entries are links into NSR_HOST */
};

/* What a path is in the root built so far. */
enum where { W_NONE, W_DIR, W_FILE, W_SHADOW, W_HOST_DIR, W_HOST_OTHER };

static enum where where_is(const struct plan *x, const char *path, enum where parent)
{
    struct stat st;
    if (set_has(&x->shadows, path))
        return W_SHADOW;
    if (set_has(&x->dirs, path))
        return W_DIR;
    if (set_has(&x->files, path))
        return W_FILE;
    if (parent == W_DIR || nsr_host->lstat(path, &st) < 0) /* a directory made holds what was made */
        return W_NONE;
    return S_ISDIR(st.st_mode) ? W_HOST_DIR : W_HOST_OTHER;
}

/* Makes `path` (a directory, or a file when last and !dir) in `parent`, shadowing a host
 * parent first; `at` and `parent_at` are where they lie in the new root. */
static int make(struct plan *x, const char *parent, const char *parent_at, enum where pw,
                const char *path, const char *at, bool dir)
{
    int rc = 0;
    if (pw == W_HOST_DIR && (rc = nsr_plan_shadow(x->p, parent, parent_at)) >= 0) {
        bool linked = rc == 1;
        rc = set_add(&x->shadows, parent);
        if (rc == 0 && linked)
            rc = set_add(&x->linked, parent);
    }
    if (rc == 0)
        rc = nsr_plan_add(x->p, dir ? NSR_OP_DIR : NSR_OP_FILE, at, NULL, false);
    return rc < 0 ? rc : set_add(dir ? &x->dirs : &x->files, path);
}

static int point_error(const char *path, enum where w, bool dir, struct err *err)
{
    if (w == W_FILE || w == W_HOST_OTHER)
        return err_set(err, -ENOTDIR, "mount point %s: %s", path,
                       dir ? "a file is there, the volume is a directory"
                           : "not a directory on the way");
    return err_set(err, -EISDIR, "mount point %s: a directory is there, the volume is a file",
                   path);
}

/* Where `name`, an entry of `parent_at` in the new root, lies: there, or, when it is an entry
 * of the host that a shadow of links stands for, where the link leads (NSR_HOST<parent_at>).
 * 0 or -ENAMETOOLONG. */
static int place(char *at, const char *parent_at, bool via_link, const char *name, size_t len)
{
    int n = snprintf(at, PATH_MAX, "%s%s/%.*s", via_link ? NSR_HOST : "",
                     strcmp(parent_at, "/") ? parent_at : "", (int)len, name);
    return n > 0 && n < PATH_MAX ? 0 : -ENAMETOOLONG;
}

/* A mount point `path` (absolute, clean, not "/"), a directory or a file, planned one
 * component at a time: where it has got to. */
struct walk {
    const char *path;
    bool dir, done;
    size_t i;               /* the start of its next component */
    enum where w;           /* what the parent (path[0..i-1]) is */
    bool links;             /* the parent's entries are links into NSR_HOST */
    char parent_at[PATH_MAX]; /* where the parent lies in the new root */
};

static void walk_init(struct walk *k, const char *path, bool dir)
{
    *k = (struct walk){.path = path, .dir = dir, .i = 1, .w = W_SHADOW}; /* the root: a tmpfs */
    k->parent_at[0] = '/';
}

/* The next component of k's mount point: made when missing (its parent shadowed when it is a
 * host directory).  0 or a negative errno with err set. */
static int walk_step(struct plan *x, struct walk *k, struct err *err)
{
    char cur[PATH_MAX], parent[PATH_MAX], at[PATH_MAX];
    const char *path = k->path;
    size_t e = k->i + strcspn(path + k->i, "/");
    bool last = path[e] == '\0', dir = k->dir;
    size_t hl = strlen(NSR_HOST);
    if (strlen(path) >= PATH_MAX)
        return err_set(err, -ENAMETOOLONG, "mount point %.64s...: %s", path,
                       strerror(ENAMETOOLONG));
    if (!strncmp(path, NSR_HOST, hl) && (!path[hl] || path[hl] == '/')) /* vol_check's too */
        return err_set(err, -EINVAL, "mount point %s: " NSR_HOST " is jaxset run's own", path);
    memcpy(cur, path, e);
    cur[e] = '\0';
    snprintf(parent, sizeof(parent), "%.*s", k->i > 1 ? (int)(k->i - 1) : 1, path);
    if (k->w == W_HOST_DIR && set_has(&x->shadows, parent)) { /* by another mount since */
        k->w = W_SHADOW;
        k->links = set_has(&x->linked, parent);
    }
    enum where c = where_is(x, cur, k->w);
    bool via = k->links && c != W_NONE && c != W_DIR && c != W_FILE;
    int rc = place(at, k->parent_at, via, path + k->i, e - k->i);
    if (rc == 0 && c == W_NONE)
        rc = make(x, parent, k->parent_at, k->w, cur, at, dir || !last);
    if (rc < 0)
        return err_set(err, rc, "mount point %s: %s", cur, strerror(-rc));
    if (c == W_NONE)
        c = dir || !last ? W_DIR : W_FILE;
    bool is_dir = c == W_DIR || c == W_SHADOW || c == W_HOST_DIR;
    if (last && is_dir != dir)
        return point_error(cur, c, dir, err);
    if (!last && !is_dir)
        return point_error(cur, c, true, err);
    k->done = last;
    memcpy(k->parent_at, at, strlen(at) + 1);
    k->links = set_has(&x->linked, cur);
    k->w = c;
    k->i = e + 1;
    return 0;
}

/* Every mount point that lies in no other mount of its container, one level of directories
 * at a time for all of them: a directory is shadowed before any in it, since a shadow made
 * later would hide the earlier one's mount points (and what is made after it would be made
 * in the host's directory bound back there). */
static int plan_points(struct plan *x, const struct vol_tmpl *t, struct err *err)
{
    size_t n = 0, left = 0;
    for (size_t c = 0; c < t->n_ctr; c++)
        n += t->ctr[c].n;
    struct walk *w = calloc(n + 1, sizeof(*w));
    if (!w)
        return err_oom(err);
    for (size_t c = 0; c < t->n_ctr; c++)
        for (size_t i = 0; i < t->ctr[c].n; i++)
            if (t->ctr[c].m[i].inside < 0)
                walk_init(&w[left++], t->ctr[c].m[i].dst, t->ctr[c].m[i].dir);
    int rc = 0;
    for (bool more = true; rc == 0 && more;) {
        more = false;
        for (size_t i = 0; rc == 0 && i < left; i++)
            if (!w[i].done && (rc = walk_step(x, &w[i], err)) == 0)
                more |= !w[i].done;
    }
    free(w);
    return rc;
}

int vol__plan(const struct vol_tmpl *t, struct nsr_plan *plan, struct err *err)
{
    struct plan x = {.p = plan};
    int rc = nsr_plan_root(plan);
    if (rc < 0)
        err_set(err, rc, "listing /: %s", strerror(-rc));
    if (rc == 0)
        rc = plan_points(&x, t, err);
    set_release(&x.dirs);
    set_release(&x.files);
    set_release(&x.shadows);
    set_release(&x.linked);
    return rc;
}

/* mkdir -p of `rel` (a subPath, or a mount point's path in its volume) under a tmpfs `base`;
 * the last component a file when !dir. */
static int plan_under(struct nsr_plan *p, const char *base, const char *rel, bool dir)
{
    char *path = sb_fmt("%s/%s", base, rel);
    int rc = path ? 0 : -ENOMEM;
    size_t bl = strlen(base);
    for (char *s = path ? path + bl + 1 : NULL; rc == 0 && s && *s; s += strcspn(s, "/")) {
        s += *s == '/';
        size_t n = strcspn(s, "/");
        char save = s[n];
        s[n] = '\0';
        if (n) /* "a//b" */
            rc = nsr_plan_add(p, dir || save ? NSR_OP_DIR : NSR_OP_FILE, path, NULL, false);
        s[n] = save;
    }
    free(path);
    return rc;
}

int vol__plan_memory(const struct vol_pod *vp, struct nsr_plan *plan, struct nsr_plan *undo)
{
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < vp->n_src; i++)
        if (vp->src[i].memory &&
            (rc = nsr_plan_add(plan, NSR_OP_TMPFS, vp->src[i].host, vp->src[i].tmpfs, false)) == 0)
            rc = nsr_plan_add(undo, NSR_OP_UMOUNT, vp->src[i].host, NULL, false);
    for (size_t c = 0; rc == 0 && c < vp->n_ctr; c++)
        for (size_t i = 0; rc == 0 && i < vp->ctr[c].n; i++) {
            const struct vol__mnt *m = &vp->ctr[c].m[i], *out;
            const char *sub = jx_str(m->vm, "subPath");
            if (m->vol->memory && sub && *sub)
                rc = plan_under(plan, m->vol->host, sub, true);
            out = m->inside >= 0 ? &vp->ctr[c].m[m->inside] : NULL;
            if (rc == 0 && out && out->vol->memory)
                rc = plan_under(plan, out->src, m->dst + strlen(out->dst) + 1, m->dir);
        }
    return rc;
}
