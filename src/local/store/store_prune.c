/* store_prune: the run directories of a name (see store_prune.h). */
#include "local/store/store_prune.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "local/store/rundir.h"
#include "local/store/store_run.h"
#include "obj/base/sbuf.h"

/* Digits only: strtol would take a sign, spaces, and clamp 20 digits to LONG_MAX. */
int store_keep(long *out)
{
    const char *env = getenv(STORE_KEEP_ENV);
    long n = 0;
    *out = STORE_KEEP_DEFAULT;
    if (!env || !*env)
        return 0;
    for (const char *c = env; *c; c++) {
        if (*c < '0' || *c > '9' || (n = n * 10 + (*c - '0')) > STORE_KEEP_MAX)
            return -EINVAL;
    }
    *out = n;
    return 0;
}

int store_begin(const char *name, char *out, size_t n, char *prev, size_t prev_n)
{
    long keep;
    int rc = store_keep(&keep);
    if (rc < 0 || (rc = rd_new(name, out, n)) < 0)
        return rc;
    rd_mark_latest(name, out, prev, prev_n);
    store_prune(name, keep); /* the new run is the newest: kept */
    return 0;
}

int store_begin_at(const char *name, const char *dir, char *link, size_t n, char *prev,
                   size_t prev_n)
{
    int rc = rd_link_new(name, dir, link, n);
    if (rc == 0)
        rd_mark_latest(name, link, prev, prev_n);
    return rc;
}

void store_abandon(const char *name, const char *dir, const char *prev)
{
    rd_discard(name, dir, prev);
}

void store_dirs_free(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

/* Appends path (taken) to *v; -ENOMEM (then path is freed). */
static int push(char ***v, size_t *n, char *path)
{
    char **nv = path ? realloc(*v, (*n + 1) * sizeof(**v)) : NULL;
    if (!nv) {
        free(path);
        return -ENOMEM;
    }
    *v = nv;
    (*v)[(*n)++] = path;
    return 0;
}

/* The path of entry `base` of `name_dir`, malloc'd: with `resolve`, the directory a link to a
 * run kept elsewhere points at (store_begin_at's), when there is one. */
static char *entry_path(const char *name_dir, const char *base, bool resolve)
{
    char *path = sb_fmt("%s/%s", name_dir, base), real[PATH_MAX];
    struct stat st;
    if (!resolve || !path || lstat(path, &st) < 0 || !S_ISLNK(st.st_mode) ||
        !realpath(path, real))
        return path;
    free(path);
    return strdup(real);
}

/* Every entry of runs/<name>/ but its latest link, appended to *v (resolved: entry_path). */
static int name_entries(const char *name, bool resolve, char ***v, size_t *n)
{
    char name_dir[PATH_MAX];
    if (store_name_dir(name, name_dir, sizeof(name_dir)) < 0)
        return 0; /* no state home: no runs there */
    DIR *d = opendir(name_dir);
    struct dirent *de;
    int rc = 0;
    while (rc == 0 && d && (de = readdir(d)))
        if (de->d_name[0] != '.' && strcmp(de->d_name, RD_LATEST))
            rc = push(v, n, entry_path(name_dir, de->d_name, resolve));
    if (d)
        closedir(d);
    return rc;
}

int store_dirs(const char *name, char ***out, size_t *n)
{
    char latest[PATH_MAX];
    int rc;
    *out = NULL;
    *n = 0;
    if (rd_latest(name, latest, sizeof(latest)) < 0)
        return -ENOENT;
    if ((rc = push(out, n, strdup(latest))) == 0)
        rc = name_entries(name, true, out, n);
    if (rc < 0) {
        store_dirs_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

static int by_name_desc(const void *a, const void *b)
{
    return strcmp(*(char *const *)b, *(char *const *)a);
}

void store_prune(const char *name, long keep)
{
    char **v = NULL;
    size_t n = 0;
    if (keep <= 0 || name_entries(name, false, &v, &n) < 0) {
        store_dirs_free(v, n);
        return;
    }
    if (n > 1) /* <UTC time>-<pid>: by name is by age, the newest first */
        qsort(v, n, sizeof(*v), by_name_desc);
    for (size_t i = (size_t)keep; i < n; i++)
        if (!store_dir_live_pid(v[i]))
            store_remove(v[i], NULL);
    store_dirs_free(v, n);
}

/* nftw passes no context: the removal under way (one at a time, as the CLI is). */
static struct {
    void (*on_error)(const char *path, int err);
    int rc;
} removing;

static int rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    int rc = type == FTW_DP ? rmdir(path) : unlink(path);
    if (rc < 0 && errno != ENOENT) {
        if (!removing.rc)
            removing.rc = -errno;
        if (removing.on_error)
            removing.on_error(path, errno);
    }
    return 0;
}

int store_remove(const char *dir, void (*on_error)(const char *path, int err))
{
    removing.on_error = on_error;
    removing.rc = 0;
    if (nftw(dir, rm_entry, 32, FTW_DEPTH | FTW_PHYS) < 0 && errno != ENOENT)
        return -errno;
    return removing.rc;
}

int store_remove_name(const char *name, void (*on_error)(const char *path, int err))
{
    char name_dir[PATH_MAX];
    int rc = store_name_dir(name, name_dir, sizeof(name_dir));
    return rc < 0 ? rc : store_remove(name_dir, on_error);
}
