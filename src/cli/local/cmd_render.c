/* jaxset render FILE... [-o yaml|json]: what a cluster would receive for attempt 0. */
#include "cli/util/cli.h"

#include <stdlib.h>
#include <string.h>

#include "api/child/construct.h"
#include "obj/tree/yaml.h"

/* The most child Jobs render prints for one JobSet: beyond, the output is no use to read and
 * only grows (replicas is an int32). */
#define RENDER_MAX_JOBS 10000

/* Appends the JobSet, its headless Service and every child Job to `items`. */
static int render_one(const struct manifest *m, json_t *items)
{
    const struct js_view *v = &m->view;
    long long jobs = 0;
    for (size_t r = 0; r < v->n_rj; r++)
        jobs += v->rj[r].replicas;
    if (jobs > RENDER_MAX_JOBS) {
        fprintf(stderr, "%s: spec.replicatedJobs: %lld child Jobs; render prints at most %d\n",
                m->source, jobs, RENDER_MAX_JOBS);
        return -2;
    }
    json_t *js = json_deep_copy(m->jobset);
    if (!js || json_array_append_new(items, js) < 0)
        return -1;
    json_object_del(js, "status");
    if (v->dns_hostnames && json_array_append_new(items, construct_service(m->jobset, v)) < 0)
        return -1;
    json_t *pvcs = construct_pvcs(m->jobset, v);
    if (!pvcs || json_array_extend(items, pvcs) < 0) {
        json_decref(pvcs);
        return -1;
    }
    json_decref(pvcs);
    for (size_t r = 0; r < v->n_rj; r++) {
        for (long long j = 0; j < v->rj[r].replicas; j++) {
            json_t *job = construct_job_gated(m->jobset, v, &m->rt, &m->gates, r, j);
            if (!job || json_array_append_new(items, job) < 0)
                return -1;
        }
    }
    return 0;
}

static int print_items(json_t *items, int json_out)
{
    if (json_out) {
        json_t *list = json_pack("{s:s,s:s,s:O,s:{}}", "apiVersion", "v1", "kind", "List",
                                 "items", items, "metadata");
        if (!list || json_dumpf(list, stdout, JSON_INDENT(2)) < 0)
            return -1;
        putchar('\n');
        json_decref(list);
        return 0;
    }
    for (size_t i = 0; i < json_array_size(items); i++) {
        char *y = yaml_encode(json_array_get(items, i));
        if (!y)
            return -1;
        printf("---\n%s", y);
        free(y);
    }
    return 0;
}

struct render_args {
    const char **files;
    size_t n;
    int json_out;
    struct manifest_opts load; /* --validate, --strict-kinds, --feature-gates */
};

static int on_arg(void *ctx, int code, const char *arg)
{
    struct render_args *a = ctx;
    const char *fmt = code == 'o' ? cli_output_value(arg) : NULL;
    int rc = cli_load_opt("render", code, arg, &a->load);
    if (rc >= 0)
        return rc;
    switch (code) {
    case CLI_OPERAND:
        a->files[a->n++] = arg;
        return EXIT_OK;
    case 'o':
        if (!fmt || (strcmp(fmt, "yaml") != 0 && strcmp(fmt, "json") != 0))
            return cli_usage_error("render", "-o must be yaml or json");
        a->json_out = !strcmp(fmt, "json");
        return EXIT_OK;
    default:
        return cli_usage_error("render", "unknown option");
    }
}

/* A TrainJob a cluster admits but jaxset's controller would fail (manifest.h admitted_only):
 * no JobSet to show. */
static int not_rendered(const struct manifest *m)
{
    fprintf(stderr, "%s: nothing to render: jaxset's controller would fail this %s (see the "
                    "warnings)\n", m->source, m->kind);
    return -2;
}

int cmd_render(int argc, char **argv)
{
    static const struct option longopts[] = {CLI_OUTPUT_LONGOPT, CLI_VALIDATE_LONGOPT,
                                             CLI_STRICT_KINDS_LONGOPT, CLI_FEATURE_GATES_LONGOPT,
                                             {0}};
    /* what a cluster receives: the JobSet as a cluster admits it, with a warning for the
     * Jobs a cluster would refuse */
    struct render_args a = {.files = calloc((size_t)argc, sizeof(*a.files)),
                            .load = {.cluster = true}};
    if (!a.files)
        return EXIT_INVALID;
    int rc = cli_parse(argc, argv, CLI_OUTPUT_OPTS, longopts, on_arg, &a);
    if (rc == EXIT_OK && a.n == 0)
        rc = cli_usage_error("render", "no file given");
    struct manifest_set s = {0};
    if (rc == EXIT_OK)
        rc = cli_load(a.files, a.n, &a.load, &s);
    free(a.files);
    if (rc != EXIT_OK)
        return rc;
    /* what a cluster receives from these files: their ConfigMaps and Secrets as written (pods
     * read them), then each job's objects */
    json_t *items = s.objects ? json_deep_copy(s.objects) : json_array();
    int one = items ? 0 : -1;
    for (size_t i = 0; one == 0 && i < s.n; i++)
        if (!s.v[i].admitted_only)
            one = render_one(&s.v[i], items);
        else if (strcmp(s.v[i].kind, "TrainJob") == 0) /* a runtime alone: nothing to show */
            one = not_rendered(&s.v[i]);
    if (one == 0 && print_items(items, a.json_out) < 0)
        one = -1;
    if (one == -1)
        fprintf(stderr, "jaxset render: " ERR_OOM_MSG "\n");
    rc = one ? EXIT_INVALID : EXIT_OK;
    json_decref(items);
    manifest_set_release(&s);
    return rc;
}
