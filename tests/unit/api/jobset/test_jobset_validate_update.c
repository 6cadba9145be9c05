/* js_validate_update: a stored JobSet and its update per row, the errors as `kubectl` shows them.
 * The ElasticJobSet rows are kubernetes-sigs/jobset v0.12.0 pkg/webhooks/jobset_webhook_test.go
 * TestValidateUpdate's (objects as upstream writes them; one differs here on purpose, marked),
 * then jaxset's Job-level scaling of replicas under the same gate. */
#include "api/jobset/features.h"
#include "api/jobset/jobset.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A replicated job: name, replicas, completionMode ("" unset), parallelism and completions
 * (< 0 unset), image. */
struct rjd {
    const char *name;
    int replicas;
    const char *mode;
    int par, comp;
    const char *image;
};

struct update_case {
    const char *name;
    struct rjd old[2], new[2]; /* a second entry with a NULL name is none */
    const char *old_cond;      /* a True condition of the stored JobSet, or NULL */
    const char *gates;
    const char *want;          /* the error line, or NULL: admitted */
};

#define IDX "Indexed"
#define RJ0 "test-jobset-replicated-job-0"
#define ON "ElasticJobSet=true"

static const struct update_case cases[] = {
    /* upstream's rows */
    {"valid scaling of parallelism and completions", {{RJ0, 1, IDX, 2, 2, "b"}},
     {{RJ0, 1, IDX, 4, 4, "b"}}, NULL, ON, NULL},
    {"invalid scaling of parallelism to < 1", {{RJ0, 1, IDX, 2, -1, "b"}},
     {{RJ0, 1, IDX, 0, -1, "b"}}, NULL, ON,
     "spec.replicatedJobs[0].template.spec.parallelism: Invalid value: 0: parallelism must be "
     ">= 1"},
    {"invalid scaling of completions to < 1", {{RJ0, 1, IDX, -1, 2, "b"}},
     {{RJ0, 1, IDX, -1, 0, "b"}}, NULL, ON,
     "spec.replicatedJobs[0].template.spec.completions: Invalid value: 0: completions must be "
     ">= 1"},
    {"cannot scale parallelism if JobSet is Completed", {{RJ0, 1, IDX, 2, 2, "b"}},
     {{RJ0, 1, IDX, 4, 4, "b"}}, "Completed", ON,
     "spec.replicatedJobs[0].template.spec: Forbidden: Cannot mutate parallelism or completions "
     "when JobSet is in a terminal state (Completed or Failed)"},
    {"cannot scale completions if JobSet is Failed", {{RJ0, 1, IDX, 2, 2, "b"}},
     {{RJ0, 1, IDX, 4, 4, "b"}}, "Failed", ON,
     "spec.replicatedJobs[0].template.spec: Forbidden: Cannot mutate parallelism or completions "
     "when JobSet is in a terminal state (Completed or Failed)"},
    /* upstream refuses it ("spec.replicatedJobs: Invalid value: ...: field is immutable"):
     * replicas may change here too (README.md, deliberate differences) */
    {"immutability still enforced for other fields during valid scale",
     {{RJ0, 1, IDX, 2, -1, "b"}}, {{RJ0, 2, IDX, 4, -1, "b"}}, NULL, ON, NULL},
    {"invalid scaling of parallelism and completions when feature gate is disabled",
     {{RJ0, 1, IDX, 2, 2, "b"}}, {{RJ0, 1, IDX, 4, 4, "b"}}, NULL, "", "field is immutable"},
    {"invalid scaling: parallelism and completions must be equal", {{RJ0, 1, IDX, 2, 2, "b"}},
     {{RJ0, 1, IDX, 4, 5, "b"}}, NULL, ON,
     "spec.replicatedJobs[0].template.spec.completions: Invalid value: 5: completions must be "
     "equal to parallelism for Elastic Indexed Jobs"},
    {"reordering ReplicatedJobs evaluates ElasticJobSet scaling correctly by name",
     {{"job-a", 1, "", -1, -1, "b"}, {"job-b", 1, "", -1, -1, "b"}},
     {{"job-b", 1, "", -1, -1, "b"}, {"job-a", 1, "", -1, -1, "b"}}, NULL, ON,
     "field is immutable"},
    {"invalid scaling: immutability enforced for NonIndexed jobs even when ElasticJobSet is "
     "enabled", {{RJ0, 1, "NonIndexed", 2, 2, "b"}}, {{RJ0, 1, "NonIndexed", 4, 4, "b"}}, NULL,
     ON, "field is immutable"},
    /* jaxset's: replicas under the gate */
    {"replicas from 2 to 3", {{"w", 2, IDX, 2, 2, "b"}}, {{"w", 3, IDX, 2, 2, "b"}}, NULL, ON,
     NULL},
    {"replicas from 3 to 1", {{"w", 3, IDX, 2, 2, "b"}}, {{"w", 1, IDX, 2, 2, "b"}}, NULL, ON,
     NULL},
    {"replicas of a NonIndexed job", {{"w", 2, "NonIndexed", 1, -1, "b"}},
     {{"w", 3, "NonIndexed", 1, -1, "b"}}, NULL, ON, NULL},
    {"replicas of the second replicated job", {{"a", 1, IDX, 1, 1, "b"}, {"w", 2, IDX, 1, 1, "b"}},
     {{"a", 1, IDX, 1, 1, "b"}, {"w", 4, IDX, 1, 1, "b"}}, NULL, ON, NULL},
    {"replicas without the gate", {{"w", 2, IDX, 2, 2, "b"}}, {{"w", 3, IDX, 2, 2, "b"}}, NULL,
     "", "field is immutable"},
    {"replicas without the gate but with others", {{"w", 2, IDX, 2, 2, "b"}},
     {{"w", 3, IDX, 2, 2, "b"}}, NULL, "RestartJob=true", "field is immutable"},
    {"replicas to 0", {{"w", 2, IDX, 2, 2, "b"}}, {{"w", 0, IDX, 2, 2, "b"}}, NULL, ON,
     "spec.replicatedJobs[0].replicas: Invalid value: 0: replicas must be >= 1"},
    {"replicas of a Completed JobSet", {{"w", 2, IDX, 2, 2, "b"}}, {{"w", 3, IDX, 2, 2, "b"}},
     "Completed", ON, "spec.replicatedJobs[0].replicas: Forbidden: Cannot mutate replicas when "
     "JobSet is in a terminal state (Completed or Failed)"},
    {"replicas of a Failed JobSet", {{"w", 2, IDX, 2, 2, "b"}}, {{"w", 3, IDX, 2, 2, "b"}},
     "Failed", ON, "spec.replicatedJobs[0].replicas: Forbidden: Cannot mutate replicas when "
     "JobSet is in a terminal state (Completed or Failed)"},
    {"replicas and the image", {{"w", 2, IDX, 2, 2, "b"}}, {{"w", 3, IDX, 2, 2, "c"}}, NULL, ON,
     "field is immutable"},
    {"replicas and parallelism together", {{"w", 2, IDX, 2, 2, "b"}},
     {{"w", 3, IDX, 4, 4, "b"}}, NULL, ON, NULL},
};

