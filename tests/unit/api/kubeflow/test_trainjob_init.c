/* trainjob_init and trainjob_podgroup: the initializer jobs, the pod-group label/annotation and
 * the PodGroup, row by row from kubeflow/trainer v2.3.0's tables
 * (pkg/runtime/framework/plugins/jobset/builder_test.go TestInitializer,
 * plugins/coscheduling/coscheduling_test.go and plugins/volcano/volcano_test.go TestBuild). */
#include "testutil.h"

#include <string.h>

#include "api/kubeflow/trainjob_init.h"
#include "api/kubeflow/trainjob_podgroup.h"
#include "obj/tree/jx.h"

/* A JobSet spec with one replicated job `rj` labelled `ancestor`, 3 replicas, a container
 * `ctr` with env `env` (quoted JSON). */
static json_t *jobset_spec(const char *ancestor, const char *ctr, const char *env)
{
    json_t *s = tu_qjson("{'replicatedJobs':[{'name':'initializer-job','replicas':3,'template':{"
                         "'metadata':{'labels':{}},'spec':{'template':{'spec':{'containers':[{"
                         "}]}}}}}]}");
    json_t *rj = json_array_get(jx_arr(s, "replicatedJobs"), 0);
    json_t *c = json_array_get(jx_arr(jx_path(rj, "template.spec.template.spec"), "containers"),
                               0);
    if (ancestor)
        jx_set_str(jx_path(rj, "template.metadata.labels"), TJI_ANCESTOR, ancestor);
    jx_set_str(c, "name", ctr);
    jx_set_new(c, "env", tu_qjson(env));
    return s;
}

static const json_t *container(const json_t *s)
{
    return json_array_get(jx_arr(jx_path(json_array_get(jx_arr(s, "replicatedJobs"), 0),
                                         "template.spec.template.spec"),
                                 "containers"),
                          0);
}

static void expect_json(const json_t *got, const char *want_q)
{
    json_t *want = tu_qjson(want_q);
    if (!json_equal(got, want)) {
        char g[2000];
        size_t n = json_dumpb(got, g, sizeof(g) - 1, JSON_COMPACT | JSON_SORT_KEYS);
        g[n < sizeof(g) ? n : 0] = 0;
        json_decref(want);
        fail_msg("got %s, want %s", g, want_q);
    }
    json_decref(want);
}

/* "dataset initializer with storageUri and secretRef" and the model's. */
static void storage_uri_and_secret_ref(void **state)
{
    (void)state;
    static const char *const which[] = {"dataset", TJI_DATASET, "model", TJI_MODEL};
    for (size_t i = 0; i < 4; i += 2) {
        json_t *s = jobset_spec(which[i + 1], which[i + 1], "[]");
        char tj[300];
        snprintf(tj, sizeof(tj), "{'initializer':{'%s':{'storageUri':'hf://my-org/my-%s',"
                 "'secretRef':{'name':'hf-token-secret'}}}}", which[i], which[i]);
        json_t *spec = tu_qjson(tj);
        assert_int_equal(tji_apply(s, spec), 0);
        assert_int_equal(jx_int_or(json_array_get(jx_arr(s, "replicatedJobs"), 0), "replicas",
                                   0), 1);
        char want[300];
        snprintf(want, sizeof(want), "[{'name':'STORAGE_URI','value':'hf://my-org/my-%s'}]",
                 which[i]);
        expect_json(jx_arr(container(s), "env"), want);
        expect_json(jx_arr(container(s), "envFrom"), "[{'secretRef':{'name':'hf-token-secret'}}]");
        json_decref(s);
        json_decref(spec);
    }
}

/* "dataset initializer merges Dataset.Env with storageUri and upserts pre-existing container
 * env" */
static void env_upserted_in_place(void **state)
{
    (void)state;
    json_t *s = jobset_spec(TJI_DATASET, TJI_DATASET,
                            "[{'name':'PRE_EXISTING','value':'from-runtime-template'},"
                            "{'name':'OTHER','value':'keep-me'}]");
    json_t *spec = tu_qjson("{'initializer':{'dataset':{'storageUri':'hf://my-org/my-dataset',"
                            "'env':[{'name':'CUSTOM_FROM_USER','value':'user-value'},"
                            "{'name':'PRE_EXISTING','value':'overridden-by-trainjob'}]}}}");
    assert_int_equal(tji_apply(s, spec), 0);
    expect_json(jx_arr(container(s), "env"),
                "[{'name':'PRE_EXISTING','value':'overridden-by-trainjob'},"
                "{'name':'OTHER','value':'keep-me'},"
                "{'name':'STORAGE_URI','value':'hf://my-org/my-dataset'},"
                "{'name':'CUSTOM_FROM_USER','value':'user-value'}]");
    assert_null(json_object_get(container(s), "envFrom")); /* "without secretRef" */
    json_decref(s);
    json_decref(spec);
}

/* "dataset initializer ancestor with nil Initializer spec sets replicas to 1" and "no ancestor
 * label skips modification" */
static void replicas_follow_the_label(void **state)
{
    (void)state;
    json_t *spec = tu_qjson("{'initializer':{'dataset':{'storageUri':'s3://b'}}}");
    json_t *empty = tu_qjson("{}");
    json_t *s = jobset_spec(TJI_DATASET, TJI_DATASET, "[]");
    assert_int_equal(tji_apply(s, empty), 0);
    assert_int_equal(jx_int_or(json_array_get(jx_arr(s, "replicatedJobs"), 0), "replicas", 0), 1);
    expect_json(jx_arr(container(s), "env"), "[]");
    json_decref(s);
    s = jobset_spec(NULL, TJI_DATASET, "[]");
    assert_int_equal(tji_apply(s, spec), 0);
    assert_int_equal(jx_int_or(json_array_get(jx_arr(s, "replicatedJobs"), 0), "replicas", 0), 3);
    expect_json(jx_arr(container(s), "env"), "[]");
    json_decref(s);
    json_decref(spec);
    json_decref(empty);
}

