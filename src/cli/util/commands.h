/* commands: the one list of jaxset's commands, in `jaxset help`'s order.  Each line is
 * X(name, function, where): `jaxset name ARGS...` calls function(argc, argv) with argv[0] the
 * name; where is LOCAL for the commands the binary runs itself (main.c) or MODULE for those
 * it loads from libjaxset_cluster.so (dispatch.c, which knows the LOCAL ones by name only, so
 * that the module does not carry them: `crds` alone embeds some 2.7 MiB of CRDs).  The list is
 * expanded three times: cli.h declares the functions, main.c and dispatch.c make their tables
 * of commands, help.c its table of help, help_<name> for each (a command without its help
 * does not build).  help and version are dispatch.c's own, their help last in help.c.
 *
 * A new command: one line here, its cmd_<verb>.c in cli/cmd (in cli/local for a LOCAL one) and
 * its help_<verb> in help.c. */
#ifndef JX_CLI_COMMANDS_H
#define JX_CLI_COMMANDS_H

#define CLI_COMMANDS(X)                                                                        \
    X(validate, cmd_validate, LOCAL)                                                           \
    X(render, cmd_render, LOCAL)                                                               \
    X(run, cmd_run, LOCAL)                                                                     \
    X(submit, cmd_submit, MODULE)                                                              \
    X(get, cmd_get, MODULE)                                                                    \
    X(describe, cmd_describe, MODULE)                                                          \
    X(logs, cmd_logs, MODULE)                                                                  \
    X(wait, cmd_wait, MODULE)                                                                  \
    X(delete, cmd_delete, MODULE)                                                              \
    X(config, cmd_config, MODULE)                                                              \
    X(suspend, cmd_suspend, MODULE)                                                            \
    X(resume, cmd_resume, MODULE)                                                              \
    X(decode, cmd_decode, LOCAL)                                                               \
    X(controller, cmd_controller, MODULE)                                                      \
    X(statusserver, cmd_statusserver, MODULE)                                                  \
    X(crds, cmd_crds, LOCAL)                                                                   \
    X(completion, cmd_completion, LOCAL)

/* An entry {"name", function} of a table of commands.  The binary's table takes the LOCAL ones
 * only: X(name, fn, where) CLI_BINARY_##where(name, fn); the module's (dispatch.c) names every
 * command, with a function for the MODULE ones: CLI_MODULE_##where(name, fn). */
#define CLI_COMMAND_ENTRY(name, fn) {#name, fn},
#define CLI_BINARY_LOCAL(name, fn) CLI_COMMAND_ENTRY(name, fn)
#define CLI_BINARY_MODULE(name, fn)
#define CLI_MODULE_LOCAL(name, fn) {#name, NULL},
#define CLI_MODULE_MODULE(name, fn) CLI_COMMAND_ENTRY(name, fn)

#endif
