/* trainjob_patch: a TrainJob's runtime patches on its runtime's template (kubeflow/trainer
 * v2.3.0 pkg/runtime/core/trainingruntime.go mergeRuntimePatches and newRuntimeInfo). */
#include "testutil.h"

#include <string.h>

#include "api/kubeflow/trainjob_patch.h"
#include "obj/tree/jx.h"

static const char *RUNTIME =
    "{'kind':'TrainingRuntime','metadata':{'name':'r'},'spec':{'template':{"
    "'metadata':{'labels':{'a':'runtime','b':'runtime'}},'spec':{'replicatedJobs':["
    "{'name':'dataset-initializer','template':{'spec':{'template':{'spec':{'containers':["
    "{'name':'dataset-initializer'}]}}}}},"
    "{'name':'node','template':{'spec':{'template':{'spec':{'containers':[{'name':'node',"
    "'volumeMounts':[{'name':'x','mountPath':'/x'}]}]}}}}}]}}}}";

/* tjp_patched_runtime of a TrainJob with `patches` (quoted JSON) on runtime `rt`. */
static json_t *patched(const json_t *rt, const char *patches, struct ferr_list *errs)
{
    json_t *tj = tu_qjson("{'kind':'TrainJob','spec':{}}");
    json_object_set_new(jx_obj(tj, "spec"), "runtimePatches", tu_qjson(patches));
    json_t *out = tjp_patched_runtime(tj, rt, errs);
    json_decref(tj);
    return out;
}

/* mergeRuntimePatches restores the runtime's order of replicated jobs, which the strategic
 * merge patch changes when a patch names them in another order. */
static void the_runtime_job_order_is_restored(void **state)
{
    (void)state;
    json_t *rt = tu_qjson(RUNTIME);
    struct ferr_list errs;
    ferr_list_init(&errs);
    json_t *out = patched(rt, "[{'manager':'a.io/m','trainingRuntimeSpec':{'template':{'spec':{"
                              "'replicatedJobs':[{'name':'node'},{'name':'dataset-initializer'}]"
                              "}}}}]", &errs);
    assert_non_null(out);
    assert_int_equal(errs.n, 0);
    const json_t *rjs = jx_path(out, "spec.template.spec.replicatedJobs");
    assert_int_equal(json_array_size(rjs), 2);
    assert_string_equal(jx_str(json_array_get(rjs, 0), "name"), "dataset-initializer");
    assert_string_equal(jx_str(json_array_get(rjs, 1), "name"), "node");
    json_decref(out);
    json_decref(rt);
    ferr_list_release(&errs);
}

/* newRuntimeInfo: the patches' labels over the template's, a later patch winning. */
static void labels_of_later_patches_win(void **state)
{
    (void)state;
    json_t *rt = tu_qjson(RUNTIME);
    struct ferr_list errs;
    ferr_list_init(&errs);
    json_t *out = patched(rt, "[{'manager':'a.io/1','trainingRuntimeSpec':{'template':{'metadata':{"
                              "'labels':{'b':'one','c':'one'},'annotations':{'n':'1'}}}}},"
                              "{'manager':'a.io/2','trainingRuntimeSpec':{'template':{'metadata':{"
                              "'labels':{'c':'two'}}}}}]", &errs);
    json_t *want = tu_qjson("{'labels':{'a':'runtime','b':'one','c':'two'},"
                            "'annotations':{'n':'1'}}");
    assert_non_null(out);
    assert_true(json_equal(jx_path(out, "spec.template.metadata"), want));
    /* the runtime itself is left as it was */
    assert_string_equal(jx_str(jx_path(rt, "spec.template.metadata.labels"), "b"), "runtime");
    json_decref(want);
    json_decref(out);
    json_decref(rt);
    ferr_list_release(&errs);
}

/* A patch element without its merge key: apimachinery's ErrNoMergeKey, at the patch. */
static void a_patch_that_cannot_apply_names_its_path(void **state)
{
    (void)state;
    json_t *rt = tu_qjson(RUNTIME);
    struct ferr_list errs;
    ferr_list_init(&errs);
    assert_null(patched(rt, "[{'manager':'a.io/m'},{'manager':'a.io/n','trainingRuntimeSpec':{"
                            "'template':{'spec':{'replicatedJobs':[{'name':'node','template':{"
                            "'spec':{'template':{'spec':{'containers':[{'name':'node',"
                            "'volumeMounts':[{'name':'y'}]}]}}}}}]}}}}]", &errs));
    tu_assert_ferr(&errs, "spec.runtimePatches[1].trainingRuntimeSpec.template.spec: Invalid "
                          "value: object: replicatedJobs.template.spec.template.spec.containers."
                          "volumeMounts: map: {\"name\":\"y\"} does not contain declared merge "
                          "key: mountPath");
    json_decref(rt);
    ferr_list_release(&errs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_runtime_job_order_is_restored),
        cmocka_unit_test(labels_of_later_patches_win),
        cmocka_unit_test(a_patch_that_cannot_apply_names_its_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
