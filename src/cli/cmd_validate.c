/* jaxset validate FILE...: checks every manifest fully, prints one summary line per job. */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] = "jaxset validate FILE... " CLI_VALIDATE_USAGE;

static void summary(const struct manifest *m)
{
    const struct js_view *v = &m->view;
    long long jobs = 0, pods = 0;
    for (size_t i = 0; i < v->n_rj; i++) {
        jobs += v->rj[i].replicas;
        pods += v->rj[i].replicas * v->rj[i].pods_per_job;
    }
    printf("%s: valid: JobSet %s/%s", m->source, v->ns, v->name);
    if (strcmp(m->kind, "JobSet") != 0)
        printf(" (from %s)", m->kind);
    printf(", %zu replicated job%s, %lld job%s, %lld pod%s", v->n_rj, v->n_rj == 1 ? "" : "s",
           jobs, jobs == 1 ? "" : "s", pods, pods == 1 ? "" : "s");
    if (m->rt.flavor != JAXRT_OFF)
        printf(", JAX (%s): %lld processes, coordinator %s:%d", jaxrt_flavor_name(m->rt.flavor),
               m->rt.num_processes, m->rt.coord_host, m->rt.port);
    printf("\n");
}

int cmd_validate(int argc, char **argv)
{
    enum manifest_validate mode = MANIFEST_VALIDATE_STRICT;
    const char **files = calloc((size_t)argc, sizeof(*files));
    size_t n = 0;
    int rc = files ? EXIT_OK : EXIT_INVALID;
    for (int i = 1; rc == EXIT_OK && i < argc; i++) {
        bool bad = false;
        if (cli_validate_opt(argv[i], &mode, &bad))
            rc = bad ? cli_usage_error("validate", usage, CLI_VALIDATE_BAD) : EXIT_OK;
        else if (argv[i][0] == '-' && argv[i][1])
            rc = cli_usage_error("validate", usage, "unknown option");
        else
            files[n++] = argv[i];
    }
    if (rc == EXIT_OK && n == 0)
        rc = cli_usage_error("validate", usage, "no file given");
    struct manifest_set s;
    if (rc == EXIT_OK)
        rc = cli_load(files, n, mode, &s);
    free(files);
    if (rc != EXIT_OK)
        return rc;
    for (size_t i = 0; i < s.n; i++)
        summary(&s.v[i]);
    manifest_set_release(&s);
    return EXIT_OK;
}
