/* jx_named: the element of a list with a given "name", tolerating what is not a list;
 * jx_covers: a stored object holding what was sent for it. */
#include "testutil.h"

#include "obj/tree/jx.h"

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

/* jx_covers(big, small) for quoted JSON texts. */
static bool covers(const char *big, const char *small)
{
    json_t *b = tu_qjson(big), *s = tu_qjson(small);
    bool r = jx_covers(b, s);
    json_decref(b);
    json_decref(s);
    return r;
}

static void covered_objects(void **state)
{
    (void)state;
    assert_true(covers("{'a':1,'b':{'c':[1,{'d':2,'e':3}]}}", "{'b':{'c':[1,{'d':2}]}}"));
    assert_true(covers("{'a':1}", "{'m':{'creationTimestamp':null}}") == false);
    assert_true(covers("{'m':{}}", "{'m':{'creationTimestamp':null}}"));
    assert_false(covers("{'a':1}", "{'a':2}"));
    assert_false(covers("{'a':[1,2]}", "{'a':[1]}"));     /* an item removed */
    assert_false(covers("{'a':1}", "{'a':{'b':1}}"));
    assert_false(covers("{'a':'1'}", "{'a':1}"));
    assert_true(jx_covers(NULL, NULL));
    json_t *o = tu_qjson("{'a':1}");
    assert_true(jx_covers(o, NULL));
    assert_false(jx_covers(NULL, o));
    json_decref(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(named_elements),
        cmocka_unit_test(covered_objects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
