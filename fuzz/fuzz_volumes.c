/* fuzz_volumes: the volume planner, on a pod spec (JSON) whose volumeMounts jaxset run would
 * accept (vol__check_mount), planned over a file tree of its own (nsr_host: nothing of this
 * machine is read, nothing is written).  Whatever the mounts, the plan (vol__ctrs_new,
 * vol__plan) either fails cleanly or makes every directory, file and link in a tmpfs of the
 * new root, never in a directory bound from the host, never through a link, never before a
 * tmpfs that would hide it, with clean absolute paths.  Built as a libFuzzer target with clang (-DJAXSET_FUZZ=ON) and linked with
 * fuzz/replay.c as the CTest test fuzz/fuzz_volumes. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "local/vol/volumes_int.h"
#include "obj/tree/jx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The host of the fuzz: a few directories, files and links, and /big, a directory of more
 * than NSR_SHADOW_BINDS entries (e0...e299 and sub). */
#define FZ_BIG 300

static const struct fz_node {
    const char *path;
    char kind; /* 'd', 'f', 'l' */
    const char *target;
} fz_tree[] = {
    {"/", 'd', NULL},           {"/tmp", 'd', NULL},          {"/tmp/a", 'f', NULL},
    {"/etc", 'd', NULL},        {"/etc/hostname", 'f', NULL}, {"/data", 'd', NULL},
    {"/data/ckpt", 'd', NULL},  {"/link", 'l', "/data"},      {"/rel", 'l', "data/ckpt"},
    {"/loop", 'l', "/loop"},    {"/dev", 'd', NULL},          {"/dev/shm", 'd', NULL},
    {"/big", 'd', NULL},        {"/big/sub", 'd', NULL},      {"/big/sub/f", 'f', NULL},
    {"/big/sub/d", 'd', NULL},
};

/* The node at `path` (no link followed), or NULL. */
static const struct fz_node *fz_find(const char *path)
{
    static const struct fz_node file = {"", 'f', NULL};
    char name[32];
    int n = -1;
    for (size_t i = 0; i < sizeof(fz_tree) / sizeof(fz_tree[0]); i++)
        if (!strcmp(fz_tree[i].path, path))
            return &fz_tree[i];
    if (sscanf(path, "/big/e%d", &n) == 1 && n >= 0 && n < FZ_BIG) {
        snprintf(name, sizeof(name), "/big/e%d", n);
        if (!strcmp(name, path))
            return &file;
    }
    return NULL;
}

static char *fz_realpath(const char *path)
{
    char cur[PATH_MAX] = "", rest[2 * PATH_MAX + 2];
    int links = 0;
    if (strlen(path) >= PATH_MAX || path[0] != '/')
        return errno = ENAMETOOLONG, NULL;
    snprintf(rest, sizeof(rest), "%s", path);
    for (char *c = rest; *c;) {
        size_t n = strcspn(c, "/");
        if (n == 0 || (n == 1 && c[0] == '.')) {
            c += n + (c[n] == '/');
            continue;
        }
        if (n == 2 && !strncmp(c, "..", 2)) {
            char *slash = strrchr(cur, '/');
            if (slash)
                *slash = '\0';
            c += n + (c[n] == '/');
            continue;
        }
        size_t cl = strlen(cur);
        if (cl + 1 + n >= PATH_MAX)
            return errno = ENAMETOOLONG, NULL;
        cur[cl] = '/';
        memcpy(cur + cl + 1, c, n);
        cur[cl + 1 + n] = '\0';
        c += n + (c[n] == '/');
        const struct fz_node *node = fz_find(cur);
        if (!node)
            return errno = ENOENT, NULL;
        if (node->kind != 'l')
            continue;
        if (++links > 8)
            return errno = ELOOP, NULL;
        char next[2 * PATH_MAX + 2];
        cur[cl] = '\0';
        snprintf(next, sizeof(next), "%s%s%s/%s", node->target[0] == '/' ? "" : cur,
                 node->target[0] == '/' ? "" : "/", node->target, c);
        snprintf(rest, sizeof(rest), "%s", next);
        cur[0] = '\0';
        c = rest;
    }
    return strdup(cur[0] ? cur : "/");
}

