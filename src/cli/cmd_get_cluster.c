/* jaxset get against a cluster: JobSets, JAXJobs or TrainJobs as one kubectl-aligned line
 * each (NAME, STATE, RESTARTS, READY, ACTIVE, SUCCEEDED, FAILED, AGE; -o wide adds each
 * replicated job's counts), the exact objects (-o json|yaml), kubectl's `-o name`, and -w:
 * then one more line (or object) per change, from a watch. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "api/job_state.h"
#include "cli/runs.h"
#include "cli/table.h"
#include "cli/verbs.h"
#include "obj/jx.h"
#include "obj/ktime.h"
#include "obj/sbuf.h"
#include "obj/yaml.h"

enum fmt { FMT_TABLE, FMT_WIDE, FMT_JSON, FMT_YAML, FMT_NAME };

struct get {
    struct get_args *a;
    const struct kc_res *kind;
    const char *name; /* NULL: every job of the kind */
    enum fmt fmt;
    struct table t;   /* header and every row printed so far (a watch aligns with them) */
    size_t printed;   /* rows of t printed */
    int rc;
};

static const char *const head[] = {"NAME", "STATE", "RESTARTS", "READY", "ACTIVE",
                                   "SUCCEEDED", "FAILED", "AGE", "REPLICATED JOBS"};

enum counter { C_READY, C_ACTIVE, C_SUCCEEDED, C_FAILED };

static long long counter(const struct job_state_rj *r, enum counter which)
{
    switch (which) {
    case C_READY: return r->ready;
    case C_ACTIVE: return r->active;
    case C_SUCCEEDED: return r->succeeded;
    default: return r->failed;
    }
}

/* Sum of one counter over the replicated jobs ("n/replicas" when `of_replicas`); "-" when no
 * replicated job reports it. */
static void sum_cell(struct table *t, const struct job_state *v, enum counter which,
                     bool of_replicas)
{
    long long n = 0, total = 0;
    bool known = false, totals = of_replicas;
    for (size_t i = 0; i < v->n_rj; i++) {
        long long x = counter(&v->rj[i], which);
        known |= x >= 0;
        n += x > 0 ? x : 0;
        totals &= v->rj[i].replicas >= 0;
        total += v->rj[i].replicas > 0 ? v->rj[i].replicas : 0;
    }
    if (!known)
        table_cell(t, "-");
    else if (totals && v->n_rj)
        table_cell(t, "%lld/%lld", n, total);
    else
        table_cell(t, "%lld", n);
}

/* "name:ready/active/succeeded/failed,..." ('-' for a counter the kind does not keep). */
static void rj_cell(struct table *t, const struct job_state *v)
{
    struct sbuf b = SBUF_INIT;
    for (size_t i = 0; i < v->n_rj; i++) {
        const struct job_state_rj *r = &v->rj[i];
        long long c[] = {counter(r, C_READY), counter(r, C_ACTIVE), counter(r, C_SUCCEEDED),
                         counter(r, C_FAILED)};
        sb_printf(&b, "%s%s:", i ? "," : "", r->name ? r->name : "?");
        for (size_t k = 0; k < 4; k++)
            sb_printf(&b, c[k] < 0 ? "%s-" : "%s%lld", k ? "/" : "", c[k] < 0 ? 0 : c[k]);
    }
    table_cell(t, "%s", b.len ? sb_str(&b) : "-");
    sb_free(&b);
}

static void row(struct get *g, const json_t *obj)
{
    struct job_state v;
    char age[RUNS_HUMAN_MAX];
    const json_t *meta = jx_obj(obj, "metadata");
    if (job_state_read(g->kind->family, obj, &v) < 0)
        v = (struct job_state){.state = "Unknown", .restarts = -1}; /* out of memory */
    if (g->a->all_ns)
        table_cell(&g->t, "%s", jx_str(meta, "namespace") ? jx_str(meta, "namespace") : "");
    table_cell(&g->t, "%s", jx_str(meta, "name") ? jx_str(meta, "name") : "?");
    table_cell(&g->t, "%s", jx_obj(meta, "deletionTimestamp") || jx_str(meta,
               "deletionTimestamp") ? "Terminating" : v.state);
    if (v.restarts < 0)
        table_cell(&g->t, "-");
    else
        table_cell(&g->t, "%lld", v.restarts);
    sum_cell(&g->t, &v, C_READY, true);
    sum_cell(&g->t, &v, C_ACTIVE, false);
    sum_cell(&g->t, &v, C_SUCCEEDED, true);
    sum_cell(&g->t, &v, C_FAILED, false);
    table_cell(&g->t, "%s", runs_age(jx_str(meta, "creationTimestamp"), kt_now_ms(), age));
    if (g->fmt == FMT_WIDE)
        rj_cell(&g->t, &v);
    job_state_release(&v);
}

