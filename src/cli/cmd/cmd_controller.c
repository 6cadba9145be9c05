/* jaxset controller: the JobSet controller for a Kubernetes cluster (kube/ctl.h), with
 * upstream JobSet's and controller-runtime's flag names so that a Deployment written for the Go
 * controller needs no change of arguments. */
#include "cli/util/cli.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/ctl/ctl.h"
#include "kube/client/kc_log.h"

enum {
    OPT_KUBECONFIG = 2000, OPT_CONTEXT, OPT_QPS, OPT_BURST, OPT_LEADER_ELECT, OPT_LEASE_NS,
    OPT_LEASE_ID, OPT_LEASE_DUR, OPT_RENEW, OPT_RETRY, OPT_METRICS, OPT_PROBE, OPT_LOG_LEVEL,
    OPT_LOG_FORMAT, OPT_IN_CLUSTER, OPT_MAX_PARALLEL, OPT_IDENTITY, OPT_WORKERS,
    OPT_CONTROLLERS,
    OPT_WH_ENABLE, OPT_WH_PORT, OPT_WH_HOST, OPT_WH_CERT_DIR, OPT_WH_URL_BASE, OPT_WH_SECRET,
    OPT_WH_SECRET_NS, OPT_WH_SERVICE, OPT_WH_SERVICE_NS, OPT_WH_MUTATING, OPT_WH_VALIDATING,
    OPT_WH_VALIDITY, OPT_STATUS_PORT, OPT_PLACEMENT,
};

struct ctl_args {
    struct ctl_opts o;
    const char *log_level, *log_format;
};

static int number(const char *opt, const char *arg, double *out)
{
    if (cli_number(arg, true, 0, HUGE_VAL, out) < 0) {
        char msg[128];
        snprintf(msg, sizeof(msg), "%s takes a non-negative number", opt);
        return cli_usage_error("controller", msg);
    }
    return EXIT_OK;
}

static int dur(const char *opt, const char *arg, int64_t *out)
{
    /* a Go duration: a unit is required (a bare number is seconds only for the CLI verbs) */
    size_t len = strlen(arg);
    long long ms = len && arg[len - 1] >= 'a' && arg[len - 1] <= 'z' ? cli_duration_ms(arg) : -1;
    if (ms <= 0) {
        char msg[128];
        snprintf(msg, sizeof(msg), "%s takes a duration such as 15s or 1m30s", opt);
        return cli_usage_error("controller", msg);
    }
    *out = ms;
    return EXIT_OK;
}

static int on_value(struct ctl_args *a, int code, const char *arg)
{
    double v = 0;
    int rc = EXIT_OK;
    switch (code) {
    case OPT_QPS: rc = number("--kube-api-qps", arg, &a->o.qps); break;
    case OPT_BURST:
    case OPT_MAX_PARALLEL:
    case OPT_WORKERS:
        if ((rc = number(code == OPT_BURST          ? "--kube-api-burst"
                         : code == OPT_MAX_PARALLEL ? "--max-parallel-writes"
                                                    : "--max-concurrent-reconciles",
                         arg, &v)) == EXIT_OK && (v < 1 || v > 1024))
            rc = cli_usage_error("controller", "a count must be between 1 and 1024");
        *(code == OPT_BURST          ? &a->o.burst
          : code == OPT_MAX_PARALLEL ? &a->o.max_parallel
                                     : &a->o.workers) = (int)v;
        break;
    case OPT_LEASE_DUR: rc = dur("--leader-elect-lease-duration", arg, &a->o.lease_ms); break;
    case OPT_RENEW: rc = dur("--leader-elect-renew-deadline", arg, &a->o.renew_ms); break;
    case OPT_RETRY: rc = dur("--leader-elect-retry-period", arg, &a->o.retry_ms); break;
    case OPT_WH_VALIDITY:
        if ((rc = dur("--webhook-cert-validity", arg, &a->o.webhook_cert_validity_ms)) ==
                EXIT_OK && a->o.webhook_cert_validity_ms < 8000)
            rc = cli_usage_error("controller", "--webhook-cert-validity must be at least 8s");
        break;
    case OPT_WH_PORT:
        if ((rc = number("--webhook-port", arg, &v)) == EXIT_OK && (v < 0 || v > 65535))
            rc = cli_usage_error("controller", "--webhook-port must be between 0 and 65535");
        a->o.webhook_port = (int)v;
        break;
    case OPT_STATUS_PORT:
        if ((rc = number("--status-server-port", arg, &v)) == EXIT_OK && (v < 0 || v > 65535))
            rc = cli_usage_error("controller",
                                 "--status-server-port must be between 0 and 65535");
        a->o.status_port = (int)v;
        break;
    default: return -1;
    }
    return rc;
}

