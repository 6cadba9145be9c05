/* Tests of src/obj/base/ktime.h: RFC 3339 formatting as metav1.Time / MicroTime write it, parsing as
 * Go's time.Parse(time.RFC3339, s) accepts it (the API server's rule), checked against tables of
 * edge cases, against libc's gmtime_r as an independent calendar, and by round trips. */
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "obj/base/ktime.h"

#define NOW 1795341600000LL /* 2026-11-22T10:00:00Z */
#define HOUR 3600000LL
#define MIN 60000LL
#define BAD (-EINVAL)

/* ---- parse --------------------------------------------------------------------------------- */

static const struct {
    const char *in;
    int rc;
    long long ms;
} parse_cases[] = {
    /* plain UTC, the epoch, before the epoch */
    {"2026-11-22T10:00:00Z", 0, NOW},
    {"1970-01-01T00:00:00Z", 0, 0},
    {"1969-12-31T23:59:59Z", 0, -1000},
    {"1969-12-31T00:00:00Z", 0, -86400000LL},
    {"1900-01-01T00:00:00Z", 0, -2208988800000LL},
    {"0001-01-01T00:00:00Z", 0, -62135596800000LL},
    /* the ends of the four-digit years */
    {"0000-01-01T00:00:00Z", 0, KT_MIN_MS},
    {"9999-12-31T23:59:59Z", 0, 253402300799000LL},
    {"9999-12-31T23:59:59.999999999Z", 0, KT_MAX_MS},
    /* leap years: every 4th, centuries only every 400th (year 0 is one) */
    {"2024-02-29T00:00:00Z", 0, 1709164800000LL},
    {"2024-02-29T23:59:59Z", 0, 1709251199000LL},
    {"2000-02-29T00:00:00Z", 0, 951782400000LL},
    {"1600-02-29T00:00:00Z", 0, -11670998400000LL},
    {"0000-02-29T00:00:00Z", 0, -62162121600000LL},
    {"2100-03-01T00:00:00Z", 0, 4107542400000LL},
    {"2023-02-29T00:00:00Z", BAD, 0},
    {"2100-02-29T00:00:00Z", BAD, 0},
    {"1900-02-29T00:00:00Z", BAD, 0},
    {"2024-02-30T00:00:00Z", BAD, 0},
    /* month lengths */
    {"2026-01-31T00:00:00Z", 0, 1769817600000LL},
    {"2026-04-31T00:00:00Z", BAD, 0},
    {"2026-06-31T00:00:00Z", BAD, 0},
    {"2026-09-31T00:00:00Z", BAD, 0},
    {"2026-11-31T00:00:00Z", BAD, 0},
    {"2026-01-32T00:00:00Z", BAD, 0},
    {"2026-01-00T00:00:00Z", BAD, 0},
    {"2026-13-01T00:00:00Z", BAD, 0},
    {"2024-13-01T00:00:00Z", BAD, 0},
    {"2026-00-01T00:00:00Z", BAD, 0},
    /* clock ranges; Go rejects a leap second */
    {"2026-11-22T23:59:59Z", 0, NOW + 14 * HOUR - 1000},
    {"2026-11-22T24:00:00Z", BAD, 0},
    {"2026-11-22T10:60:00Z", BAD, 0},
    {"2026-11-22T10:00:60Z", BAD, 0},
    {"2016-12-31T23:59:60Z", BAD, 0},
    /* fractions of any length, truncated to milliseconds (never rounded) */
    {"2026-11-22T10:00:00.5Z", 0, NOW + 500},
    {"2026-11-22T10:00:00.05Z", 0, NOW + 50},
    {"2026-11-22T10:00:00.123456789Z", 0, NOW + 123},
    {"2026-11-22T10:00:00.999999999Z", 0, NOW + 999},
    {"2026-11-22T10:00:00.0009Z", 0, NOW},
    {"2026-11-22T10:00:00.1234567890123456Z", 0, NOW + 123},
    {"1969-12-31T23:59:59.5Z", 0, -500},
    {"2026-11-22T10:00:00,5Z", 0, NOW + 500}, /* Go's general parser takes ',' as well */
    {"2026-11-22T10:00:00.Z", BAD, 0},
    {"2026-11-22T10:00:00,Z", BAD, 0},
    {"2026-11-22T10:00:00..5Z", BAD, 0},
    {"2026-11-22T10:00:00.5.5Z", BAD, 0},
    /* numeric offsets, converted to UTC */
    {"2026-11-22T15:30:00+05:30", 0, NOW},
    {"2026-11-22T11:30:00+01:30", 0, NOW},
    {"2026-11-22T08:00:00-02:00", 0, NOW},
    {"2026-11-22T10:00:00-00:00", 0, NOW},
    {"2026-11-22T10:00:00+00:00", 0, NOW},
    {"2026-11-22T11:00:00.250+01:00", 0, NOW + 250},
    {"2026-11-23T09:59:00+23:59", 0, NOW},
    {"1970-01-01T00:00:00+00:01", 0, -MIN},
    {"0000-01-01T00:00:00+01:00", 0, KT_MIN_MS - HOUR}, /* UTC lands in year -1, as in Go */
    {"9999-12-31T23:59:59-01:00", 0, 253402300799000LL + HOUR},
    /* Go's general parser allows offsets of 24 hours and 60 minutes */
    {"2026-11-22T10:00:00+24:00", 0, NOW - 24 * HOUR},
    {"2026-11-22T10:00:00+00:60", 0, NOW - HOUR},
    {"2026-11-22T10:00:00-24:60", 0, NOW + 25 * HOUR},
    {"2026-11-22T10:00:00+25:00", BAD, 0},
    {"2026-11-22T10:00:00+00:61", BAD, 0},
    {"2026-11-22T10:00:00+0100", BAD, 0},
    {"2026-11-22T10:00:00+01", BAD, 0},
    {"2026-11-22T10:00:00+1:00", BAD, 0},
    {"2026-11-22T10:00:00+01:0", BAD, 0},
    {"2026-11-22T10:00:00+01:00:00", BAD, 0},
    {"2026-11-22T10:00:00 01:00", BAD, 0},
    {"2026-11-22T10:00:00*01:00", BAD, 0},
    {"2026-11-22T10:00:00+01:00Z", BAD, 0},
    {"2026-11-22T10:00:00Z+01:00", BAD, 0},
    /* Go's general parser reads the hour of "15" as one or two digits */
    {"2026-11-22T1:02:03Z", 0, 1795309323000LL},
    {"2026-11-22T100:00:00Z", BAD, 0},
    {"2026-11-22T:00:00Z", BAD, 0},
    /* every other field is exactly two digits, the year exactly four */
    {"2026-1-22T10:00:00Z", BAD, 0},
    {"2026-11-2T10:00:00Z", BAD, 0},
    {"2026-11-22T10:0:00Z", BAD, 0},
    {"2026-11-22T10:00:0Z", BAD, 0},
    {"26-11-22T10:00:00Z", BAD, 0},
    {"02026-11-22T10:00:00Z", BAD, 0},
    {"-2026-11-22T10:00:00Z", BAD, 0},
    {"+2026-11-22T10:00:00Z", BAD, 0},
    {"2o26-11-22T10:00:00Z", BAD, 0},
    /* "T" and "Z" in upper case only; no space for "T"; a zone is required */
    {"2026-11-22t10:00:00z", BAD, 0},
    {"2026-11-22t10:00:00Z", BAD, 0},
    {"2026-11-22T10:00:00z", BAD, 0},
    {"2026-11-22 10:00:00Z", BAD, 0},
    {"2026-11-22T10:00:00", BAD, 0},
    {"2026-11-22T10:00:00.5", BAD, 0},
    {"2026-11-22T10:00Z", BAD, 0},
    /* trailing or leading garbage, short strings */
    {"2026-11-22T10:00:00Zjunk", BAD, 0},
    {"2026-11-22T10:00:00Z ", BAD, 0},
    {"2026-11-22T10:00:00ZZ", BAD, 0},
    {"2026-11-22T10:00:00+01:00x", BAD, 0},
    {" 2026-11-22T10:00:00Z", BAD, 0},
    {"2026-11-22", BAD, 0},
    {"2026-11-22T", BAD, 0},
    {"Z", BAD, 0},
    {"", BAD, 0},
    {NULL, BAD, 0},
};

