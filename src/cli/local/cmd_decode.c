/* jaxset decode FILE...: the documents of manifest files as one JSON array, decoded with
 * kubectl's YAML rules (obj/tree/yaml.h).  For programs that read manifests without a YAML library
 * of their own (the Python SDK reads training runtimes this way). */
#include "cli/util/cli.h"

#include <stdlib.h>

#include "obj/tree/yaml.h"

/* Prints every document of the files as one JSON array.  EXIT_OK or EXIT_INVALID. */
static int decode_all(char **files, size_t n)
{
    json_t *all = json_array();
    int rc = all ? EXIT_OK : EXIT_INVALID;
    for (size_t i = 0; rc == EXIT_OK && i < n; i++) {
        struct err e = {{0}};
        json_t *docs = NULL;
        if (yaml_decode_file(files[i], &docs, &e) < 0) {
            fprintf(stderr, "%s\n", e.msg);
            rc = EXIT_INVALID;
        } else if (json_array_extend(all, docs) < 0) {
            rc = EXIT_INVALID;
        }
        json_decref(docs);
    }
    if (rc == EXIT_OK) {
        char *s = json_dumps(all, JSON_COMPACT | JSON_ENSURE_ASCII);
        rc = s ? EXIT_OK : EXIT_INVALID;
        if (s)
            puts(s);
        free(s);
    }
    json_decref(all);
    return rc;
}

struct files {
    char **v;
    size_t n;
};

static int on_arg(void *ctx, int code, const char *arg)
{
    struct files *f = ctx;
    if (code != CLI_OPERAND)
        return cli_usage_error("decode", "unknown option");
    f->v[f->n++] = (char *)arg;
    return EXIT_OK;
}

int cmd_decode(int argc, char **argv)
{
    static const struct option longopts[] = {{0}};
    struct files f = {.v = calloc((size_t)argc, sizeof(char *))};
    if (!f.v)
        return EXIT_INVALID;
    int rc = cli_parse(argc, argv, "", longopts, on_arg, &f);
    if (rc == EXIT_OK && f.n == 0)
        rc = cli_usage_error("decode", "no file given");
    if (rc == EXIT_OK)
        rc = decode_all(f.v, f.n);
    free(f.v);
    return rc;
}
