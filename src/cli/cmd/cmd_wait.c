/* jaxset wait [KIND/]NAME... --for=Completed|Failed|condition=TYPE[=STATUS] [--timeout D]:
 * until a job reaches a state, as `kubectl wait` (exit 0 when met), but also ends at once, with
 * 1, when the job reached the other terminal state (a Failed job will never be Completed), and
 * with 124 (timeout(1)'s status) when the time limit passed.  One front end over both backends
 * (cli/backend/backend.h); the waiting itself is cli/backend/backend.c's (verbs.h), which
 * `submit --wait` shares. */
#include "cli/util/cli.h"
#include "cli/backend/backend.h"
#include "cli/backend/verbs.h"
#include "obj/base/ktime.h"

#define WAIT_MAX_NAMES 64

struct wait_args {
    struct cluster c;
    const char *names[WAIT_MAX_NAMES];
    size_t n;
    struct backend_wait_for f;
    bool have_for;
    long long timeout_ms;
};

static int on_arg(void *ctx, int code, const char *arg)
{
    struct wait_args *a = ctx;
    int rc = cluster_opt(&a->c, code, arg);
    if (rc != -1)
        return rc;
    switch (code) {
    case 'F':
        a->have_for = true;
        return backend_wait_for_parse("wait", arg, &a->f);
    case 'T':
        if ((a->timeout_ms = cli_duration_ms(arg)) < 0)
            return cli_usage_error("wait", "--timeout takes a duration such as 30s, 10m or 0 "
                                           "(none)");
        return EXIT_OK;
    case CLI_OPERAND:
        if (a->n == WAIT_MAX_NAMES)
            return cli_usage_error("wait", "too many names");
        a->names[a->n++] = arg;
        return EXIT_OK;
    default: return cli_usage_error("wait", "unknown option");
    }
}

int cmd_wait(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLUSTER_LONGOPTS, CLUSTER_LOCAL_LONGOPT, {"for", required_argument, NULL, 'F'},
        {"timeout", required_argument, NULL, 'T'}, {0}};
    struct wait_args a = {.c = cluster_new("wait")};
    const struct kc_res *k[WAIT_MAX_NAMES];
    const char *name[WAIT_MAX_NAMES];
    struct backend b = {0};
    int rc = cli_parse(argc, argv, CLUSTER_SHORTOPTS, longopts, on_arg, &a), worst = EXIT_OK;
    if (rc != EXIT_OK)
        return rc;
    if (!a.n)
        return cli_usage_error("wait", "no NAME given");
    if ((rc = cluster_job_args("wait", a.names, a.n, k, name)))
        return rc;
    if (!a.have_for)
        backend_wait_for_parse("wait", "Completed", &a.f);
    int64_t deadline = a.timeout_ms > 0 ? kt_mono_ms() + a.timeout_ms : 0;
    if ((rc = backend_open(&b, &a.c)) != EXIT_OK)
        return rc;
    for (size_t i = 0; i < a.n; i++) { /* as kubectl: each in turn, the worst status */
        rc = backend_wait_job(&b, k[i], name[i], &a.f, deadline, false);
        worst = rc > worst ? rc : worst;
    }
    backend_close(&b);
    return worst;
}
