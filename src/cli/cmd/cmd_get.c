/* jaxset get [[KIND/]NAME... | KIND --all | KIND -l SEL] [-o FMT] [-w]: jobs, a cluster's or
 * the runs of this machine (cli/backend/backend.h), printed the same way from both: a table (the
 * backend's columns, one row per job), the objects themselves (-o json|yaml: one object for
 * one NAME, else a v1 List, as kubectl), kubectl's `-o name`, or a jsonpath template; -w then
 * one more line (or object) per change until interrupted (locally: until the run ends). */
#include "cli/util/cli.h"

#include <stdlib.h>
#include <string.h>

#include "cli/backend/backend.h"
#include "cli/util/jsonpath.h"
#include "obj/tree/jx.h"
#include "obj/tree/yaml.h"

enum fmt { FMT_TABLE, FMT_WIDE, FMT_JSON, FMT_YAML, FMT_NAME, FMT_JSONPATH };

#define GET_MAX_ARGS 64

struct get_args {
    struct cluster c;
    const char *ops[GET_MAX_ARGS]; /* operands: [KIND/]NAME, or KIND with --all or -l */
    size_t n;
    const char *fmt, *tmpl;        /* -o; its jsonpath template */
    const char *selector;          /* -l */
    bool all, watch, all_ns, all_runs;
};

/* One thing asked for: an object, or (name NULL) the list of a kind. */
struct target {
    const struct kc_res *k;
    const char *name;
};

struct get {
    struct get_args *a;
    struct backend b;
    enum fmt fmt;
    struct target t[GET_MAX_ARGS];
    size_t nt;
    struct table tab; /* header and every row printed so far (a watch aligns with them) */
    size_t printed;   /* rows of tab printed */
    bool first;       /* nothing printed yet (yaml's separator) */
};

/* The object with its apiVersion and kind (items of a cluster's list come without them). */
static void typed(const struct kc_res *k, json_t *obj)
{
    if (!jx_str(obj, "kind"))
        jx_set_str(obj, "kind", k->kind);
    if (!jx_str(obj, "apiVersion")) {
        char av[96];
        snprintf(av, sizeof(av), "%s%s%s", k->group, k->group[0] ? "/" : "", k->version);
        jx_set_str(obj, "apiVersion", av);
    }
}

static void print_names(const struct kc_res *k, const json_t *obj)
{
    char q[KC_RES_QUALIFIED_MAX];
    const json_t *it;
    size_t i;
    if (!json_is_array(jx_arr(obj, "items"))) {
        const struct kc_res *of = kc_res_of(obj);
        printf("%s/%s\n", kc_res_qualified(of ? of : k, q), jx_str(jx_obj(obj, "metadata"),
                                                                    "name"));
    }
    json_array_foreach (jx_arr(obj, "items"), i, it) {
        const struct kc_res *of = kc_res_of(it);
        printf("%s/%s\n", kc_res_qualified(of ? of : k, q), jx_str(jx_obj(it, "metadata"),
                                                                    "name"));
    }
}

/* One object, or a v1 List, as -o json|yaml|name|jsonpath prints it. */
static int print_object(struct get *g, const struct kc_res *k, json_t *obj)
{
    const char *err = NULL;
    char *s = NULL;
    if (g->fmt == FMT_NAME) {
        print_names(k, obj);
    } else if (g->fmt == FMT_JSON) {
        json_dumpf(obj, stdout, JSON_INDENT(4));
        putchar('\n');
    } else if (g->fmt == FMT_JSONPATH) {
        if (!(s = jsonpath_render(g->a->tmpl, obj, &err))) {
            fprintf(stderr, "jaxset get: -o jsonpath: %s\n", err);
            return EXIT_INVALID;
        }
        fputs(s, stdout);
        if (g->a->watch)
            putchar('\n');
    } else {
        if (!(s = yaml_encode(obj))) {
            fprintf(stderr, "jaxset get: " ERR_OOM_MSG "\n");
            return EXIT_INVALID;
        }
        printf("%s%s", g->first ? "" : "---\n", s);
    }
    free(s);
    g->first = false;
    fflush(stdout);
    return EXIT_OK;
}

static int flush_rows(struct get *g)
{
    if (table_print_from(&g->tab, stdout, 0, 3, g->printed) < 0) {
        fprintf(stderr, "jaxset get: " ERR_OOM_MSG "\n");
        return EXIT_INVALID;
    }
    g->printed = g->tab.n / g->tab.ncol;
    fflush(stdout);
    return EXIT_OK;
}

static bool table(const struct get *g)
{
    return g->fmt == FMT_TABLE || g->fmt == FMT_WIDE;
}

/* What one target returns: the object (`*one`, when it names one) or its list's items
 * appended to `items`; *rv: the list's (or object's) version, for -w. */
