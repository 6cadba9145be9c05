/* jaxset render FILE... [-o yaml|json]: what a cluster would receive for attempt 0. */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

#include "api/construct.h"
#include "obj/yaml.h"

static const char usage[] = "jaxset render FILE... [-o yaml|json] " CLI_VALIDATE_USAGE;

/* Appends the JobSet, its headless Service and every child Job to `items`. */
static int render_one(const struct manifest *m, json_t *items)
{
    const struct js_view *v = &m->view;
    json_t *js = json_deep_copy(m->jobset);
    if (!js || json_array_append_new(items, js) < 0)
        return -1;
    json_object_del(js, "status");
    if (v->dns_hostnames && json_array_append_new(items, construct_service(m->jobset, v)) < 0)
        return -1;
    for (size_t r = 0; r < v->n_rj; r++) {
        for (long long j = 0; j < v->rj[r].replicas; j++) {
            json_t *job = construct_job(m->jobset, v, &m->rt, r, j);
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

static int parse_args(int argc, char **argv, int *json_out, enum manifest_validate *mode,
                      const char **files, size_t *n)
{
    for (int i = 1; i < argc; i++) {
        const char *fmt = NULL;
        bool bad = false;
        if (cli_validate_opt(argv[i], mode, &bad)) {
            if (bad)
                return cli_usage_error("render", usage, CLI_VALIDATE_BAD);
            continue;
        }
        if (!cli_output_opt(argc, argv, &i, &fmt)) {
            if (argv[i][0] == '-' && argv[i][1])
                return cli_usage_error("render", usage, "unknown option");
            files[(*n)++] = argv[i];
            continue;
        }
        if (!fmt || (strcmp(fmt, "yaml") != 0 && strcmp(fmt, "json") != 0))
            return cli_usage_error("render", usage, "-o must be yaml or json");
        *json_out = !strcmp(fmt, "json");
    }
    return *n ? EXIT_OK : cli_usage_error("render", usage, "no file given");
}

int cmd_render(int argc, char **argv)
{
    int json_out = 0;
    enum manifest_validate mode = MANIFEST_VALIDATE_STRICT;
    size_t n = 0;
    const char **files = calloc((size_t)argc, sizeof(*files));
    if (!files)
        return EXIT_INVALID;
    int rc = parse_args(argc, argv, &json_out, &mode, files, &n);
    struct manifest_set s = {0};
    if (rc == EXIT_OK)
        rc = cli_load(files, n, mode, &s);
    free(files);
    if (rc != EXIT_OK)
        return rc;
    json_t *items = json_array();
    for (size_t i = 0; rc == EXIT_OK && i < s.n; i++)
        if (!items || render_one(&s.v[i], items) < 0)
            rc = EXIT_INVALID;
    if (rc == EXIT_OK && print_items(items, json_out) < 0)
        rc = EXIT_INVALID;
    if (rc != EXIT_OK)
        fprintf(stderr, "jaxset render: out of memory\n");
    json_decref(items);
    manifest_set_release(&s);
    return rc;
}