/* The node of `path` itself: its parent resolved, the last component not. */
static const struct fz_node *fz_node(const char *path)
{
    char parent[PATH_MAX], at[2 * PATH_MAX];
    const char *slash = strrchr(path, '/');
    if (!strcmp(path, "/"))
        return fz_find("/");
    if (!slash || (size_t)(slash - path) >= sizeof(parent))
        return errno = ENOENT, NULL;
    snprintf(parent, sizeof(parent), "%.*s", (int)(slash - path), path);
    char *real = fz_realpath(parent[0] ? parent : "/");
    if (!real)
        return NULL;
    snprintf(at, sizeof(at), "%s/%s", strcmp(real, "/") ? real : "", slash + 1);
    free(real);
    const struct fz_node *n = fz_find(at);
    return n ? n : (errno = ENOENT, NULL);
}

static int fz_fill(const struct fz_node *n, struct stat *st)
{
    if (!n)
        return -1;
    memset(st, 0, sizeof(*st));
    st->st_mode = n->kind == 'd' ? S_IFDIR | 0755 : n->kind == 'l' ? S_IFLNK | 0777
                                                                    : S_IFREG | 0644;
    return 0;
}

static int fz_lstat(const char *path, struct stat *st)
{
    return fz_fill(fz_node(path), st);
}

static int fz_stat(const char *path, struct stat *st)
{
    char *real = fz_realpath(path);
    int rc = real ? fz_fill(fz_find(real), st) : -1;
    free(real);
    return rc;
}

static ssize_t fz_readlink(const char *path, char *buf, size_t n)
{
    const struct fz_node *node = fz_node(path);
    if (!node || node->kind != 'l')
        return errno = node ? EINVAL : ENOENT, -1;
    size_t len = strlen(node->target);
    len = len < n ? len : n;
    memcpy(buf, node->target, len);
    return (ssize_t)len;
}

static int fz_add(char ***names, size_t *n, const char *name)
{
    char **v = realloc(*names, (*n + 1) * sizeof(*v));
    if (!v)
        return -ENOMEM;
    *names = v;
    return (v[*n] = strdup(name)) ? ((*n)++, 0) : -ENOMEM;
}

static int fz_list(const char *dir, char ***names, size_t *n)
{
    char *real = fz_realpath(dir), name[16];
    int rc = real ? 0 : -errno;
    size_t dl = real ? strlen(real) : 0;
    *names = NULL;
    *n = 0;
    bool root = real && !strcmp(real, "/");
    for (size_t i = 0; rc == 0 && i < sizeof(fz_tree) / sizeof(fz_tree[0]); i++) {
        const char *p = fz_tree[i].path;
        if (!strcmp(p, "/") || (!root && (strncmp(p, real, dl) || p[dl] != '/')))
            continue;
        const char *base = root ? p + 1 : p + dl + 1;
        if (*base && !strchr(base, '/'))
            rc = fz_add(names, n, base);
    }
    for (int i = 0; rc == 0 && real && !strcmp(real, "/big") && i < FZ_BIG; i++) {
        snprintf(name, sizeof(name), "e%d", i);
        rc = fz_add(names, n, name);
    }
    free(real);
    return rc;
}

static const struct nsr_host fz_host = {fz_lstat, fz_stat, fz_readlink, fz_realpath, fz_list};

/* What a path of the new root is, as the plan's ops so far have made it. */
static char fz_made(const struct nsr_plan *p, size_t upto, const char *path)
{
    for (size_t i = upto; i-- > 0;) /* the latest op there */
        if (!strcmp(p->ops[i].path, path))
            return "dflbtu"[p->ops[i].kind];
    return 0;
}

static void fz_die(const struct nsr_plan *p, size_t i, const char *why)
{
    fprintf(stderr, "fuzz_volumes: op %zu (kind %d) at %s (%s): %s\n", i, (int)p->ops[i].kind,
            p->ops[i].path, p->ops[i].arg ? p->ops[i].arg : "", why);
    abort();
}