static int flush_rows(struct get *g)
{
    if (table_print_from(&g->t, stdout, 0, 3, g->printed) < 0) {
        fprintf(stderr, "jaxset get: out of memory\n");
        return EXIT_CLUSTER;
    }
    g->printed = g->t.n / g->t.ncol;
    fflush(stdout);
    return EXIT_OK;
}

/* The object with its apiVersion and kind (items of a list come without them). */
static void typed(struct get *g, json_t *obj)
{
    if (!jx_str(obj, "kind"))
        jx_set_str(obj, "kind", g->kind->kind);
    if (!jx_str(obj, "apiVersion")) {
        char av[96];
        snprintf(av, sizeof(av), "%s%s%s", g->kind->group, g->kind->group[0] ? "/" : "",
                 g->kind->version);
        jx_set_str(obj, "apiVersion", av);
    }
}

/* One object, or a v1 List, as -o json|yaml|name prints it. */
static int print_object(struct get *g, json_t *obj, bool first)
{
    char q[KC_RES_QUALIFIED_MAX];
    if (g->fmt == FMT_NAME) {
        const json_t *it;
        size_t i;
        if (!json_is_array(jx_arr(obj, "items")))
            printf("%s/%s\n", kc_res_qualified(g->kind, q), jx_str(jx_obj(obj, "metadata"), "name"));
        json_array_foreach (jx_arr(obj, "items"), i, it)
            printf("%s/%s\n", kc_res_qualified(g->kind, q), jx_str(jx_obj(it, "metadata"), "name"));
    } else if (g->fmt == FMT_JSON) {
        json_dumpf(obj, stdout, JSON_INDENT(4));
        putchar('\n');
    } else {
        char *y = yaml_encode(obj);
        if (!y)
            return EXIT_CLUSTER;
        printf("%s%s", first ? "" : "---\n", y);
        free(y);
    }
    fflush(stdout);
    return EXIT_OK;
}

/* A list answer as kubectl prints it: a v1 List of typed items. */
static json_t *as_list(struct get *g, json_t *answer)
{
    json_t *items = jx_arr(answer, "items"), *it;
    size_t i;
    json_array_foreach (items, i, it)
        typed(g, it);
    return json_pack("{s:s, s:O, s:s, s:{s:s}}", "apiVersion", "v1", "items",
                     items ? items : json_array(), "kind", "List", "metadata",
                     "resourceVersion", "");
}

static int print_initial(struct get *g, json_t *answer)
{
    const json_t *it;
    size_t i;
    if (g->fmt != FMT_TABLE && g->fmt != FMT_WIDE) {
        json_t *out = g->name ? json_incref(answer) : as_list(g, answer);
        int rc = out ? print_object(g, out, true) : EXIT_CLUSTER;
        json_decref(out);
        return rc;
    }
    if (g->a->all_ns)
        table_cell(&g->t, "NAMESPACE");
    for (size_t k = 0; k < g->t.ncol - g->a->all_ns; k++)
        table_cell(&g->t, "%s", head[k]);
    if (g->name)
        row(g, answer);
    json_array_foreach (jx_arr(answer, "items"), i, it)
        row(g, it);
    if (!g->name && g->t.n == g->t.ncol && !g->a->watch) {
        if (g->a->all_ns)
            fprintf(stderr, "No resources found\n");
        else
            fprintf(stderr, "No resources found in %s namespace.\n", g->a->c.ns);
        return EXIT_OK;
    }
    return flush_rows(g);
}

static int on_change(void *arg, const char *type, json_t *obj)
{
    struct get *g = arg;
    (void)type;
    if (g->fmt == FMT_TABLE || g->fmt == FMT_WIDE) {
        row(g, obj);
        return flush_rows(g) == EXIT_OK ? 0 : 1;
    }
    typed(g, obj);
    return print_object(g, obj, false) == EXIT_OK ? 0 : 1;
}

/* "labelSelector=<escaped>" of -l (malloc'd), or NULL when none was given (or on OOM). */
static char *label_query(const char *selector)
{
    char *esc = selector ? kc_escape(selector) : NULL;
    char *q = esc ? sb_fmt("labelSelector=%s", esc) : NULL;
    free(esc);
    return q;
}