static void test_parse_table(void **state)
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

/* No proper prefix of a valid stamp parses (and none is read past its end: ASan build). */
static void test_parse_prefixes(void **state)
{
    static const char *const full[] = {"2026-11-22T10:00:00Z", "2026-11-22T10:00:00.123+05:30",
                                       "2026-11-22T1:02:03,5-00:00"};
    (void)state;
    for (size_t i = 0; i < sizeof(full) / sizeof(full[0]); i++) {
        size_t n = strlen(full[i]);
        int64_t ms;
        assert_int_equal(kt_parse(full[i], &ms), 0);
        for (size_t len = 0; len < n; len++) {
            char *p = malloc(len + 1); /* exact size, so an overread is caught */
            assert_non_null(p);
            memcpy(p, full[i], len);
            p[len] = '\0';
            if (kt_parse(p, &ms) == 0)
                fail_msg("prefix \"%s\" parsed", p);
            free(p);
        }
    }
}

/* ---- format -------------------------------------------------------------------------------- */

static void test_format_table(void **state)
{
    static const struct {
        int64_t ms;
        const char *want, *micro;
        int rc;
    } t[] = {
        {0, "1970-01-01T00:00:00Z", "1970-01-01T00:00:00.000000Z", 0},
        {999, "1970-01-01T00:00:00Z", "1970-01-01T00:00:00.999000Z", 0},
        {-1, "1969-12-31T23:59:59Z", "1969-12-31T23:59:59.999000Z", 0},
        {-1000, "1969-12-31T23:59:59Z", "1969-12-31T23:59:59.000000Z", 0},
        {-1001, "1969-12-31T23:59:58Z", "1969-12-31T23:59:58.999000Z", 0},
        {NOW, "2026-11-22T10:00:00Z", "2026-11-22T10:00:00.000000Z", 0},
        {951782400000LL, "2000-02-29T00:00:00Z", "2000-02-29T00:00:00.000000Z", 0},
        {1709251199999LL, "2024-02-29T23:59:59Z", "2024-02-29T23:59:59.999000Z", 0},
        {4107542400000LL, "2100-03-01T00:00:00Z", "2100-03-01T00:00:00.000000Z", 0},
        {-2208988800000LL, "1900-01-01T00:00:00Z", "1900-01-01T00:00:00.000000Z", 0},
        {1714564800123LL, "2024-05-01T12:00:00Z", "2024-05-01T12:00:00.123000Z", 0},
        {4102444799000LL, "2099-12-31T23:59:59Z", "2099-12-31T23:59:59.000000Z", 0},
        {-62162121600000LL, "0000-02-29T00:00:00Z", "0000-02-29T00:00:00.000000Z", 0},
        {KT_MIN_MS, "0000-01-01T00:00:00Z", "0000-01-01T00:00:00.000000Z", 0},
        {KT_MAX_MS, "9999-12-31T23:59:59Z", "9999-12-31T23:59:59.999000Z", 0},
        {KT_MAX_MS + 1, "", "", -ERANGE},
        {KT_MIN_MS - 1, "", "", -ERANGE},
        {INT64_MAX, "", "", -ERANGE},
        {INT64_MIN, "", "", -ERANGE}, /* KT_ZERO */
    };
    (void)state;
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        char out[KT_RFC3339_MAX] = "x", micro[KT_RFC3339_MAX] = "x";
        assert_int_equal(kt_format(t[i].ms, out), t[i].rc);
        assert_string_equal(out, t[i].want);
        assert_int_equal(kt_format_micro(t[i].ms, micro), t[i].rc);
        assert_string_equal(micro, t[i].micro);
    }
}

