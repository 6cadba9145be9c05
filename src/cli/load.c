#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

int cli_load(const char *const *files, size_t n, struct manifest_set *out)
{
    struct err e = {{0}};
    if (manifest_load(files, n, out, &e) < 0) {
        fprintf(stderr, "%s\n", e.msg);
        return EXIT_INVALID;
    }
    if (manifest_set_errors(out) == 0)
        return EXIT_OK;
    for (size_t i = 0; i < out->n; i++) {
        for (size_t k = 0; k < out->v[i].errs.n; k++) {
            char *line = ferr_format(&out->v[i].errs.v[k]);
            fprintf(stderr, "%s: %s\n", out->v[i].source, line ? line : "(out of memory)");
            free(line);
        }
    }
    manifest_set_release(out);
    return EXIT_INVALID;
}

int cli_usage_error(const char *cmd, const char *usage, const char *msg)
{
    fprintf(stderr, "jaxset %s: %s\nusage: %s\n", cmd, msg, usage);
    return EXIT_INVALID;
}

bool cli_output_opt(int argc, char **argv, int *i, const char **fmt)
{
    const char *a = argv[*i];
    if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
        *fmt = *i + 1 < argc ? argv[++*i] : NULL;
        return true;
    }
    if (!strncmp(a, "--output=", 9)) {
        *fmt = a + 9;
        return true;
    }
    if (!strncmp(a, "-o", 2)) {
        *fmt = a + 2 + (a[2] == '=');
        return true;
    }
    return false;
}
