/* qty: Kubernetes quantities read with ParseQuantity's grammar and written in Quantity.String()'s
 * canonical form.  The tables are k8s.io/apimachinery pkg/api/resource quantity_test.go's, as
 * facts (input -> canonical string, or error): TestQuantityParse (its valid table, each also
 * with a leading "-" and "+", and its invalid one), TestParseQuantityString, TestQuantityString
 * (canonical and alternate forms), TestQuantityParseEmit, TestQuantityCmp, TestJSONWhitespace
 * and TestNewSet.  A canonical string is the String() of the Quantity upstream's table
 * expects; an error is the one ParseQuantity returns (upstream's table only says "an error"). */
#include "testutil.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "obj/base/qty.h"

struct row {
    const char *in;
    const char *want; /* the canonical form */
};

struct bad {
    const char *in;
    int rc;
};

static void expect_bad(const struct bad *b)
{
    struct qty q;
    int rc = qty_parse_str(b->in, &q);
    if (rc != b->rc)
        fail_msg("\"%s\": rc %d, want %d", b->in, rc, b->rc);
}

/* in reads as `want`, and the canonical form reads back the same. */
static void expect_row(const struct row *r)
{
    struct qty q, back;
    char out[QTY_MAX], again[QTY_MAX];
    int rc = qty_parse_str(r->in, &q);
    if (rc != 0)
        fail_msg("\"%s\": rc %d (%s), want %s", r->in, rc, qty_strerror(rc), r->want);
    qty_format(&q, out);
    if (strcmp(out, r->want) != 0)
        fail_msg("\"%s\": got %s, want %s", r->in, out, r->want);
    assert_int_equal(qty_parse_str(out, &back), 0);
    qty_format(&back, again);
    if (qty_cmp(&q, &back) != 0 || strcmp(again, out) != 0)
        fail_msg("\"%s\": %s reads back as %s", r->in, out, again);
}

/* TestQuantityParse, its table: what each input is, as the expected Quantity's String(). */
static const struct row parse_table[] = {
    {"0", "0"}, {"0n", "0"}, {"0u", "0"}, {"0m", "0"}, {"0Ki", "0"}, {"0k", "0"},
    {"0Mi", "0"}, {"0M", "0"}, {"0Gi", "0"}, {"0G", "0"}, {"0Ti", "0"}, {"0T", "0"},
    /* quantity less numbers are allowed */
    {"1", "1"},
    /* binary suffixes */
    {"1Ki", "1Ki"}, {"8Ki", "8Ki"}, {"7Mi", "7Mi"}, {"6Gi", "6Gi"}, {"5Ti", "5Ti"},
    {"4Pi", "4Pi"}, {"3Ei", "3Ei"}, {"10Ti", "10Ti"}, {"100Ti", "100Ti"},
    /* decimal suffixes */
    {"5n", "5n"}, {"4u", "4u"}, {"3m", "3m"}, {"9", "9"}, {"8k", "8k"}, {"50k", "50k"},
    {"7M", "7M"}, {"6G", "6G"}, {"5T", "5T"}, {"40T", "40T"}, {"300T", "300T"}, {"2P", "2P"},
    {"1E", "1E"},
    /* decimal exponents */
    {"1E-3", "1e-3"}, {"1e3", "1e3"}, {"1E6", "1e6"}, {"1e9", "1e9"}, {"1E12", "1e12"},
    {"1e15", "1e15"}, {"1E18", "1e18"},
    /* nonstandard but still parsable */
    {"1e14", "100e12"}, {"1e13", "10e12"}, {"1e3", "1e3"}, {"100.035k", "100035"},
    /* things that look like floating point */
    {"0.001", "1m"}, {"0.0005k", "500m"}, {"0.005", "5m"}, {"0.05", "50m"}, {"0.5", "500m"},
    {"0.00050k", "500m"}, {"0.00500", "5m"}, {"0.05000", "50m"}, {"0.50000", "500m"},
    {"0.5e0", "500e-3"}, {"0.5e-1", "50e-3"}, {"0.5e-2", "5e-3"}, {"0.5e0", "500e-3"},
    {"10.035M", "10035k"}, {"1.2e3", "1200"}, {"1.3E+6", "1300e3"}, {"1.40e9", "1400e6"},
    {"1.53E12", "1530e9"}, {"1.6e15", "1600e12"}, {"1.7E18", "1700e15"}, {"9.01", "9010m"},
    {"8.1k", "8100"}, {"7.123456M", "7123456"}, {"6.987654321G", "6987654321"},
    {"5.444T", "5444G"}, {"40.1T", "40100G"}, {"300.2T", "300200G"}, {"2.5P", "2500T"},
    {"1.01E", "1010P"},
    /* things that saturate/round */
    {"3.001n", "4n"}, {"1.1E-9", "2e-9"}, {"0.0000000001", "1n"}, {"0.0000000005", "1n"},
    {"0.00000000050", "1n"}, {"0.5e-9", "1e-9"}, {"0.9n", "1n"}, {"0.00000012345", "124n"},
    {"0.00000012354", "124n"}, {"9Ei", "9223372036854775807"},
    {"9223372036854775807Ki", "9223372036854775807"}, {"12E", "12E"},
    /* we'll accept fractional binary stuff, too */
    {"100.035Ki", "102435840m"}, {"0.5Mi", "512Ki"}, {"0.05Gi", "53687091200m"},
    {"0.025Ti", "27487790694400m"},
    /* things written by trolls */
    {"0.000000000001Ki", "2n"}, {".001", "1m"}, {".0001k", "100m"}, {"1.", "1"},
    {"1.G", "1G"},
};