/* The list's (or one object's) path, with -l's selector on a list. */
static char *get_path(struct get *g)
{
    char *path = kc_res_path(g->kind, g->a->all_ns ? NULL : g->a->c.ns, g->name, NULL);
    char *q = g->name ? NULL : label_query(g->a->selector), *full = NULL;
    if (!path || !q) {
        free(q);
        return path;
    }
    full = sb_fmt("%s?%s", path, q);
    free(path);
    free(q);
    return full;
}

/* -w: every change after the version printed, until interrupted. */
static int watch(struct get *g, const char *rv)
{
    struct err e = {{0}};
    char *list = kc_res_path(g->kind, g->a->all_ns ? NULL : g->a->c.ns, NULL, NULL);
    char *sel = g->name ? sb_fmt("fieldSelector=metadata.name%%3D%s", g->name)
                        : label_query(g->a->selector);
    int rc = list && (sel || (!g->name && !g->a->selector))
                 ? kc_cli_watch(g->a->c.kc, list, sel, rv, 0, on_change, g, &e)
                 : -ENOMEM;
    free(list);
    free(sel);
    if (rc < 0)
        fprintf(stderr, "jaxset get: %s\n", e.msg[0] ? e.msg : "out of memory");
    return rc < 0 ? EXIT_CLUSTER : EXIT_OK;
}

static int run(struct get *g)
{
    struct kc_cli_resp r;
    char *path = get_path(g);
    int rc = EXIT_OK;
    if (!path || cluster_request(&g->a->c, "GET", path, NULL, &r) < 0)
        rc = path ? cluster_fail(&g->a->c, &r) : EXIT_CLUSTER;
    else
        rc = print_initial(g, r.body);
    if (rc == EXIT_OK && g->a->watch)
        rc = watch(g, jx_str(jx_obj(r.body, "metadata"), "resourceVersion"));
    if (path)
        kc_cli_resp_free(&r);
    free(path);
    return rc;
}

static int parse_fmt(const char *s, enum fmt *out)
{
    static const char *const names[] = {"", "wide", "json", "yaml", "name"};
    for (size_t i = 1; s && i < 5; i++)
        if (!strcmp(s, names[i])) {
            *out = (enum fmt)i;
            return EXIT_OK;
        }
    return s ? cli_usage_error("get", "-o must be wide, json, yaml or name") : EXIT_OK;
}

static int target(struct get *g)
{
    char buf[64];
    const char *op = g->a->name;
    g->kind = kc_res_find("jobset");
    if (!op)
        return EXIT_OK;
    size_t n = strcspn(op, "/");
    if (!g->a->all && !op[n])
        return cluster_job_arg("get", op, &g->kind, &g->name, buf, sizeof(buf));
    if (g->a->all && op[n] && op[n + 1])
        return cli_usage_error("get", "--all takes a KIND, not KIND/NAME");
    snprintf(buf, sizeof(buf), "%.*s", (int)(n < 63 ? n : 63), op);
    g->kind = kc_res_find(buf);
    if (!g->kind || (g->kind->family == JOB_KIND_OTHER && (g->fmt == FMT_TABLE ||
                                                         g->fmt == FMT_WIDE))) {
        char msg[320];
        snprintf(msg, sizeof(msg), "unknown kind \"%.64s\": one of %s (with -o json, yaml or "
                 "name also pods, jobs, events, configmaps, secrets, trainingruntimes, "
                 "clustertrainingruntimes)", buf, kc_res_job_kinds());
        return cli_usage_error("get", msg);
    }
    if (g->a->all)
        return EXIT_OK;
    g->name = op + n + 1;
    return *g->name && !strchr(g->name, '/') ? EXIT_OK
                                             : cli_usage_error("get", "KIND/NAME: bad NAME");
}

int get_cluster(struct get_args *a)
{
    struct get g = {.a = a};
    int rc = parse_fmt(a->fmt, &g.fmt);
    if (rc == EXIT_OK)
        rc = target(&g);
    if (rc == EXIT_OK && a->all_ns && g.name)
        rc = cli_usage_error("get", "-A/--all-namespaces lists; no NAME with it");
    g.t = table_new((g.fmt == FMT_WIDE ? 9 : 8) + a->all_ns);
    if (rc == EXIT_OK && (rc = cluster_connect(&a->c)) == EXIT_OK) {
        rc = run(&g);
        cluster_close(&a->c);
    }
    table_free(&g.t);
    return rc;
}
