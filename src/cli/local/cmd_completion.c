/* jaxset completion bash|zsh: shell completion of the commands and of each command's options,
 * generated from help.c's table (every command of cli/util/commands.h and its options), so
 * that a new command or option is completed without a second list to keep. */
#include <stdio.h>
#include <string.h>

#include "cli/util/cli.h"

/* Calls fn for each option name in one `flags` string of the help ("-o, --output FORMAT",
 * "--leader-elect[=false]", "--kube-api-qps N, --kube-api-burst N"). */
static void each_flag(const char *flags, void (*fn)(void *arg, const char *f, size_t n),
                      void *arg)
{
    for (const char *p = flags; *p;) {
        p += strspn(p, " ,");
        size_t n = strcspn(p, " ,[=");
        if (*p == '-' && n > 1)
            fn(arg, p, n);
        p += strcspn(p, ",");
    }
}

static void put_flag(void *arg, const char *f, size_t n)
{
    fprintf(arg, " %.*s", (int)n, f);
}

/* Every option of `h`, space-separated, -h and --help included. */
static void flags_of(FILE *out, const struct cli_help *h)
{
    for (size_t i = 0; i < CLI_HELP_MAX_OPTS && h->opts[i].flags; i++)
        each_flag(h->opts[i].flags, put_flag, out);
    fputs(" -h --help", out);
}

static void bash(FILE *out)
{
    size_t n;
    const struct cli_help *const *h = cli_help_table(&n);
    fputs("# bash completion for jaxset: source <(jaxset completion bash)\n"
          "_jaxset() {\n"
          "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" words=\"\"\n"
          "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
          "        COMPREPLY=($(compgen -W \"", out);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s%s", i ? " " : "", h[i]->name);
    fputs("\" -- \"$cur\"))\n        return\n    fi\n    case \"${COMP_WORDS[1]}\" in\n", out);
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "    %s) words=\"", h[i]->name);
        flags_of(out, h[i]);
        fputs("\" ;;\n", out);
    }
    fputs("    esac\n"
          "    if [[ \"$cur\" == -* ]]; then\n"
          "        COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
          "    else\n"
          "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
          "    fi\n"
          "}\n"
          "complete -o default -F _jaxset jaxset kubectl-jaxset\n", out);
}

/* A summary as a zsh _describe item: ':' escaped, no single quote. */
static void zsh_item(FILE *out, const struct cli_help *h)
{
    fprintf(out, "        '%s:", h->name);
    for (const char *p = h->summary; *p; p++) {
        if (*p == ':')
            fputc('\\', out);
        if (*p != '\'')
            fputc(*p, out);
    }
    fputs("'\n", out);
}

static void zsh(FILE *out)
{
    size_t n;
    const struct cli_help *const *h = cli_help_table(&n);
    fputs("#compdef jaxset kubectl-jaxset\n"
          "# zsh completion for jaxset: source <(jaxset completion zsh)\n"
          "_jaxset() {\n"
          "    local -a cmds opts\n"
          "    cmds=(\n", out);
    for (size_t i = 0; i < n; i++)
        zsh_item(out, h[i]);
    fputs("    )\n"
          "    if (( CURRENT == 2 )); then\n"
          "        _describe 'command' cmds\n"
          "        return\n"
          "    fi\n"
          "    case $words[2] in\n", out);
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "    %s) opts=(", h[i]->name);
        flags_of(out, h[i]);
        fputs(" ) ;;\n", out);
    }
    fputs("    esac\n"
          "    if [[ $PREFIX == -* ]]; then\n"
          "        compadd -- $opts\n"
          "    else\n"
          "        _files\n"
          "    fi\n"
          "}\n"
          "if [ \"$funcstack[1]\" = \"_jaxset\" ]; then\n"
          "    _jaxset \"$@\"\n"
          "else\n"
          "    compdef _jaxset jaxset kubectl-jaxset\n"
          "fi\n", out);
}

static int on_arg(void *ctx, int code, const char *arg)
{
    const char **shell = ctx;
    if (code != CLI_OPERAND)
        return cli_usage_error("completion", "unknown option");
    if (*shell)
        return cli_usage_error("completion", "one SHELL only");
    *shell = arg;
    return EXIT_OK;
}

int cmd_completion(int argc, char **argv)
{
    const char *shell = NULL;
    int rc = cli_parse(argc, argv, "", NULL, on_arg, &shell);
    if (rc != EXIT_OK)
        return rc;
    if (!shell || (strcmp(shell, "bash") && strcmp(shell, "zsh")))
        return cli_usage_error("completion", "SHELL is bash or zsh");
    if (!strcmp(shell, "bash"))
        bash(stdout);
    else
        zsh(stdout);
    return fflush(stdout) == 0 && !ferror(stdout) ? EXIT_OK : EXIT_JOB_FAILED;
}