/* A JobSet: node (parallelism `n`, requests `node_req`) and, when `init_req`, a
 * dataset-initializer (no parallelism, requests init_req); annotations `ann`. */
static json_t *jobset(int n, const char *node_req, const char *init_req, const char *ann)
{
    char buf[1200];
    snprintf(buf, sizeof(buf),
             "{'metadata':{'annotations':%s},'spec':{'replicatedJobs':["
             "{'name':'node','template':{'spec':{'parallelism':%d,'template':{'spec':{"
             "'containers':[{'name':'node','resources':{'requests':%s}}]}}}}}%s%s%s]}}",
             ann, n, node_req, init_req ? ",{'name':'dataset-initializer','template':{'spec':{"
                                          "'template':{'spec':{'containers':[{'name':'d',"
                                          "'resources':{'requests':"
                                        : "",
             init_req ? init_req : "", init_req ? "}}]}}}}}" : "");
    return tu_qjson(buf);
}

static void expect_pg(const char *policy, const json_t *js, const char *want_spec)
{
    json_t *pol = tu_qjson(policy);
    int rc = 1;
    json_t *pg = tjpg_build("default", "trainJob", pol, js, &rc);
    assert_int_equal(rc, 0);
    assert_non_null(pg);
    assert_string_equal(jx_str(pg, "kind"), "PodGroup");
    assert_string_equal(jx_str(jx_obj(pg, "metadata"), "name"), "trainJob");
    assert_string_equal(jx_str(jx_obj(pg, "metadata"), "namespace"), "default");
    expect_json(jx_obj(pg, "spec"), want_spec);
    json_decref(pg);
    json_decref(pol);
}

/* coscheduling: "succeeded to build PodGroup", "... with multiple PodSets", "... with
 * MinResources"; the default scheduleTimeoutSeconds of the CRD (60). */
static void coscheduling_pod_groups(void **state)
{
    (void)state;
    const char *pol = "{'coscheduling':{'scheduleTimeoutSeconds':30}}";
    json_t *one = jobset(1, "{}", NULL, "{}");
    json_t *multi = jobset(2, "{'cpu':'500m','memory':'1Gi'}", "{'cpu':'250m','memory':'512Mi'}",
                           "{}");
    json_t *res = jobset(2, "{'cpu':'500m','memory':'1Gi'}", NULL, "{}");
    expect_pg(pol, one, "{'minMember':1,'scheduleTimeoutSeconds':30}");
    expect_pg(pol, multi, "{'minMember':3,'scheduleTimeoutSeconds':30,"
                          "'minResources':{'cpu':'1250m','memory':'2560Mi'}}");
    expect_pg(pol, res, "{'minMember':2,'scheduleTimeoutSeconds':30,"
                        "'minResources':{'cpu':'1','memory':'2Gi'}}");
    expect_pg("{'coscheduling':{}}", one, "{'minMember':1,'scheduleTimeoutSeconds':60}");
    json_decref(one);
    json_decref(multi);
    json_decref(res);
}

/* volcano: the queue annotation, the priority class, the network topology. */
static void volcano_pod_groups(void **state)
{
    (void)state;
    json_t *js = jobset(2, "{'nvidia.com/gpu':1}", NULL,
                        "{'scheduling.volcano.sh/queue-name':'q1'}");
    jx_set_str(jx_path(json_array_get(jx_arr(jx_obj(js, "spec"), "replicatedJobs"), 0),
                           "template.spec.template.spec"),
               "priorityClassName", "high");
    expect_pg("{'volcano':{'networkTopology':{'mode':'hard','highestTierAllowed':1}}}", js,
              "{'minMember':2,'minResources':{'nvidia.com/gpu':'2'},'queue':'q1',"
              "'priorityClassName':'high','networkTopology':{'mode':'hard',"
              "'highestTierAllowed':1}}");
    json_t *pol = tu_qjson("{}");
    int rc = 1;
    assert_null(tjpg_build("default", "x", pol, js, &rc)); /* "no action when ... is nil" */
    assert_int_equal(rc, 0);
    json_decref(pol);
    json_decref(js);
}

/* EnforcePodGroupPolicy: the label (coscheduling) or annotation (volcano) on every pod. */
static void pod_group_label_and_annotation(void **state)
{
    (void)state;
    json_t *js = jobset(2, "{}", "{}", "{}");
    json_t *cos = tu_qjson("{'coscheduling':{}}"), *vol = tu_qjson("{'volcano':{}}");
    assert_int_equal(tji_pod_group(jx_obj(js, "spec"), cos, "trainJob"), 0);
    assert_int_equal(tji_pod_group(jx_obj(js, "spec"), vol, "trainJob"), 0);
    size_t i;
    const json_t *rj;
    json_array_foreach(jx_arr(jx_obj(js, "spec"), "replicatedJobs"), i, rj) {
        const json_t *m = jx_path(rj, "template.spec.template.metadata");
        assert_string_equal(jx_get_meta(m, "labels", TJI_COSCHED_LABEL), "trainJob");
        assert_string_equal(jx_get_meta(m, "annotations", TJI_VOLCANO_ANN), "trainJob");
    }
    json_decref(js);
    json_decref(cos);
    json_decref(vol);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(storage_uri_and_secret_ref),
        cmocka_unit_test(env_upserted_in_place),
        cmocka_unit_test(replicas_follow_the_label),
        cmocka_unit_test(coscheduling_pod_groups),
        cmocka_unit_test(volcano_pod_groups),
        cmocka_unit_test(pod_group_label_and_annotation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
