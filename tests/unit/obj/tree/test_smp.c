/* smp: strategic merge patch.  The cases are apimachinery's own (k8s.io/apimachinery
 * pkg/util/strategicpatch/patch_test.go, kubernetes v1.28.0: the "original", patch ("twoWay")
 * and "modified" of customStrategicMergePatchTestCaseData and of the raw cases named here, with
 * "mergingList" merged by "name" and "mergingIntList" a merging list of scalars), each named
 * after its description. */
#include "testutil.h"

#include <errno.h>
#include <string.h>

#include "obj/tree/smp.h"

static const struct smp_list LISTS[] = {
    {"mergingList", "name"},
    {"mergingList.mergingList", "name"},
    {"mergingIntList", ""},
    {"keyless", ""},
    {NULL, NULL},
};

struct smp_case {
    const char *name, *original, *patch, *modified;
};

static const struct smp_case CASES[] = {
    {"unique scalars when merging lists", "mergingIntList: [1, 2]", "mergingIntList: [2, 3]",
     "mergingIntList: [1, 2, 3]"},
    {"delete map from nested map", "simpleMap: {key1: 1, key2: 1}",
     "simpleMap: {$patch: delete}", "simpleMap: {}"},
    {"delete all items from merging list", "mergingList: [{name: 1}, {name: 2}]",
     "mergingList: [{$patch: replace}]", "mergingList: []"},
    {"merge empty merging lists", "mergingList: []", "mergingList: []", "mergingList: []"},
    {"delete all keys from map", "{name: 1, value: 1}", "{$patch: replace}", "{}"},
    {"add key and delete all keys from map", "{name: 1, value: 1}",
     "{other: a, $patch: replace}", "{other: a}"},
    {"delete all duplicate entries in a merging list",
     "mergingList: [{name: 1}, {name: 1}, {name: 2, value: a}, {name: 3}, {name: 3}]",
     "mergingList: [{name: 1, $patch: delete}, {name: 3, $patch: delete}]",
     "mergingList: [{name: 2, value: a}]"},
    {"preserve the order from the patch in a merging list",
     "mergingList: [{name: 1}, {name: 2, value: b}, {name: 3}]",
     "mergingList: [{name: 3, value: c}, {name: 1, value: a}, {name: 2, other: x}]",
     "mergingList: [{name: 3, value: c}, {name: 1, value: a}, {name: 2, value: b, other: x}]"},
    {"preserve the order from the patch in a merging list 2",
     "mergingList: [{name: 1}, {name: 2, value: b}, {name: 3}]",
     "mergingList: [{name: 3, value: c}, {name: 1, value: a}]",
     "mergingList: [{name: 2, value: b}, {name: 3, value: c}, {name: 1, value: a}]"},
    {"preserve the order from the patch in a merging int list", "mergingIntList: [1, 2, 3]",
     "mergingIntList: [3, 1, 2]", "mergingIntList: [3, 1, 2]"},
    {"preserve the order from the patch in a merging int list (2)", "mergingIntList: [1, 2, 3]",
     "mergingIntList: [3, 1]", "mergingIntList: [2, 3, 1]"},
    {"defined null values should propagate removing original fields",
     "{name: original-name, value: original-value}", "{name: modified-name, value: null}",
     "{name: modified-name}"},
    {"a new element goes before the document's next one (mergeSortedSlice)",
     "mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]",
     "mergingList: [{name: 1, value: a}, {name: 3}]",
     "mergingList: [{name: 1, value: a}, {name: 3}, {name: 2, value: 2}]"},
    {"delete field from map in merging list",
     "mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]",
     "mergingList: [{name: 1, value: null}]",
     "mergingList: [{name: 1}, {name: 2, value: 2}]"},
    {"replace non merging list nested in merging list",
     "mergingList: [{name: 1, nonMergingList: [{name: 1}, {name: 2, value: 2}]}, {name: 2}]",
     "mergingList: [{name: 1, nonMergingList: [{name: 1, value: 1}]}]",
     "mergingList: [{name: 1, nonMergingList: [{name: 1, value: 1}]}, {name: 2}]"},
    {"merging list nested in merging list",
     "mergingList: [{name: 1, mergingList: [{name: a, v: 1}, {name: b}]}]",
     "mergingList: [{name: 1, mergingList: [{name: b, v: 2}]}]",
     "mergingList: [{name: 1, mergingList: [{name: a, v: 1}, {name: b, v: 2}]}]"},
    {"a value taken whole loses its nulls and directive objects", "{}",
     "{m: {a: null, b: 1, c: {$patch: delete}}, l: [{x: null}, {$patch: delete}]}",
     "{m: {b: 1}, l: [{}]}"},
    {"a null for a missing key adds nothing", "{a: 1}", "{b: null}", "{a: 1}"},
    {"a value of another type replaces", "{a: {b: 1}, n: 1}", "{a: [1], n: 2.5}",
     "{a: [1], n: 2.5}"},
};

