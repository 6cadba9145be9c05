/* The numbers of a pod's metadata (src/api/child/pod_meta.h): what counts as an index, and the
 * completion index's annotation before its label. */
#include "testutil.h"

#include <stdio.h>

#include "api/child/pod_meta.h"

static void test_values(void **state)
{
    static const struct {
        const char *value; /* NULL: the label is absent */
        long long want;
    } cases[] = {
        {"0", 0},   {"7", 7},    {"123456789", 123456789}, {"1234567890", -1}, {"", -1},
        {"-1", -1}, {"+1", -1},  {" 1", -1},               {"1 ", -1},         {"1a", -1},
        {"0x1", -1}, {NULL, -1},
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *meta = cases[i].value
                           ? json_pack("{s:{s:s}}", "labels", "k", cases[i].value)
                           : json_pack("{s:{}}", "labels");
        long long got = pod_meta_int(meta, "labels", "k");
        if (got != cases[i].want)
            fail_msg("%s: got %lld, want %lld", cases[i].value ? cases[i].value : "(absent)",
                     got, cases[i].want);
        assert_int_equal(pod_meta_int(meta, "annotations", "k"), -1);
        json_decref(meta);
    }
    assert_int_equal(pod_meta_int(NULL, "labels", "k"), -1);
}

static void test_completion_index(void **state)
{
    static const struct {
        const char *meta;
        long long want;
    } cases[] = {
        {"{'annotations': {'batch.kubernetes.io/job-completion-index': '3'}}", 3},
        {"{'labels': {'batch.kubernetes.io/job-completion-index': '4'}}", 4},
        {"{'annotations': {'batch.kubernetes.io/job-completion-index': '3'},"
         " 'labels': {'batch.kubernetes.io/job-completion-index': '4'}}", 3},
        {"{'annotations': {'batch.kubernetes.io/job-completion-index': 'x'},"
         " 'labels': {'batch.kubernetes.io/job-completion-index': '4'}}", 4},
        {"{'labels': {'jobset.sigs.k8s.io/job-index': '2'}}", -1},
        {"{}", -1},
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *meta = tu_qjson(cases[i].meta);
        long long got = pod_completion_index(meta);
        if (got != cases[i].want)
            fail_msg("%s: got %lld, want %lld", cases[i].meta, got, cases[i].want);
        json_decref(meta);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_completion_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
