/* kres: the kinds the CLI names (kubectl's words for them) and their REST paths. */
#include "kube/client/kc_res.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

static void test_find(void **state)
{
    (void)state;
    const char *jobset_words[] = {"jobset", "JobSet", "jobsets", "js", "jobsets.jobset.x-k8s.io"};
    for (size_t i = 0; i < sizeof(jobset_words) / sizeof(jobset_words[0]); i++) {
        const struct kc_res *r = kc_res_find(jobset_words[i]);
        assert_non_null(r);
        assert_int_equal(r->family, JOB_KIND_JOBSET);
    }
    assert_int_equal(kc_res_find("JAXJOBS")->family, JOB_KIND_JAXJOB);
    assert_int_equal(kc_res_find("trainjob")->family, JOB_KIND_TRAINJOB);
    assert_int_equal(kc_res_find("configmap")->family, JOB_KIND_OTHER);
    assert_null(kc_res_find("jobsets.kubeflow.org"));
    assert_null(kc_res_find("jobsets."));
    assert_null(kc_res_find("nope"));
    assert_null(kc_res_find(NULL));
}

static void test_of(void **state)
{
    (void)state;
    json_t *o = json_pack("{s:s, s:s}", "apiVersion", "kubeflow.org/v1", "kind", "JAXJob");
    assert_string_equal(kc_res_of(o)->plural, "jaxjobs");
    json_object_set_new(o, "apiVersion", json_string("kubeflow.org/v2"));
    assert_null(kc_res_of(o));
    json_object_set_new(o, "apiVersion", json_string("v1"));
    json_object_set_new(o, "kind", json_string("ConfigMap"));
    assert_string_equal(kc_res_of(o)->plural, "configmaps");
    json_object_set_new(o, "apiVersion", json_string("apps/v1"));
    assert_null(kc_res_of(o));
    json_decref(o);
}

static void test_path(void **state)
{
    (void)state;
    char q[KC_RES_QUALIFIED_MAX];
    struct { const char *kind, *ns, *name, *sub, *want; } cases[] = {
        {"jobset", "ns", "a", NULL, "/apis/jobset.x-k8s.io/v1alpha2/namespaces/ns/jobsets/a"},
        {"jobset", "ns", NULL, NULL, "/apis/jobset.x-k8s.io/v1alpha2/namespaces/ns/jobsets"},
        {"pod", "ns", "p", "log", "/api/v1/namespaces/ns/pods/p/log"},
        {"clustertrainingruntime", "ns", "r", NULL,
         "/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes/r"},
        {"jobset", "ns", "a?b/c", NULL,
         "/apis/jobset.x-k8s.io/v1alpha2/namespaces/ns/jobsets/a%3Fb%2Fc"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *p = kc_res_path(kc_res_find(cases[i].kind), cases[i].ns, cases[i].name, cases[i].sub);
        assert_string_equal(p, cases[i].want);
        free(p);
    }
    assert_string_equal(kc_res_qualified(kc_res_find("jaxjob"), q), "jaxjob.kubeflow.org");
    assert_string_equal(kc_res_qualified(kc_res_find("pods"), q), "pod");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_of),
        cmocka_unit_test(test_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
