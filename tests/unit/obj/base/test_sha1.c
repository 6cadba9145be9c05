/* SHA-1 against the FIPS 180 / RFC 3174 vectors and sha1sum, incrementally and one-shot. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "obj/base/sha1.h"

static void test_vectors(void **state)
{
    (void)state;
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"", "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
        {"abc", "a9993e364706816aba3e25717850c26c9cd0d89d"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "84983e441c3bd26ebaae4aa1f95129e5e54670f1"},
        {"default/allreduce-workers-0", "406b42a79a9d02953b19749e5504cc62de569e31"},
        /* 55, 56 and 64 bytes: the padding edge cases */
        {"0123456789012345678901234567890123456789012345678901234",
         "9f3a4ce7f66b1b74c34da2c5d732c39f81e0f8df"},
        {"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
         "901305367c259952f4e7af8323f480d59f81335b"},
        {"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy",
         "b6376ceaac8c20081a513ca7e5b6973ff853c149"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char hex[41];
        sha1_hex(cases[i].in, strlen(cases[i].in), hex);
        if (strcmp(hex, cases[i].want))
            fail_msg("case %zu: got %s want %s", i, hex, cases[i].want);
    }
}

static void test_million_a_incremental(void **state)
{
    (void)state;
    struct sha1 s;
    uint8_t md[SHA1_LEN];
    char a[1001];
    memset(a, 'a', sizeof(a));
    sha1_init(&s);
    for (int i = 0; i < 1000; i++)
        sha1_update(&s, a, i % 2 ? 999 : 1001); /* uneven pieces, 1,000,000 bytes in all */
    sha1_final(&s, md);
    static const uint8_t want[SHA1_LEN] = {0x34, 0xaa, 0x97, 0x3c, 0xd4, 0xc4, 0xda,
                                           0xa4, 0xf6, 0x1e, 0xeb, 0x2b, 0xdb, 0xad,
                                           0x27, 0x31, 0x65, 0x34, 0x01, 0x6f};
    assert_memory_equal(md, want, SHA1_LEN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_million_a_incremental),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
