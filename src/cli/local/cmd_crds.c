/* jaxset crds [--runtimes] [-o yaml|json]: what jaxset ships for a cluster, embedded at build
 * time (cli/local/crds.h): the CustomResourceDefinitions its controller serves (config/crd) or,
 * with --runtimes, its training runtimes (config/runtimes), as one multi-document YAML stream
 * for `jaxset crds | kubectl apply --server-side -f -`; with -o json their documents as one
 * JSON array, as `jaxset decode` prints files (the Python SDK reads the built-in runtime so). */
#include "cli/util/cli.h"

#include <stdlib.h>
#include <string.h>

#include "cli/local/crds.h"
#include "obj/base/gz.h"
#include "obj/tree/yaml.h"

enum { OPT_RUNTIMES = 256 };

struct crds_args {
    bool runtimes, json;
};

static int on_arg(void *ctx, int code, const char *arg)
{
    struct crds_args *a = ctx;
    switch (code) {
    case OPT_RUNTIMES:
        a->runtimes = true;
        return EXIT_OK;
    case 'o':
        arg = cli_output_value(arg);
        if (strcmp(arg, "yaml") && strcmp(arg, "json"))
            return cli_usage_error("crds", "-o must be yaml or json");
        a->json = !strcmp(arg, "json");
        return EXIT_OK;
    case CLI_OPERAND:
        return cli_usage_error("crds", "takes no argument");
    default:
        return cli_usage_error("crds", "unknown option");
    }
}

/* Sets *out to the bytes of `f`, inflated (f->len of them and a 0; the caller frees it).
 * EXIT_OK, or EXIT_JOB_FAILED, said on stderr. */
static int unpack(const struct cli_file *f, char **out)
{
    struct err e = {{0}};
    char *buf = malloc(f->len + 1);
    int rc = buf ? gz_inflate(f->gz, f->gz_len, buf, f->len, &e) : err_oom(&e);
    if (rc < 0) {
        fprintf(stderr, "jaxset crds: %s: %s\n", f->name, e.msg);
        free(buf);
        return EXIT_JOB_FAILED;
    }
    buf[f->len] = '\0';
    *out = buf;
    return EXIT_OK;
}

/* Every file as it is, a "---" line between two files (and a newline ending a file that has
 * none).  EXIT_OK, or EXIT_JOB_FAILED when a file cannot be unpacked. */
static int print_yaml(FILE *out, const struct cli_file *files, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct cli_file *f = &files[i];
        char *data = NULL;
        if (unpack(f, &data) != EXIT_OK)
            return EXIT_JOB_FAILED;
        if (i > 0)
            fputs("---\n", out);
        fwrite(data, 1, f->len, out);
        if (f->len > 0 && data[f->len - 1] != '\n')
            fputc('\n', out);
        free(data);
    }
    return EXIT_OK;
}

/* Every document of the files, one JSON array on one line.  EXIT_OK, or EXIT_JOB_FAILED when
 * a file cannot be unpacked, does not decode (a build of a broken file) or memory runs out. */
static int print_json(FILE *out, const struct cli_file *files, size_t n)
{
    json_t *all = json_array();
    char *s = NULL;
    int rc = all ? EXIT_OK : EXIT_JOB_FAILED;
    for (size_t i = 0; rc == EXIT_OK && i < n; i++) {
        struct err e = {{0}};
        json_t *docs = NULL;
        char *data = NULL;
        if (unpack(&files[i], &data) != EXIT_OK) {
            rc = EXIT_JOB_FAILED;
        } else if (yaml_decode(data, files[i].len, &docs, &e) < 0) {
            fprintf(stderr, "jaxset crds: %s: %s\n", files[i].name, e.msg);
            rc = EXIT_JOB_FAILED;
        } else if (json_array_extend(all, docs) < 0) {
            rc = EXIT_JOB_FAILED;
        }
        json_decref(docs);
        free(data);
    }
    if (rc == EXIT_OK && !(s = json_dumps(all, JSON_COMPACT | JSON_ENSURE_ASCII)))
        rc = EXIT_JOB_FAILED;
    if (s)
        fprintf(out, "%s\n", s);
    free(s);
    json_decref(all);
    return rc;
}

/* The files `a` chooses, in the format it chooses.  EXIT_OK, or EXIT_JOB_FAILED when they
 * cannot be printed or stdout cannot be written. */
static int print_files(FILE *out, const struct crds_args *a)
{
    const struct cli_file *files = a->runtimes ? cli_runtimes : cli_crds;
    size_t n = a->runtimes ? cli_runtimes_n : cli_crds_n;
    int rc = EXIT_OK;
    if (a->json)
        rc = print_json(out, files, n);
    else
        rc = print_yaml(out, files, n);
    if (fflush(out) != 0 || ferror(out)) {
        perror("jaxset crds: writing the output");
        return EXIT_JOB_FAILED;
    }
    return rc;
}

int cmd_crds(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"runtimes", no_argument, NULL, OPT_RUNTIMES}, CLI_OUTPUT_LONGOPT, {0}};
    struct crds_args a = {0};
    int rc = cli_parse(argc, argv, CLI_OUTPUT_OPTS, longopts, on_arg, &a);
    return rc == EXIT_OK ? print_files(stdout, &a) : rc;
}
