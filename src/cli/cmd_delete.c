/* jaxset delete [KIND/]NAME [--cascade=background|foreground|orphan]: deletes a job from a
 * cluster as `kubectl delete` does (the propagation policy decides what happens to its child
 * Jobs and pods), or, locally, every kept run of NAME (the latest, wherever --run-dir put it,
 * and those in runs/<name>/): when one is still going, only with --force, which stops it as
 * SIGTERM stops `jaxset run` (every pod the kubelet's way) before its directory goes. */
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

#include "cli/cli.h"
#include "cli/cluster.h"
#include "cli/runs.h"
#include "local/rundir.h"
#include "obj/jx.h"
#include "obj/ktime.h"
#include "obj/sbuf.h"

/* How long --force waits for a stopped run's process (its pods' grace periods). */
#define DELETE_STOP_MS 120000

struct delete_args {
    struct cluster c;
    const char *name;
    const char *cascade; /* Background (kubectl's default), Foreground or Orphan */
    bool force;
};

static int delete_cluster(struct delete_args *a)
{
    const struct kc_res *k;
    const char *name;
    char buf[64], q[KC_RES_QUALIFIED_MAX];
    struct kc_cli_resp r;
    int rc = cluster_job_arg("delete", a->name, &k, &name, buf, sizeof(buf));
    if (rc != EXIT_OK || (rc = cluster_connect(&a->c)) != EXIT_OK)
        return rc;
    char *path = kc_res_path(k, a->c.ns, name, NULL);
    json_t *opts = json_pack("{s:s, s:s, s:s}", "apiVersion", "v1", "kind", "DeleteOptions",
                             "propagationPolicy", a->cascade);
    if (!path || !opts)
        rc = EXIT_CLUSTER;
    else if (cluster_request(&a->c, "DELETE", path, opts, &r) < 0)
        rc = cluster_fail(&a->c, &r);
    else
        printf("%s \"%s\" deleted\n", kc_res_qualified(k, q), name);
    if (path && opts)
        kc_cli_resp_free(&r);
    json_decref(opts);
    free(path);
    cluster_close(&a->c);
    return rc;
}

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

/* The pid of the run kept in `dir` while it runs (run.json says Running, or the process that
 * made the directory lives before run.json exists); 0 otherwise. */
static long long live_pid(const char *dir)
{
    char path[PATH_MAX + 16];
    json_t *run = json_load_file(rd_file(path, sizeof(path), dir, RD_RUN), 0, NULL);
    const char *st = jx_str(run, "state");
    long long pid = !run ? runs_dir_pid(dir)
                         : st && !strcmp(st, "Running") ? jx_int_or(run, "pid", 0) : 0;
    json_decref(run);
    return pid > 0 && !runs_pid_gone(pid) ? pid : 0;
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
static int stop_all(struct delete_args *a, char **dirs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        long long pid = live_pid(dirs[i]);
        if (pid && !a->force) {
            fprintf(stderr, "jaxset delete: the run of \"%s\" in %s is going (pid %lld); "
                            "--force stops it first\n", a->name, dirs[i], pid);
            return EXIT_INVALID;
        }
        if (pid && stop_run(a->name, pid) != EXIT_OK)
            return EXIT_JOB_FAILED;
    }
    return EXIT_OK;
}

#define DELETE_MAX_RUNS 4096

static int delete_local(struct delete_args *a)
{
    struct runs_run r;
    char home[PATH_MAX], runs[PATH_MAX + 8], name_dir[PATH_MAX * 2] = "";
    if (strchr(a->name, '/') || !strcmp(a->name, ".") || !strcmp(a->name, "..") ||
        runs_load(a->name, &r) < 0) {
        fprintf(stderr, "jaxset delete: no run of \"%s\" found\n", a->name);
        return EXIT_INVALID;
    }
    if (rd_home(home, sizeof(home)) == 0)
        snprintf(name_dir, sizeof(name_dir), "%s/%s",
                 rd_file(runs, sizeof(runs), home, RD_RUNS), a->name);
    char **dirs = calloc(DELETE_MAX_RUNS, sizeof(*dirs));
    size_t n = dirs ? run_dirs(r.dir, name_dir, dirs, DELETE_MAX_RUNS) : 0;
    int rc = dirs ? stop_all(a, dirs, n) : EXIT_JOB_FAILED;
    for (size_t i = 0; i < n; i++) {
        if (rc == EXIT_OK)
            rm_tree(dirs[i]);
        free(dirs[i]);
    }
    free(dirs);
    if (rc == EXIT_OK) {
        if (name_dir[0])
            rm_tree(name_dir);
        printf("run \"%s\" deleted\n", a->name);
    }
    runs_free(&r);
    return rc;
}

static int on_arg(void *ctx, int code, const char *arg)
{
    static const char *const policies[] = {"Background", "Foreground", "Orphan"};
    struct delete_args *a = ctx;
    int rc = cluster_opt(&a->c, code, arg);
    if (rc != -1)
        return rc;
    switch (code) {
    case 'C':
        arg = cli_output_value(arg);
        for (size_t i = 0; i < 3; i++)
            if (!strcasecmp(arg, policies[i]) || (!i && !strcmp(arg, "true")) ||
                (i == 2 && !strcmp(arg, "false"))) {
                a->cascade = policies[i];
                return EXIT_OK;
            }
        return cli_usage_error("delete", "--cascade must be background, foreground or orphan");
    case 'f': a->force = true; return EXIT_OK;
    case CLI_OPERAND:
        if (a->name)
            return cli_usage_error("delete", "one NAME only");
        a->name = arg;
        return EXIT_OK;
    default: return cli_usage_error("delete", "unknown option");
    }
}

int cmd_delete(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLUSTER_LONGOPTS, CLUSTER_LOCAL_LONGOPT, {"cascade", required_argument, NULL, 'C'},
        {"force", no_argument, NULL, 'f'}, {0}};
    struct delete_args a = {.c = cluster_new("delete"), .cascade = "Background"};
    int rc = cli_parse(argc, argv, CLUSTER_SHORTOPTS, longopts, on_arg, &a);
    if (rc != EXIT_OK)
        return rc;
    if (!a.name)
        return cli_usage_error("delete", "no NAME given");
    return cluster_wanted(&a.c) ? delete_cluster(&a) : delete_local(&a);
}
