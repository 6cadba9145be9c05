/* jaxset get [NAME] [-o wide|json|yaml]: the runs kept on disk, newest first, or one JobSet
 * with its pods.
 *
 * -o json|yaml prints a v1 List, as `kubectl get jobset/NAME pods -o yaml` would: the JobSet
 * with its status first, then one Pod per pod of every restart attempt, oldest first
 * (cli/pods.h pods_run_list), so that the output stays objects kubectl and its tools read;
 * without NAME, a v1 List of the latest run's JobSet of every name.  The JobSets carry the
 * run's state and directory as annotations (PODS_ANN_RUN_STATE, PODS_ANN_RUN_DIR).
 *
 * With a cluster configured (cli/cluster.h) and no --local, the same command lists the
 * cluster's jobs instead: cmd_get_cluster.c. */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

#include "cli/pods.h"
#include "cli/runs.h"
#include "cli/table.h"
#include "cli/verbs.h"
#include "obj/jx.h"
#include "obj/ktime.h"
#include "obj/yaml.h"

/* The pods of the last restart attempt. */
static long long last_attempt_pods(const json_t *pods)
{
    long long last = -1, n = 0;
    const json_t *p;
    size_t i;
    json_array_foreach (pods, i, p) {
        long long a = jx_int_or(p, "restartAttempt", 0);
        if (a > last) {
            last = a;
            n = 0;
        }
        n += a == last;
    }
    return n;
}

static void row(struct table *t, const struct runs_run *r, bool wide, int64_t now)
{
    const json_t *st = jx_obj(r->jobset, "status");
    const char *term = jx_str(st, "terminalState");
    int64_t start = runs_start_ms(r), end = runs_end_ms(r, now);
    char age[RUNS_HUMAN_MAX], dur[RUNS_HUMAN_MAX];
    table_cell(t, "%s", r->name);
    table_cell(t, "%s", runs_state(r));
    table_cell(t, "%s", term ? term : "-");
    table_cell(t, "%lld", jx_int_or(st, "restarts", 0));
    table_cell(t, "%s", start ? runs_human(now - start, age) : "-");
    table_cell(t, "%s", start && end ? runs_human(end - start, dur) : "-");
    if (!wide)
        return;
    table_cell(t, "%lld", last_attempt_pods(r->pods));
    if (jx_int_or(r->run, "exitStatus", -1) >= 0)
        table_cell(t, "%lld", jx_int_or(r->run, "exitStatus", -1));
    else
        table_cell(t, "-");
    table_cell(t, "%s", r->dir);
}

static int print_table(const struct runs_run *v, size_t n, bool wide)
{
    static const char *const head[] = {"NAME", "STATE", "TERMINALSTATE", "RESTARTS", "AGE",
                                       "DURATION", "PODS", "EXIT", "RUN DIRECTORY"};
    struct table t = table_new(wide ? 9 : 6);
    int64_t now = kt_now_ms();
    for (size_t i = 0; i < t.ncol; i++)
        table_cell(&t, "%s", head[i]);
    for (size_t i = 0; i < n; i++)
        row(&t, &v[i], wide, now);
    int rc = table_print(&t, stdout, 0, 3);
    table_free(&t);
    if (rc < 0)
        fprintf(stderr, "jaxset get: out of memory\n");
    return rc < 0 ? EXIT_INVALID : EXIT_OK;
}

/* Prints `list` (taken) as JSON or YAML. */
static int print_list(json_t *list, bool json)
{
    char *y = list && !json ? yaml_encode(list) : NULL;
    int rc = EXIT_OK;
    if (!list || (!json && !y)) {
        fprintf(stderr, "jaxset get: out of memory\n");
        rc = EXIT_INVALID;
    } else if (json) {
        json_dumpf(list, stdout, JSON_INDENT(2));
        putchar('\n');
    } else {
        fputs(y, stdout);
    }
    free(y);
    json_decref(list);
    return rc;
}

/* The latest run of every JobSet as a v1 List of their JobSets, annotated as pods_run_list
 * annotates one. */
static json_t *runs_json(const struct runs_run *v, size_t n)
{
    json_t *items = json_array();
    json_t *list = json_pack("{s:s,s:s,s:o*,s:{}}", "apiVersion", "v1", "kind", "List",
                             "items", items, "metadata");
    for (size_t i = 0; list && i < n; i++) {
        json_t *one = v[i].jobset ? pods_run_list(v[i].jobset, NULL, NULL, runs_state(&v[i]),
                                                  v[i].dir)
                                  : NULL;
        json_t *js = json_array_get(jx_arr(one, "items"), 0);
        if (v[i].jobset && (!js || json_array_append(items, js) < 0)) {
            json_decref(list);
            list = NULL;
        }
        json_decref(one);
    }
    return list;
}

