/* cli: one file per subcommand; argument parsing and output only. */
#ifndef JX_CLI_H
#define JX_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "api/convert/manifest.h"
#include "cli/util/commands.h"

/* Exit statuses shared by every subcommand (docs/design.md, "Conventions"). */
enum {
    EXIT_OK = 0,
    EXIT_JOB_FAILED = 1,
    EXIT_INVALID = 2,
    EXIT_CLUSTER = 3,   /* the cluster could not be reached, or refused the request */
    EXIT_TIMEOUT = 124, /* `wait`: the time limit passed (as timeout(1)) */
    EXIT_INTERRUPTED = 130,
    EXIT_TERMINATED = 143,
};

/* The commands (commands.h): int cmd_<verb>(int argc, char **argv), argv[0] the verb; each
 * returns an exit status, or CLI_HELP_SHOWN. */
#define CLI_DECLARE(name, fn, where) int fn(int argc, char **argv);
CLI_COMMANDS(CLI_DECLARE)
#undef CLI_DECLARE

/* Runs the command line argv[1..] (a command, help or version) and returns the exit status.
 * Defined by dispatch.c in the module libjaxset_cluster.so only, which the binary (main.c)
 * looks up with dlopen/dlsym: the binary itself runs the local commands without it. */
int cli_main(int argc, char **argv);

/* What a command returns after printing its --help: main exits 0 for it. */
#define CLI_HELP_SHOWN (-1)

/* help.c: the one description of every command (usage, text, options, exit status). */
#define CLI_HELP_MAX_OPTS 26
struct cli_help {
    const char *name, *summary, *usage, *text, *exit;
    struct {
        const char *flags, *text;
    } opts[CLI_HELP_MAX_OPTS]; /* up to the first without flags; -h, --help is implied */
};

/* Every command's help, in `jaxset help`'s order (static): the list of cli/util/commands.h,
 * then help and version; *n gets how many. */
const struct cli_help *const *cli_help_table(size_t *n);
/* The help of `cmd` (static), or NULL when there is no such command. */
const struct cli_help *cli_help_find(const char *cmd);
/* The usage synopsis of `cmd` (static). */
const char *cli_usage_of(const char *cmd);
/* `jaxset CMD --help`: usage, description, options, exit status. */
void cli_help_print(FILE *out, const struct cli_help *h);
/* `jaxset help`: every command with its one-line summary. */
void cli_help_list(FILE *out);

/* Loads the files with `mode` (--validate); prints "<source>: <field error>" for every field
 * error and file-level errors to stderr, "Warning: <source>: <field error>" for unknown fields
 * under --validate=warn.  Returns 0 when everything is valid, EXIT_INVALID otherwise (the set is
 * then already released). */
int cli_load(const char *const *files, size_t n, const struct manifest_opts *o,
             struct manifest_set *out);

/* --strict-kinds: a document of another kind than jaxset runs is an error instead of skipped
 * with a line. */
enum { CLI_OPT_STRICT_KINDS = 1001 };
#define CLI_STRICT_KINDS_LONGOPT {"strict-kinds", no_argument, NULL, CLI_OPT_STRICT_KINDS}

/* --feature-gates=A=true,B=false: the JobSet controller's feature gates (api/jobset/features.h),
 * as a Kubernetes component takes them; the option may be repeated, values add up. */
enum { CLI_OPT_FEATURE_GATES = 1002 };
#define CLI_FEATURE_GATES_LONGOPT {"feature-gates", required_argument, NULL, CLI_OPT_FEATURE_GATES}
#define CLI_FEATURE_GATES_HELP                                                                 \
    {"--feature-gates A=BOOL,...",                                                             \
     "the JobSet controller's feature gates, as a Kubernetes component takes them: "           \
     "InPlaceRestart (restartStrategy InPlaceRestart) and RestartJob (failure-policy actions "  \
     "RestartJob, RestartJobAndIgnoreMaxRestarts) are alpha and off unless turned on; "         \
     "ElasticJobSet, TLSOptions, AllAlpha, AllBeta are known too"}

/* kubectl's --validate option: "--validate" (strict) or "--validate=VALUE" with VALUE one of
 * strict or true, warn, ignore or false (any case); "--validate VALUE" is not taken, as with
 * kubectl.  cli_validate_value takes getopt's optarg (NULL for the bare option) and returns 0
 * with *mode set, or -1 when VALUE is none of those. */
#define CLI_VALIDATE_USAGE "[--validate[=strict|warn|ignore]]"
#define CLI_VALIDATE_BAD                                                                       \
    "invalid --validate value; must be one of: strict (or true), warn, ignore (or false)"
enum { CLI_OPT_VALIDATE = 1000 };
#define CLI_VALIDATE_LONGOPT {"validate", optional_argument, NULL, CLI_OPT_VALIDATE}
int cli_validate_value(const char *value, enum manifest_validate *mode);

