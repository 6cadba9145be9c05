/* jaxset logs [KIND/]NAME [POD] [--process-id N | --pod P | --replicated-job R] [-c C]
 * [--attempt N | --previous] [--since D] [--tail N] [--prefix] [-f]: the logs of a job's pods,
 * the same options in both places (cli/backend/backend.h): through the API server on a cluster
 * (logs_cluster.c), from the run directory locally (logs_local.c).  Lines are prefixed
 * "[<hostname>] " ("[<hostname>/<container>] " for pods of several containers) unless one log
 * alone of a selection is printed, and grouped by restart attempt under
 * "--- restart attempt N ---" lines when several attempts are printed. */
#include "cli/util/cli.h"

#include <limits.h>

#include "cli/backend/backend.h"

enum { OPT_ATTEMPT = 256, OPT_PROCESS_ID, OPT_POD, OPT_RJ, OPT_SINCE, OPT_TAIL, OPT_PREFIX };

struct logs_args {
    struct cluster c;
    struct backend_logs l;
    const char *pos[2];
    int n_pos;
};

static int count(const char *opt, const char *arg, long long *out)
{
    char msg[96];
    double v;
    if (cli_number(arg, false, 0, (double)LLONG_MAX, &v) == 0) {
        *out = v < (double)LLONG_MAX ? (long long)v : LLONG_MAX; /* it is 2^63 as a double */
        return EXIT_OK;
    }
    snprintf(msg, sizeof(msg), "%s takes a number: 0, 1, ...", opt);
    return cli_usage_error("logs", msg);
}

/* The options that select and cut the logs (-1 when `code` is none of them). */
static int select_arg(struct backend_logs *l, int code, const char *arg)
{
    long long ms;
    switch (code) {
    case OPT_PROCESS_ID: return count("--process-id", arg, &l->process_id);
    case OPT_TAIL: return count("--tail", arg, &l->tail);
    case OPT_ATTEMPT: return count("--attempt", arg, &l->attempt);
    case OPT_POD: l->pod = arg; return EXIT_OK;
    case OPT_RJ: l->rj = arg; return EXIT_OK;
    case 'c': l->container = arg; return EXIT_OK;
    case OPT_PREFIX: l->prefix = true; return EXIT_OK;
    case 'p': l->previous = true; return EXIT_OK;
    case 'f': l->follow = true; return EXIT_OK;
    case OPT_SINCE:
        if ((ms = cli_duration_ms(arg)) < 0)
            return cli_usage_error("logs", "--since takes a duration such as 10s, 5m or 1h");
        l->since_s = (ms + 999) / 1000;
        return EXIT_OK;
    }
    return -1;
}

static int on_arg(void *ctx, int code, const char *arg)
{
    struct logs_args *a = ctx;
    int rc = cluster_opt(&a->c, code, arg);
    if (rc == -1)
        rc = select_arg(&a->l, code, arg);
    if (rc != -1)
        return rc;
    if (code == CLI_OPERAND && a->n_pos < 2) {
        a->pos[a->n_pos++] = arg;
        return EXIT_OK;
    }
    return cli_usage_error("logs", code == CLI_OPERAND ? "too many arguments" : "unknown option");
}

/* NAME, and POD as --pod. */
static int check(struct logs_args *a)
{
    char buf[64];
    struct backend_logs *l = &a->l;
    if (a->n_pos == 0)
        return cli_usage_error("logs", "expected NAME");
    if (a->n_pos == 2 && l->pod)
        return cli_usage_error("logs", "POD and --pod both given");
    if (a->n_pos == 2)
        l->pod = a->pos[1];
    if ((l->process_id >= 0) + (l->pod != NULL) + (l->rj != NULL) > 1)
        return cli_usage_error("logs", "one of --process-id, --pod and --replicated-job");
    if (l->previous && l->attempt >= 0)
        return cli_usage_error("logs", "--attempt or --previous, not both");
    return cluster_job_arg("logs", a->pos[0], &l->k, &l->name, buf, sizeof(buf));
}

int cmd_logs(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"follow", no_argument, NULL, 'f'}, {"attempt", required_argument, NULL, OPT_ATTEMPT},
        {"process-id", required_argument, NULL, OPT_PROCESS_ID},
        {"pod", required_argument, NULL, OPT_POD},
        {"replicated-job", required_argument, NULL, OPT_RJ},
        {"since", required_argument, NULL, OPT_SINCE},
        {"tail", required_argument, NULL, OPT_TAIL},
        {"prefix", no_argument, NULL, OPT_PREFIX},
        {"previous", no_argument, NULL, 'p'},
        {"container", required_argument, NULL, 'c'},
        CLUSTER_LONGOPTS, CLUSTER_LOCAL_LONGOPT, {0}};
    struct logs_args a = {.c = cluster_new("logs"),
                          .l = {.process_id = -1, .attempt = -1, .since_s = -1, .tail = -1}};
    struct backend b = {0};
    int rc = cli_parse(argc, argv, "fc:p" CLUSTER_SHORTOPTS, longopts, on_arg, &a);
    if (rc == EXIT_OK)
        rc = check(&a);
    if (rc != EXIT_OK || (rc = backend_open(&b, &a.c)) != EXIT_OK)
        return rc;
    rc = b.ops->logs(&b, &a.l);
    backend_close(&b);
    return rc;
}
