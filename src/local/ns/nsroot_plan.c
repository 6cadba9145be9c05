/* nsroot plans: the operations that make a pod's root (see nsroot.h). */
#include "local/ns/nsroot.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "obj/base/sbuf.h"

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
    o->path = strdup(path);
    if (arg)
        o->arg = strdup(arg);
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

/* The entry `name` of host directory `dir` at its place in directory `at` of the new root: a
 * symbolic link copied, a directory or another file bound over a mount point of its kind;
 * with `links`, a symbolic link to it under NSR_HOST<at>. */
static int plan_entry(struct nsr_plan *p, const char *dir, const char *at, const char *name,
                      bool links)
{
    char path[PATH_MAX], dst[PATH_MAX], target[PATH_MAX + sizeof(NSR_HOST)];
    struct stat st;
    int n = snprintf(path, sizeof(path), "%s/%s", strcmp(dir, "/") ? dir : "", name);
    int m = snprintf(dst, sizeof(dst), "%s/%s", strcmp(at, "/") ? at : "", name);
    if (n < 0 || m < 0 || (size_t)n >= sizeof(path) || (size_t)m >= sizeof(dst) - sizeof(NSR_HOST))
        return -ENAMETOOLONG;
    if (links) {
        snprintf(target, sizeof(target), NSR_HOST "%s", dst);
        return nsr_plan_add(p, NSR_OP_SYMLINK, dst, target, false);
    }
    if (nsr_host->lstat(path, &st) < 0)
        return errno == ENOENT ? 0 : -errno; /* gone since it was listed */
    if (S_ISLNK(st.st_mode)) {
        ssize_t len = nsr_host->readlink(path, target, sizeof(target) - 1);
        if (len < 0)
            return -errno;
        target[len] = '\0';
        return nsr_plan_add(p, NSR_OP_SYMLINK, dst, target, false);
    }
    int rc = nsr_plan_add(p, S_ISDIR(st.st_mode) ? NSR_OP_DIR : NSR_OP_FILE, dst, NULL, false);
    return rc < 0 ? rc : nsr_plan_add(p, NSR_OP_BIND, dst, path, true);
}

/* The entries of `dir` (. and .. aside) into a new array of names; 0 or a negative errno. */
static int host_list(const char *dir, char ***out, size_t *n)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int rc = 0;
    *out = NULL;
    *n = 0;
    if (!d)
        return -errno;
    while (rc == 0 && (errno = 0, e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char **v = realloc(*out, (*n + 1) * sizeof(*v));
        rc = v ? 0 : -ENOMEM;
        if (v && !(v[*n] = strdup(e->d_name)))
            rc = -ENOMEM;
        *out = v ? v : *out;
        *n += rc == 0;
    }
    if (rc == 0 && errno)
        rc = -errno;
    closedir(d);
    return rc;
}

static char *host_realpath(const char *path)
{
    return realpath(path, NULL);
}

static const struct nsr_host real_host = {lstat, stat, readlink, host_realpath, host_list};
const struct nsr_host *nsr_host = &real_host;

/* The host's directory `dir` bound at NSR_HOST<at> (the directories on the way made in the
 * root's tmpfs), for symbolic links to point into. */
static int host_view(struct nsr_plan *p, const char *dir, const char *at)
{
    char path[PATH_MAX];
    int n = snprintf(path, sizeof(path), NSR_HOST "%s", at);
    int rc = n > 0 && (size_t)n < sizeof(path) ? 0 : -ENAMETOOLONG;
    for (char *c = path + 1; rc == 0 && c; c = strchr(c + 1, '/')) {
        char save = *c;
        *c = '\0';
        rc = nsr_plan_add(p, NSR_OP_DIR, path, NULL, false);
        *c = save;
    }
    if (rc == 0)
        rc = nsr_plan_add(p, NSR_OP_DIR, path, NULL, false);
    return rc < 0 ? rc : nsr_plan_add(p, NSR_OP_BIND, path, dir, false);
}

/* 1 when the entries are links into NSR_HOST<at>, 0 when bound, or a negative errno. */
static int plan_entries(struct nsr_plan *p, const char *dir, const char *at, size_t max_binds)
{
    char **names;
    size_t n;
    int rc = nsr_host->list(dir, &names, &n);
    bool links = n > max_binds;
    if (rc == 0 && links)
        rc = host_view(p, dir, at);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = plan_entry(p, dir, at, names[i], links);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc < 0 ? rc : links;
}

int nsr_plan_root(struct nsr_plan *p)
{
    int rc = plan_entries(p, "/", "/", SIZE_MAX);
    return rc < 0 ? rc : 0;
}

int nsr_plan_shadow(struct nsr_plan *p, const char *dir, const char *at)
{
    struct stat st;
    char data[32];
    if (nsr_host->stat(dir, &st) < 0)
        return -errno;
    snprintf(data, sizeof(data), "mode=%o", (unsigned)(st.st_mode & 07777));
    int rc = nsr_plan_add(p, NSR_OP_TMPFS, at, data, false);
    return rc < 0 ? rc : plan_entries(p, dir, at, NSR_SHADOW_BINDS);
}
