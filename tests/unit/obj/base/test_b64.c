/* b64: RFC 4648 vectors both ways, Go StdEncoding's line breaks and padding rules. */
#include "testutil.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "obj/base/b64.h"

static const char *const VEC[][2] = {{"", ""},         {"f", "Zg=="},     {"fo", "Zm8="},
                                     {"foo", "Zm9v"},  {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="},
                                     {"foobar", "Zm9vYmFy"}};

static void test_vectors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(VEC) / sizeof(VEC[0]); i++) {
        char *enc = b64_encode(VEC[i][0], strlen(VEC[i][0]));
        assert_string_equal(enc, VEC[i][1]);
        free(enc);
        char *dec = NULL;
        size_t n = 99;
        assert_int_equal(b64_decode(VEC[i][1], strlen(VEC[i][1]), &dec, &n), 0);
        assert_int_equal(n, strlen(VEC[i][0]));
        assert_string_equal(dec, VEC[i][0]);
        free(dec);
    }
}

static void test_binary_and_newlines(void **state)
{
    (void)state;
    unsigned char bin[256];
    for (int i = 0; i < 256; i++)
        bin[i] = (unsigned char)i;
    char *enc = b64_encode(bin, sizeof(bin));
    /* a PEM-like layout: a line break every 64 characters, CRLF too */
    char wrapped[1024];
    size_t w = 0;
    for (size_t i = 0; enc[i]; i++) {
        wrapped[w++] = enc[i];
        if (i % 64 == 63) {
            wrapped[w++] = '\r';
            wrapped[w++] = '\n';
        }
    }
    char *dec;
    size_t n;
    assert_int_equal(b64_decode(wrapped, w, &dec, &n), 0);
    assert_int_equal(n, sizeof(bin));
    assert_memory_equal(dec, bin, sizeof(bin));
    free(dec);
    free(enc);
}

static void test_invalid(void **state)
{
    (void)state;
    static const char *const bad[] = {"Zg", "Zg=", "Z===", "Zg==Zg==", "Zm9v!", "Zm=v", "Zm9 v",
                                      "Zm9v\t"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *dec = (char *)"untouched";
        size_t n;
        assert_int_equal(b64_decode(bad[i], strlen(bad[i]), &dec, &n), -EINVAL);
        assert_string_equal(dec, "untouched");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_binary_and_newlines),
        cmocka_unit_test(test_invalid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
