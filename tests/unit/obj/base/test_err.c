/* err: messages up to ERR_MSG_MAX - 1 bytes are kept whole; longer ones are cut at a UTF-8
 * character boundary and end in "...", both from err_set and from err_prefix. */
#include "testutil.h"

#include <errno.h>
#include <string.h>

#include "obj/base/err.h"

static void test_set_fits(void **state)
{
    (void)state;
    struct err e = {{0}};
    char s[ERR_MSG_MAX];
    memset(s, 'a', sizeof(s) - 1);
    s[sizeof(s) - 1] = '\0';
    assert_int_equal(err_set(&e, -EINVAL, "%s", s), -EINVAL);
    assert_string_equal(e.msg, s); /* exactly ERR_MSG_MAX - 1 bytes: not cut */
    assert_int_equal(err_set(NULL, -ENOENT, "x"), -ENOENT);
}

static void test_set_cut(void **state)
{
    (void)state;
    struct err e = {{0}};
    char s[ERR_MSG_MAX + 1];
    memset(s, 'a', sizeof(s) - 1);
    s[sizeof(s) - 1] = '\0';
    err_set(&e, -EINVAL, "%s", s);
    assert_int_equal(strlen(e.msg), ERR_MSG_MAX - 1);
    assert_string_equal(e.msg + ERR_MSG_MAX - 4, "...");
    /* A two-byte character straddling the cut is dropped whole. */
    char u[ERR_MSG_MAX + 8];
    size_t at = ERR_MSG_MAX - 5; /* "é" at bytes 507-508: the mark goes at 508 */
    memset(u, 'b', sizeof(u) - 1);
    u[sizeof(u) - 1] = '\0';
    memcpy(u + at, "\xc3\xa9", 2);
    err_set(&e, -EINVAL, "%s", u);
    assert_int_equal(strlen(e.msg), at + 3);
    assert_string_equal(e.msg + at, "...");
}

static void test_prefix(void **state)
{
    (void)state;
    struct err e = {{0}};
    err_set(&e, -EINVAL, "bad value");
    err_prefix(&e, "spec.x");
    assert_string_equal(e.msg, "spec.x: bad value");
    err_prefix(NULL, "ignored");
    char s[ERR_MSG_MAX];
    memset(s, 'c', sizeof(s) - 1);
    s[sizeof(s) - 1] = '\0';
    err_set(&e, -EINVAL, "%s", s);
    err_prefix(&e, "p");
    assert_int_equal(strlen(e.msg), ERR_MSG_MAX - 1);
    assert_int_equal(strncmp(e.msg, "p: ccc", 6), 0);
    assert_string_equal(e.msg + ERR_MSG_MAX - 4, "...");
    err_set(&e, -EINVAL, "short");
    err_prefix(&e, s); /* a prefix that alone fills the message */
    assert_int_equal(strlen(e.msg), ERR_MSG_MAX - 1);
    assert_string_equal(e.msg + ERR_MSG_MAX - 4, "...");
}

/* The project's own codes sit above every errno and are named and described by the table;
 * errno values keep strerror's text. */
static void test_table_codes(void **state)
{
    (void)state;
    int codes[] = {JX_ECONFLICT, JX_EGONE, JX_EMISSINGKEY, JX_ELEADERSHIP};
    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
        assert_true(codes[i] > 4095);
        for (size_t j = 0; j < i; j++)
            assert_int_not_equal(codes[i], codes[j]);
        assert_non_null(err_name(-codes[i]));
        assert_null(strstr(err_str(-codes[i]), "Unknown error"));
    }
    assert_string_equal(err_name(-JX_ECONFLICT), "JX_ECONFLICT");
    assert_string_equal(err_str(-JX_ELEADERSHIP), "leader election lost");
    assert_string_equal(err_str(-ENOENT), strerror(ENOENT));
    assert_null(err_name(-ENOENT));
    assert_null(err_name(-JX_ERR_END_));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_fits),
        cmocka_unit_test(test_set_cut),
        cmocka_unit_test(test_prefix),
        cmocka_unit_test(test_table_codes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
