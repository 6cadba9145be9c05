/* local_delete: `delete` of a local run: every kept run of NAME (the latest, wherever --run-dir
 * put it, and those in runs/<name>/); when one is still going, only with --force, which stops
 * it as SIGTERM stops `jaxset run` (every pod the kubelet's way) before its directory goes.
 * Also the retention `jaxset run` applies (local_prune). */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli/backend/backend_int.h"
#include "cli/util/cli.h"
#include "cli/backend/runs.h"
#include "local/store/rundir.h"
#include "obj/tree/jx.h"
#include "obj/base/ktime.h"
#include "obj/base/sbuf.h"

/* How long --force waits for a stopped run's process (its pods' grace periods). */
#define DELETE_STOP_MS 120000

static int rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    int rc = type == FTW_DP ? rmdir(path) : unlink(path);
    if (rc < 0 && errno != ENOENT)
        fprintf(stderr, "jaxset delete: cannot remove %s: %s\n", path, strerror(errno));
    return 0;
}

static int rm_tree(const char *dir)
{
    return nftw(dir, rm_entry, 32, FTW_DEPTH | FTW_PHYS) < 0 && errno != ENOENT ? -errno : 0;
}

/* SIGTERM to a run's process, then until it is gone. */
static int stop_run(const char *name, long long pid)
{
    if (kill((pid_t)pid, SIGTERM) < 0 && errno != ESRCH) {
        fprintf(stderr, "jaxset delete: cannot stop the run of \"%s\" (pid %lld): %s\n", name,
                pid, strerror(errno));
        return EXIT_JOB_FAILED;
    }
    const struct timespec tick = {0, 50 * 1000 * 1000};
    int64_t end = kt_mono_ms() + DELETE_STOP_MS;
    while (!runs_pid_gone(pid) && kt_mono_ms() < end)
        nanosleep(&tick, NULL);
    if (runs_pid_gone(pid))
        return EXIT_OK;
    fprintf(stderr, "jaxset delete: the run of \"%s\" (pid %lld) did not stop within %d s\n",
            name, pid, DELETE_STOP_MS / 1000);
    return EXIT_JOB_FAILED;
}

/* The pid of the run kept in `dir` while it runs (runs_live_pid); 0 otherwise. */
static long long live_pid(const char *dir)
{
    char path[PATH_MAX + 16];
    json_t *run = json_load_file(rd_file(path, sizeof(path), dir, RD_RUN), 0, NULL);
    long long pid = runs_live_pid(run, dir);
    json_decref(run);
    return pid;
}

/* Every run directory of NAME: the latest (wherever --run-dir put it), then those in
 * runs/<name>/.  Malloc'd paths in v (at most `max`); how many. */
static size_t run_dirs(const char *latest, const char *name_dir, char **v, size_t max)
{
    size_t n = 0;
    DIR *d = opendir(name_dir);
    struct dirent *de;
    if ((v[n] = strdup(latest)))
        n++;
    while (d && n < max && (de = readdir(d)))
        if (de->d_name[0] != '.' && strcmp(de->d_name, RD_LATEST) &&
            (v[n] = sb_fmt("%s/%s", name_dir, de->d_name)))
            n++;
    if (d)
        closedir(d);
    return n;
}

/* Stops (--force) or refuses the runs still going. */
static int stop_all(const char *name, bool force, char **dirs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        long long pid = live_pid(dirs[i]);
        if (pid && !force) {
            fprintf(stderr, "jaxset delete: the run of \"%s\" in %s is going (pid %lld); "
                            "--force stops it first\n", name, dirs[i], pid);
            return EXIT_INVALID;
        }
        if (pid && stop_run(name, pid) != EXIT_OK)
            return EXIT_JOB_FAILED;
    }
    return EXIT_OK;
}

#define DELETE_MAX_RUNS 4096

int local_remove(struct backend *b, const struct kc_res *k, const char *name,
                 const struct backend_delete *o)
{
    struct runs_run r;
    char home[PATH_MAX], runs[PATH_MAX + 8], name_dir[PATH_MAX * 2] = "";
    (void)b;
    if (k->family == JOB_KIND_OTHER || strchr(name, '/') || !strcmp(name, ".") ||
        !strcmp(name, "..") || runs_load(name, &r) < 0) {
        fprintf(stderr, "jaxset delete: no run of \"%s\" found\n", name);
        return EXIT_INVALID;
    }
    if (rd_home(home, sizeof(home)) == 0)
        snprintf(name_dir, sizeof(name_dir), "%s/%s",
                 rd_file(runs, sizeof(runs), home, RD_RUNS), name);
    char **dirs = calloc(DELETE_MAX_RUNS, sizeof(*dirs));
    size_t n = dirs ? run_dirs(r.dir, name_dir, dirs, DELETE_MAX_RUNS) : 0;
    int rc = dirs ? stop_all(name, o->force, dirs, n) : EXIT_JOB_FAILED;
    for (size_t i = 0; i < n; i++) {
        if (rc == EXIT_OK)
            rm_tree(dirs[i]);
        free(dirs[i]);
    }
    free(dirs);
    if (rc == EXIT_OK) {
        if (name_dir[0])
            rm_tree(name_dir);
        printf("run \"%s\" deleted\n", name);
    }
    runs_free(&r);
    return rc;
}


static int by_name_desc(const void *a, const void *b)
{
    return strcmp(*(char *const *)b, *(char *const *)a);
}

long local_keep(void)
{
    const char *env = getenv(LOCAL_KEEP_ENV);
    char *end;
    long n = env && *env ? strtol(env, &end, 10) : LOCAL_KEEP_DEFAULT;
    return env && *env && (*end || n < 0) ? LOCAL_KEEP_DEFAULT : n;
}

void local_prune(const char *name, long keep)
{
    char home[PATH_MAX], runs[PATH_MAX + 8], name_dir[PATH_MAX * 2];
    char **dirs = keep > 0 ? calloc(DELETE_MAX_RUNS, sizeof(*dirs)) : NULL;
    size_t n = 0;
    if (!dirs || rd_home(home, sizeof(home)) < 0) {
        free(dirs);
        return;
    }
    snprintf(name_dir, sizeof(name_dir), "%s/%s", rd_file(runs, sizeof(runs), home, RD_RUNS),
             name);
    n = run_dirs("", name_dir, dirs, DELETE_MAX_RUNS); /* dirs[0]: "" */
    if (n > 1) /* <UTC time>-<pid>: by name is by age, the newest first */
        qsort(dirs + 1, n - 1, sizeof(*dirs), by_name_desc);
    for (size_t i = 1; i < n; i++) {
        if ((long)i > keep && !live_pid(dirs[i]))
            rm_tree(dirs[i]);
        free(dirs[i]);
    }
    free(dirs[0]);
    free(dirs);
}