static void parse_table_reads(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(parse_table) / sizeof(parse_table[0]); i++)
        expect_row(&parse_table[i]);
}

/* The same table with a leading "-" (the negated value) and "+" (the same value). */
static void parse_table_signed(void **state)
{
    (void)state;
    char in[64], want[QTY_MAX + 1];
    for (size_t i = 0; i < sizeof(parse_table) / sizeof(parse_table[0]); i++) {
        const struct row *r = &parse_table[i];
        bool zero = !strcmp(r->want, "0");
        snprintf(in, sizeof(in), "-%s", r->in);
        snprintf(want, sizeof(want), "%s%s", zero ? "" : "-", r->want);
        expect_row(&(struct row){in, want});
        snprintf(in, sizeof(in), "+%s", r->in);
        expect_row(&(struct row){in, r->want});
    }
}

/* TestQuantityParse's invalid table, "" and TestQuantityParseNonNumericPanic's input. */
static void parse_table_invalid(void **state)
{
    (void)state;
    static const struct bad bad[] = {
        {"1.1.M", QTY_EFORMAT}, {"1+1.0M", QTY_EFORMAT}, {"0.1mi", QTY_ESUFFIX},
        {"0.1am", QTY_EFORMAT}, {"aoeu", QTY_EFORMAT},   {".5i", QTY_ESUFFIX},
        {"1i", QTY_ESUFFIX},    {"-3.01i", QTY_ESUFFIX}, {"-3.01e-", QTY_ESUFFIX},
        {" 1", QTY_EFORMAT},    {"1 ", QTY_EFORMAT},     {"", QTY_EFORMAT},
        {"Non-Numeric", QTY_EFORMAT},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        expect_bad(&bad[i]);
}

/* TestParseQuantityString's inputs (all valid), and TestQuantityParseEmit. */
static void parse_emit(void **state)
{
    (void)state;
    static const struct row rows[] = {
        {"0.025Ti", "27487790694400m"}, {"1.025Ti", "1126999418470400m"}, {".", "0"},
        {"-.", "0"}, {"1E-3", "1e-3"}, {"1Ki", "1Ki"}, {"1Mi", "1Mi"}, {"1Gi", "1Gi"},
        {"1024Mi", "1Gi"}, {"1000M", "1G"}, {".001Ki", "1024m"}, {".000001Ki", "1024u"},
        {".000000001Ki", "1024n"}, {".000000000001Ki", "2n"}, {"-.000000000001Ki", "-2n"},
        {"-1.025Ti", "-1126999418470400m"}, {"-1000M", "-1G"}, {"-.001Ki", "-1024m"},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        expect_row(&rows[i]);
}

/* TestQuantityString: each canonical form reads as itself, its alternate as it. */
static void string_table(void **state)
{
    (void)state;
    static const char *const rows[][2] = {
        {"1Gi", "1024Mi"}, {"300Mi", "307200Ki"}, {"6Ki", ""}, {"1001Gi", "1025024Mi"},
        {"1Ti", "1024Gi"}, {"5", "5000m"}, {"500m", "0.5"}, {"1G", "1000M"}, {"1G", "0.001T"},
        {"1m", "1000u"}, {"80m", ""}, {"1080m", "1.08"}, {"1080m", "1080000000n"},
        {"300M", ""}, {"1T", ""}, {"1234567M", ""}, {"1234567m", ""}, {"3k", ""}, {"1025", ""},
        {"0", "00"}, {"1e9", ".001e12"}, {"1e-3", "0.001e0"}, {"1e-9", "1000e-12"},
        {"80e-3", ""}, {"300e6", ""}, {"1e12", ""}, {"1e3", ""}, {"3e3", ""}, {"1n", ""},
        {"80n", ""}, {"1080n", ""}, {"1u", ""}, {"80u", ""}, {"1080u", ""},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        expect_row(&(struct row){rows[i][0], rows[i][0]});
        if (*rows[i][1])
            expect_row(&(struct row){rows[i][1], rows[i][0]});
    }
}

/* The values of jaxset's issue: GPU counts written as quantities, and what is not one. */
static void hostile_values(void **state)
{
    (void)state;
    static const struct row rows[] = {
        {"2k", "2k"}, {"1e1", "10"}, {"1.5", "1500m"}, {"-1", "-1"}, {"-1Gi", "-1Gi"},
        {"100000000000000000000Ei", "9223372036854775807"}, /* capped, as maxAllowed */
        {"100000000000000000000E", "100e36"}, /* DecimalSI: not capped */
        {"1000E", "1e21"}, /* apimachinery writes "1", which is not the value */
        {".Ti", "0"}, {"+", "0"}, {"-", "0"}, {"1e2147483647", "10e2147483646"},
    };
    static const struct bad bad[] = {
        {"abc", QTY_EFORMAT}, {"1e3Mi", QTY_EFORMAT}, {".e-10", QTY_ENUMERIC},
        {".Pi", QTY_ENUMERIC}, {"1e", QTY_ESUFFIX}, {"1Ee3", QTY_ESUFFIX},
        {"1e99999999999999999999", QTY_ESUFFIX}, /* strconv.ParseInt's range */
        {"1e2147483648", QTY_ERANGE},            /* apimachinery wraps it: int32 */
        {"10e2147483647", QTY_ERANGE},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        expect_row(&rows[i]);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        expect_bad(&bad[i]);
}

/* QTY_DIGITS significant digits are held, one more is QTY_ERANGE; digits below a billionth
 * are only rounded up from, however many. */
static void digits_limit(void **state)
{
    (void)state;
    char s[QTY_DIGITS + 80], want[QTY_MAX];
    struct qty q;
    memset(s, '7', QTY_DIGITS);
    s[QTY_DIGITS] = '\0';
    assert_int_equal(qty_parse_str(s, &q), 0);
    qty_format(&q, want);
    assert_string_equal(want, s);
    memcpy(s + QTY_DIGITS, "7", 2);
    assert_int_equal(qty_parse_str(s, &q), QTY_ERANGE);
    memset(s, '0', sizeof(s));
    memcpy(s, "1.", 2);
    memcpy(s + sizeof(s) - 2, "1", 2);
    assert_int_equal(qty_parse_str(s, &q), 0);
    qty_format(&q, want);
    assert_string_equal(want, "1000000001n");
    assert_int_equal(qty_parse_n("1\0", 2, &q), QTY_EFORMAT); /* a NUL is no quantity's */
}

static void expect_json(const char *text, const char *want)
{
    struct qty q;
    char out[QTY_MAX];
    json_t *v = json_loads(text, JSON_DECODE_ANY, NULL);
    assert_non_null(v);
    assert_int_equal(qty_parse(v, &q), 0);
    qty_format(&q, out);
    if (strcmp(out, want) != 0)
        fail_msg("%s: got %s, want %s", text, out, want);
    json_decref(v);
}

/* TestJSONWhitespace, and numbers as encoding/json writes them. */
static void json_values(void **state)
{
    (void)state;
    struct qty q;
    expect_json("\" 1\"", "1");
    expect_json("\"1 \"", "1");
    expect_json("1", "1");
    expect_json("10", "10");
    expect_json("-1", "-1");
    expect_json("\"\\u00a01Gi\\t\"", "1Gi");
    expect_json("1.5", "1500m");
    expect_json("0.1", "100m");
    expect_json("1000.0", "1k");
    expect_json("1e21", "1e21");
    expect_json("1e-7", "100e-9");
    expect_json("null", "0");
    json_t *t = json_true(), *o = json_object();
    assert_int_equal(qty_parse(t, &q), QTY_EFORMAT);
    assert_int_equal(qty_parse(o, &q), QTY_EFORMAT);
    json_decref(o);
    json_decref(t);
}

/* TestQuantityCmp, and TestNewSet's NewQuantity(value, format).String(). */
static void cmp_and_new(void **state)
{
    (void)state;
    static const struct {
        const char *x, *y;
        int want;
    } cmps[] = {{"0", "0", 0}, {"100m", "50m", 1}, {"50m", "100m", -1}, {"10000T", "100Gi", 1},
                {"-1", "1m", -1}, {"1Ki", "1024", 0}, {"12E", "9Ei", 1}, {"-2", "-1", -1}};
    static const struct {
        long long v;
        enum qty_fmt f;
        const char *want;
    } news[] = {{1, QTY_DECIMAL_SI, "1"},       {1000, QTY_DECIMAL_SI, "1k"},
                {1234000, QTY_DECIMAL_SI, "1234k"}, {1024, QTY_BINARY_SI, "1Ki"},
                {1000000, QTY_DECIMAL_EXPONENT, "1e6"}, {1024 * 1024, QTY_BINARY_SI, "1Mi"},
                {LLONG_MIN, QTY_DECIMAL_SI, "-9223372036854775808"}};
    struct qty a, b;
    char out[QTY_MAX];
    for (size_t i = 0; i < sizeof(cmps) / sizeof(cmps[0]); i++) {
        assert_int_equal(qty_parse_str(cmps[i].x, &a), 0);
        assert_int_equal(qty_parse_str(cmps[i].y, &b), 0);
        assert_int_equal(qty_cmp(&a, &b), cmps[i].want);
        assert_int_equal(qty_cmp(&b, &a), -cmps[i].want);
    }
    for (size_t i = 0; i < sizeof(news) / sizeof(news[0]); i++) {
        qty_from_int(news[i].v, news[i].f, &a);
        qty_format(&a, out);
        assert_string_equal(out, news[i].want);
    }
}

/* canonical(in * n) */
static void expect_mul(const char *in, long long n, const char *want)
{
    struct qty q, sum = {0};
    char out[QTY_MAX];
    assert_int_equal(qty_parse_str(in, &q), 0);
    assert_int_equal(qty_add_mul(&sum, &q, n), 0);
    qty_format(&sum, out);
    if (strcmp(out, want) != 0)
        fail_msg("%s x %lld: got %s, want %s", in, n, out, want);
}

static void sums(void **state)
{
    (void)state;
    struct qty a = {0}, b, c;
    char out[QTY_MAX];
    expect_mul("500m", 2, "1");
    expect_mul("500m", 3, "1500m");
    expect_mul("1Gi", 2, "2Gi");
    expect_mul("512Mi", 5, "2560Mi");
    expect_mul("100M", 10, "1G");
    expect_mul("1", -3, "-3");
    expect_mul("9Ei", 4, "36893488147419103228"); /* past int64, exact, as DecimalSI */
    expect_mul("1e3", 1, "1e3");
    /* Quantity.Add: the first one's format, 1Gi + 1024 */
    assert_int_equal(qty_parse_str("1Gi", &b), 0);
    assert_int_equal(qty_parse_str("1024", &c), 0);
    assert_int_equal(qty_add_mul(&a, &b, 1), 0);
    assert_int_equal(qty_add_mul(&a, &c, 1), 0);
    qty_format(&a, out);
    assert_string_equal(out, "1048577Ki");
    assert_int_equal(qty_add_mul(&a, &b, -1), 0); /* 1Gi + 1Ki - 1Gi */
    qty_format(&a, out);
    assert_string_equal(out, "1Ki");
    /* a sum whose digits no quantity here holds */
    assert_int_equal(qty_parse_str("1e2000000", &b), 0);
    assert_int_equal(qty_parse_str("1n", &c), 0);
    assert_int_equal(qty_add_mul(&b, &c, 1), QTY_ERANGE);
    qty_format(&b, out);
    assert_string_equal(out, "100e1999998");
}

/* Value(), MilliValue(), and the API server's whole-number test. */
static void values(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        int scale;
        long long want; /* LLONG_MIN: QTY_ERANGE */
        bool whole;
    } rows[] = {
        {"1.5", 0, 2, false},        {"1.5", -3, 1500, false},   {"2k", 0, 2000, true},
        {"1e1", 0, 10, true},        {"1.9999", 0, 2, true},     {"1.0001", -3, 1001, false},
        {"-1.5", 0, -2, false},      {"1n", 0, 1, false},        {"0", 0, 0, true},
        {"100000000000000000000Ei", 0, LLONG_MAX, true},
        {"100000000000000000000Ei", -3, LLONG_MIN, true},
        {"1e30", 0, LLONG_MIN, true}, {"12E", 0, LLONG_MIN, true}, {"1Mi", 20, 1, true},
        {"999.9995", 0, 1000, true}, {"0.9995", -3, 1000, true},
    };
    struct qty q;
    long long v;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        assert_int_equal(qty_parse_str(rows[i].in, &q), 0);
        int rc = qty_scaled_value(&q, rows[i].scale, &v);
        if (rows[i].want == LLONG_MIN)
            assert_int_equal(rc, QTY_ERANGE);
        else if (rc != 0 || v != rows[i].want)
            fail_msg("%s at %d: rc %d, %lld", rows[i].in, rows[i].scale, rc, v);
        if (qty_milli_whole(&q) != rows[i].whole)
            fail_msg("%s: whole %d", rows[i].in, !rows[i].whole);
    }
    assert_string_equal(qty_strerror(QTY_EFORMAT),
                        "quantities must match the regular expression "
                        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_table_reads),   cmocka_unit_test(parse_table_signed),
        cmocka_unit_test(parse_table_invalid), cmocka_unit_test(parse_emit),
        cmocka_unit_test(string_table),        cmocka_unit_test(hostile_values),
        cmocka_unit_test(digits_limit),        cmocka_unit_test(json_values),
        cmocka_unit_test(cmp_and_new),         cmocka_unit_test(sums),
        cmocka_unit_test(values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