static int fetch(struct get *g, const struct target *t, json_t *items, json_t **one,
                 char **rv)
{
    json_t *got = NULL, *it;
    size_t i;
    int rc = t->name ? g->b.ops->get(&g->b, t->k, t->name, &got)
                     : g->b.ops->list(&g->b, t->k, g->a->selector, &got);
    if (rc != EXIT_OK)
        return rc;
    const char *v = jx_str(jx_obj(got, "metadata"), "resourceVersion");
    free(*rv);
    *rv = v ? strdup(v) : NULL;
    if (t->name) {
        typed(t->k, got);
        json_decref(*one); /* several names: only one is printed alone, and none then */
        *one = json_incref(got);
        json_array_append(items, got);
    }
    json_array_foreach (jx_arr(got, "items"), i, it) {
        typed(t->k, it);
        json_array_append(items, it);
    }
    json_decref(got);
    return EXIT_OK;
}

static void header(struct get *g)
{
    const char *cols[BACKEND_COLUMNS_MAX];
    size_t n = g->b.ops->columns(&g->b, g->fmt == FMT_WIDE, cols);
    g->tab = table_new(n);
    for (size_t i = 0; i < n; i++)
        table_cell(&g->tab, "%s", cols[i]);
}

static void rows(struct get *g, const json_t *items)
{
    const json_t *it;
    size_t i;
    json_array_foreach (items, i, it) {
        const struct kc_res *k = kc_res_of(it);
        g->b.ops->row(&g->b, k ? k : g->t[0].k, it, g->fmt == FMT_WIDE, &g->tab);
    }
}

static void nothing_found(const struct get *g)
{
    if (!backend_is_cluster(&g->b))
        fprintf(stderr, "No resources found in the runs kept.\n");
    else if (g->a->all_ns)
        fprintf(stderr, "No resources found\n");
    else
        fprintf(stderr, "No resources found in %s namespace.\n", g->a->c.ns);
}

/* Prints what every target returns, as one object (one NAME) or one List. */
static int print_initial(struct get *g, char **rv)
{
    json_t *items = json_array(), *one = NULL, *list;
    int rc = items ? EXIT_OK : EXIT_INVALID, bad = EXIT_OK;
    for (size_t i = 0; rc == EXIT_OK && i < g->nt; i++)
        if ((rc = fetch(g, &g->t[i], items, &one, rv)) != EXIT_OK && g->t[i].name) {
            bad = rc; /* as kubectl: the others are printed all the same */
            rc = EXIT_OK;
        }
    if (rc == EXIT_OK && table(g)) {
        header(g);
        rows(g, items);
        if (!json_array_size(items) && !g->a->watch && bad == EXIT_OK)
            nothing_found(g);
        else if (json_array_size(items) || g->a->watch)
            rc = flush_rows(g);
    } else if (rc == EXIT_OK && g->nt == 1 && g->t[0].name) {
        rc = one ? print_object(g, g->t[0].k, one) : EXIT_OK;
    } else if (rc == EXIT_OK) {
        list = json_pack("{s:s, s:O, s:s, s:{s:s}}", "apiVersion", "v1", "items", items, "kind",
                         "List", "metadata", "resourceVersion", "");
        rc = list ? print_object(g, g->t[0].k, list) : EXIT_INVALID;
        json_decref(list);
    }
    json_decref(one);
    json_decref(items);
    return rc != EXIT_OK ? rc : bad;
}

static int on_change(void *arg, const char *type, json_t *obj)
{
    struct get *g = arg;
    (void)type;
    typed(g->t[0].k, obj);
    if (table(g)) {
        g->b.ops->row(&g->b, g->t[0].k, obj, g->fmt == FMT_WIDE, &g->tab);
        return flush_rows(g) == EXIT_OK ? 0 : 1;
    }
    return print_object(g, g->t[0].k, obj) == EXIT_OK ? 0 : 1;
}

static int run(struct get *g)
{
    char *rv = NULL;
    int rc = print_initial(g, &rv);
    if (rc == EXIT_OK && g->a->watch) {
        int w = g->b.ops->watch(&g->b, g->t[0].k, g->t[0].name, g->a->selector, rv, 0,
                                on_change, g);
        rc = w < 0 ? (backend_is_cluster(&g->b) ? EXIT_CLUSTER : EXIT_INVALID) : EXIT_OK;
    }
    free(rv);
    return rc;
}

static int parse_fmt(struct get_args *a, enum fmt *out)
{
    static const char *const names[] = {"", "wide", "json", "yaml", "name"};
    *out = FMT_TABLE;
    if (!a->fmt)
        return EXIT_OK;
    if (!strncmp(a->fmt, "jsonpath=", 9)) {
        a->tmpl = a->fmt + 9;
        *out = FMT_JSONPATH;
        return EXIT_OK;
    }
    for (size_t i = 1; i < 5; i++)
        if (!strcmp(a->fmt, names[i])) {
            *out = (enum fmt)i;
            return EXIT_OK;
        }
    return cli_usage_error("get", "-o must be wide, json, yaml, name or jsonpath=TEMPLATE");
}