static int list_all(const char *fmt)
{
    struct runs_run *v = NULL;
    size_t n = 0;
    int rc = EXIT_INVALID;
    if (runs_list(&v, &n) < 0)
        rc = EXIT_INVALID;
    else if (fmt && strcmp(fmt, "wide"))
        rc = print_list(runs_json(v, n), !strcmp(fmt, "json"));
    else
        rc = print_table(v, n, fmt != NULL);
    for (size_t i = 0; i < n; i++)
        runs_free(&v[i]);
    free(v);
    return rc;
}

/* The JobSet and its pods; for a JAXJob's run, then the JAXJob with the status the run kept
 * (local/runner_state.c), created when the run started. */
static int print_objects(const struct runs_run *r, bool json)
{
    json_t *list = pods_run_list(r->jobset, r->pods, r->jobs, runs_state(r), r->dir);
    json_t *jj = json_deep_copy(jx_obj(r->run, "jaxjob"));
    if (list && jj) {
        json_t *meta = jx_obj(jj, "metadata");
        if (json_is_object(meta) && jx_str(r->run, "startTime"))
            jx_set_str(meta, "creationTimestamp", jx_str(r->run, "startTime"));
        json_array_append(jx_arr(list, "items"), jj);
    }
    json_decref(jj);
    return print_list(list, json);
}

static int show(const char *name, const char *fmt)
{
    struct runs_run r;
    int rc = EXIT_INVALID;
    if (runs_load(name, &r) < 0) {
        fprintf(stderr, "jaxset get: no run of \"%s\" found\n", name);
        return EXIT_INVALID;
    }
    if (fmt && strcmp(fmt, "wide") && !r.jobset)
        fprintf(stderr, "jaxset get: %s/jobset.json is unreadable\n", r.dir);
    else if (fmt && strcmp(fmt, "wide"))
        rc = print_objects(&r, !strcmp(fmt, "json"));
    else
        rc = print_table(&r, 1, fmt != NULL);
    runs_free(&r);
    return rc;
}

enum { OPT_ALL = 256 };

static int on_arg(void *ctx, int code, const char *arg)
{
    struct get_args *a = ctx;
    int rc = cluster_opt(&a->c, code, arg);
    if (rc != -1)
        return rc;
    switch (code) {
    case 'w':
        a->watch = true;
        return EXIT_OK;
    case OPT_ALL:
        a->all = true;
        return EXIT_OK;
    case 'A':
        a->all_ns = true;
        return EXIT_OK;
    case 'l':
        a->selector = arg;
        return EXIT_OK;
    case 'o':
        a->fmt = cli_output_value(arg);
        return EXIT_OK;
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
    static const struct option longopts[] = {
        CLI_OUTPUT_LONGOPT, CLUSTER_LONGOPTS, CLUSTER_LOCAL_LONGOPT,
        {"watch", no_argument, NULL, 'w'}, {"all", no_argument, NULL, OPT_ALL},
        {"all-namespaces", no_argument, NULL, 'A'}, {"selector", required_argument, NULL, 'l'},
        {0}};
    struct get_args a = {.c = cluster_new("get")};
    int rc = cli_parse(argc, argv, CLI_OUTPUT_OPTS CLUSTER_SHORTOPTS "wAl:", longopts, on_arg,
                       &a);
    const char *name = a.name, *fmt = a.fmt;
    if (rc != EXIT_OK)
        return rc;
    if (cluster_wanted(&a.c))
        return get_cluster(&a);
    if (a.watch || a.all_ns)
        return cli_usage_error("get", "-w and -A need a cluster (local runs: jaxset logs -f)");
    if (a.selector)
        return cli_usage_error("get", "-l needs a cluster");
    if (a.all && name)
        return cli_usage_error("get", "--all lists every run; no NAME with it");
    if (fmt && strcmp(fmt, "json") && strcmp(fmt, "yaml") && strcmp(fmt, "wide"))
        return cli_usage_error("get", "-o must be wide, json or yaml");
    return name ? show(name, fmt) : list_all(fmt);
}
