/* args: option parsing, --help and usage errors shared by the subcommands. */
#include "cli/util/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { CLI_HELP_CODE = 'h' };

/* The option being handled, as the user wrote it ("--grace", "-o"), for cli_bad_value. */
static char cli_flag_now[96];

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

/* Edit distance of a and b (Levenshtein), capped: names are short. */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), row[64];
    if (la >= 63 || lb >= 63)
        return 99;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[lb];
}

const char *cli_nearest(const char *word, const char *const *names, size_t n)
{
    const char *best = NULL;
    size_t best_d = strlen(word) / 3 + 1; /* at most a third of the word wrong */
    if (best_d > 2)
        best_d = 2;
    for (size_t i = 0; i < n; i++) {
        size_t d = distance(word, names[i]);
        if (d <= best_d && (!best || d < distance(word, best)))
            best = names[i];
    }
    return best;
}

/* The flag getopt just stopped on, as written (without "=value"), into out. */
static void flag_written(char **argv, int code, char out[96])
{
    const char *arg = optind > 0 ? argv[optind - 1] : "";
    if (!strncmp(arg, "--", 2) || optopt == 0)
        snprintf(out, 96, "%.*s", (int)strcspn(arg, "="), arg);
    else
        snprintf(out, 96, "-%c", optopt ? optopt : code);
}

/* An unknown flag, a flag without its value, or a value given to a flag that takes none: one
 * line naming it (and the nearest flag there is), and where the help is. */
static int flag_error(const char *cmd, int code, char **argv, const struct option *all)
{
    char flag[96];
    const char *names[64] = {0};
    size_t n = 0;
    flag_written(argv, code, flag);
    const char *why = code == CLI_MISSING ? "flag needs a value" : "unknown flag";
    for (; all[n].name && n < 64; n++)
        names[n] = all[n].name;
    const char *near = code == CLI_UNKNOWN && !strncmp(flag, "--", 2)
                           ? cli_nearest(flag + 2, names, n) : NULL;
    for (size_t i = 0; near && code == CLI_UNKNOWN && i < n; i++)
        if (!strcmp(flag + 2, names[i])) { /* it exists: a value it does not take */
            why = "flag takes no value";
            near = NULL;
        }
    fprintf(stderr, "jaxset %s: %s: %s", cmd, why, flag);
    if (near)
        fprintf(stderr, " (did you mean --%s?)", near);
    fprintf(stderr, "\nSee `jaxset %s --help`.\n", cmd);
    return EXIT_INVALID;
}

int cli_parse(int argc, char **argv, const char *shortopts, const struct option *longopts,
              int (*fn)(void *ctx, int code, const char *arg), void *ctx)
{
    char opts[64];
    int code, rc = 0, li;
    struct option *all = with_help(longopts);
    if (!all) {
        fprintf(stderr, "jaxset %s: " ERR_OOM_MSG "\n", argv[0]);
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
    while (rc == 0 && (li = -1, code = getopt_long(argc, argv, opts, all, &li)) != -1) {
        if (code == CLI_UNKNOWN || code == CLI_MISSING) {
            rc = flag_error(argv[0], code, argv, all);
            break;
        }
        if (li >= 0)
            snprintf(cli_flag_now, sizeof(cli_flag_now), "--%s", all[li].name);
        else
            snprintf(cli_flag_now, sizeof(cli_flag_now), "-%c", code);
        rc = fn(ctx, code, optarg);
    }
    /* after "--", getopt stops and leaves the rest from optind on */
    for (int i = optind; rc == 0 && i < argc; i++)
        rc = fn(ctx, CLI_OPERAND, argv[i]);
    free(all);
    return rc;
}

int cli_bad_value(const char *cmd, const char *value)
{
    fprintf(stderr, "jaxset %s: invalid value \"%s\" for %s\nSee `jaxset %s --help`.\n", cmd,
            value ? value : "", cli_flag_now, cmd);
    return EXIT_INVALID;
}

const char *cli_output_value(const char *arg)
{
    return arg + (arg[0] == '=');
}

int cli_usage_error(const char *cmd, const char *msg)
{
    fprintf(stderr, "jaxset %s: %s\nSee `jaxset %s --help`.\n", cmd, msg, cmd);
    return EXIT_INVALID;
}

int cli_number(const char *s, bool real, double min, double max, double *out)
{
    char *end;
    double v;
    errno = 0;
    if (real)
        v = strtod(s, &end);
    else
        v = (double)strtoll(s, &end, 10);
    if (!*s || *end || errno || !(v >= min && v <= max)) /* NaN is in no range */
        return -1;
    *out = v;
    return 0;
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