/* --controllers=jobset,jaxjob,trainjob: a comma list of the controllers to run. */
static int controllers(struct ctl_args *a, const char *arg)
{
    static const struct { const char *name; unsigned kind; } names[] = {
        {"jobset", CTL_KIND_JOBSET}, {"jaxjob", CTL_KIND_JAXJOB}, {"trainjob", CTL_KIND_TRAINJOB}};
    unsigned kinds = 0;
    for (const char *p = arg; *p;) {
        size_t n = strcspn(p, ","), i;
        for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
            if (strlen(names[i].name) == n && strncmp(p, names[i].name, n) == 0)
                break;
        if (i == sizeof(names) / sizeof(names[0]))
            return cli_usage_error("controller", "--controllers takes a comma list of jobset, "
                                                 "jaxjob and trainjob");
        kinds |= names[i].kind;
        p += n + (p[n] == ',');
    }
    if (!kinds)
        return cli_usage_error("controller", "--controllers names no controller");
    a->o.kinds = kinds;
    return EXIT_OK;
}

/* --exclusive-placement=gates|webhook (api/child/placement.h). */
static int placement(struct ctl_args *a, const char *arg)
{
    if (strcmp(arg, "gates") != 0 && strcmp(arg, "webhook") != 0)
        return cli_usage_error("controller", "--exclusive-placement takes gates or webhook");
    a->o.placement_gates = strcmp(arg, "gates") == 0;
    return EXIT_OK;
}

static int gates(struct ctl_args *a, const char *arg)
{
    struct err e = {{0}}, warn = {{0}};
    if (fg_set(&a->o.gates, arg, &e, &warn) < 0)
        return cli_usage_error("controller", e.msg);
    if (warn.msg[0])
        fprintf(stderr, "jaxset controller: warning: %s\n", warn.msg);
    return EXIT_OK;
}

static int on_arg(void *ctx, int code, const char *arg)
{
    struct ctl_args *a = ctx;
    switch (code) {
    case OPT_KUBECONFIG: a->o.kcfg.kubeconfig = arg; return EXIT_OK;
    case OPT_CONTEXT: a->o.kcfg.context = arg; return EXIT_OK;
    case OPT_IN_CLUSTER: a->o.kcfg.in_cluster_only = true; return EXIT_OK;
    case OPT_LEADER_ELECT: a->o.leader_elect = !arg || strcmp(arg, "false"); return EXIT_OK;
    case OPT_LEASE_NS: a->o.lease_namespace = arg; return EXIT_OK;
    case OPT_LEASE_ID: a->o.lease_name = arg; return EXIT_OK;
    case OPT_IDENTITY: a->o.identity = arg; return EXIT_OK;
    case OPT_METRICS: a->o.metrics_addr = arg; return EXIT_OK;
    case OPT_PROBE: a->o.probe_addr = arg; return EXIT_OK;
    case OPT_LOG_LEVEL: a->log_level = arg; return EXIT_OK;
    case OPT_LOG_FORMAT: a->log_format = arg; return EXIT_OK;
    case OPT_WH_ENABLE: a->o.webhooks = !arg || strcmp(arg, "false"); return EXIT_OK;
    case OPT_WH_HOST: a->o.webhook_host = arg; return EXIT_OK;
    case OPT_WH_CERT_DIR: a->o.webhook_cert_dir = arg; return EXIT_OK;
    case OPT_WH_URL_BASE: a->o.webhook_url_base = arg; return EXIT_OK;
    case OPT_WH_SECRET: a->o.webhook_secret_name = arg; return EXIT_OK;
    case OPT_WH_SECRET_NS: a->o.webhook_secret_namespace = arg; return EXIT_OK;
    case OPT_WH_SERVICE: a->o.webhook_service_name = arg; return EXIT_OK;
    case OPT_WH_SERVICE_NS: a->o.webhook_service_namespace = arg; return EXIT_OK;
    case OPT_WH_MUTATING: a->o.webhook_mutating_name = arg; return EXIT_OK;
    case OPT_WH_VALIDATING: a->o.webhook_validating_name = arg; return EXIT_OK;
    case CLI_OPT_FEATURE_GATES: return gates(a, arg);
    case OPT_CONTROLLERS: return controllers(a, arg);
    case OPT_PLACEMENT: return placement(a, arg);
    case CLI_OPERAND: return cli_usage_error("controller", "no arguments are taken");
    }
    int rc = on_value(a, code, arg);
    return rc == -1 ? cli_usage_error("controller", "unknown option") : rc;
}

