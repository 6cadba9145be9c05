/* local_ann: the restart grace read from a JobSet, and carried by the pods of the Jobs a
 * cluster's controller creates. */
#include "testutil.h"

#include "api/jobset/local_ann.h"
#include "obj/tree/jx.h"

static long long job_grace(const json_t *job)
{
    return jx_int_or(jx_path(job, "spec.template.spec"), "terminationGracePeriodSeconds", -1);
}

/* A restart grace shorter than the pods' own (30 when unset) becomes theirs; a longer one, or
 * none, leaves the template as it was. */
static void test_cap_job_grace(void **state)
{
    (void)state;
    json_t *unset = tu_qjson("{'spec':{'template':{'spec':{'containers':[]}}}}");
    json_t *own = tu_qjson("{'spec':{'template':{'spec':{'terminationGracePeriodSeconds':10}}}}");
    json_t *bare = tu_qjson("{}");
    assert_int_equal(local_ann_cap_job_grace(unset, 2), 0);
    assert_int_equal(job_grace(unset), 2);
    assert_int_equal(local_ann_cap_job_grace(own, 20), 0);
    assert_int_equal(job_grace(own), 10);
    assert_int_equal(local_ann_cap_job_grace(own, 0), 0);
    assert_int_equal(job_grace(own), 0);
    assert_int_equal(local_ann_cap_job_grace(bare, -1), 0);
    assert_int_equal(json_object_size(bare), 0);
    assert_int_equal(local_ann_cap_job_grace(bare, 30), 0);
    assert_int_equal(job_grace(bare), -1); /* 30 is the default already */
    json_decref(unset);
    json_decref(own);
    json_decref(bare);
}

/* The annotation: absent -1, a whole number of seconds, anything else a field error. */
static void test_restart_grace(void **state)
{
    (void)state;
    struct ferr_list errs;
    ferr_list_init(&errs);
    long long g = 0;
    json_t *none = tu_qjson("{'metadata':{}}");
    json_t *two = tu_qjson("{'metadata':{'annotations':{'jaxset.dev/restart-grace-seconds':'2'}}}");
    json_t *bad = tu_qjson("{'metadata':{'annotations':{'jaxset.dev/restart-grace-seconds':'-1'}}}");
    assert_int_equal(local_ann_restart_grace(none, &g, &errs), 0);
    assert_int_equal(g, -1);
    assert_int_equal(local_ann_restart_grace(two, &g, &errs), 0);
    assert_int_equal(g, 2);
    assert_int_equal(local_ann_restart_grace(bad, &g, &errs), 1);
    assert_int_equal(errs.n, 1);
    assert_string_equal(errs.v[0].path, "metadata.annotations[jaxset.dev/restart-grace-seconds]");
    ferr_list_release(&errs);
    json_decref(none);
    json_decref(two);
    json_decref(bad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cap_job_grace),
        cmocka_unit_test(test_restart_grace),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
