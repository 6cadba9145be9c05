/* jaxset crds: the CustomResourceDefinitions jaxset's controller serves, as one multi-document
 * YAML stream (the files of config/crd, embedded at build time: cli/cmd/crds.h), for
 * `jaxset crds | kubectl apply --server-side -f -`. */
#include "cli/util/cli.h"

#include "cli/cmd/crds.h"

static int on_arg(void *ctx, int code, const char *arg)
{
    (void)ctx;
    (void)arg;
    if (code == CLI_OPERAND)
        return cli_usage_error("crds", "takes no argument");
    return cli_usage_error("crds", "unknown option");
}

/* Every file as it is, a "---" line between two files (and a newline ending a file that has
 * none).  EXIT_OK, or EXIT_JOB_FAILED when stdout cannot be written. */
static int print_crds(FILE *out)
{
    for (size_t i = 0; i < cli_crds_n; i++) {
        const struct cli_file *f = &cli_crds[i];
        if (i > 0)
            fputs("---\n", out);
        fwrite(f->data, 1, f->len, out);
        if (f->len > 0 && f->data[f->len - 1] != '\n')
            fputc('\n', out);
    }
    if (fflush(out) != 0 || ferror(out)) {
        perror("jaxset crds: writing the output");
        return EXIT_JOB_FAILED;
    }
    return EXIT_OK;
}

int cmd_crds(int argc, char **argv)
{
    static const struct option longopts[] = {{0}};
    int rc = cli_parse(argc, argv, "", longopts, on_arg, NULL);
    return rc == EXIT_OK ? print_crds(stdout) : rc;
}
