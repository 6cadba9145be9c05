/* dispatch: every command of jaxset, help and version (cli.h, cli_main).  Built alone into
 * the module libjaxset_cluster.so with the rest of the CLI and src/kube (CMakeLists.txt), which
 * the binary (main.c) loads for any command but the local ones it runs itself.  The commands
 * are listed once, in cli/util/commands.h (the binary's own, LOCAL, by name only); what each does and takes is described in help.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/util/cli.h"

static const struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
} commands[] = {
#define X(name, fn, where) CLI_MODULE_##where(name, fn)
    CLI_COMMANDS(X)
#undef X
};

static bool is_help(const char *arg)
{
    return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

/* `jaxset help [CMD]`, `jaxset --help`. */
static int help(int argc, char **argv)
{
    const char *name = argc > 1 && is_help(argv[1]) ? "help" : argc > 1 ? argv[1] : NULL;
    const struct cli_help *h = cli_help_find(name);
    if (argc > 2 || (name && !h)) {
        if (argc > 2)
            fprintf(stderr, "jaxset help: one COMMAND at most\n");
        else
            fprintf(stderr, "jaxset help: unknown command \"%s\"\n", name);
        cli_help_list(stderr);
        return EXIT_INVALID;
    }
    if (h)
        cli_help_print(stdout, h);
    else
        cli_help_list(stdout);
    return EXIT_OK;
}

/* One line naming the command and the nearest there is, and where the list is. */
static int unknown_command(const char *cmd)
{
    const char *names[sizeof(commands) / sizeof(commands[0]) + 2] = {"help", "version"};
    size_t n = 2;
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        names[n++] = commands[i].name;
    const char *near = cli_nearest(cmd, names, n);
    fprintf(stderr, "jaxset: unknown command \"%s\"", cmd);
    if (near)
        fprintf(stderr, " (did you mean %s?)", near);
    fprintf(stderr, "\nSee `jaxset --help`.\n");
    return EXIT_INVALID;
}

int cli_main(int argc, char **argv)
{
    if (argc < 2) {
        cli_help_list(stderr);
        return EXIT_INVALID;
    }
    const char *cmd = argv[1];
    if (is_help(cmd) || !strcmp(cmd, "help"))
        return help(argc - 1, argv + 1);
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        if (argc > 2 && is_help(argv[2]))
            return help(2, (char *[]){"help", "version", NULL});
        printf("jaxset %s\n", JAXSET_VERSION);
        return EXIT_OK;
    }
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
        if (!strcmp(commands[i].name, cmd)) {
            if (!commands[i].fn) {
                fprintf(stderr, "jaxset: %s is run by the jaxset binary, not its module\n", cmd);
                return EXIT_INVALID;
            }
            int rc = commands[i].fn(argc - 1, argv + 1);
            return rc == CLI_HELP_SHOWN ? EXIT_OK : rc;
        }
    }
    return unknown_command(cmd);
}
