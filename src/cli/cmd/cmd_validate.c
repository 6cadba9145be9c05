/* jaxset validate FILE...: checks every manifest fully, prints one summary line per job. */
#include "cli/util/cli.h"

#include <stdlib.h>
#include <string.h>

#include "api/schema/keys.h"
#include "local/run/runner.h"

static void summary(const struct manifest *m)
{
    const struct js_view *v = &m->view;
    if (m->admitted_only) { /* --cluster: a runtime alone, or the warnings say what fails */
        printf("%s: valid: %s%s\n", m->source, m->kind,
               strcmp(m->kind, "TrainJob") == 0 ? " (admitted; jaxset's controller will fail it)"
                                                : "");
        return;
    }
    long long jobs = 0, pods = 0;
    for (size_t i = 0; i < v->n_rj; i++) {
        jobs += v->rj[i].replicas;
        pods += v->rj[i].replicas * v->rj[i].pods_per_job;
    }
    printf("%s: valid: JobSet %s/%s", m->source, v->ns, v->name);
    if (strcmp(m->kind, JOBSET_KIND) != 0)
        printf(" (from %s)", m->kind);
    printf(", %zu replicated job%s, %lld job%s, %lld pod%s", v->n_rj, v->n_rj == 1 ? "" : "s",
           jobs, jobs == 1 ? "" : "s", pods, pods == 1 ? "" : "s");
    if (m->rt.flavor != JAXRT_OFF)
        printf(", JAX (%s): %lld processes, coordinator %s:%d", jaxrt_flavor_name(m->rt.flavor),
               m->rt.num_processes, m->rt.coord_host, m->rt.port);
    printf("\n");
}

struct files {
    const char **v;
    size_t n;
    bool cluster; /* --cluster: only what an API server and the controllers check */
    struct manifest_opts load; /* --validate, --strict-kinds, --feature-gates */
};

enum { OPT_CLUSTER = 256 };

static int on_arg(void *ctx, int code, const char *arg)
{
    struct files *f = ctx;
    if (code == OPT_CLUSTER) {
        f->cluster = true;
        f->load.cluster = true;
        return EXIT_OK;
    }
    int rc = cli_load_opt("validate", code, arg, &f->load);
    if (rc >= 0)
        return rc;
    if (code != CLI_OPERAND)
        return cli_usage_error("validate", "unknown option");
    f->v[f->n++] = arg;
    return EXIT_OK;
}

/* What `run` would refuse on this machine, with run's own message.  0 or EXIT_INVALID. */
static int check_local(const struct manifest *m)
{
    struct err e = {{0}};
    if (runner_check(m, &e) == 0)
        return EXIT_OK;
    fprintf(stderr, "%s: %s\n", m->source, e.msg);
    return EXIT_INVALID;
}

int cmd_validate(int argc, char **argv)
{
    static const struct option longopts[] = {{"cluster", no_argument, NULL, OPT_CLUSTER},
                                             CLI_VALIDATE_LONGOPT, CLI_STRICT_KINDS_LONGOPT,
                                             CLI_FEATURE_GATES_LONGOPT, {0}};
    struct files f = {.v = calloc((size_t)argc, sizeof(*f.v))};
    struct manifest_set s;
    if (!f.v)
        return EXIT_INVALID;
    int rc = cli_parse(argc, argv, "", longopts, on_arg, &f);
    if (rc == EXIT_OK && f.n == 0)
        rc = cli_usage_error("validate", "no file given");
    if (rc == EXIT_OK)
        rc = cli_load(f.v, f.n, &f.load, &s);
    free(f.v);
    f.v = NULL;
    if (rc != EXIT_OK)
        return rc;
    for (size_t i = 0; i < s.n; i++)
        if (f.cluster || check_local(&s.v[i]) == EXIT_OK)
            summary(&s.v[i]);
        else
            rc = EXIT_INVALID;
    manifest_set_release(&s);
    return rc;
}
