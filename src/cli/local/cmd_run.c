/* jaxset run FILE... : validates fully, then runs the job on this machine. */
#include "cli/util/cli.h"
#include "cli/backend/backend.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "local/store/rundir.h"
#include "local/store/store_prune.h"
#include "local/run/runner.h"

struct run_args {
    const char **files;
    size_t n;
    const char *run_dir, *filter;
    int quiet, no_color, grace, restart_grace, gpus;
    bool json;                 /* --errors=json: stderr also says where the run is kept */
    bool images;               /* --images, or JAXSET_IMAGES=1 */
    long restart_ms;
    struct manifest_opts load; /* --validate, --strict-kinds, --feature-gates */
    enum runner_volumes volumes;
    const char **pvc;          /* --pvc CLAIM=PATH, n_pvc of them */
    size_t n_pvc;
};

enum {
    OPT_RUN_DIR = 256,
    OPT_FILTER,
    OPT_GRACE,
    OPT_RESTART_GRACE,
    OPT_GPUS,
    OPT_RESTART_BACKOFF,
    OPT_NO_COLOR,
    OPT_VOLUMES,
    OPT_PVC,
    OPT_IMAGES,
    OPT_ERRORS
};

static const struct option longopts[] = {
    {"run-dir", required_argument, NULL, OPT_RUN_DIR},
    {"filter", required_argument, NULL, OPT_FILTER},
    {"grace", required_argument, NULL, OPT_GRACE},
    {"restart-grace", required_argument, NULL, OPT_RESTART_GRACE},
    {"gpus", required_argument, NULL, OPT_GPUS},
    {"restart-backoff", required_argument, NULL, OPT_RESTART_BACKOFF},
    {"quiet", no_argument, NULL, 'q'},
    {"no-color", no_argument, NULL, OPT_NO_COLOR},
    {"volumes", required_argument, NULL, OPT_VOLUMES},
    {"pvc", required_argument, NULL, OPT_PVC},
    {"images", no_argument, NULL, OPT_IMAGES},
    {"errors", required_argument, NULL, OPT_ERRORS},
    CLI_VALIDATE_LONGOPT, CLI_STRICT_KINDS_LONGOPT,
    CLI_FEATURE_GATES_LONGOPT,
    {0},
};

/* A numeric option's value into a; -1 when it is not a number in range. */
static int number_opt(struct run_args *a, int code, const char *s)
{
    double v;
    if (cli_number(s, false, 0, code == OPT_RESTART_BACKOFF ? 600000 : 100000, &v) < 0)
        return -1;
    if (code == OPT_GRACE)
        a->grace = (int)v;
    else if (code == OPT_RESTART_GRACE)
        a->restart_grace = (int)v;
    else if (code == OPT_GPUS)
        a->gpus = (int)v;
    else
        a->restart_ms = (long)v;
    return 0;
}

static int on_arg(void *ctx, int code, const char *arg)
{
    struct run_args *a = ctx;
    int rc = cli_load_opt("run", code, arg, &a->load);
    if (rc >= 0)
        return rc;
    switch (code) {
    case CLI_OPERAND:
        a->files[a->n++] = arg;
        return EXIT_OK;
    case OPT_RUN_DIR:
        a->run_dir = arg;
        return *arg ? EXIT_OK : cli_usage_error("run", "--run-dir must not be empty");
    case OPT_FILTER:
        a->filter = arg;
        return EXIT_OK;
    case OPT_GRACE:
    case OPT_RESTART_GRACE:
    case OPT_GPUS:
    case OPT_RESTART_BACKOFF:
        return number_opt(a, code, arg) == 0 ? EXIT_OK : cli_bad_value("run", arg);
    case 'q':
        a->quiet = 1;
        return EXIT_OK;
    case OPT_NO_COLOR:
        a->no_color = 1;
        return EXIT_OK;
    case OPT_VOLUMES:
        if (strcmp(arg, "mount") && strcmp(arg, "skip"))
            return cli_usage_error("run", "--volumes takes mount or skip");
        a->volumes = strcmp(arg, "skip") ? RUNNER_VOLUMES_MOUNT : RUNNER_VOLUMES_SKIP;
        return EXIT_OK;
    case OPT_PVC:
        a->pvc[a->n_pvc++] = arg;
        return EXIT_OK;
    case OPT_IMAGES:
        a->images = true;
        return EXIT_OK;
    case OPT_ERRORS:
        if (strcmp(arg, "text") && strcmp(arg, "json"))
            return cli_usage_error("run", "--errors must be text or json");
        a->json = !strcmp(arg, "json");
        return EXIT_OK;
    default:
        return cli_usage_error("run", "unknown option");
    }
}

static int parse(struct run_args *a, int argc, char **argv)
{
    int rc = cli_parse(argc, argv, "q", longopts, on_arg, a);
    if (rc != EXIT_OK)
        return rc;
    return a->n ? EXIT_OK : cli_usage_error("run", "no file given");
}

