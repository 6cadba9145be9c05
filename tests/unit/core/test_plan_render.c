/* The reconcile core's first plan for every example creates exactly the Jobs (and the headless
 * Service) that `jaxset render` prints in tests/golden/<example>.json: both are built by
 * construct_job(), the JAX runtime included. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/convert/manifest.h"
#include "core/reconcile.h"
#include "obj/tree/jx.h"

static const char *const examples[] = {"aichor",  "jax-allreduce",  "jax-psum",
                                       "jaxjob",  "leader-workers", "trainjob"};

/* The item of `golden` with this kind and name, or NULL. */
static const json_t *golden_item(const json_t *golden, const char *kind, const char *name)
{
    size_t i;
    const json_t *it;
    json_array_foreach (jx_arr(golden, "items"), i, it) {
        const char *n = jx_str(jx_obj(it, "metadata"), "name");
        if (!strcmp(jx_str(it, "kind"), kind) && n && !strcmp(n, name))
            return it;
    }
    return NULL;
}

static size_t golden_count(const json_t *golden, const char *kind)
{
    size_t i, n = 0;
    const json_t *it;
    json_array_foreach (jx_arr(golden, "items"), i, it)
        n += !strcmp(jx_str(it, "kind"), kind);
    return n;
}

static void expect_equal(const json_t *got, const json_t *want, const char *what)
{
    if (json_equal(got, want))
        return;
    char *g = json_dumps(got, JSON_SORT_KEYS), *w = json_dumps(want, JSON_SORT_KEYS);
    fail_msg("%s differs from the golden render\n got: %s\nwant: %s", what, g, w);
}

static void check_example(const char *ex)
{
    char yaml[64], golden_rel[64];
    snprintf(yaml, sizeof(yaml), "examples/%s.yaml", ex);
    snprintf(golden_rel, sizeof(golden_rel), "tests/golden/%s.json", ex);
    const char *files[] = {strdup(tu_src(yaml))};
    struct manifest_set s = {0};
    struct err e = {{0}};
    assert_int_equal(manifest_load(files, 1, &s, &e), 0);
    assert_int_equal(manifest_set_errors(&s), 0);
    json_error_t je;
    json_t *golden = json_load_file(tu_src(golden_rel), 0, &je);
    assert_non_null(golden);

    struct rec_plan plan;
    assert_int_equal(rec_reconcile(s.v[0].jobset, NULL, 0, &plan, &e), 0);
    /* every example starts all its Jobs at once (no InOrder, no dependsOn) */
    assert_int_equal(plan.n_creates, golden_count(golden, "Job"));
    for (size_t i = 0; i < plan.n_creates; i++) {
        const char *name = jx_str(jx_obj(plan.creates[i], "metadata"), "name");
        const json_t *want = golden_item(golden, "Job", name);
        if (!want)
            fail_msg("%s: the plan creates %s, which render does not print", ex, name);
        expect_equal(plan.creates[i], want, name);
    }
    assert_int_equal(plan.service != NULL, golden_count(golden, "Service") == 1);
    if (plan.service)
        expect_equal(plan.service,
                     golden_item(golden, "Service", jx_str(jx_obj(plan.service, "metadata"),
                                                           "name")),
                     "the headless Service");
    rec_plan_release(&plan);
    json_decref(golden);
    manifest_set_release(&s);
    free((void *)files[0]);
}

static void test_plan_equals_render(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(examples) / sizeof(examples[0]); i++)
        check_example(examples[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_equals_render),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
