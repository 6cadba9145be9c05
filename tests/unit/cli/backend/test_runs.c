/* The CLI's reading of runs: kubectl's durations, aligned tables, pods.json entries as Pods. */
#include "cli/backend/pods.h"
#include "cli/backend/runs.h"
#include "cli/util/table.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

/* k8s.io/apimachinery pkg/util/duration HumanDuration, case by case. */
static void test_human(void **state)
{
    (void)state;
    static const struct {
        long long s;
        const char *want;
    } cases[] = {
        {-3, "<invalid>"}, {-1, "0s"},          {0, "0s"},         {59, "59s"},
        {119, "119s"},     {120, "2m"},         {121, "2m1s"},     {599, "9m59s"},
        {600, "10m"},      {10799, "179m"},     {10800, "3h"},     {3 * 3600 + 60, "3h1m"},
        {28799, "7h59m"},  {28800, "8h"},       {47 * 3600, "47h"}, {48 * 3600, "2d"},
        {49 * 3600, "2d1h"}, {8 * 86400 - 1, "7d23h"}, {8 * 86400, "8d"},
        {729 * 86400, "729d"}, {730 * 86400, "2y"}, {731 * 86400, "2y1d"},
        {8 * 365 * 86400LL, "8y"}, {20 * 365 * 86400LL + 5 * 86400, "20y"},
    };
    char out[RUNS_HUMAN_MAX];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_string_equal(runs_human(cases[i].s * 1000, out), cases[i].want);
    assert_string_equal(runs_human(1999, out), "1s"); /* truncated, as Go's int(Seconds()) */
    assert_string_equal(runs_human(-1999, out), "0s");
    assert_string_equal(runs_age("2026-11-22T10:00:00Z", 1795341600000LL + 90000, out), "90s");
    assert_string_equal(runs_age("yesterday", 0, out), "-");
    assert_string_equal(runs_age(NULL, 0, out), "-");
}

static void test_table(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    struct table t = table_new(3);
    table_cell(&t, "NAME");
    table_cell(&t, "AGE");
    table_cell(&t, "DIR");
    table_cell(&t, "%s", "a-longer-name");
    table_cell(&t, "%ds", 5);
    table_cell(&t, "/x");
    table_cell(&t, "b");
    assert_int_equal(table_print(&t, out, 2, 3), 0);
    table_free(&t);
    assert_int_equal(t.n, 0);
    fclose(out);
    assert_string_equal(buf, "  NAME            AGE   DIR\n"
                             "  a-longer-name   5s    /x\n"
                             "  b\n");
    free(buf);
}

static void test_pod_object(void **state)
{
    (void)state;
    json_t *pod = tu_qjson(
        "{'name': 'js-w-0-1-abcde', 'hostname': 'js-w-0-1', 'job': 'js-w-0',"
        " 'replicatedJob': 'w', 'jobIndex': 0, 'completionIndex': 1, 'restartAttempt': 2,"
        " 'jaxProcessId': 1, 'phase': 'Failed', 'startTime': '2026-11-22T10:00:00Z',"
        " 'finishTime': '2026-11-22T10:00:05Z', 'restartCount': 3, 'containers': ["
        "  {'name': 'init', 'state': 'terminated', 'init': true, 'exitCode': 0,"
        "   'reason': 'Completed'},"
        "  {'name': 'c', 'state': 'terminated', 'exitCode': 137, 'signal': 'KILL',"
        "   'reason': 'Error'},"
        "  {'name': 'd', 'state': 'running'}, {'name': 'e', 'state': 'waiting'}]}");
    json_t *want = tu_qjson(
        "{'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': 'js-w-0-1-abcde',"
        "  'namespace': 'ns', 'labels': {'batch.kubernetes.io/job-name': 'js-w-0',"
        "  'job-name': 'js-w-0', 'batch.kubernetes.io/job-completion-index': '1',"
        "  'jobset.sigs.k8s.io/jobset-name': 'js', 'jobset.sigs.k8s.io/replicatedjob-name': 'w',"
        "  'jobset.sigs.k8s.io/job-index': '0', 'jobset.sigs.k8s.io/restart-attempt': '2'},"
        "  'annotations': {'batch.kubernetes.io/job-completion-index': '1',"
        "  'jaxset.dev/jax-process-id': '1'}},"
        " 'spec': {'hostname': 'js-w-0-1'},"
        " 'status': {'phase': 'Failed', 'startTime': '2026-11-22T10:00:00Z',"
        "  'initContainerStatuses': [{'name': 'init', 'restartCount': 0, 'state': {"
        "   'terminated': {'exitCode': 0, 'reason': 'Completed'}}}],"
        "  'containerStatuses': ["
        "   {'name': 'c', 'restartCount': 3, 'state': {'terminated': {'exitCode': 137,"
        "    'signal': 9, 'reason': 'Error'}}},"
        "   {'name': 'd', 'restartCount': 3, 'state': {'running': {}}},"
        "   {'name': 'e', 'restartCount': 3, 'state': {'waiting': {}}}]}}");
    json_t *got = pods_object(pod, "ns", "js");
    if (!json_equal(got, want)) {
        char *s = json_dumps(got, JSON_INDENT(1));
        fail_msg("got %s", s);
    }
    json_t *pods = json_pack("[O]", pod), *js = tu_qjson("{'kind': 'JobSet', 'metadata': {"
                                                          "'name': 'js', 'namespace': 'ns'}}");
    json_t *items = pods_run_pods(js, pods, NULL, NULL);
    assert_int_equal(json_array_size(items), 1);
    assert_true(json_equal(json_array_get(items, 0), want));
    json_t *empty = pods_run_pods(NULL, NULL, NULL, NULL);
    assert_int_equal(json_array_size(empty), 0);
    json_decref(empty);
    json_decref(items);
    json_decref(js);
    json_decref(pods);
    json_decref(got);
    json_decref(want);
    json_decref(pod);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_human),
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_pod_object),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
