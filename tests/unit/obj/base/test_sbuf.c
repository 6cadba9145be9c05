/* sbuf: growth across allocation boundaries, formatted appends longer than any starting size,
 * the sticky failure, detach and reset. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "obj/base/sbuf.h"

static void test_grow(void **state)
{
    (void)state;
    struct sbuf b = SBUF_INIT;
    assert_string_equal(sb_str(&b), "");
    char want[5000] = "";
    for (int i = 0; i < 1000; i++) {
        sb_printf(&b, "%d,", i % 10);
        want[2 * i] = (char)('0' + i % 10);
        want[2 * i + 1] = ',';
    }
    assert_false(sb_failed(&b));
    assert_int_equal(b.len, 2000);
    assert_string_equal(sb_str(&b), want);
    sb_free(&b);
}

static void test_long_format(void **state)
{
    (void)state;
    char *big = malloc(100001);
    memset(big, 'x', 100000);
    big[100000] = '\0';
    struct sbuf b = SBUF_INIT;
    sb_puts(&b, "dir/");
    sb_printf(&b, "%s/%s.log", big, "pod");
    assert_int_equal(b.len, 4 + 100000 + 8);
    assert_memory_equal(sb_str(&b) + b.len - 8, "/pod.log", 8);
    char *s = sb_detach(&b);
    assert_non_null(s);
    assert_int_equal(strlen(s), 100012);
    assert_null(b.s);
    free(s);
    free(big);
}

static void test_max_is_sticky(void **state)
{
    (void)state;
    struct sbuf b = {.max = 10};
    sb_puts(&b, "0123456789");
    assert_false(sb_failed(&b));
    sb_puts(&b, "x");
    assert_true(sb_failed(&b));
    sb_puts(&b, ""); /* nothing more goes in after a failure */
    assert_string_equal(sb_str(&b), "0123456789");
    assert_null(sb_detach(&b)); /* incomplete: nothing handed over */
    assert_int_equal(b.max, 10);
    sb_printf(&b, "%s", "ok");
    assert_string_equal(sb_str(&b), "ok");
    sb_reset(&b);
    assert_string_equal(sb_str(&b), "");
    sb_free(&b);
}

static void test_fmt_and_empty_detach(void **state)
{
    (void)state;
    char *s = sb_fmt("%s-%d", "job", 7);
    assert_string_equal(s, "job-7");
    free(s);
    struct sbuf b = SBUF_INIT;
    s = sb_detach(&b);
    assert_string_equal(s, "");
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grow),
        cmocka_unit_test(test_long_format),
        cmocka_unit_test(test_max_is_sticky),
        cmocka_unit_test(test_fmt_and_empty_detach),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
