#include "cli/util/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Prints "<prefix><source>: <error>" for each error of the list; true when one of them is an
 * unknown field. */
static bool print_errs(const char *prefix, const char *source, const struct ferr_list *l)
{
    bool unknown = false;
    for (size_t k = 0; k < l->n; k++) {
        char *line = ferr_format(&l->v[k]);
        fprintf(stderr, "%s%s: %s\n", prefix, source, line ? line : "(" ERR_OOM_MSG ")");
        free(line);
        unknown |= l->v[k].type == FERR_UNKNOWN_FIELD;
    }
    return unknown;
}

int cli_load(const char *const *files, size_t n, const struct manifest_opts *o,
             struct manifest_set *out)
{
    struct err e = {{0}};
    bool unknown = false;
    if (manifest_load_opts(files, n, o, out, &e) < 0) {
        fprintf(stderr, "%s\n", e.msg);
        return EXIT_INVALID;
    }
    for (size_t i = 0; i < out->n_skipped; i++)
        fprintf(stderr, "%s\n", out->skipped[i]);
    for (size_t i = 0; i < out->n; i++)
        print_errs("Warning: ", out->v[i].source, &out->v[i].warnings);
    if (manifest_set_errors(out) == 0)
        return EXIT_OK;
    for (size_t i = 0; i < out->n; i++)
        unknown |= print_errs("", out->v[i].source, &out->v[i].errs);
    if (unknown)
        fprintf(stderr, "(unknown fields are errors, as with kubectl's default "
                        "--validate=strict; --validate=warn or --validate=ignore accepts them)\n");
    manifest_set_release(out);
    return EXIT_INVALID;
}

/* --feature-gates VALUE: a bad value is a usage error naming the option; a GA gate set is
 * warned about, as a Kubernetes component warns. */
static int feature_gates_opt(const char *cmd, const char *arg, struct manifest_opts *load)
{
    struct err e = {{0}}, warn = {{0}};
    if (fg_set(&load->gates, arg, &e, &warn) < 0) {
        char msg[ERR_MSG_MAX + 32];
        snprintf(msg, sizeof(msg), "--feature-gates: %s", e.msg);
        return cli_usage_error(cmd, msg);
    }
    if (warn.msg[0])
        fprintf(stderr, "Warning: %s\n", warn.msg);
    return EXIT_OK;
}

int cli_load_opt(const char *cmd, int code, const char *arg, struct manifest_opts *load)
{
    if (code == CLI_OPT_FEATURE_GATES)
        return feature_gates_opt(cmd, arg, load);
    if (code == CLI_OPT_STRICT_KINDS) {
        load->strict_kinds = true;
        return EXIT_OK;
    }
    if (code != CLI_OPT_VALIDATE)
        return -1;
    return cli_validate_value(arg, &load->validate) == 0 ? EXIT_OK
                                                         : cli_usage_error(cmd, CLI_VALIDATE_BAD);
}

int cli_validate_value(const char *value, enum manifest_validate *mode)
{
    static const struct {
        const char *name;
        enum manifest_validate mode;
    } values[] = {
        {"strict", MANIFEST_VALIDATE_STRICT}, {"true", MANIFEST_VALIDATE_STRICT},
        {"warn", MANIFEST_VALIDATE_WARN},     {"ignore", MANIFEST_VALIDATE_IGNORE},
        {"false", MANIFEST_VALIDATE_IGNORE},
    };
    value = value && *value == '=' ? value + 1 : value; /* "-o=..." style, as cli_output_value */
    if (!value) {
        *mode = MANIFEST_VALIDATE_STRICT;
        return 0;
    }
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        if (strcasecmp(value, values[i].name) == 0) {
            *mode = values[i].mode;
            return 0;
        }
    }
    return -1;
}