int cmd_controller(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"kubeconfig", required_argument, NULL, OPT_KUBECONFIG},
        {"context", required_argument, NULL, OPT_CONTEXT},
        {"in-cluster", no_argument, NULL, OPT_IN_CLUSTER},
        {"kube-api-qps", required_argument, NULL, OPT_QPS},
        {"kube-api-burst", required_argument, NULL, OPT_BURST},
        {"max-parallel-writes", required_argument, NULL, OPT_MAX_PARALLEL},
        {"max-concurrent-reconciles", required_argument, NULL, OPT_WORKERS},
        {"leader-elect", optional_argument, NULL, OPT_LEADER_ELECT},
        {"leader-election-namespace", required_argument, NULL, OPT_LEASE_NS},
        {"leader-election-id", required_argument, NULL, OPT_LEASE_ID},
        {"leader-elect-lease-duration", required_argument, NULL, OPT_LEASE_DUR},
        {"leader-elect-renew-deadline", required_argument, NULL, OPT_RENEW},
        {"leader-elect-retry-period", required_argument, NULL, OPT_RETRY},
        {"identity", required_argument, NULL, OPT_IDENTITY},
        {"controllers", required_argument, NULL, OPT_CONTROLLERS},
        {"metrics-bind-address", required_argument, NULL, OPT_METRICS},
        {"health-probe-bind-address", required_argument, NULL, OPT_PROBE},
        {"zap-log-level", required_argument, NULL, OPT_LOG_LEVEL},
        {"log-level", required_argument, NULL, OPT_LOG_LEVEL},
        {"zap-encoder", required_argument, NULL, OPT_LOG_FORMAT},
        {"log-format", required_argument, NULL, OPT_LOG_FORMAT},
        {"enable-webhooks", optional_argument, NULL, OPT_WH_ENABLE},
        {"webhook-port", required_argument, NULL, OPT_WH_PORT},
        {"status-server-port", required_argument, NULL, OPT_STATUS_PORT},
        {"exclusive-placement", required_argument, NULL, OPT_PLACEMENT},
        {"webhook-host", required_argument, NULL, OPT_WH_HOST},
        {"webhook-cert-dir", required_argument, NULL, OPT_WH_CERT_DIR},
        {"webhook-url-base", required_argument, NULL, OPT_WH_URL_BASE},
        {"webhook-secret-name", required_argument, NULL, OPT_WH_SECRET},
        {"webhook-secret-namespace", required_argument, NULL, OPT_WH_SECRET_NS},
        {"webhook-service-name", required_argument, NULL, OPT_WH_SERVICE},
        {"webhook-service-namespace", required_argument, NULL, OPT_WH_SERVICE_NS},
        {"webhook-mutating-configuration", required_argument, NULL, OPT_WH_MUTATING},
        {"webhook-validating-configuration", required_argument, NULL, OPT_WH_VALIDATING},
        {"webhook-cert-validity", required_argument, NULL, OPT_WH_VALIDITY},
        CLI_FEATURE_GATES_LONGOPT,
        {0}};
    struct ctl_args a = {0};
    ctl_opts_default(&a.o);
    int rc = cli_parse(argc, argv, "", longopts, on_arg, &a);
    if (rc != 0)
        return rc == CLI_HELP_SHOWN ? EXIT_OK : rc;
    if (a.o.renew_ms >= a.o.lease_ms || a.o.retry_ms >= a.o.renew_ms)
        return cli_usage_error("controller", "leader election needs retry-period < "
                                             "renew-deadline < lease-duration");
    if (kc_log_setup(a.log_format, a.log_level) < 0)
        return cli_usage_error("controller", "--log-format is text or json; --log-level is "
                                             "error, info or debug");
    struct err e = {{0}};
    if (ctl_main(&a.o, &e) < 0) {
        fprintf(stderr, "jaxset controller: %s\n", e.msg);
        return EXIT_JOB_FAILED;
    }
    return EXIT_OK;
}
