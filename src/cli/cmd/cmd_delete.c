/* jaxset delete [KIND/]NAME... | --all [--cascade=background|foreground|orphan] [--force]:
 * deletes jobs from either backend (cli/backend/backend.h): from a cluster as `kubectl delete` does
 * (the propagation policy decides what happens to its child Jobs and pods), or, locally,
 * every kept run of each NAME (delete_local.c; a run still going only with --force, which
 * stops it first).  --all deletes every job of KIND (jobset by default), every run kept. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/backend/backend.h"
#include "cli/util/cli.h"
#include "obj/tree/jx.h"

#define DELETE_MAX_NAMES 64

struct delete_args {
    struct cluster c;
    const char *names[DELETE_MAX_NAMES];
    size_t n;
    bool all;
    struct backend_delete o;
};

static int on_arg(void *ctx, int code, const char *arg)
{
    static const char *const policies[] = {"Background", "Foreground", "Orphan"};
    struct delete_args *a = ctx;
    int rc = cluster_opt(&a->c, code, arg);
    if (rc != -1)
        return rc;
    switch (code) {
    case 'C':
        arg = cli_output_value(arg);
        for (size_t i = 0; i < 3; i++)
            if (!strcasecmp(arg, policies[i]) || (!i && !strcmp(arg, "true")) ||
                (i == 2 && !strcmp(arg, "false"))) {
                a->o.cascade = policies[i];
                return EXIT_OK;
            }
        return cli_usage_error("delete", "--cascade must be background, foreground or orphan");
    case 'f': a->o.force = true; return EXIT_OK;
    case 'a': a->all = true; return EXIT_OK;
    case CLI_OPERAND:
        if (a->n == DELETE_MAX_NAMES)
            return cli_usage_error("delete", "too many names");
        a->names[a->n++] = arg;
        return EXIT_OK;
    default: return cli_usage_error("delete", "unknown option");
    }
}

/* --all: every job of kind k (every run kept, locally), each in turn. */
static int delete_all(struct backend *b, const struct kc_res *k, const struct backend_delete *o)
{
    json_t *list = NULL, *it;
    size_t i;
    int rc = b->ops->list(b, k, NULL, &list), worst = EXIT_OK;
    if (rc != EXIT_OK)
        return rc;
    json_array_foreach (jx_arr(list, "items"), i, it) {
        const char *name = jx_str(jx_obj(it, "metadata"), "name");
        rc = name ? b->ops->remove(b, k, name, o) : EXIT_OK;
        worst = rc > worst ? rc : worst;
    }
    if (!json_array_size(jx_arr(list, "items")))
        fprintf(stderr, "No resources found\n");
    json_decref(list);
    return worst;
}

int cmd_delete(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLUSTER_LONGOPTS, CLUSTER_LOCAL_LONGOPT, {"cascade", required_argument, NULL, 'C'},
        {"force", no_argument, NULL, 'f'}, {"all", no_argument, NULL, 'a'}, {0}};
    struct delete_args a = {.c = cluster_new("delete"), .o = {.cascade = "Background"}};
    const struct kc_res *k[DELETE_MAX_NAMES];
    const char *name[DELETE_MAX_NAMES];
    struct backend b = {0};
    int rc = cli_parse(argc, argv, CLUSTER_SHORTOPTS, longopts, on_arg, &a), worst = EXIT_OK;
    if (rc != EXIT_OK)
        return rc;
    if (!a.n && !a.all)
        return cli_usage_error("delete", "no NAME given");
    if (a.all && a.n > 1)
        return cli_usage_error("delete", "--all takes a KIND at most, no NAME");
    if (a.all && a.n && (!(k[0] = kc_res_find(a.names[0])) || k[0]->family == JOB_KIND_OTHER))
        return cli_usage_error("delete", "--all takes a KIND: jobsets, jaxjobs or trainjobs");
    if (!a.all && (rc = cluster_job_args("delete", a.names, a.n, k, name)))
        return rc;
    if ((rc = backend_open(&b, &a.c)) != EXIT_OK)
        return rc;
    if (a.all)
        worst = delete_all(&b, a.n ? k[0] : kc_res_find("jobset"), &a.o);
    for (size_t i = 0; !a.all && i < a.n; i++) {
        rc = b.ops->remove(&b, k[i], name[i], &a.o);
        worst = rc > worst ? rc : worst;
    }
    backend_close(&b);
    return worst;
}
