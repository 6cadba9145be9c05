/* gz: a gzip stream (Python's gzip.compress of three "apiVersion: v1\nkind: List\n" lines,
 * level 9, mtime 0) inflates to its content, through the zlib gz loads; a wrong length, a cut
 * stream, bytes after it and a broken one are refused and leave no stream open. */
#include "testutil.h"

#include <errno.h>
#include <string.h>

#include "obj/base/gz.h"

static const unsigned char GZ[] = {
    0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x4b, 0x2c, 0xc8, 0x0c, 0x4b,
    0x2d, 0x2a, 0xce, 0xcc, 0xcf, 0xb3, 0x52, 0x28, 0x33, 0xe4, 0xca, 0xce, 0xcc, 0x4b, 0xb1,
    0x52, 0xf0, 0xc9, 0x2c, 0x2e, 0xe1, 0x4a, 0x24, 0x43, 0x06, 0x00, 0x0d, 0x36, 0xbd, 0x6c,
    0x4e, 0x00, 0x00, 0x00};
static const char TEXT[] = "apiVersion: v1\nkind: List\napiVersion: v1\nkind: List\n"
                           "apiVersion: v1\nkind: List\n";
#define LEN (sizeof(TEXT) - 1)

static void test_inflates(void **state)
{
    (void)state;
    char out[LEN];
    struct err e = {{0}};
    assert_int_equal(gz_inflate(GZ, sizeof(GZ), out, LEN, &e), 0);
    assert_memory_equal(out, TEXT, LEN);
    assert_string_equal(e.msg, "");
}

static void test_wrong_length(void **state)
{
    (void)state;
    char out[LEN + 1];
    struct err e = {{0}};
    /* room for one byte less: the content does not fit */
    assert_int_equal(gz_inflate(GZ, sizeof(GZ), out, LEN - 1, &e), -EPROTO);
    assert_non_null(strstr(e.msg, "not a gzip stream of"));
    /* one byte more: the stream ends first */
    assert_int_equal(gz_inflate(GZ, sizeof(GZ), out, LEN + 1, &e), -EPROTO);
    assert_non_null(strstr(e.msg, "less content"));
}

static void test_cut_and_trailing(void **state)
{
    (void)state;
    char out[LEN];
    struct err e = {{0}};
    assert_int_equal(gz_inflate(GZ, sizeof(GZ) - 4, out, LEN, &e), -EPROTO); /* no ISIZE */
    unsigned char more[sizeof(GZ) + 1];
    memcpy(more, GZ, sizeof(GZ));
    more[sizeof(GZ)] = 0x1f;
    assert_int_equal(gz_inflate(more, sizeof(more), out, LEN, &e), -EPROTO);
    assert_non_null(strstr(e.msg, "bytes after the stream"));
}

static void test_broken(void **state)
{
    (void)state;
    char out[LEN];
    struct err e = {{0}};
    unsigned char bad[sizeof(GZ)];
    memcpy(bad, GZ, sizeof(GZ));
    bad[sizeof(GZ) - 5] ^= 0xff; /* the CRC-32 of the content */
    assert_int_equal(gz_inflate(bad, sizeof(bad), out, LEN, &e), -EPROTO);
    assert_non_null(strstr(e.msg, "incorrect data check")); /* zlib's own message */
    assert_int_equal(gz_inflate(TEXT, LEN, out, LEN, &e), -EPROTO); /* no gzip at all */
    assert_int_equal(gz_inflate(GZ, 0, out, LEN, NULL), -EPROTO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inflates),
        cmocka_unit_test(test_wrong_length),
        cmocka_unit_test(test_cut_and_trailing),
        cmocka_unit_test(test_broken),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
