/* store_logs: a run's log files listed by name (of a pod prefix), and told apart by pod and
 * container. */
#include "local/store/store_logs.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

struct seen {
    char names[8][64];
    size_t n;
};

static int note(void *arg, const char *name)
{
    struct seen *s = arg;
    snprintf(s->names[s->n++], sizeof(s->names[0]), "%s", name);
    return s->n == 8;
}

static bool has(const struct seen *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->names[i], name))
            return true;
    return false;
}

static void test_each(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("store-logs");
    struct seen s = {0};
    assert_int_equal(store_logs_each(dir, NULL, note, &s), 0); /* no logs/ */
    assert_int_equal(s.n, 0);
    tu_write(dir, "logs/js-w-0-0-abcde.log", "a\n");
    tu_write(dir, "logs/js-w-0-1-fghij.main.log", "b\n");
    tu_write(dir, "logs/js-w-0-1-fghij.side.log", "c\n");
    tu_write(dir, "logs/notes.txt", "not a log\n");
    tu_write(dir, "logs/.log", "no name\n");
    assert_int_equal(store_logs_each(dir, NULL, note, &s), 0);
    assert_int_equal(s.n, 3);
    assert_true(has(&s, "js-w-0-0-abcde") && has(&s, "js-w-0-1-fghij.main"));
    s.n = 0;
    assert_int_equal(store_logs_each(dir, "js-w-0-1", note, &s), 0);
    assert_int_equal(s.n, 2);
    assert_true(has(&s, "js-w-0-1-fghij.side"));
    tu_rmtree(dir);
    free(dir);
}

static void test_is(void **state)
{
    (void)state;
    assert_true(store_log_is("p-abcde", "p-abcde", NULL));
    assert_false(store_log_is("p-abcde.c", "p-abcde", NULL));
    assert_true(store_log_is("p-abcde.c", "p-abcde", "c"));
    assert_false(store_log_is("p-abcde.cc", "p-abcde", "c"));
    assert_false(store_log_is("p-abcde", "p-abcde", "c"));
    assert_false(store_log_is("p-abcdef", "p-abcde", NULL));
    assert_false(store_log_is("q", "p-abcde", NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each),
        cmocka_unit_test(test_is),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
