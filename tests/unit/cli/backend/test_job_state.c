/* job_state: state and counts of JobSets, JAXJobs and TrainJobs, as get/describe/wait and the
 * SDK show them; any number of replicated jobs. */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#include "cli/backend/job_state.h"
#include "obj/tree/jx.h"

static json_t *parse(const char *text)
{
    json_error_t je;
    json_t *o = json_loads(text, 0, &je);
    assert_non_null(o);
    return o;
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
    job_state_release(&s);
    json_decref(o);
}

/* A JAXJob keeps no ready or suspended count, nor restarts: -1, unknown, rather than 0. */
static void test_jaxjob_unknown_counts_unknown(void **state)
{
    (void)state;
    json_t *o = parse("{\"spec\":{\"jaxReplicaSpecs\":{\"Worker\":{\"replicas\":4}}},"
                      "\"status\":{\"replicaStatuses\":{\"Worker\":{\"active\":4}}}}");
    struct job_state s;
    assert_int_equal(job_state_read(JOB_KIND_JAXJOB, o, &s), 0);
    assert_string_equal(s.state, "Running");
    assert_int_equal(s.restarts, -1);
    assert_int_equal(s.n_rj, 1);
    assert_string_equal(s.rj[0].name, "Worker");
    assert_int_equal(s.rj[0].active, 4);
    assert_int_equal(s.rj[0].ready, -1);
    assert_int_equal(s.rj[0].suspended, -1);
    job_state_release(&s);
    json_decref(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_states),
        cmocka_unit_test(test_many_replicated_jobs_all_counted),
        cmocka_unit_test(test_jaxjob_unknown_counts_unknown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