/* ---- against libc and round trips ---------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int64_t rng_ms(uint64_t *s)
{
    return KT_MIN_MS + (int64_t)(rng_next(s) % (uint64_t)(KT_MAX_MS - KT_MIN_MS + 1));
}

static int64_t floor_sec_ms(int64_t ms)
{
    int64_t r = ms % 1000;
    return ms - (r < 0 ? r + 1000 : r);
}

/* The stamp of `ms` as glibc's proleptic Gregorian gmtime_r computes it. */
static void libc_format(int64_t ms, char *out, size_t n)
{
    time_t secs = (time_t)(floor_sec_ms(ms) / 1000);
    struct tm tm;
    assert_non_null(gmtime_r(&secs, &tm));
    snprintf(out, n, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

static void check_against_libc(int64_t ms)
{
    char got[KT_RFC3339_MAX], want[64];
    libc_format(ms, want, sizeof(want));
    assert_int_equal(kt_format(ms, got), 0);
    if (strcmp(got, want) != 0)
        fail_msg("%lld: kt_format %s, gmtime_r %s", (long long)ms, got, want);
}

/* Every day from `from` to `to` (ms, day-aligned) at a random time of day. */
static void check_days(uint64_t *s, int64_t from, int64_t to)
{
    for (int64_t day = from; day <= to; day += 86400000)
        check_against_libc(day + (int64_t)(rng_next(s) % 86400000));
}

static void test_format_libc(void **state)
{
    uint64_t s = 0x9e3779b97f4a7c15ULL;
    (void)state;
    /* the calendar repeats every 400 years: two whole cycles, 1600-2399, and both ends */
    check_days(&s, -11676096000000LL, 13569465600000LL - 86400000);
    check_days(&s, KT_MIN_MS, KT_MIN_MS + 2 * 366 * 86400000LL);
    check_days(&s, KT_MAX_MS + 1 - 2 * 366 * 86400000LL, KT_MAX_MS + 1 - 86400000);
    for (int i = 0; i < 200000; i++)
        check_against_libc(rng_ms(&s));
}

/* "." or "," and 1-12 digits whose first three are `ms`; *out_ms gets what they mean when
 * truncated to milliseconds. */
static void random_fraction(uint64_t *s, int ms, char *out, size_t n, int *out_ms)
{
    int digits = 1 + (int)(rng_next(s) % 12);
    unsigned long long tail = rng_next(s) % 1000000000ULL;
    snprintf(out, n, "%c%03d%09llu", rng_next(s) % 8 ? '.' : ',', ms, tail);
    out[1 + digits] = '\0';
    *out_ms = digits == 1 ? ms / 100 * 100 : digits == 2 ? ms / 10 * 10 : ms;
}

/* "Z" or an offset from -24:00 to +24:00 ("-00:00" included); *out_min gets it in minutes. */
static void random_zone(uint64_t *s, char *out, size_t n, int *out_min)
{
    int off = (int)(rng_next(s) % (2 * 1440 + 1)) - 1440;
    *out_min = off;
    if (off == 0 && rng_next(s) % 2)
        snprintf(out, n, "Z");
    else
        snprintf(out, n, "%c%02d:%02d", off < 0 || (off == 0 && rng_next(s) % 2) ? '-' : '+',
                 abs(off) / 60, abs(off) % 60);
}

/* The wall time of `ms` at a random offset, written by libc with a random fraction, parses to
 * the same instant. */
static void check_parse_variant(uint64_t *s, int64_t ms)
{
    char wall[64], frac[24], zone[16], in[112];
    int frac_ms, off_min;
    random_fraction(s, (int)(ms - floor_sec_ms(ms)), frac, sizeof(frac), &frac_ms);
    random_zone(s, zone, sizeof(zone), &off_min);
    libc_format(ms + off_min * MIN, wall, sizeof(wall));
    wall[strlen(wall) - 1] = '\0'; /* drop the "Z" */
    snprintf(in, sizeof(in), "%s%s%s", wall, frac, zone);
    int64_t got, want = floor_sec_ms(ms) + frac_ms;
    if (kt_parse(in, &got) != 0 || got != want)
        fail_msg("%s: want %lld", in, (long long)want);
}

static void test_parse_libc(void **state)
{
    uint64_t s = 0x2545f4914f6cdd1dULL;
    (void)state;
    for (int i = 0; i < 100000; i++) {
        int64_t ms = rng_ms(&s);
        /* keep the shifted wall time inside the four-digit years */
        if (ms < KT_MIN_MS + 25 * HOUR || ms > KT_MAX_MS - 25 * HOUR)
            continue;
        check_parse_variant(&s, ms);
    }
}

static void test_round_trip(void **state)
{
    uint64_t s = 0xd1b54a32d192ed03ULL;
    (void)state;
    for (int i = 0; i < 200000; i++) {
        int64_t ms = i < 2000 ? (int64_t)i * 997 - 1000000 : rng_ms(&s), got;
        char buf[KT_RFC3339_MAX];
        assert_int_equal(kt_format(ms, buf), 0);
        assert_int_equal(kt_parse(buf, &got), 0);
        assert_int_equal(got, floor_sec_ms(ms)); /* second precision */
        assert_int_equal(kt_format_micro(ms, buf), 0);
        assert_int_equal(kt_parse(buf, &got), 0);
        assert_int_equal(got, ms); /* millisecond precision */
    }
}

/* ---- clocks -------------------------------------------------------------------------------- */

static void test_clocks(void **state)
{
    (void)state;
    int64_t before = (int64_t)time(NULL) * 1000, now = kt_now_ms();
    assert_true(now >= before && now < before + 2000);
    int64_t m1 = kt_mono_ms(), m2 = kt_mono_ms();
    assert_true(m1 >= 0 && m2 >= m1);
}

/* The steady clock reads the wall clock once, then only adds boot-clock time: a wall clock read
 * at 5 s, 2 s of boot time ago, reads about 7 s now, whatever the wall clock says. */
static void test_steady_clock_advances_with_the_boot_clock_only(void **state)
{
    (void)state;
    struct kt_steady c;
    kt_steady_init(&c);
    int64_t wall = kt_now_ms(), now = kt_steady_now(&c);
    assert_true(now >= c.wall0_ms && now <= wall + 2000);
    c.wall0_ms = 5000;
    c.boot0_ms = kt_boot_ms() - 2000;
    now = kt_steady_now(&c);
    assert_true(now >= 7000 && now < 9000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_table),  cmocka_unit_test(test_parse_prefixes),
        cmocka_unit_test(test_format_table), cmocka_unit_test(test_format_libc),
        cmocka_unit_test(test_parse_libc),   cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_clocks),
        cmocka_unit_test(test_steady_clock_advances_with_the_boot_clock_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