static void apimachinery_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(CASES) / sizeof(CASES[0]); i++) {
        const struct smp_case *c = &CASES[i];
        json_t *doc = tu_yaml(c->original), *patch = tu_yaml(c->patch);
        json_t *want = tu_yaml(c->modified);
        char why[256] = "";
        int rc = smp_apply(doc, patch, LISTS, why, sizeof(why));
        char *got = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
        if (rc != 0 || !json_equal(doc, want))
            fail_msg("%s: rc %d (%s), got %s", c->name, rc, why, got);
        free(got);
        json_decref(doc);
        json_decref(patch);
        json_decref(want);
    }
}

struct smp_bad {
    const char *name, *original, *patch, *words;
};

static const struct smp_bad BAD[] = {
    {"a patch element without its merge key", "mergingList: [{name: 1}]",
     "mergingList: [{value: 1}]",
     "mergingList: map: {\"value\":1} does not contain declared merge key: name"},
    {"an element of the document without its merge key", "mergingList: [{value: 1}]",
     "mergingList: [{name: 1}]", "does not contain declared merge key: name"},
    {"a list of objects without a merge key", "keyless: [{a: 1}]", "keyless: [{a: 2}]",
     "keyless: cannot merge lists without merge key"},
    {"elements of different types", "mergingIntList: [1]", "mergingIntList: [a]",
     "list element types are not identical"},
    {"lists of lists", "mergingIntList: [[1]]", "mergingIntList: [[2]]",
     "lists of lists are not supported"},
    {"an unknown map directive", "m: {a: 1}", "m: {$patch: merge}",
     "m: unknown patch type merge in a map"},
    {"a merge directive in a list", "mergingList: [{name: 1}]",
     "mergingList: [{name: 1, $patch: merge}]", "unknown patch type merge in a list element"},
    {"$retainKeys", "m: {a: 1}", "m: {$retainKeys: [a]}", "m: the directive $retainKeys"},
    {"$setElementOrder", "{}", "{$setElementOrder/mergingList: [{name: 1}]}",
     "(the root): the directive $setElementOrder/mergingList"},
};

static void refused_patches(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(BAD) / sizeof(BAD[0]); i++) {
        const struct smp_bad *c = &BAD[i];
        json_t *doc = tu_yaml(c->original), *patch = tu_yaml(c->patch);
        char why[256] = "";
        int rc = smp_apply(doc, patch, LISTS, why, sizeof(why));
        if (rc != -EINVAL || !strstr(why, c->words))
            fail_msg("%s: rc %d, why \"%s\", want \"%s\"", c->name, rc, why, c->words);
        json_decref(doc);
        json_decref(patch);
    }
}

static void not_objects(void **state)
{
    (void)state;
    json_t *doc = json_array(), *patch = json_object();
    char why[128];
    assert_int_equal(smp_apply(doc, patch, LISTS, why, sizeof(why)), -EINVAL);
    assert_non_null(strstr(why, "applies an object to an object"));
    json_decref(doc);
    json_decref(patch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(apimachinery_cases),
        cmocka_unit_test(refused_patches),
        cmocka_unit_test(not_objects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
