/* cli: one file per subcommand; argument parsing and output only. */
#ifndef JX_CLI_H
#define JX_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "api/manifest.h"

/* Exit statuses shared by every subcommand (docs/design.md, "Conventions"). */
enum {
    EXIT_OK = 0,
    EXIT_JOB_FAILED = 1,
    EXIT_INVALID = 2,
    EXIT_INTERRUPTED = 130,
    EXIT_TERMINATED = 143,
};

int cmd_validate(int argc, char **argv);
int cmd_render(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_get(int argc, char **argv);
int cmd_logs(int argc, char **argv);

/* Loads the files with `mode` (--validate); prints "<source>: <field error>" for every field
 * error and file-level errors to stderr, "Warning: <source>: <field error>" for unknown fields
 * under --validate=warn.  Returns 0 when everything is valid, EXIT_INVALID otherwise (the set is
 * then already released). */
int cli_load(const char *const *files, size_t n, enum manifest_validate mode,
             struct manifest_set *out);

/* kubectl's --validate option: "--validate" (strict) or "--validate=VALUE" with VALUE one of
 * strict or true, warn, ignore or false (any case).  Returns true when `arg` is the option,
 * with *mode set, or *bad set when VALUE is none of those; false when it is another argument. */
#define CLI_VALIDATE_USAGE "[--validate[=strict|warn|ignore]]"
#define CLI_VALIDATE_BAD                                                                       \
    "invalid --validate value; must be one of: strict (or true), warn, ignore (or false)"
bool cli_validate_opt(const char *arg, enum manifest_validate *mode, bool *bad);

/* When argv[*i] is "-o FMT", "-oFMT", "-o=FMT", "--output FMT" or "--output=FMT": stores FMT
 * (NULL when the value is missing) in *fmt, advances *i past it and returns true. */
bool cli_output_opt(int argc, char **argv, int *i, const char **fmt);

/* Prints "jaxset <cmd>: <msg>" and the usage line to stderr; returns EXIT_INVALID. */
int cli_usage_error(const char *cmd, const char *usage, const char *msg);

#endif
