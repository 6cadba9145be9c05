/* jaxset suspend NAME / jaxset resume NAME: flips spec.suspend of a running local run, as
 * `kubectl patch jobset NAME --type merge -p '{"spec":{"suspend":true}}'` does on a cluster.
 * Writes the run's control file, signals its supervisor (SIGUSR1: only the process holding the
 * run's lock, local/store/store_run.h store_signal) and waits until the JobSet in jobset.json
 * says so. */
#include "cli/util/cli.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "local/store/rundir.h"
#include "local/store/store_run.h"
#include "obj/tree/jx.h"

#define SUSPEND_WAIT_MS 10000

/* Why `name` has no run to flip, its latest run (in dir, "" when none) not going: 2. */
static int not_running(const char *cmd, const char *name, const char *dir)
{
    struct store_run r;
    if (!*dir || store_load_dir(name, dir, &r) < 0) {
        fprintf(stderr, "jaxset %s: no running run of \"%s\"\n", cmd, name);
        return EXIT_INVALID;
    }
    fprintf(stderr, "jaxset %s: no running run of \"%s\": its latest run is %s, not running\n",
            cmd, name, store_state_name(store_run_state(&r)));
    store_run_free(&r);
    return EXIT_INVALID;
}

static bool suspended_now(const char *dir, bool want)
{
    json_t *js = store_read(dir, RD_JOBSET);
    bool ok = js && jx_bool_or(jx_obj(js, "spec"), "suspend", false) == want;
    json_decref(js);
    return ok;
}

static int flip(const char *cmd, const char *name, bool suspend)
{
    char dir[PATH_MAX];
    if (rd_latest(name, dir, sizeof(dir)) < 0)
        return not_running(cmd, name, "");
    if (!store_dir_live_pid(dir))
        return not_running(cmd, name, dir);
    /* only to the process that holds the run's lock (store_signal): never to one that took
     * the pid run.json names after the run's process died */
    int rc = store_control(dir, suspend);
    if (rc == 0 && (rc = store_signal(dir, SIGUSR1)) == -ESRCH)
        return not_running(cmd, name, dir);
    if (rc < 0) {
        fprintf(stderr, "jaxset %s: %s: %s\n", cmd, dir, strerror(-rc));
        return EXIT_INVALID;
    }
    for (int waited = 0; waited < SUSPEND_WAIT_MS; waited += 20) {
        if (suspended_now(dir, suspend)) {
            printf("jobset %s %s\n", name, suspend ? "suspended" : "resumed");
            return EXIT_OK;
        }
        nanosleep(&(struct timespec){.tv_nsec = 20 * 1000000}, NULL);
    }
    fprintf(stderr, "jaxset %s: the run did not take the change within %d s\n", cmd,
            SUSPEND_WAIT_MS / 1000);
    return EXIT_JOB_FAILED;
}

struct name_arg {
    const char *cmd, *name;
};

static int on_arg(void *ctx, int code, const char *arg)
{
    struct name_arg *a = ctx;
    if (code != CLI_OPERAND)
        return cli_usage_error(a->cmd, "unknown option");
    if (a->name)
        return cli_usage_error(a->cmd, "more than one name");
    a->name = arg;
    return EXIT_OK;
}

static int suspend_cmd(int argc, char **argv, const char *cmd, bool suspend)
{
    static const struct option longopts[] = {{0}};
    struct name_arg a = {.cmd = cmd};
    int rc = cli_parse(argc, argv, "", longopts, on_arg, &a);
    if (rc != EXIT_OK)
        return rc;
    if (!a.name)
        return cli_usage_error(cmd, "no name given");
    return flip(cmd, a.name, suspend);
}

int cmd_suspend(int argc, char **argv)
{
    return suspend_cmd(argc, argv, "suspend", true);
}

int cmd_resume(int argc, char **argv)
{
    return suspend_cmd(argc, argv, "resume", false);
}
