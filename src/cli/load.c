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
