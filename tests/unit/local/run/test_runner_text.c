/* What the runner prints of a failure and of the time (src/local/store/store_excerpt.c,
 * runner_state.c): the end of a failed container's log reduced to a traceback's last frame and
 * exception line or the last lines, safe for a terminal and JSON; elapsed times as 1m08s. */
#include "local/run/runner_int.h"
#include "local/store/store_excerpt.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *excerpt_of(const char *log)
{
    char *dir = tu_tmpdir("excerpt");
    tu_write(dir, "c.log", log);
    char *m = store_excerpt_log(tu_path(dir, "c.log"));
    tu_rmtree(dir);
    free(dir);
    return m;
}

static const struct {
    const char *log, *want; /* want NULL: no excerpt */
} cases[] = {
    /* a traceback: its last frame, its source line, its exception line */
    {"step 1\nTraceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
     "    main()\n  File \"train.py\", line 5, in main\n    raise ValueError('boom')\n"
     "ValueError: boom\n",
     "File \"train.py\", line 5, in main\n    raise ValueError('boom')\nValueError: boom"},
    /* Python 3.11's markers are not the source line; output after the traceback is skipped */
    {"Traceback (most recent call last):\n  File \"t.py\", line 2, in <module>\n    1/0\n"
     "    ~^~\nZeroDivisionError: division by zero\nE1126 coordination service shut down\n",
     "File \"t.py\", line 2, in <module>\n    1/0\nZeroDivisionError: division by zero"},
    /* chained exceptions: the last traceback */
    {"Traceback (most recent call last):\n  File \"a.py\", line 1, in f\nKeyError: 'x'\n\n"
     "During handling of the above exception, another exception occurred:\n\n"
     "Traceback (most recent call last):\n  File \"a.py\", line 3, in g\nOSError: disk\n",
     "File \"a.py\", line 3, in g\nOSError: disk"},
    /* no traceback: the last five lines that are not blank */
    {"1\n2\n3\n4\n\n5\n6\n\n", "2\n3\n4\n5\n6"},
    /* a progress bar keeps its last state; escapes dropped, control bytes and bad UTF-8 as ? */
    {"\r10%\r50%\r100%\n\033[31mred\033[0m \x01\xff caf\xc3\xa9\n", "100%\nred ?? caf\xc3\xa9"},
    /* overlong forms and surrogates are not UTF-8 JSON takes */
    {"a\xc0\xaf" "b\xed\xa0\x80" "c\xf4\x90\x80\x80" "d\xf0\x9f\x98\x80\n",
     "a??b???c????d\xf0\x9f\x98\x80"},
    {"", NULL},
    {"\n  \n", NULL},
};

static void test_log_excerpt(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *m = excerpt_of(cases[i].log);
        if (!cases[i].want ? m != NULL : !m || strcmp(m, cases[i].want))
            fail_msg("case %zu: got [%s], want [%s]", i, m ? m : "(null)",
                     cases[i].want ? cases[i].want : "(null)");
        free(m);
    }
}

static void test_log_excerpt_long_log_and_line(void **state)
{
    (void)state;
    size_t n = 100000;
    char *log = malloc(n + 1);
    memset(log, 'x', n);
    for (size_t i = 99; i < n - 700; i += 100) /* lines of 99 bytes, then one of 700 */
        log[i] = '\n';
    log[n - 1] = '\n';
    log[n] = 0;
    char *m = excerpt_of(log);
    assert_non_null(m);
    assert_int_equal(strchr(m, '\n') - m, 99); /* whole lines only */
    assert_int_equal(strlen(strrchr(m, '\n') + 1), 240 + 3); /* a long line is cut: "..." */
    assert_string_equal(m + strlen(m) - 4, "x...");
    free(m);
    free(log);
}

static void test_excerpt_line(void **state)
{
    (void)state;
    char *a = store_excerpt_line("File \"t.py\", line 5, in main\n    raise X\nValueError: boom");
    char *b = store_excerpt_line("last\nlines");
    assert_string_equal(a, "ValueError: boom (File \"t.py\", line 5, in main)");
    assert_string_equal(b, "lines");
    free(a);
    free(b);
}

static void test_elapsed_text(void **state)
{
    (void)state;
    static const struct {
        int64_t ms;
        const char *want;
    } t[] = {{0, "0s"}, {8999, "8s"}, {68000, "1m08s"}, {3600000, "1h00m00s"},
             {7268000, "2h01m08s"}};
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct sbuf b = SBUF_INIT;
        runner__elapsed_text(t[i].ms, &b);
        assert_string_equal(sb_str(&b), t[i].want);
        sb_free(&b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_log_excerpt),
        cmocka_unit_test(test_log_excerpt_long_log_and_line),
        cmocka_unit_test(test_excerpt_line),
        cmocka_unit_test(test_elapsed_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
