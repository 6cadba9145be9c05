/* cli_parse: getopt_long for the subcommands — options and operands mixed, "--", missing and
 * unknown options, and a fresh start on every call. */
#include "cli/util/cli.h"
#include "testutil.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const struct option longopts[] = {
    CLI_OUTPUT_LONGOPT,
    {"grace", required_argument, NULL, 256},
    {"quiet", no_argument, NULL, 'q'},
    {0},
};

/* Records every callback as "<code>:<arg>" ("<code>" for flags), space-separated. */
struct trace {
    char buf[512];
    int stop_at; /* code that stops the parse with 7, or 0 */
};

static int record(void *ctx, int code, const char *arg)
{
    struct trace *t = ctx;
    size_t off = strlen(t->buf);
    bool has_arg = code == CLI_OPERAND || code == 'o' || code == 256;
    snprintf(t->buf + off, sizeof(t->buf) - off, "%s%d%s%s", off ? " " : "", code,
             has_arg ? ":" : "", has_arg ? arg : "");
    return code == t->stop_at ? 7 : 0;
}

static const char *parse(int argc, char **argv, int stop_at, int *rc)
{
    static struct trace t;
    memset(&t, 0, sizeof(t));
    t.stop_at = stop_at;
    *rc = cli_parse(argc, argv, CLI_OUTPUT_OPTS "q", longopts, record, &t);
    return t.buf;
}

static void test_mixed(void **state)
{
    (void)state;
    char *argv[] = {"run", "a.yaml", "--grace", "0", "-oyaml", "b.yaml", "-q", "--grace=5",
                    "-o=json", "--output", "x", "-", NULL};
    int rc;
    assert_string_equal(parse(12, argv, 0, &rc),
                        "1:a.yaml 256:0 111:yaml 1:b.yaml 113 256:5 111:=json 111:x 1:-");
    assert_int_equal(rc, 0);
    assert_string_equal(cli_output_value("=json"), "json");
    assert_string_equal(cli_output_value("yaml"), "yaml");
    /* a second parse starts afresh */
    char *again[] = {"get", "-q", "name", NULL};
    assert_string_equal(parse(3, again, 0, &rc), "113 1:name");
}

static void test_double_dash(void **state)
{
    (void)state;
    char *argv[] = {"render", "-q", "--", "-x", "--grace", NULL};
    int rc;
    assert_string_equal(parse(5, argv, 0, &rc), "113 1:-x 1:--grace");
    assert_int_equal(rc, 0);
}

