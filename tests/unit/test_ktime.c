/* ktime: RFC 3339 as metav1.Time writes it and Go's time.Parse(time.RFC3339) reads it. */
#include "testutil.h"

#include <errno.h>
#include <stdint.h>

#include "obj/ktime.h"

static const struct {
    const char *in;
    int rc;
    long long ms;
} parse_cases[] = {
    {"2026-11-22T10:00:00Z", 0, 1795341600000LL},
    {"2026-11-22T10:00:00.5Z", 0, 1795341600500LL},
    {"2026-11-22T10:00:00.123456789Z", 0, 1795341600123LL},
    {"2026-11-22T10:00:00,25Z", 0, 1795341600250LL}, /* Go takes a comma too */
    {"2026-11-22t10:00:00Z", -EINVAL, 0},             /* Go: 'T' and 'Z' upper case only */
    {"2026-11-22T10:00:00z", -EINVAL, 0},
    {"2026-11-22 10:00:00Z", -EINVAL, 0},
    {"9999-12-31T23:59:59.999Z", 0, 253402300799999LL},
    {"0000-01-01T00:00:00Z", 0, -62167219200000LL},
    {"2026-11-22T10:00:00-00:00", 0, 1795341600000LL},
    {"2026-11-22T10:00:00,Z", -EINVAL, 0},
    {"2026-11-22T10:00:00Z ", -EINVAL, 0},
    {"+2026-11-22T10:00:00Z", -EINVAL, 0},
    {"2026-1-22T10:00:00Z", -EINVAL, 0},
    {"2026-11-22T10:00:00+01:60", -EINVAL, 0},
    {"2026-11-22T11:30:00+01:30", 0, 1795341600000LL},
    {"2026-11-22T08:00:00-02:00", 0, 1795341600000LL},
    {"1970-01-01T00:00:00Z", 0, 0},
    {"1969-12-31T23:59:59Z", 0, -1000},
    {"1900-01-01T00:00:00Z", 0, -2208988800000LL},
    {"2024-02-29T00:00:00Z", 0, 1709164800000LL},
    {"2000-02-29T00:00:00Z", 0, 951782400000LL},
    {"2100-03-01T00:00:00Z", 0, 4107542400000LL},
    {"2023-02-29T00:00:00Z", -EINVAL, 0},
    {"2100-02-29T00:00:00Z", -EINVAL, 0},
    {"2026-13-01T00:00:00Z", -EINVAL, 0},
    {"2026-00-01T00:00:00Z", -EINVAL, 0},
    {"2026-11-31T00:00:00Z", -EINVAL, 0},
    {"2026-11-22T24:00:00Z", -EINVAL, 0},
    {"2026-11-22T10:60:00Z", -EINVAL, 0},
    {"2026-11-22T10:00:60Z", -EINVAL, 0},
    {"2026-11-22T10:00:00", -EINVAL, 0},
    {"2026-11-22T10:00:00.Z", -EINVAL, 0},
    {"2026-11-22T10:00:00Zjunk", -EINVAL, 0},
    {"2026-11-22T10:00:00+0100", -EINVAL, 0},
    {"2026-11-22T10:00:00+24:00", -EINVAL, 0},
    {"2026-11-22", -EINVAL, 0},
    {"26-11-22T10:00:00Z", -EINVAL, 0},
    {"", -EINVAL, 0},
    {NULL, -EINVAL, 0},
};

static void test_parse(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
        int64_t ms = 42;
        int rc = kt_parse(parse_cases[i].in, &ms);
        if (rc != parse_cases[i].rc || (rc == 0 && ms != parse_cases[i].ms))
            fail_msg("%s: want rc %d ms %lld, got rc %d ms %lld", parse_cases[i].in,
                     parse_cases[i].rc, parse_cases[i].ms, rc, (long long)ms);
        if (rc)
            assert_int_equal(ms, 42); /* out-parameter untouched on failure */
    }
}

static void test_format(void **state)
{
    static const struct {
        int64_t ms;
        const char *want;
        int rc;
    } t[] = {
        {0, "1970-01-01T00:00:00Z", 0},
        {999, "1970-01-01T00:00:00Z", 0},
        {-1, "1969-12-31T23:59:59Z", 0},
        {951782400000LL, "2000-02-29T00:00:00Z", 0},
        {1714564800123LL, "2024-05-01T12:00:00Z", 0},
        {4102444799000LL, "2099-12-31T23:59:59Z", 0},
        {253402300799999LL, "9999-12-31T23:59:59Z", 0},
        {253402300800000LL, "", -ERANGE},
        {-62167219200001LL, "", -ERANGE},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        char out[KT_RFC3339_MAX];
        assert_int_equal(kt_format(t[i].ms, out), t[i].rc);
        assert_string_equal(out, t[i].want);
    }
}

/* Every second-aligned time formats and parses back to itself, over the whole range, in
 * uneven steps (leap days, century years, negative times). */
static void test_round_trip(void **state)
{
    (void)state;
    char buf[KT_RFC3339_MAX];
    for (int64_t ms = KT_MIN_MS; ms <= KT_MAX_MS - 999; ms += 86400000LL * 997 + 3671000) {
        int64_t back;
        assert_int_equal(kt_format(ms, buf), 0);
        assert_int_equal(kt_parse(buf, &back), 0);
        assert_int_equal(back, ms);
    }
    uint64_t x = 88172645463325252ull; /* random milliseconds: parse(format(t)) drops only the ms */
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t ms = KT_MIN_MS + (int64_t)(x % (uint64_t)(KT_MAX_MS - KT_MIN_MS)), back;
        assert_int_equal(kt_format(ms, buf), 0);
        assert_int_equal(kt_parse(buf, &back), 0);
        int64_t floor_s = ms >= 0 ? ms - ms % 1000 : ms - ((ms % 1000) + 1000) % 1000;
        assert_int_equal(back, floor_s);
    }
}

static void test_now(void **state)
{
    (void)state;
    int64_t a = kt_now_ms(), b = kt_now_ms();
    assert_true(a > 1700000000000LL && b >= a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_now),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
