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
int cmd_decode(int argc, char **argv);

/* Loads the files; prints "<source>: <field error>" for every field error and file-level
 * errors to stderr.  Returns 0 when everything is valid, EXIT_INVALID otherwise (the set is
 * then already released). */
int cli_load(const char *const *files, size_t n, struct manifest_set *out);

/* When argv[*i] is "-o FMT", "-oFMT", "-o=FMT", "--output FMT" or "--output=FMT": stores FMT
 * (NULL when the value is missing) in *fmt, advances *i past it and returns true. */
bool cli_output_opt(int argc, char **argv, int *i, const char **fmt);

/* Prints "jaxset <cmd>: <msg>" and the usage line to stderr; returns EXIT_INVALID. */
int cli_usage_error(const char *cmd, const char *usage, const char *msg);

#endif
