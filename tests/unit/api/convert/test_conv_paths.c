/* Unit tests for conv_user_path (api/convert/convert.h): errors found in a converted JobSet name the
 * field the user wrote, in each dialect. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "api/convert/convert.h"

static void expect(const char *kind, const json_t *doc, const json_t *rt, const char *js_path,
                   const char *want, bool want_rt)
{
    bool in_rt = !want_rt;
    char *got = conv_user_path(kind, doc, rt, js_path, &in_rt);
    if (!want) {
        if (got)
            fail_msg("%s: %s -> %s, want it kept", kind, js_path, got);
        return;
    }
    if (!got || strcmp(got, want) != 0 || in_rt != want_rt)
        fail_msg("%s: %s -> %s%s, want %s%s", kind, js_path, got ? got : "(kept)",
                 in_rt ? " (runtime)" : "", want, want_rt ? " (runtime)" : "");
    free(got);
}

#define RJ "spec.replicatedJobs[0]"
#define POD RJ ".template.spec.template.spec"

static void test_aichor(void **state)
{
    (void)state;
    json_t *doc = tu_yaml("kind: AIchorManifest\nname: a\nspec: {operator: jax, timeout: 10,\n"
                          "  types: {Worker: {count: 2, resources: {cpus: 1, ramRatio: 1}}}}\n");
    const char *k = "AIchorManifest";
    expect(k, doc, NULL, RJ ".template.spec.parallelism", "spec.types.Worker.count", false);
    expect(k, doc, NULL, RJ ".template.spec.completions", "spec.types.Worker.count", false);
    expect(k, doc, NULL, POD ".containers[0].image", "spec.image", false);
    expect(k, doc, NULL, POD ".containers[0].command[2]", "spec.command", false);
    expect(k, doc, NULL, POD ".containers[0].resources.limits[cpu]",
           "spec.types.Worker.resources", false);
    expect(k, doc, NULL, POD ".volumes[0].emptyDir.sizeLimit",
           "spec.types.Worker.resources.shmSizeGB", false);
    expect(k, doc, NULL, RJ ".template.spec.activeDeadlineSeconds", "spec.timeout", false);
    expect(k, doc, NULL, "metadata.name", "name", false);
    expect(k, doc, NULL, RJ ".name", "name", false);
    expect(k, doc, NULL, "spec.coordinator", "name", false);
    expect(k, doc, NULL, RJ ".template.spec.backoffLimit", "spec.types.Worker", false);
    /* a prefix matches only at a field boundary */
    expect(k, doc, NULL, "spec.replicatedJobs[0]x", "spec", false);
    json_decref(doc);
    doc = tu_yaml("metadata: {name: m}\nspec: {activeDeadlineSeconds: 5}\n");
    expect(k, doc, NULL, "metadata.name", "metadata.name", false);
    expect(k, doc, NULL, RJ ".template.spec.activeDeadlineSeconds", "spec.activeDeadlineSeconds",
           false);
    json_decref(doc);
}

static void test_jaxjob(void **state)
{
    (void)state;
    json_t *doc = tu_yaml("spec: {jaxReplicaSpecs: {worker: {replicas: 2}}, runPolicy: {}}\n");
    const char *k = "JAXJob";
    expect(k, doc, NULL, RJ ".template.spec.parallelism", "spec.jaxReplicaSpecs[worker].replicas",
           false);
    expect(k, doc, NULL, POD ".containers[1].ports[0].containerPort",
           "spec.jaxReplicaSpecs[worker].template.spec.containers[1].ports[0].containerPort",
           false);
    expect(k, doc, NULL, RJ ".template.spec.template.metadata.labels[a]",
           "spec.jaxReplicaSpecs[worker].template.metadata.labels[a]", false);
    expect(k, doc, NULL, POD ".restartPolicy", "spec.jaxReplicaSpecs[worker].restartPolicy",
           false);
    expect(k, doc, NULL, RJ ".template.spec.backoffLimit", "spec.runPolicy.backoffLimit", false);
    expect(k, doc, NULL, "spec.ttlSecondsAfterFinished",
           "spec.runPolicy.ttlSecondsAfterFinished", false);
    expect(k, doc, NULL, "spec.suspend", "spec.runPolicy.suspend", false);
    expect(k, doc, NULL, "metadata.labels", "metadata.labels", false);
    expect(k, doc, NULL, RJ ".name", "metadata.name", false);
    /* other kinds keep the JobSet's paths */
    expect("JobSet", doc, NULL, RJ ".name", NULL, false);
    json_decref(doc);
}