static void rj_append(json_t *arr, const struct rjd *d)
{
    if (!d->name)
        return;
    json_t *spec = json_pack("{s:{s:{s:[{s:s,s:s}]}}}", "template", "spec", "containers", "name",
                             "c", "image", d->image);
    if (*d->mode)
        json_object_set_new(spec, "completionMode", json_string(d->mode));
    if (d->par >= 0)
        json_object_set_new(spec, "parallelism", json_integer(d->par));
    if (d->comp >= 0)
        json_object_set_new(spec, "completions", json_integer(d->comp));
    json_array_append_new(arr, json_pack("{s:s,s:i,s:{s:o}}", "name", d->name, "replicas",
                                         d->replicas, "template", "spec", spec));
}

static json_t *jobset(const struct rjd rjs[2], const char *cond)
{
    json_t *arr = json_array();
    rj_append(arr, &rjs[0]);
    rj_append(arr, &rjs[1]);
    json_t *js = json_pack("{s:s,s:s,s:{s:s},s:{s:o}}", "apiVersion", "jobset.x-k8s.io/v1alpha2",
                           "kind", "JobSet", "metadata", "name", "js", "spec", "replicatedJobs",
                           arr);
    if (cond)
        json_object_set_new(js, "status", json_pack("{s:[{s:s,s:s}]}", "conditions", "type", cond,
                                                    "status", "True"));
    return js;
}

static void run_case(const struct update_case *k)
{
    struct feature_gates g = {0};
    struct err e = {{0}};
    struct ferr_list errs;
    ferr_list_init(&errs);
    if (*k->gates)
        assert_int_equal(fg_set(&g, k->gates, &e, NULL), 0);
    json_t *old = jobset(k->old, k->old_cond), *new = jobset(k->new, NULL);
    int n = js_validate_update(old, new, &g, &errs);
    char *first = n > 0 ? ferr_format(&errs.v[0]) : NULL;
    if (!k->want) {
        if (n != 0)
            print_error("admitted expected, got: %s\n", first);
        assert_int_equal(n, 0);
    } else {
        assert_int_equal(n, 1);
        if (!strstr(first, k->want))
            print_error("want %s\n got %s\n", k->want, first);
        assert_non_null(strstr(first, k->want));
    }
    free(first);
    ferr_list_release(&errs);
    json_decref(old);
    json_decref(new);
}

static void test_update_rows(void **state)
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
        cmocka_unit_test(test_update_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
