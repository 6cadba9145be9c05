/* -o jsonpath (kubectl's common subset) and -l on local objects (equality-based selectors). */
#include "cli/util/jsonpath.h"
#include "cli/util/labelsel.h"
#include "testutil.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const LIST =
    "{'kind': 'List', 'items': ["
    " {'metadata': {'name': 'a', 'labels': {'app': 'x', 'tier': '1'},"
    "  'annotations': {'jaxset.dev/run-state': 'Failed'}}, 'spec': {'n': 2, 'ok': true}},"
    " {'metadata': {'name': 'b', 'labels': {'app': 'y'}}, 'spec': {'n': 3}}]}";

static void test_render(void **state)
{
    (void)state;
    static const struct {
        const char *tmpl, *want;
    } cases[] = {
        {"{.kind}", "List"},
        {"kind={.kind}!", "kind=List!"},
        {"{.items[*].metadata.name}", "a b"},
        {"{.items[0].metadata.name}", "a"},
        {"{.items[-1].metadata.name}", "b"},
        {"{.items[5].metadata.name}", ""},
        {"{.items[0].spec}", "{\"n\":2,\"ok\":true}"},
        {"{.items[*].spec.n}", "2 3"},
        {"{.items[0].metadata.annotations.jaxset\\.dev/run-state}", "Failed"},
        {"{.items[0].metadata.annotations['jaxset.dev/run-state']}", "Failed"},
        {"{.nothing.here}", ""},
        {"{range .items[*]}{.metadata.name}:{.spec.n}{\"\\n\"}{end}", "a:2\nb:3\n"},
        {"{range .items[*]}[{range .metadata.labels.*}{end}]{end}", "[][]"},
        {"{$.kind}", "List"},
    };
    json_t *obj = tu_qjson(LIST);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *err = NULL;
        char *got = jsonpath_render(cases[i].tmpl, obj, &err);
        if (!got || strcmp(got, cases[i].want))
            fail_msg("%s: got %s (%s), want %s", cases[i].tmpl, got ? got : "NULL",
                     err ? err : "", cases[i].want);
        free(got);
    }
    json_decref(obj);
}

static void test_render_errors(void **state)
{
    (void)state;
    static const char *const bad[] = {"{.items[x]}", "{kind}", "{.a", "{range .items[*]}x",
                                      "{end}", "{.a['b}"};
    json_t *obj = tu_qjson(LIST);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *err = NULL;
        char *got = jsonpath_render(bad[i], obj, &err);
        if (got || !err)
            fail_msg("%s: got %s, want an error", bad[i], got ? got : "NULL");
    }
    json_decref(obj);
}

static void test_selector(void **state)
{
    (void)state;
    static const struct {
        const char *sel;
        int a, b; /* the verdict on item a, on item b */
    } cases[] = {
        {NULL, 1, 1},           {"", 1, 1},           {"app=x", 1, 0},
        {"app==y", 0, 1},       {"app!=x", 0, 1},     {"tier", 1, 0},
        {"!tier", 0, 1},        {"app=x,tier=1", 1, 0}, {"app=x,tier=2", 0, 0},
        {"app=", 0, 0},         {"nope!=z", 1, 1},    {" app = x ", 1, 0},
        {"app in (x,y)", -EINVAL, -EINVAL}, {"!tier=1", -EINVAL, -EINVAL},
        {",", -EINVAL, -EINVAL}, {"=x", -EINVAL, -EINVAL},
    };
    json_t *list = tu_qjson(LIST), *items = json_object_get(list, "items");
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int a = labelsel_match(cases[i].sel, json_array_get(items, 0));
        int b = labelsel_match(cases[i].sel, json_array_get(items, 1));
        if (a != cases[i].a || b != cases[i].b)
            fail_msg("%s: got %d %d, want %d %d", cases[i].sel ? cases[i].sel : "NULL", a, b,
                     cases[i].a, cases[i].b);
    }
    json_decref(list);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_render),
        cmocka_unit_test(test_render_errors),
        cmocka_unit_test(test_selector),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
