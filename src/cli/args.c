/* args: option parsing, --help and usage errors shared by the subcommands. */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { CLI_HELP_CODE = 'h' };

/* `longopts` with --help added (malloc'd; NULL when out of memory). */
static struct option *with_help(const struct option *longopts)
{
    size_t n = 0;
    while (longopts && longopts[n].name)
        n++;
    struct option *all = calloc(n + 2, sizeof(*all));
    if (!all)
        return NULL;
    for (size_t i = 0; i < n; i++)
        all[i] = longopts[i];
    all[n] = (struct option){"help", no_argument, NULL, CLI_HELP_CODE};
    return all;
}

/* Whether -h or --help is among the options of argv, as getopt_long reads them. */
static bool wants_help(int argc, char **argv, const char *opts, const struct option *all)
{
    int code;
    optind = 0; /* a full re-initialisation (GNU and musl), whatever parsed argv before */
    opterr = 0;
    while ((code = getopt_long(argc, argv, opts, all, NULL)) != -1)
        if (code == CLI_HELP_CODE)
            return true;
    return false;
}

int cli_parse(int argc, char **argv, const char *shortopts, const struct option *longopts,
              int (*fn)(void *ctx, int code, const char *arg), void *ctx)
{
    char opts[64];
    int code, rc = 0;
    struct option *all = with_help(longopts);
    if (!all) {
        fprintf(stderr, "jaxset %s: out of memory\n", argv[0]);
        return EXIT_INVALID;
    }
    /* '-': operands come back in order as code 1; ':': a missing value is ':', not '?' */
    snprintf(opts, sizeof(opts), "-:h%s", shortopts);
    if (wants_help(argc, argv, opts, all)) {
        const struct cli_help *h = cli_help_find(argv[0]);
        if (h)
            cli_help_print(stdout, h);
        free(all);
        return CLI_HELP_SHOWN;
    }
    optind = 0;
    while (rc == 0 && (code = getopt_long(argc, argv, opts, all, NULL)) != -1)
        rc = fn(ctx, code, optarg);
    /* after "--", getopt stops and leaves the rest from optind on */
    for (int i = optind; rc == 0 && i < argc; i++)
        rc = fn(ctx, CLI_OPERAND, argv[i]);
    free(all);
    return rc;
}

const char *cli_output_value(const char *arg)
{
    return arg + (arg[0] == '=');
}

int cli_usage_error(const char *cmd, const char *msg)
{
    fprintf(stderr, "jaxset %s: %s\nusage: %s\nSee `jaxset %s --help`.\n",
            cmd, msg, cli_usage_of(cmd), cmd);
    return EXIT_INVALID;
}

/* One or more <number><unit> (ns us ms s m h), or a bare number of seconds. */
long long cli_duration_ms(const char *s)
{
    static const struct { const char *u; double ms; } units[] = {
        {"ns", 1e-6}, {"us", 1e-3}, {"ms", 1}, {"s", 1000}, {"m", 60000}, {"h", 3600000}};
    double total = 0;
    if (!s || !*s)
        return -1;
    while (*s) {
        char *end;
        double v = strtod(s, &end);
        size_t k, n = sizeof(units) / sizeof(units[0]);
        if (end == s || v < 0 || *s == '+' || *s == '-')
            return -1;
        if (!*end && total == 0)
            return (long long)(v * 1000);
        for (k = 0; k < n; k++)
            if (!strncmp(end, units[k].u, strlen(units[k].u)) &&
                !(units[k].u[0] == 'm' && end[1] == 's' && units[k].u[1] != 's'))
                break;
        if (k == n)
            return -1;
        total += v * units[k].ms;
        s = end + strlen(units[k].u);
    }
    return (long long)total;
}

bool cli_color(int fd, bool no_color)
{
    const char *env = getenv("NO_COLOR");
    return !no_color && !(env && *env) && isatty(fd);
}