/* Why the run directory could not be had; nothing was started. */
static int run_dir_error(const struct run_args *a, const char *dir, int rc)
{
    if (!a->run_dir && (rc == -ENOENT || rc == -ENAMETOOLONG))
        fprintf(stderr, "jaxset run: %s\n", rd_home_error(rc));
    else if (rc == -EEXIST)
        fprintf(stderr, "jaxset run: --run-dir %s exists and is not an empty directory: a run "
                        "never mixes with another's files\n", dir);
    else if (rc == -ENAMETOOLONG)
        fprintf(stderr, "jaxset run: --run-dir is longer than %d bytes\n", RD_DIR_MAX);
    else
        fprintf(stderr, "jaxset run: cannot create %s: %s\n", dir, strerror(-rc));
    return EXIT_INVALID;
}

/* With --errors=json, where the run is kept, for programs (docs/cli.md, "Errors for
 * programs"): one line of JSON on stderr before the first pod starts. */
static void say_run_dir(const struct manifest *m, const char *dir)
{
    json_t *o = json_pack("{s:s, s:s, s:s}", "kind", "Run", "name", m->view.name, "runDir", dir);
    char *line = o ? json_dumps(o, JSON_COMPACT) : NULL;
    fprintf(stderr, "%s\n", line ? line : "{\"kind\":\"Run\"}");
    free(line);
    json_decref(o);
}

/* A run kept with --run-dir is found by `get` and `delete` through a link in runs/<name>/
 * (best effort: without a state home it is where --run-dir says, as before). */
static int run_dir_claim(const struct manifest *m, const char *dir, char *link, size_t n,
                         char *prev, size_t prev_n)
{
    int rc = rd_claim(dir);
    if (rc == 0 && store_begin_at(m->view.name, dir, link, n, prev, prev_n) < 0)
        link[0] = 0;
    return rc;
}

static int run_one(const struct manifest *m, const struct run_args *a)
{
    char dir[PATH_MAX], prev[PATH_MAX] = "", link[PATH_MAX] = "";
    int made;
    if (a->run_dir) {
        snprintf(dir, sizeof(dir), "%s", a->run_dir); /* at most RD_DIR_MAX: rd_claim */
        made = run_dir_claim(m, a->run_dir, link, sizeof(link), prev, sizeof(prev));
    } else {
        made = store_begin(m->view.name, dir, sizeof(dir), prev, sizeof(prev));
    }
    if (made < 0)
        return run_dir_error(a, dir, made);
    if (a->json)
        say_run_dir(m, dir);
    struct runner_opts o = {.run_dir = dir, .out_fd = 1, .status_fd = 2,
                            .color = cli_color(1, a->no_color), .live = !a->quiet && isatty(2),
                            .quiet = a->quiet, .filter = a->filter, .grace_s = a->grace,
                            .restart_base_ms = a->restart_ms, .gpus = a->gpus,
                            .restart_grace_s = a->restart_grace, .volumes = a->volumes,
                            .pvc = a->pvc, .n_pvc = a->n_pvc, .images = a->images};
    struct err e = {{0}};
    int rc = runner_run(m, &o, &e);
    if (rc < 0 && (!a->run_dir || *link)) /* refused before it started: no trace left */
        store_abandon(m->view.name, a->run_dir ? link : dir, prev);
    if (rc < 0) {
        fprintf(stderr, "jaxset run: %s: %s\n", m->source, e.msg);
        return EXIT_INVALID;
    }
    return rc;
}

/* $JAXSET_KEEP_RUNS is read before anything starts: a value that is no count is refused, not
 * taken for the default or for the digits it starts with. */
static int keep_check(void)
{
    long keep;
    if (store_keep(&keep) == 0)
        return EXIT_OK;
    fprintf(stderr, "jaxset run: %s must be a number of runs to keep, 0 to %d (0 keeps every "
                    "run), not \"%s\"\n", STORE_KEEP_ENV, STORE_KEEP_MAX, getenv(STORE_KEEP_ENV));
    return EXIT_INVALID;
}

int cmd_run(int argc, char **argv)
{
    const char *img_env = getenv("JAXSET_IMAGES");
    struct run_args a = {.grace = -1, .restart_grace = -1, .gpus = -1, .restart_ms = 100,
                         .images = img_env && strcmp(img_env, "1") == 0};
    a.files = calloc((size_t)argc, sizeof(*a.files));
    a.pvc = calloc((size_t)argc, sizeof(*a.pvc));
    if (!a.files || !a.pvc) {
        free(a.files);
        free(a.pvc);
        return EXIT_INVALID;
    }
    struct manifest_set s = {0};
    int rc = parse(&a, argc, argv);
    if (rc == EXIT_OK)
        rc = keep_check();
    if (rc == EXIT_OK)
        rc = cli_load(a.files, a.n, &a.load, &s);
    if (rc == EXIT_OK && s.n != 1) {
        fprintf(stderr, "jaxset run: the files hold %zu jobs; run takes one\n", s.n);
        rc = EXIT_INVALID;
    }
    if (rc == EXIT_OK)
        rc = run_one(&s.v[0], &a);
    if (s.v)
        manifest_set_release(&s);
    free(a.files);
    free(a.pvc);
    return rc;
}