static int unknown_kind(const char *word)
{
    char msg[320];
    snprintf(msg, sizeof(msg), "unknown kind \"%.64s\": one of %s (with -o json, yaml, name or "
             "jsonpath also pods, jobs, events, configmaps, secrets, trainingruntimes, "
             "clustertrainingruntimes)", word, kc_res_job_kinds());
    return cli_usage_error("get", msg);
}

/* One operand as a target. */
static int target(struct get *g, const char *op, struct target *t)
{
    char buf[64];
    size_t n = strcspn(op, "/");
    bool listing = g->a->all || g->a->selector;
    *t = (struct target){.k = kc_res_find("jobset"), .name = op};
    if (!op[n] && listing && kc_res_find(op))
        t->k = kc_res_find(op), t->name = NULL;
    else if (!op[n] && g->a->all)
        return unknown_kind(op);
    else if (op[n]) {
        snprintf(buf, sizeof(buf), "%.*s", (int)(n < 63 ? n : 63), op);
        if (!(t->k = kc_res_find(buf)))
            return unknown_kind(buf);
        t->name = op + n + 1;
        if (!*t->name || strchr(t->name, '/'))
            return cli_usage_error("get", "KIND/NAME: bad NAME");
    }
    if (!*op)
        return cli_usage_error("get", "an empty NAME");
    if (t->k->family == JOB_KIND_OTHER && table(g))
        return unknown_kind(t->k->plural);
    return EXIT_OK;
}

static int targets(struct get *g)
{
    struct get_args *a = g->a;
    int rc = EXIT_OK;
    if (!a->n)
        g->t[g->nt++] = (struct target){.k = kc_res_find("jobset")};
    for (size_t i = 0; rc == EXIT_OK && i < a->n; i++)
        rc = target(g, a->ops[i], &g->t[g->nt++]);
    if (rc != EXIT_OK)
        return rc;
    if (a->watch && g->nt > 1)
        return cli_usage_error("get", "-w watches one NAME or one KIND");
    if (a->all_ns && g->t[0].name)
        return cli_usage_error("get", "-A/--all-namespaces lists; no NAME with it");
    return EXIT_OK;
}

enum { OPT_ALL = 256, OPT_ALL_RUNS };

static int on_arg(void *ctx, int code, const char *arg)
{
    struct get_args *a = ctx;
    int rc = cluster_opt(&a->c, code, arg);
    if (rc != -1)
        return rc;
    switch (code) {
    case 'w': a->watch = true; return EXIT_OK;
    case OPT_ALL: a->all = true; return EXIT_OK;
    case OPT_ALL_RUNS: a->all_runs = true; return EXIT_OK;
    case 'A': a->all_ns = true; return EXIT_OK;
    case 'l': a->selector = arg; return EXIT_OK;
    case 'o': a->fmt = cli_output_value(arg); return EXIT_OK;
    case CLI_OPERAND:
        if (a->n == GET_MAX_ARGS)
            return cli_usage_error("get", "too many names");
        a->ops[a->n++] = arg;
        return EXIT_OK;
    default: return cli_usage_error("get", "unknown option");
    }
}

int cmd_get(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_OUTPUT_LONGOPT, CLUSTER_LONGOPTS, CLUSTER_LOCAL_LONGOPT,
        {"watch", no_argument, NULL, 'w'}, {"all", no_argument, NULL, OPT_ALL},
        {"all-runs", no_argument, NULL, OPT_ALL_RUNS},
        {"all-namespaces", no_argument, NULL, 'A'}, {"selector", required_argument, NULL, 'l'},
        {0}};
    struct get_args a = {.c = cluster_new("get")};
    struct get g = {.a = &a, .first = true};
    int rc = cli_parse(argc, argv, CLI_OUTPUT_OPTS CLUSTER_SHORTOPTS "wAl:", longopts, on_arg,
                       &a);
    if (rc == EXIT_OK)
        rc = parse_fmt(&a, &g.fmt);
    if (rc == EXIT_OK)
        rc = targets(&g);
    if (rc != EXIT_OK)
        return rc;
    g.b.all_runs = a.all_runs;
    g.b.all_ns = a.all_ns;
    if ((rc = backend_open(&g.b, &a.c)) != EXIT_OK)
        return rc;
    if (a.all_runs && backend_is_cluster(&g.b))
        rc = cli_usage_error("get", "--all-runs lists the runs this machine keeps (--local)");
    else
        rc = run(&g);
    backend_close(&g.b);
    table_free(&g.tab);
    return rc;
}
