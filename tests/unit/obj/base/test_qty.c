/* qty: Kubernetes quantities parsed exactly and written in Quantity.String()'s canonical form
 * (k8s.io/apimachinery pkg/api/resource quantity_test.go's canonical cases). */
#include "testutil.h"

#include <errno.h>
#include <string.h>

#include "obj/base/qty.h"

/* canonical(in * n) */
static void expect(const char *in, long long n, const char *want)
{
    struct qty q, sum = {0};
    char out[QTY_MAX];
    json_t *v = json_string(in);
    assert_int_equal(qty_parse(v, &q), 0);
    assert_int_equal(qty_add_mul(&sum, &q, n), 0);
    qty_format(&sum, out);
    if (strcmp(out, want) != 0)
        fail_msg("%s x %lld: got %s, want %s", in, n, out, want);
    json_decref(v);
}

static void canonical_forms(void **state)
{
    (void)state;
    expect("500m", 2, "1");
    expect("500m", 3, "1500m");
    expect("1Gi", 2, "2Gi");
    expect("512Mi", 5, "2560Mi");
    expect("1.25", 1, "1250m");
    expect("6000", 1, "6k");
    expect("1500", 1, "1500");
    expect("1.5Gi", 1, "1536Mi");
    expect("1536", 1, "1536");
    expect("0", 4, "0");
    expect("100M", 10, "1G");
    expect("1e3", 1, "1k");
    expect("0.1m", 1, "1m"); /* rounded up to a thousandth */
    expect("1Ki", 1, "1Ki");
}

static void sums_take_the_first_format(void **state)
{
    (void)state;
    struct qty a = {0}, b, c;
    char out[QTY_MAX];
    json_t *gi = json_string("1Gi"), *num = json_integer(1024);
    assert_int_equal(qty_parse(gi, &b), 0);
    assert_int_equal(qty_parse(num, &c), 0);
    assert_int_equal(qty_add_mul(&a, &b, 1), 0);
    assert_int_equal(qty_add_mul(&a, &c, 1), 0);
    qty_format(&a, out);
    assert_string_equal(out, "1048577Ki"); /* 1Gi + 1024 bytes, in the first one's format */
    json_decref(gi);
    json_decref(num);
}

static void bad_quantities(void **state)
{
    (void)state;
    static const char *const bad[] = {"", "-1", "1x", "Gi", "1.2.3", "1 Gi", NULL};
    struct qty q;
    for (size_t i = 0; bad[i]; i++) {
        json_t *v = json_string(bad[i]);
        if (qty_parse(v, &q) != -EINVAL)
            fail_msg("\"%s\" parsed", bad[i]);
        json_decref(v);
    }
    json_t *big = json_string("10E");
    assert_int_equal(qty_parse(big, &q), -ERANGE);
    json_decref(big);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(canonical_forms),
        cmocka_unit_test(sums_take_the_first_format),
        cmocka_unit_test(bad_quantities),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