/* Each op's path is clean and absolute; what is made (a directory, file or link) is made in
 * a tmpfs (the root, a shadow, a directory made there), never in a bound host directory,
 * a file or through a link; nothing is planned in a directory before a tmpfs goes over it. */
static void fz_check(const struct nsr_plan *p)
{
    char parent[PATH_MAX];
    for (size_t i = 0; i < p->n; i++) {
        const char *path = p->ops[i].path;
        if (path[0] != '/' || strstr(path, "//") || strstr(path, "/./") ||
            strstr(path, "/../") || (strlen(path) > 1 && path[strlen(path) - 1] == '/'))
            fz_die(p, i, "not a clean absolute path");
        enum nsr_op_kind k = p->ops[i].kind;
        size_t len = strlen(path);
        for (size_t j = 0; k == NSR_OP_TMPFS && j < i; j++) /* it would hide them */
            if (!strncmp(p->ops[j].path, path, len) && p->ops[j].path[len] == '/')
                fz_die(p, j, "made before a tmpfs over a directory it lies in");
        if (k != NSR_OP_DIR && k != NSR_OP_FILE && k != NSR_OP_SYMLINK)
            continue;
        if (k == NSR_OP_DIR && fz_made(p, i, path) == 'b')
            continue; /* an existing mount point (mkdir's EEXIST) */
        snprintf(parent, sizeof(parent), "%s", path);
        for (char *slash; (slash = strrchr(parent, '/'));) {
            *slash = '\0';
            char made = fz_made(p, i, parent[0] ? parent : "/");
            if (!parent[0] || made == 't' || made == 'd')
                break; /* the root's tmpfs, a shadow, or a directory made in a tmpfs */
            if (made)
                fz_die(p, i, made == 'b' ? "made in a directory bound from the host"
                                         : "made in a file or through a link");
        }
    }
}

static void fz_print(const struct nsr_plan *p, int rc, const struct err *e)
{
    for (size_t i = 0; i < p->n; i++)
        fprintf(stderr, "%c %s %s\n", "dflbtu"[p->ops[i].kind], p->ops[i].path,
                p->ops[i].arg ? p->ops[i].arg : "");
    fprintf(stderr, "rc %d %s\n", rc, rc < 0 ? e->msg : "");
}

static bool fz_mounts_ok(const json_t *ps)
{
    static const char *const lists[] = {"initContainers", "containers"};
    struct err e = {{0}};
    for (size_t l = 0; l < 2; l++) {
        size_t i, k;
        const json_t *c, *vm;
        json_array_foreach (jx_arr(ps, lists[l]), i, c)
            json_array_foreach (jx_arr(c, "volumeMounts"), k, vm)
                if (vol__check_mount(vm, "", &e) < 0)
                    return false;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *ps = json_loadb((const char *)data, size, 0, NULL);
    struct vol_tmpl t = {.spec = ps, .ns = NSR_NS_NONE};
    struct nsr_plan plan = {0};
    struct err e = {{0}};
    nsr_host = &fz_host;
    if (json_is_object(ps) && fz_mounts_ok(ps) &&
        vol__ctrs_new(ps, NULL, "default", &t.ctr, &t.n_ctr, &e) == 0) {
        for (size_t c = 0; c < t.n_ctr; c++) /* a subPath ending in 'f': a file's mount */
            for (size_t i = 0; i < t.ctr[c].n; i++) {
                const char *sub = jx_str(t.ctr[c].m[i].vm, "subPath");
                t.ctr[c].m[i].dir = !sub || !*sub || sub[strlen(sub) - 1] != 'f';
            }
        int rc = vol__plan(&t, &plan, &e);
        if (getenv("FUZZ_VOLUMES_PRINT")) /* to see what an input plans */
            fz_print(&plan, rc, &e);
        if (rc == 0)
            fz_check(&plan);
        nsr_plan_release(&plan);
        vol__ctrs_free(t.ctr, t.n_ctr);
    }
    json_decref(ps);
    return 0;
}
