/* jaxset run FILE... : validates fully, then runs the job on this machine. */
#include "cli/cli.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/rundir.h"
#include "local/runner.h"

static const char usage[] =
    "jaxset run FILE... [--run-dir DIR] [-q|--quiet] [--filter RJ|POD] [--grace SECONDS]\n"
    "                   [--gpus N] [--restart-backoff MS] [--no-color] " CLI_VALIDATE_USAGE;

struct run_args {
    const char **files;
    size_t n;
    const char *run_dir, *filter;
    int quiet, no_color, grace, gpus;
    long restart_ms;
    enum manifest_validate validate;
};

static int number(const char *s, long min, long max, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

/* Options that take a value; returns 1 when argv[i] was one of them (i advanced). */
static int value_opt(struct run_args *a, int argc, char **argv, int *i, int *bad)
{
    static const char *const names[] = {"--run-dir", "--filter", "--grace", "--gpus",
                                        "--restart-backoff"};
    long v = 0;
    for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
        if (strcmp(argv[*i], names[k]))
            continue;
        if (++*i == argc)
            return *bad = 1;
        const char *s = argv[*i];
        if (k == 0)
            a->run_dir = s;
        else if (k == 1)
            a->filter = s;
        else if (number(s, 0, k == 4 ? 600000 : 100000, &v) < 0)
            *bad = 1;
        else if (k == 2)
            a->grace = (int)v;
        else if (k == 3)
            a->gpus = (int)v;
        else
            a->restart_ms = v;
        return 1;
    }
    return 0;
}

static int parse(struct run_args *a, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        int bad = 0;
        bool vbad = false;
        if (value_opt(a, argc, argv, &i, &bad)) {
            if (bad)
                return cli_usage_error("run", usage, "missing or invalid option value");
        } else if (cli_validate_opt(argv[i], &a->validate, &vbad)) {
            if (vbad)
                return cli_usage_error("run", usage, CLI_VALIDATE_BAD);
        } else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
            a->quiet = 1;
        } else if (!strcmp(argv[i], "--no-color")) {
            a->no_color = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("run", usage, "unknown option");
        } else {
            a->files[a->n++] = argv[i];
        }
    }
    return a->n ? EXIT_OK : cli_usage_error("run", usage, "no file given");
}

static int run_one(const struct manifest *m, const struct run_args *a)
{
    char dir[PATH_MAX], prev[PATH_MAX] = "";
    int made = 0;
    if (a->run_dir)
        snprintf(dir, sizeof(dir), "%s", a->run_dir);
    else if ((made = rundir_new(m->view.name, dir, sizeof(dir))) == 0)
        rundir_mark_latest(m->view.name, dir, prev, sizeof(prev));
    if (made < 0) {
        fprintf(stderr, "jaxset run: cannot create %s: %s\n", dir, strerror(-made));
        return EXIT_INVALID;
    }
    struct runner_opts o = {.run_dir = dir, .out_fd = 1, .status_fd = 2,
                            .color = !a->no_color && isatty(1), .live = !a->quiet && isatty(2),
                            .quiet = a->quiet, .filter = a->filter, .grace_s = a->grace,
                            .restart_base_ms = a->restart_ms, .gpus = a->gpus,
                            .restart_grace_s = -1};
    struct err e = {{0}};
    int rc = runner_run(m, &o, &e);
    if (!a->run_dir && rc < 0) /* refused before it started: no trace left */
        rundir_discard(m->view.name, dir, prev);
    if (rc < 0) {
        fprintf(stderr, "jaxset run: %s: %s\n", m->source, e.msg);
        return EXIT_INVALID;
    }
    return rc;
}

int cmd_run(int argc, char **argv)
{
    struct run_args a = {.grace = -1, .gpus = -1, .restart_ms = 100};
    a.files = calloc((size_t)argc, sizeof(*a.files));
    if (!a.files)
        return EXIT_INVALID;
    struct manifest_set s = {0};
    int rc = parse(&a, argc, argv);
    if (rc == EXIT_OK)
        rc = cli_load(a.files, a.n, a.validate, &s);
    if (rc == EXIT_OK && s.n != 1) {
        fprintf(stderr, "jaxset run: the files hold %zu jobs; run takes one\n", s.n);
        rc = EXIT_INVALID;
    }
    if (rc == EXIT_OK)
        rc = run_one(&s.v[0], &a);
    if (s.v)
        manifest_set_release(&s);
    free(a.files);
    return rc;
}
