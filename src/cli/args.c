/* args: option parsing and usage errors shared by the subcommands. */
#include "cli/cli.h"

#include <stdio.h>

int cli_parse(int argc, char **argv, const char *shortopts, const struct option *longopts,
              int (*fn)(void *ctx, int code, const char *arg), void *ctx)
{
    char opts[64];
    int code, rc = 0;
    /* '-': operands come back in order as code 1; ':': a missing value is ':', not '?' */
    snprintf(opts, sizeof(opts), "-:%s", shortopts);
    optind = 0; /* a full re-initialisation (GNU and musl), whatever parsed argv before */
    opterr = 0;
    while (rc == 0 && (code = getopt_long(argc, argv, opts, longopts, NULL)) != -1)
        rc = fn(ctx, code, optarg);
    /* after "--", getopt stops and leaves the rest from optind on */
    for (int i = optind; rc == 0 && i < argc; i++)
        rc = fn(ctx, CLI_OPERAND, argv[i]);
    return rc;
}

const char *cli_output_value(const char *arg)
{
    return arg + (arg[0] == '=');
}

int cli_usage_error(const char *cmd, const char *usage, const char *msg)
{
    fprintf(stderr, "jaxset %s: %s\nusage: %s\n", cmd, msg, usage);
    return EXIT_INVALID;
}
