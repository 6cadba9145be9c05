/* jaxset config view [--minify] [-o json|yaml]: the configuration the cluster verbs would use
 * (kubeconfig files, --context, -n, or in-cluster), as `kubectl config view --minify` prints
 * it: one context, its cluster's server and the namespace in effect; nothing is sent to the
 * server and no credential is printed.  A configuration that cannot be used is one line on
 * stderr naming the file and the entry (kube/config/kc_cfg.h) and exit status 3. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/util/cli.h"
#include "cli/backend/cluster.h"
#include "obj/tree/jx.h"
#include "obj/tree/yaml.h"

struct config_args {
    struct cluster c;
    const char *verb, *fmt;
};

/* The minified Config: current-context, one context, one cluster (names "" in a cluster). */
static json_t *minified(const struct kc_cfg *cfg)
{
    const char *ctx = cfg->context ? cfg->context : "", *cl = cfg->cluster_name ? cfg->cluster_name
                                                                               : "";
    return json_pack("{s:s, s:s, s:s, s:[{s:s, s:{s:s, s:s, s:s}}], s:[{s:s, s:{s:s}}], s:[]}",
                     "apiVersion", "v1", "kind", "Config", "current-context", ctx, "contexts",
                     "name", ctx, "context", "cluster", cl, "namespace", cfg->namespace_, "user",
                     cfg->user_name ? cfg->user_name : "", "clusters", "name", cl, "cluster",
                     "server", cfg->server, "users");
}

static int print(const json_t *doc, const char *fmt)
{
    if (!strcmp(fmt, "json")) {
        json_dumpf(doc, stdout, JSON_INDENT(4));
        putchar('\n');
        return EXIT_OK;
    }
    char *y = yaml_encode(doc);
    if (!y)
        return EXIT_CLUSTER;
    fputs(y, stdout);
    free(y);
    return EXIT_OK;
}

static int view(struct config_args *a)
{
    struct kc_cfg *cfg = NULL;
    struct err e = {{0}};
    json_t *doc;
    int rc;
    if (kc_cfg_load(&a->c.k, &cfg, &e) < 0) {
        fprintf(stderr, "jaxset config: %s\n", e.msg);
        return EXIT_CLUSTER;
    }
    doc = minified(cfg);
    rc = doc ? print(doc, a->fmt) : EXIT_CLUSTER;
    json_decref(doc);
    kc_cfg_free(cfg);
    return rc;
}

static int on_arg(void *ctx, int code, const char *arg)
{
    struct config_args *a = ctx;
    int rc = cluster_opt(&a->c, code, arg);
    if (rc != -1)
        return rc;
    switch (code) {
    case 'M': return EXIT_OK; /* --minify: the only view there is */
    case 'o':
        a->fmt = cli_output_value(arg);
        if (strcmp(a->fmt, "json") && strcmp(a->fmt, "yaml"))
            return cli_usage_error("config", "-o must be json or yaml");
        return EXIT_OK;
    case CLI_OPERAND:
        if (a->verb)
            return cli_usage_error("config", "one VERB only (view)");
        a->verb = arg;
        return EXIT_OK;
    default: return cli_usage_error("config", "unknown option");
    }
}

int cmd_config(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_OUTPUT_LONGOPT, CLUSTER_LONGOPTS, {"minify", no_argument, NULL, 'M'}, {0}};
    struct config_args a = {.c = cluster_new("config"), .fmt = "yaml"};
    int rc = cli_parse(argc, argv, CLI_OUTPUT_OPTS CLUSTER_SHORTOPTS, longopts, on_arg, &a);
    if (rc != EXIT_OK)
        return rc;
    if (!a.verb || strcmp(a.verb, "view"))
        return cli_usage_error("config", "the one VERB is view");
    return view(&a);
}
