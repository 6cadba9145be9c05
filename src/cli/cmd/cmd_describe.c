/* jaxset describe [KIND/]NAME...: what happened to a job, as `kubectl describe` shows an
 * object, from either backend (cli/backend/backend.h): on a cluster its conditions, replicated
 * jobs, restart history, Jobs, pods and events (describe_cluster.c); locally the latest run of
 * NAME with its Jobs, every pod of every restart attempt, its first failures and events
 * (describe_local.c). */
#include "cli/util/cli.h"

#include "cli/backend/backend.h"

#define DESCRIBE_MAX_NAMES 64

struct describe_args {
    struct cluster c;
    const char *names[DESCRIBE_MAX_NAMES];
    size_t n;
};

static int on_arg(void *ctx, int code, const char *arg)
{
    struct describe_args *a = ctx;
    int rc = cluster_opt(&a->c, code, arg);
    if (rc != -1)
        return rc;
    if (code != CLI_OPERAND)
        return cli_usage_error("describe", "unknown option");
    if (a->n == DESCRIBE_MAX_NAMES)
        return cli_usage_error("describe", "too many names");
    a->names[a->n++] = arg;
    return EXIT_OK;
}

int cmd_describe(int argc, char **argv)
{
    static const struct option longopts[] = {CLUSTER_LONGOPTS, CLUSTER_LOCAL_LONGOPT, {0}};
    struct describe_args a = {.c = cluster_new("describe")};
    const struct kc_res *k[DESCRIBE_MAX_NAMES];
    const char *name[DESCRIBE_MAX_NAMES];
    struct backend b = {0};
    int rc = cli_parse(argc, argv, CLUSTER_SHORTOPTS, longopts, on_arg, &a), worst = EXIT_OK;
    if (rc != EXIT_OK)
        return rc;
    if (!a.n)
        return cli_usage_error("describe", "expected NAME");
    if ((rc = cluster_job_args("describe", a.names, a.n, k, name)))
        return rc;
    if ((rc = backend_open(&b, &a.c)) != EXIT_OK)
        return rc;
    for (size_t i = 0; i < a.n; i++) { /* one after the other, a blank line between */
        if (i)
            putchar('\n');
        rc = b.ops->describe(&b, k[i], name[i]);
        worst = rc > worst ? rc : worst;
    }
    backend_close(&b);
    return worst;
}