/* The options every command that loads manifests takes (--validate, --strict-kinds,
 * --feature-gates), for a
 * cli_parse callback: returns EXIT_OK with `load` set, EXIT_INVALID after a usage error, or -1
 * when `code` is not one of them. */
int cli_load_opt(const char *cmd, int code, const char *arg, struct manifest_opts *load);

/* The codes cli_parse hands its callback besides an option's own. */
enum {
    CLI_OPERAND = 1,   /* an operand (FILE, NAME...), in order, those after "--" included */
    CLI_MISSING = ':', /* an option without its value (cli_parse reports it, never fn) */
    CLI_UNKNOWN = '?', /* an unknown option, or a value given to one that takes none (likewise) */
};

/* Parses a subcommand's arguments (argv[0] is the subcommand) with getopt_long: options and
 * operands in any order, "--" ends the options, long options also as --name=value.  When -h or
 * --help is among the options (wherever it is, whatever else is wrong), prints the command's
 * help to stdout and returns CLI_HELP_SHOWN without calling fn.  Otherwise calls
 * fn(ctx, code, arg) for each in order: an option's code (its short letter, or the long
 * option's val) with its value (meaningless for an option that takes none), an operand with
 * CLI_OPERAND.  An unknown flag, a flag without its value or a value given to a flag that
 * takes none never reaches fn: cli_parse prints one line naming the flag as written (and the
 * nearest flag there is: "unknown flag: --gracee (did you mean --grace?)") and where the help
 * is, and returns EXIT_INVALID.  Stops at
 * fn's first nonzero return and returns it; 0 when fn took everything.  `shortopts` as for
 * getopt, without a leading '+', '-' or ':'. */
int cli_parse(int argc, char **argv, const char *shortopts, const struct option *longopts,
              int (*fn)(void *ctx, int code, const char *arg), void *ctx);

/* The -o FMT option: "-o FMT", "-oFMT", "-o=FMT", "--output FMT" and "--output=FMT". */
#define CLI_OUTPUT_OPTS "o:"
#define CLI_OUTPUT_LONGOPT {"output", required_argument, NULL, 'o'}
/* FMT from the value getopt gives -o ("=FMT" for "-o=FMT"). */
const char *cli_output_value(const char *arg);

/* The value of a numeric option, the whole of `s`: a decimal integer (strtoll's: leading
 * blanks and a sign allowed), or with `real` any number strtod reads (2.5, 1e3); within
 * [min, max] (integers exact up to 2^53).  Returns 0 with *out set, -1 when `s` is empty, has
 * more after the number, is out of range or not a number: the caller says why, in its
 * command's words. */
int cli_number(const char *s, bool real, double min, double max, double *out);

/* A Go duration ("1m30s", "250ms", "2h") or a bare number of seconds, as kubectl's
 * --request-timeout and --timeout take them: milliseconds, or -1 when unreadable. */
long long cli_duration_ms(const char *s);

/* Whether output to `fd` is coloured: only on a terminal, never with NO_COLOR set to
 * anything (no-color.org) or with the command's --no-color (`no_color`). */
bool cli_color(int fd, bool no_color);

/* Prints "jaxset <cmd>: <msg>" and, on a second line, where the command's help is (as kubectl:
 * one line that says what is wrong, not a usage dump); returns EXIT_INVALID. */
int cli_usage_error(const char *cmd, const char *msg);

/* For a cli_parse callback: the value given to the option being handled is not one it takes:
 * `jaxset CMD: invalid value "VALUE" for --flag` (the flag as written) and where the help is.
 * Returns EXIT_INVALID. */
int cli_bad_value(const char *cmd, const char *value);

/* The name of `names` nearest to `word` (Levenshtein distance, at most 2 and at most a third
 * of the word), or NULL: what "did you mean" offers. */
const char *cli_nearest(const char *word, const char *const *names, size_t n);

/* The help lines of the cluster flags every cluster command takes (cli/backend/cluster.h parses
 * them), and of --local where a command works on both backends. */
#define CLUSTER_HELP                                                                           \
    {"--kubeconfig FILE", "only this kubeconfig file (else KUBECONFIG, ~/.kube/config, then "  \
                          "the in-cluster service account)"},                                 \
        {"--context NAME", "this context of the kubeconfig"},                                  \
        {"-n, --namespace NS", "the namespace (else the context's, else default)"},            \
        {"--request-timeout D", "time limit of each request: 30s, 1m, or seconds (30s; 0: "    \
                                "none)"},                                                \
        {"--errors=json", "a request the API server refuses also prints its v1 Status (code, "  \
                          "reason, details.causes) on stderr as one line of JSON, after the " \
                          "message (programs: the Python SDK)"}
#define CLUSTER_LOCAL_HELP                                                                     \
    {"--local", "act on the runs of this machine (`jaxset run`), also the default when no "   \
                "cluster is configured"}


#endif
