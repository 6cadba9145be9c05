/* nsroot plans: the operations that make a pod's root (see nsroot.h). */
#include "local/nsroot.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "obj/sbuf.h"

int nsr_plan_add(struct nsr_plan *p, enum nsr_op_kind kind, const char *path, const char *arg,
                 bool optional)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 32;
        struct nsr_op *ops = realloc(p->ops, cap * sizeof(*ops));
        if (!ops)
            return -ENOMEM;
        p->ops = ops;
        p->cap = cap;
    }
    struct nsr_op *o = &p->ops[p->n];
    *o = (struct nsr_op){.kind = kind, .optional = optional};
    o->path = sb_fmt("/newroot%s", path);
    if (arg)
        o->arg = kind == NSR_OP_BIND ? sb_fmt("/oldroot%s", arg) : strdup(arg);
    if (!o->path || (arg && !o->arg)) {
        free(o->path);
        free(o->arg);
        return -ENOMEM;
    }
    p->n++;
    return 0;
}

void nsr_plan_release(struct nsr_plan *p)
{
    for (size_t i = 0; p && i < p->n; i++) {
        free(p->ops[i].path);
        free(p->ops[i].arg);
    }
    if (p) {
        free(p->ops);
        *p = (struct nsr_plan){0};
    }
}

/* The entry `name` of host directory `dir` at the same place: a symbolic link copied, a
 * directory or another file bound over a mount point of its kind. */
static int plan_entry(struct nsr_plan *p, const char *dir, const char *name)
{
    char path[PATH_MAX], target[PATH_MAX];
    struct stat st;
    int n = snprintf(path, sizeof(path), "%s/%s", strcmp(dir, "/") ? dir : "", name);
    if (n < 0 || (size_t)n >= sizeof(path))
        return -ENAMETOOLONG;
    if (lstat(path, &st) < 0)
        return errno == ENOENT ? 0 : -errno; /* gone since it was listed */
    if (S_ISLNK(st.st_mode)) {
        ssize_t len = readlink(path, target, sizeof(target) - 1);
        if (len < 0)
            return -errno;
        target[len] = '\0';
        return nsr_plan_add(p, NSR_OP_SYMLINK, path, target, false);
    }
    int rc = nsr_plan_add(p, S_ISDIR(st.st_mode) ? NSR_OP_DIR : NSR_OP_FILE, path, NULL, false);
    return rc < 0 ? rc : nsr_plan_add(p, NSR_OP_BIND, path, path, true);
}

static int plan_entries(struct nsr_plan *p, const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int rc = 0;
    if (!d)
        return -errno;
    while (rc == 0 && (errno = 0, e = readdir(d))) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            rc = plan_entry(p, dir, e->d_name);
    }
    if (rc == 0 && errno)
        rc = -errno;
    closedir(d);
    return rc;
}

int nsr_plan_root(struct nsr_plan *p)
{
    return plan_entries(p, "/");
}

int nsr_plan_shadow(struct nsr_plan *p, const char *dir)
{
    struct stat st;
    char data[32];
    if (stat(dir, &st) < 0)
        return -errno;
    snprintf(data, sizeof(data), "mode=%o", (unsigned)(st.st_mode & 07777));
    int rc = nsr_plan_add(p, NSR_OP_TMPFS, dir, data, false);
    return rc < 0 ? rc : plan_entries(p, dir);
}
