/* check: the two modes of the shared checker (converters report types themselves; validation
 * leaves them to the schema walker), enums, DNS names, lookups and the walker. */
#include "api/schema/check.h"
#include "testutil.h"

#include <string.h>

static const char *const colors[] = {"Red", "Blue", NULL};

static void test_report_mode_types(void **state)
{
    (void)state;
    struct ferr_list l;
    struct chk c;
    json_t *o = tu_qjson("{'a': 1, 'b': 'x', 'n': -1.0, 'e': '', 'k': 'Green'}");
    long long n = 7;
    ferr_list_init(&l);
    chk_init(&c, &l, CHK_REPORT);
    assert_null(chk_str(&c, o, "a", "spec", false));
    assert_null(chk_obj(&c, o, "b", "spec", false));
    assert_null(chk_arr(&c, o, "missing", "spec", true));
    assert_null(chk_str(&c, o, "e", "spec", true));
    assert_false(chk_int(&c, o, "n", "spec", 0, &n));
    assert_null(chk_enum(&c, o, "k", "spec", colors, false));
    assert_int_equal(n, 7);
    assert_string_equal(tu_ferrs(&l),
                        "spec.a: Invalid value: 1: must be a string\n"
                        "spec.b: Invalid value: \"x\": must be an object\n"
                        "spec.missing: Required value\n"
                        "spec.e: Required value\n"
                        "spec.n: Invalid value: -1.0: must be greater than or equal to 0\n"
                        "spec.k: Unsupported value: \"Green\": supported values: \"Red\", "
                        "\"Blue\"\n");
    assert_int_equal(chk_result(&c), 6);
    json_decref(o);
    ferr_list_release(&l);
}

static void test_schema_mode_quiet(void **state)
{
    (void)state;
    struct ferr_list l;
    struct chk c;
    json_t *o = tu_qjson("{'a': 1, 'n': -1.0, 'e': '', 'k': 'Blue'}");
    ferr_list_init(&l);
    chk_init(&c, &l, CHK_SCHEMA);
    assert_null(chk_str(&c, o, "a", "spec", true));
    assert_null(chk_arr(&c, o, "missing", "spec", true));
    assert_null(chk_enum(&c, o, "e", "spec", colors, true));
    assert_string_equal(chk_enum(&c, o, "k", "spec", colors, true), "Blue");
    assert_int_equal(chk_result(&c), 0);
    assert_false(chk_int(&c, o, "n", "spec", 0, NULL));
    assert_string_equal(tu_ferrs(&l),
                        "spec.n: Invalid value: -1: must be greater than or equal to 0\n");
    json_decref(o);
    ferr_list_release(&l);
}

static void test_walk(void **state)
{
    (void)state;
    static const struct chk_field items[] = {CHK_F_REQ("name", CHK_STR), CHK_F_END};
    static const struct chk_field fields[] = {
        CHK_F("n", CHK_INT32),
        CHK_F("m", CHK_STRMAP),
        CHK_F_ARR("list", CHK_REQUIRED, CHK_OBJ, items, 1),
        CHK_F_REQ("kind", CHK_STR),
        CHK_F_END,
    };
    struct ferr_list l;
    struct chk c;
    json_t *o = tu_qjson("{'n': 4294967296, 'm': {'x': 1}, 'list': [{'name': ''}, 3]}");
    ferr_list_init(&l);
    chk_init(&c, &l, CHK_SCHEMA);
    chk_walk(&c, o, fields, "spec");
    assert_string_equal(tu_ferrs(&l),
                        "spec.n: Invalid value: 4294967296: must be a 32-bit integer\n"
                        "spec.m[x]: Invalid value: 1: must be of type string\n"
                        "spec.list: Too many: 2: must have at most 1 items\n"
                        "spec.list[0].name: Required value\n"
                        "spec.list[1]: Invalid value: 3: must be of type object\n"
                        "spec.kind: Required value\n");
    json_decref(o);
    ferr_list_release(&l);
}

static void test_dns_and_lookup(void **state)
{
    (void)state;
    struct ferr_list l;
    struct chk c;
    size_t idx = 99;
    json_t *arr = tu_qjson("[{'name': 'a'}, {'name': 'b'}, {'name': 'b'}]");
    ferr_list_init(&l);
    chk_init(&c, &l, CHK_REPORT);
    chk_dns1035(&c, "metadata.name", "", NULL);
    chk_dns1035(&c, "metadata.name", "ok-name", " (hint)");
    chk_dns1035(&c, "metadata.name", "1bad", " (hint)");
    assert_int_equal(chk_result(&c), 2);
    assert_non_null(strstr(tu_ferrs(&l), "metadata.name: Required value\n"));
    assert_non_null(strstr(tu_ferrs(&l), "metadata.name: Invalid value: \"1bad\": a DNS-1035"));
    assert_non_null(strstr(tu_ferrs(&l), " (hint)\n"));
    assert_ptr_equal(chk_named(arr, "b", SIZE_MAX, &idx), json_array_get(arr, 1));
    assert_int_equal(idx, 1);
    assert_null(chk_named(arr, "b", 1, NULL));
    assert_null(chk_named(arr, NULL, SIZE_MAX, NULL));
    assert_true(chk_in(colors, "Red"));
    assert_false(chk_in(colors, "red"));
    json_decref(arr);
    ferr_list_release(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_mode_types),
        cmocka_unit_test(test_schema_mode_quiet),
        cmocka_unit_test(test_walk),
        cmocka_unit_test(test_dns_and_lookup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
