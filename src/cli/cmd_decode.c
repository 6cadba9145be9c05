/* jaxset decode FILE...: the documents of manifest files as one JSON array, decoded with
 * kubectl's YAML rules (obj/yaml.h).  For programs that read manifests without a YAML library
 * of their own (the Python SDK reads training runtimes this way). */
#include "cli/cli.h"

#include <stdlib.h>

#include "obj/yaml.h"

static const char usage[] = "jaxset decode FILE...";

int cmd_decode(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error("decode", usage, "no file given");
    for (int i = 1; i < argc; i++)
        if (argv[i][0] == '-' && argv[i][1])
            return cli_usage_error("decode", usage, "unknown option");
    json_t *all = json_array();
    int rc = all ? EXIT_OK : EXIT_INVALID;
    for (int i = 1; rc == EXIT_OK && i < argc; i++) {
        struct err e = {{0}};
        json_t *docs = NULL;
        if (yaml_decode_file(argv[i], &docs, &e) < 0) {
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
