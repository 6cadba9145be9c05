/* js_admit_update: the JobSet webhook's UPDATE.  Under the ElasticJobSet gate a change of
 * replicas (jaxset's Job-level scaling) must leave a JobSet its creation would admit: the rules
 * of js_validate_admission that depend on replicas hold for the new size.  A change of
 * parallelism alone is upstream's pod-level scaling and is checked as upstream checks it. */
#include "api/admit/jobset_admission.h"
#include "api/jobset/features.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME51 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" /* 51: pod names reach 63 */

struct admit_case {
    const char *name;
    const char *js;         /* metadata.name */
    int old_replicas, new_replicas, old_par, new_par;
    int coordinator_job;    /* spec.coordinator.jobIndex, < 0: none */
    const char *gates;
    const char *want;       /* a piece of the first error, NULL: admitted */
};

static const struct admit_case cases[] = {
    {"scale up from 2 to 3", "js", 2, 3, 1, 1, -1, "ElasticJobSet=true", NULL},
    {"scale down from 3 to 1", "js", 3, 1, 1, 1, -1, "ElasticJobSet=true", NULL},
    {"10 Jobs whose pod names fit", NAME51, 9, 10, 1, 1, -1, "ElasticJobSet=true", NULL},
    {"an 11th Job whose pod names would not", NAME51, 10, 11, 1, 1, -1, "ElasticJobSet=true",
     "spec.replicatedJobs[0].name: Invalid value: \"" NAME51 "-w-10-0-abcde\": JobSet name is "
     "too long, pod names generated for this JobSet will exceed 63 characters"},
    {"the coordinator's Job kept", "js", 3, 2, 1, 1, 1, "ElasticJobSet=true", NULL},
    {"the coordinator's Job scaled away", "js", 3, 2, 1, 1, 2, "ElasticJobSet=true",
     "spec.coordinator.jobIndex: Invalid value: 2: coordinator job index 2 is invalid for "
     "replicatedJob w"},
    {"without the gate: immutable, nothing else said", NAME51, 10, 11, 1, 1, -1, "",
     "spec.replicatedJobs: Invalid value: "},
    {"parallelism alone is upstream's: not checked again", NAME51, 1, 1, 10, 11, -1,
     "ElasticJobSet=true", NULL},
};

static json_t *jobset(const struct admit_case *k, int replicas, int par)
{
    json_t *js = json_pack(
        "{s:s,s:s,s:{s:s},s:{s:[{s:s,s:i,s:{s:{s:s,s:i,s:i,s:{s:{s:[{s:s,s:s}]}}}}}]}}",
        "apiVersion", "jobset.x-k8s.io/v1alpha2", "kind", "JobSet", "metadata", "name", k->js,
        "spec", "replicatedJobs", "name", "w", "replicas", replicas, "template", "spec",
        "completionMode", "Indexed", "parallelism", par, "completions", par, "template", "spec",
        "containers", "name", "c", "image", "b");
    if (k->coordinator_job >= 0)
        json_object_set_new(json_object_get(js, "spec"), "coordinator",
                            json_pack("{s:s,s:i}", "replicatedJob", "w", "jobIndex",
                                      k->coordinator_job));
    return js;
}

static void run_case(const struct admit_case *k)
{
    struct feature_gates g = {0};
    struct err e = {{0}};
    struct ferr_list errs;
    ferr_list_init(&errs);
    if (*k->gates)
        assert_int_equal(fg_set(&g, k->gates, &e, NULL), 0);
    json_t *old = jobset(k, k->old_replicas, k->old_par);
    json_t *new = jobset(k, k->new_replicas, k->new_par);
    int n = js_admit_update(old, new, &g, &errs);
    char *first = n > 0 ? ferr_format(&errs.v[0]) : NULL;
    if (k->want ? !first || !strstr(first, k->want) : n != 0)
        print_error("want %s\n got %d error(s), the first %s\n", k->want ? k->want : "none", n,
                    first ? first : "-");
    if (k->want)
        assert_true(n >= 1 && strstr(first, k->want));
    else
        assert_int_equal(n, 0);
    free(first);
    ferr_list_release(&errs);
    json_decref(old);
    json_decref(new);
}

static void test_admit_update(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        print_message("case %zu: %s\n", i, cases[i].name);
        run_case(&cases[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_admit_update),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
