/* jaxset get [NAME] [-o json|yaml]: the runs kept on disk, or one JobSet with its status. */
#include "cli/cli.h"

#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "local/rundir.h"
#include "obj/jx.h"
#include "obj/yaml.h"

static json_t *load(const char *dir, const char *file)
{
    char path[PATH_MAX + 64];
    return json_load_file(rd_file(path, sizeof(path), dir, file), 0, NULL);
}

/* A run whose process is gone while its state still says Running was lost (SIGKILL). */
static const char *run_state(const json_t *run)
{
    const char *st = jx_str(run, "state");
    long long pid = jx_int_or(run, "pid", 0);
    if (st && !strcmp(st, "Running") && (pid <= 0 || kill((pid_t)pid, 0) < 0))
        return "Lost";
    return st ? st : "?";
}

static void row(const char *name, const char *dir)
{
    json_t *js = load(dir, RD_JOBSET), *run = load(dir, RD_RUN);
    const json_t *st = jx_obj(js, "status");
    const char *term = jx_str(st, "terminalState");
    printf("%-32s %-12s %-13s %-8lld %s\n", name, run_state(run), term ? term : "",
           jx_int_or(st, "restarts", 0), dir);
    json_decref(js);
    json_decref(run);
}

static int list_all(void)
{
    char home[PATH_MAX], runs[PATH_MAX + 8], dir[PATH_MAX];
    rd_home(home, sizeof(home));
    rd_file(runs, sizeof(runs), home, RD_RUNS);
    DIR *d = opendir(runs);
    struct dirent *de;
    printf("%-32s %-12s %-13s %-8s %s\n", "NAME", "STATE", "TERMINALSTATE", "RESTARTS",
           "RUN DIRECTORY");
    while (d && (de = readdir(d)))
        if (de->d_name[0] != '.' && rd_latest(de->d_name, dir, sizeof(dir)) == 0)
            row(de->d_name, dir);
    if (d)
        closedir(d);
    return EXIT_OK;
}

static int show(const char *name, const char *fmt)
{
    char dir[PATH_MAX];
    if (rd_latest(name, dir, sizeof(dir)) < 0) {
        fprintf(stderr, "jaxset get: no run of \"%s\" found\n", name);
        return EXIT_INVALID;
    }
    if (!fmt) {
        printf("%-32s %-12s %-13s %-8s %s\n", "NAME", "STATE", "TERMINALSTATE", "RESTARTS",
               "RUN DIRECTORY");
        row(name, dir);
        return EXIT_OK;
    }
    json_t *js = load(dir, RD_JOBSET);
    if (!js) {
        fprintf(stderr, "jaxset get: %s/" RD_JOBSET " is unreadable\n", dir);
        return EXIT_INVALID;
    }
    if (!strcmp(fmt, "json")) {
        json_dumpf(js, stdout, JSON_INDENT(2));
        putchar('\n');
    } else {
        char *y = yaml_encode(js);
        fputs(y ? y : "", stdout);
        free(y);
    }
    json_decref(js);
    return EXIT_OK;
}

struct get_args {
    const char *name, *fmt;
};

static int on_arg(void *ctx, int code, const char *arg)
{
    struct get_args *a = ctx;
    switch (code) {
    case 'o':
        a->fmt = cli_output_value(arg);
        return EXIT_OK;
    case CLI_MISSING:
        return cli_usage_error("get", "-o needs a value");
    case CLI_OPERAND:
        if (a->name)
            return cli_usage_error("get", "more than one name");
        a->name = arg;
        return EXIT_OK;
    default:
        return cli_usage_error("get", "unknown option");
    }
}

int cmd_get(int argc, char **argv)
{
    static const struct option longopts[] = {CLI_OUTPUT_LONGOPT, {0}};
    struct get_args a = {0};
    int rc = cli_parse(argc, argv, CLI_OUTPUT_OPTS, longopts, on_arg, &a);
    const char *name = a.name, *fmt = a.fmt;
    if (rc != EXIT_OK)
        return rc;
    if (fmt && strcmp(fmt, "json") && strcmp(fmt, "yaml"))
        return cli_usage_error("get", "-o must be json or yaml");
    if (fmt && !name)
        return cli_usage_error("get", "-o needs a NAME");
    return name ? show(name, fmt) : list_all();
}
