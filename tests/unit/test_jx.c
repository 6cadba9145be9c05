/* jx_named: the element of a list with a given "name", tolerating what is not a list. */
#include "testutil.h"

#include "obj/jx.h"

static void named_elements(void **state)
{
    (void)state;
    json_t *o = json_loads("{\"c\": [{\"name\": \"a\", \"v\": 1}, {\"v\": 2}, "
                           "{\"name\": 7}, {\"name\": \"b\", \"v\": 3}], \"s\": \"x\"}",
                           0, NULL);
    assert_non_null(o);
    json_t *c = jx_arr(o, "c");
    assert_int_equal(jx_int_or(jx_named(c, "a"), "v", 0), 1);
    assert_int_equal(jx_int_or(jx_named(c, "b"), "v", 0), 3);
    assert_null(jx_named(c, "z"));
    assert_null(jx_named(c, NULL));
    assert_null(jx_named(json_object_get(o, "s"), "a")); /* not a list */
    assert_null(jx_named(NULL, "a"));
    json_decref(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(named_elements),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