/* What cli_parse writes to stderr while parsing argv (static buffer). */
static const char *parse_err(int argc, char **argv, int *rc, const char **trace)
{
    static char buf[512];
    FILE *f = tmpfile();
    assert_non_null(f);
    fflush(stderr);
    int saved = dup(2);
    dup2(fileno(f), 2);
    *trace = parse(argc, argv, 0, rc);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(f);
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* A bad flag never reaches the callback: one line names it as written (and the nearest flag
 * there is), a second says where the help is; exit status 2. */
static void test_errors(void **state)
{
    (void)state;
    static const struct {
        int argc;
        char *argv[4];
        const char *trace, *err;
    } rows[] = {
        {3, {"run", "f", "--grace"}, "1:f", "jaxset run: flag needs a value: --grace\n"},
        {3, {"run", "-x", "f"}, "", "jaxset run: unknown flag: -x\n"},
        {2, {"run", "--quiet=1"}, "", "jaxset run: flag takes no value: --quiet\n"},
        {2, {"get", "-o"}, "", "jaxset get: flag needs a value: -o\n"},
        {2, {"run", "--gracee=3"}, "", "jaxset run: unknown flag: --gracee (did you mean --grace?)\n"},
        {2, {"run", "--bogus"}, "", "jaxset run: unknown flag: --bogus\n"},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        int rc;
        const char *trace;
        char want[256];
        const char *err = parse_err(rows[i].argc, (char **)rows[i].argv, &rc, &trace);
        snprintf(want, sizeof(want), "%sSee `jaxset %s --help`.\n", rows[i].err, rows[i].argv[0]);
        assert_int_equal(rc, EXIT_INVALID);
        assert_string_equal(trace, rows[i].trace);
        assert_string_equal(err, want);
    }
}

static void test_nearest(void **state)
{
    (void)state;
    const char *names[] = {"validate", "render", "run", "get", "describe"};
    assert_string_equal(cli_nearest("valdate", names, 5), "validate");
    assert_string_equal(cli_nearest("rnu", names, 5), "run");
    assert_string_equal(cli_nearest("describ", names, 5), "describe");
    assert_null(cli_nearest("xyz", names, 5));
    assert_null(cli_nearest("completely-different", names, 5));
}

/* -h / --help anywhere among the options: the command's help, no callback, CLI_HELP_SHOWN;
 * as an option's value or after "--" it is no help. */
static void test_help(void **state)
{
    (void)state;
    char *help_last[] = {"get", "name", "-x", "--help", NULL};
    char *short_help[] = {"run", "-h", "f", NULL};
    char *as_value[] = {"run", "--grace", "--help", "-o", "-h", NULL};
    char *after_dashes[] = {"run", "--", "--help", NULL};
    int rc;
    assert_string_equal(parse(4, help_last, 0, &rc), "");
    assert_int_equal(rc, CLI_HELP_SHOWN);
    assert_string_equal(parse(3, short_help, 0, &rc), "");
    assert_int_equal(rc, CLI_HELP_SHOWN);
    assert_string_equal(parse(5, as_value, 0, &rc), "256:--help 111:-h");
    assert_int_equal(rc, 0);
    assert_string_equal(parse(3, after_dashes, 0, &rc), "1:--help");
    assert_int_equal(rc, 0);
}

/* Every command of the list (commands.h), then help and version, has its help under its own
 * name, in the list's order; the usage synopsis comes from it. */
static void test_help_table(void **state)
{
    (void)state;
#define X(name, fn, where) #name,
    static const char *const cmds[] = {CLI_COMMANDS(X) "help", "version"};
#undef X
    size_t n;
    const struct cli_help *const *table = cli_help_table(&n);
    assert_int_equal(n, sizeof(cmds) / sizeof(cmds[0]));
    for (size_t i = 0; i < n; i++) {
        const struct cli_help *h = cli_help_find(cmds[i]);
        char want[64];
        assert_non_null(h);
        assert_ptr_equal(table[i], h);
        assert_string_equal(h->name, cmds[i]);
        snprintf(want, sizeof(want), "jaxset %s", cmds[i]);
        assert_memory_equal(h->usage, want, strlen(want));
        assert_ptr_equal(cli_usage_of(cmds[i]), h->usage);
        assert_non_null(h->summary);
        assert_non_null(h->text);
        assert_non_null(h->exit);
    }
    assert_null(cli_help_find("nope"));
    assert_null(cli_help_find(NULL));
}

/* Numeric option values: the whole string, in range; integers unless `real`. */
static void test_number(void **state)
{
    (void)state;
    double v = -1;
    assert_int_equal(cli_number("30", false, 0, 100, &v), 0);
    assert_true(v == 30);
    assert_int_equal(cli_number("0", false, 0, 100, &v), 0);
    assert_true(v == 0);
    assert_int_equal(cli_number("2.5", true, 0, 100, &v), 0);
    assert_true(v == 2.5);
    assert_int_equal(cli_number("1e3", true, 0, 1e9, &v), 0);
    assert_true(v == 1000);
    static const char *const bad_int[] = {"", "abc", "5x", "2.5", "1e3", "-1", "101",
                                          "99999999999999999999"};
    for (size_t i = 0; i < sizeof(bad_int) / sizeof(bad_int[0]); i++)
        assert_int_equal(cli_number(bad_int[i], false, 0, 100, &v), -1);
    static const char *const bad_real[] = {"", "x", "1.5s", "-0.5", "nan", "1e999"};
    for (size_t i = 0; i < sizeof(bad_real) / sizeof(bad_real[0]); i++)
        assert_int_equal(cli_number(bad_real[i], true, 0, 1e300, &v), -1);
    assert_true(v == 1000); /* untouched by a refusal */
}

/* Go durations and bare seconds, as --request-timeout, --timeout and --since take them. */
static void test_durations(void **state)
{
    (void)state;
    assert_int_equal(cli_duration_ms("30s"), 30000);
    assert_int_equal(cli_duration_ms("1m30s"), 90000);
    assert_int_equal(cli_duration_ms("250ms"), 250);
    assert_int_equal(cli_duration_ms("2h"), 7200000);
    assert_int_equal(cli_duration_ms("5"), 5000);
    assert_int_equal(cli_duration_ms("0.5"), 500);
    assert_int_equal(cli_duration_ms("0"), 0);
    assert_int_equal(cli_duration_ms(""), -1);
    assert_int_equal(cli_duration_ms("-1s"), -1);
    assert_int_equal(cli_duration_ms("1x"), -1);
    assert_int_equal(cli_duration_ms("1s5"), -1);
    assert_int_equal(cli_duration_ms("soon"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mixed),
        cmocka_unit_test(test_double_dash),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_nearest),
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_help_table),
        cmocka_unit_test(test_number),
        cmocka_unit_test(test_durations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