static void test_trainjob(void **state)
{
    (void)state;
    json_t *rt = tu_yaml(
        "spec:\n  mlPolicy: {numNodes: 2, jax: {}}\n  template:\n    spec:\n"
        "      replicatedJobs:\n      - name: init\n      - name: node\n        template:\n"
        "          spec:\n            template:\n              spec:\n"
        "                containers:\n                - name: side\n"
        "                - {name: node, env: [{name: A}, {name: B}]}\n");
    json_t *tj = tu_yaml("spec: {activeDeadlineSeconds: 9, trainer: {image: x, "
                         "env: [{name: B}, {name: C}, {name: D}]}}\n");
    const char *k = "TrainJob";
#define NODE "spec.replicatedJobs[1].template.spec.template.spec.containers[1]"
    expect(k, tj, rt, "spec.replicatedJobs[1].template.spec.parallelism",
           "spec.mlPolicy.numNodes", true);
    expect(k, tj, rt, "spec.replicatedJobs[1].template.spec.activeDeadlineSeconds",
           "spec.activeDeadlineSeconds", false);
    expect(k, tj, rt, NODE ".image", "spec.trainer.image", false);
    expect(k, tj, rt, NODE ".command[0]", "spec.template." NODE ".command[0]", true);
    /* env: A (runtime), B (TrainJob's env[0] replaced it), then C and D appended */
    expect(k, tj, rt, NODE ".env[0].value", "spec.template." NODE ".env[0].value", true);
    expect(k, tj, rt, NODE ".env[1].value", "spec.trainer.env[0].value", false);
    expect(k, tj, rt, NODE ".env[2]", "spec.trainer.env[1]", false);
    expect(k, tj, rt, NODE ".env[3].name", "spec.trainer.env[2].name", false);
    expect(k, tj, rt, "spec.replicatedJobs[0].template.spec.parallelism",
           "spec.template.spec.replicatedJobs[0].template.spec.parallelism", true);
    expect(k, tj, rt, "spec.failurePolicy.rules[0].action",
           "spec.template.spec.failurePolicy.rules[0].action", true);
    expect(k, tj, rt, "metadata.labels", "spec.template.metadata.labels", true);
    expect(k, tj, rt, "metadata.name", "metadata.name", false);
    expect(k, tj, rt, "spec.suspend", "spec.suspend", false);
    json_decref(tj);
    tj = tu_yaml("spec: {trainer: {numNodes: 3}}\n");
    expect(k, tj, rt, "spec.replicatedJobs[1].template.spec.completions",
           "spec.trainer.numNodes", false);
    json_decref(tj);
    json_decref(rt);
}

/* The list helpers manifest loading uses to move errors to the user's paths. */
static void test_ferr_move_and_repeats(void **state)
{
    (void)state;
    struct ferr_list l;
    ferr_list_init(&l);
    ferr_add_raw(&l, FERR_INVALID, "a", "1", "too big");
    ferr_add_raw(&l, FERR_INVALID, "b", "1", "too big");
    ferr_add_raw(&l, FERR_INVALID, "c", "1", "too big");
    ferr_add_raw(&l, FERR_REQUIRED, "d", NULL, NULL);
    ferr_add_raw(&l, FERR_INVALID, "c", "1", NULL);
    assert_int_equal(ferr_move_to(&l.v[2], strdup("b"), NULL), 0);
    assert_int_equal(ferr_move_to(&l.v[3], strdup("b"), "in X \"y\""), 0);
    assert_int_equal(ferr_list_drop_repeats(&l, 1), 0);
    assert_string_equal(tu_ferrs(&l), "a: Invalid value: 1: too big\n"
                                      "b: Invalid value: 1: too big\n"
                                      "b: Required value: in X \"y\"\n"
                                      "c: Invalid value: 1\n");
    assert_int_equal(ferr_move_to(&l.v[0], strdup("z"), "in X \"y\""), 0);
    assert_string_equal(l.v[0].detail, "too big (in X \"y\")");
    ferr_list_release(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aichor),
        cmocka_unit_test(test_jaxjob),
        cmocka_unit_test(test_trainjob),
        cmocka_unit_test(test_ferr_move_and_repeats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
