/* delete_local: `delete` of a local run: every kept run of NAME (the latest, wherever --run-dir
 * put it, and those in runs/<name>/, local/store/store_prune.h store_dirs); when one is still
 * going, only with --force, which stops it as SIGTERM stops `jaxset run` (every pod the
 * kubelet's way) before its directory goes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/backend/backend_int.h"
#include "cli/backend/runs.h"
#include "cli/util/cli.h"
#include "local/store/store_prune.h"
#include "local/store/store_run.h"

/* How long --force waits for a stopped run's process (its pods' grace periods). */
#define DELETE_STOP_MS 120000

static void cannot_remove(const char *path, int err)
{
    fprintf(stderr, "jaxset delete: cannot remove %s: %s\n", path, strerror(err));
}

/* SIGTERM to the process running the run in `dir` (pid), then until it is gone; only to the
 * one holding the run's lock (store_stop), never to one that took a dead run's pid. */
static int stop_run(const char *name, const char *dir, long long pid)
{
    int rc = store_stop(dir, DELETE_STOP_MS);
    if (rc == 0 || rc == -ESRCH)
        return EXIT_OK;
    if (rc == -ETIMEDOUT)
        fprintf(stderr, "jaxset delete: the run of \"%s\" (pid %lld) did not stop within %d s\n",
                name, pid, DELETE_STOP_MS / 1000);
    else
        fprintf(stderr, "jaxset delete: cannot stop the run of \"%s\" (pid %lld): %s\n", name,
                pid, strerror(-rc));
    return EXIT_JOB_FAILED;
}

/* Stops (--force) or refuses the runs still going. */
static int stop_all(const char *name, bool force, char **dirs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        long long pid = store_dir_live_pid(dirs[i]);
        if (pid && !force) {
            fprintf(stderr, "jaxset delete: the run of \"%s\" in %s is going (pid %lld); "
                            "--force stops it first\n", name, dirs[i], pid);
            return EXIT_INVALID;
        }
        if (pid && stop_run(name, dirs[i], pid) != EXIT_OK)
            return EXIT_JOB_FAILED;
    }
    return EXIT_OK;
}

int delete_local(struct backend *b, const struct kc_res *k, const char *name,
                 const struct backend_delete *o)
{
    char **dirs = NULL;
    size_t n = 0;
    int rc = k->family == JOB_KIND_OTHER || strchr(name, '/') || !strcmp(name, ".") ||
                     !strcmp(name, "..")
                 ? -ENOENT
                 : store_dirs(name, &dirs, &n);
    if (rc == -ENOENT)
        return runs_not_found(b, "no run of \"%s\" found", name);
    rc = rc < 0 ? EXIT_JOB_FAILED : stop_all(name, o->force, dirs, n);
    for (size_t i = 0; rc == EXIT_OK && i < n; i++)
        store_remove(dirs[i], cannot_remove);
    store_dirs_free(dirs, n);
    if (rc == EXIT_OK) {
        store_remove_name(name, cannot_remove);
        printf("run \"%s\" deleted\n", name);
    }
    return rc;
}
