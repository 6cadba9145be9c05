/* job_state: state and counts of JobSets, JAXJobs and TrainJobs, as get/describe/wait and the
 * SDK show them; any number of replicated jobs. */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#include "api/job_state.h"
#include "obj/jx.h"

static json_t *parse(const char *text)
{
    json_error_t je;
    json_t *o = json_loads(text, 0, &je);
    assert_non_null(o);
    return o;
}

static void test_kind_of(void **state)
{
    (void)state;
    static const struct {
        const char *obj;
        enum job_kind want;
    } rows[] = {
        {"{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\",\"kind\":\"JobSet\"}", JOB_KIND_JOBSET},
        {"{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"JAXJob\"}", JOB_KIND_JAXJOB},
        {"{\"apiVersion\":\"trainer.kubeflow.org/v1alpha1\",\"kind\":\"TrainJob\"}",
         JOB_KIND_TRAINJOB},
        {"{\"apiVersion\":\"jobset.x-k8s.io.evil/v1\",\"kind\":\"JobSet\"}", JOB_KIND_OTHER},
        {"{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\"}", JOB_KIND_OTHER},
        {"{}", JOB_KIND_OTHER},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        json_t *o = parse(rows[i].obj);
        assert_int_equal(job_kind_of(o), rows[i].want);
        json_decref(o);
    }
}

static void test_states(void **state)
{
    (void)state;
    static const struct {
        enum job_kind kind;
        const char *obj, *want;
    } rows[] = {
        {JOB_KIND_JOBSET, "{\"status\":{\"conditions\":[{\"type\":\"Completed\",\"status\":"
                          "\"True\"}]}}", "Completed"},
        {JOB_KIND_JOBSET, "{\"status\":{\"conditions\":[{\"type\":\"Suspended\",\"status\":"
                          "\"True\"}]}}", "Suspended"},
        {JOB_KIND_JOBSET, "{\"status\":{\"conditions\":[{\"type\":\"Suspended\",\"status\":"
                          "\"False\"}]}}", "Pending"},
        {JOB_KIND_JOBSET, "{\"spec\":{\"replicatedJobs\":[{\"name\":\"w\"}]},\"status\":{"
                          "\"replicatedJobsStatus\":[{\"name\":\"w\",\"active\":1}]}}",
         "Running"},
        {JOB_KIND_JAXJOB, "{\"status\":{\"conditions\":[{\"type\":\"Succeeded\",\"status\":"
                          "\"True\"}]}}", "Completed"},
        {JOB_KIND_JAXJOB, "{\"status\":{\"conditions\":[{\"type\":\"Restarting\",\"status\":"
                          "\"True\"}]}}", "Restarting"},
        {JOB_KIND_TRAINJOB, "{\"status\":{\"conditions\":[{\"type\":\"Failed\",\"status\":"
                            "\"True\"}]}}", "Failed"},
        {JOB_KIND_TRAINJOB, "{\"status\":{\"conditions\":[{\"type\":\"Created\",\"status\":"
                            "\"True\"}]}}", "Created"},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        json_t *o = parse(rows[i].obj);
        struct job_state s;
        assert_int_equal(job_state_read(rows[i].kind, o, &s), 0);
        assert_string_equal(s.state, rows[i].want);
        assert_int_equal(job_state_terminal(&s),
                         !strcmp(rows[i].want, "Completed") || !strcmp(rows[i].want, "Failed"));
        job_state_release(&s);
        json_decref(o);
    }
}

/* The old view kept the first 32 replicated jobs and silently dropped the rest. */
static void test_many_replicated_jobs_all_counted(void **state)
{
    (void)state;
    json_t *o = parse("{\"spec\":{\"replicatedJobs\":[]},\"status\":{\"restarts\":2,"
                      "\"replicatedJobsStatus\":[]}}");
    json_t *rjs = jx_arr(jx_obj(o, "spec"), "replicatedJobs");
    json_t *st = jx_arr(jx_obj(o, "status"), "replicatedJobsStatus");
    for (int i = 0; i < 100; i++) {
        char name[16];
        snprintf(name, sizeof(name), "rj-%d", i);
        json_array_append_new(rjs, json_pack("{s:s, s:i}", "name", name, "replicas", 2));
        json_array_append_new(st, json_pack("{s:s, s:i}", "name", name, "succeeded", 1));
    }
    struct job_state s;
    assert_int_equal(job_state_read(JOB_KIND_JOBSET, o, &s), 0);
    assert_int_equal(s.n_rj, 100);
    assert_int_equal(s.restarts, 2);
    assert_string_equal(s.rj[99].name, "rj-99");
    assert_int_equal(s.rj[99].replicas, 2);
    assert_int_equal(s.rj[99].succeeded, 1);
    json_t *j = job_state_json(&s);
    assert_non_null(j);
    assert_int_equal(json_array_size(jx_arr(j, "replicatedJobs")), 100);
    assert_int_equal(jx_int_or(j, "restarts", -1), 2);
    json_decref(j);
    job_state_release(&s);
    json_decref(o);
}

/* A JAXJob keeps no ready or suspended count: the JSON leaves them out rather than say 0. */
static void test_jaxjob_unknown_counts_absent(void **state)
{
    (void)state;
    json_t *o = parse("{\"spec\":{\"jaxReplicaSpecs\":{\"Worker\":{\"replicas\":4}}},"
                      "\"status\":{\"replicaStatuses\":{\"Worker\":{\"active\":4}}}}");
    struct job_state s;
    assert_int_equal(job_state_read(JOB_KIND_JAXJOB, o, &s), 0);
    assert_string_equal(s.state, "Running");
    assert_int_equal(s.restarts, -1);
    json_t *j = job_state_json(&s);
    const json_t *w = json_array_get(jx_arr(j, "replicatedJobs"), 0);
    assert_string_equal(jx_str(w, "name"), "Worker");
    assert_int_equal(jx_int_or(w, "active", -1), 4);
    assert_null(json_object_get(w, "ready"));
    assert_null(json_object_get(j, "restarts"));
    json_decref(j);
    job_state_release(&s);
    json_decref(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kind_of),
        cmocka_unit_test(test_states),
        cmocka_unit_test(test_many_replicated_jobs_all_counted),
        cmocka_unit_test(test_jaxjob_unknown_counts_absent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
