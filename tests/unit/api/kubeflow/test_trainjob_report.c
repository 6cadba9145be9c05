/* Tests of the status server's rules (src/api/kubeflow/trainjob_report.h): kubeflow/trainer
 * pkg/statusserver's own tables, one case per row and named after it (utils_test.go
 * TestTokenAudience and TestStatusUrl, auth_test.go TestExtractRawToken), then the decoding of
 * a request as encoding/json decodes it and its validation as the API server validates the
 * TrainJob CRD's status.trainerStatus.  The server's answers over HTTP (TestServerErrorResponses,
 * test/integration/statusserver) are tests/upstream/trainer's, through a local run's server. */
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/kubeflow/trainjob_report.h"
#include "obj/tree/jx.h"

/* ---- TestTokenAudience, TestStatusUrl ----------------------------------------------------- */

static const struct {
    const char *row, *ns, *name, *audience, *url;
} paths[] = {
    {"audience is scoped to the TrainJob status endpoint / URL points at the TrainJob status "
     "endpoint", "default", "test-job",
     "trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/test-job/status",
     "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/test-job/status"},
    {"audience is scoped to the TrainJob namespace / URL is scoped to the TrainJob namespace",
     "other-ns", "test-job",
     "trainer.kubeflow.org/v1alpha1/namespaces/other-ns/trainjobs/test-job/status",
     "/apis/trainer.kubeflow.org/v1alpha1/namespaces/other-ns/trainjobs/test-job/status"},
};

static void TestTokenAudience_and_TestStatusUrl(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
        char buf[512], ns[TJS_REPORT_NAME_MAX], name[TJS_REPORT_NAME_MAX];
        print_message("row: %s\n", paths[i].row);
        assert_true(tjs_report_audience(paths[i].ns, paths[i].name, buf, sizeof(buf)) > 0);
        assert_string_equal(buf, paths[i].audience);
        assert_true(tjs_report_path(paths[i].ns, paths[i].name, buf, sizeof(buf)) > 0);
        assert_string_equal(buf, paths[i].url);
        assert_true(tjs_report_route(buf, ns, name)); /* and the server routes it back */
        assert_string_equal(ns, paths[i].ns);
        assert_string_equal(name, paths[i].name);
    }
    char small[16];
    assert_int_equal(tjs_report_path("default", "test-job", small, sizeof(small)), -ERANGE);
}

/* Go's ServeMux: one non-empty segment per wildcard, nothing after /status. */
static void route_wildcards_are_one_segment_each(void **state)
{
    (void)state;
    char ns[TJS_REPORT_NAME_MAX], name[TJS_REPORT_NAME_MAX];
#define H "/apis/trainer.kubeflow.org/v1alpha1/namespaces/"
    const char *bad[] = {"", "/", H "default", H "/trainjobs/j/status", H "d/trainjobs//status",
                         H "d/trainjobs/j/status/", H "d/trainjobs/j/statusx",
                         H "d/jobsets/j/status", H "d/e/trainjobs/j/status",
                         "/apis/trainer.kubeflow.org/v1/namespaces/d/trainjobs/j/status"};
#undef H
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        print_message("path: %s\n", bad[i]);
        assert_false(tjs_report_route(bad[i], ns, name));
    }
}

/* ---- TestExtractRawToken ------------------------------------------------------------------- */

static const struct {
    const char *row, *header, *token;
} tokens[] = {
    {"bearer token is extracted", "Bearer token", "token"},
    {"scheme is matched case-insensitively", "bearer token", "token"},
    {"repeated whitespace between scheme and credentials is tolerated", "Bearer \t token",
     "token"},
    {"surrounding whitespace is tolerated", "  Bearer token  ", "token"},
    {"empty header yields no token", "", ""},
    {"whitespace-only header yields no token", "   ", ""},
    {"missing credentials yield no token", "Bearer", ""},
    {"missing scheme yields no token", "token", ""},
    {"other authorization schemes yield no token", "Basic dXNlcjpwYXNz", ""},
    {"scheme substring is not accepted", "Bearerx token", ""},
    {"multiple credentials yield no token", "Bearer token another", ""},
};

static void TestExtractRawToken(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(tokens) / sizeof(tokens[0]); i++) {
        char out[64];
        print_message("row: %s\n", tokens[i].row);
        assert_int_equal(tjs_report_token(tokens[i].header, out, sizeof(out)),
                         strlen(tokens[i].token));
        assert_string_equal(out, tokens[i].token);
    }
    char out[64];
    assert_int_equal(tjs_report_token(NULL, out, sizeof(out)), 0);
}

/* ---- decoding and validation --------------------------------------------------------------- */

static const struct {
    const char *what, *body;
    enum tjs_report_rc rc;
    const char *want; /* APPLY: the stored trainerStatus; EMPTY: the echo; INVALID: message */
} bodies[] = {
    /* test/integration/statusserver: "Should update the TrainJob status when the request is
     * valid" and its Go encoding back (seconds, UTC) */
    {"a valid update is stored", "{'trainerStatus':{'progressPercentage':50,"
     "'lastUpdatedTime':'2026-12-03T10:00:00.5+01:00'}}", TJS_REPORT_APPLY,
     "{'progressPercentage':50,'lastUpdatedTime':'2026-12-03T09:00:00Z'}"},
    {"every field", "{'trainerStatus':{'progressPercentage':45,'estimatedRemainingSeconds':3600,"
     "'metrics':[{'name':'loss','value':'0.2347'},{'name':'accuracy','value':'0.9876'}],"
     "'lastUpdatedTime':'2026-06-12T03:00:00Z'}}", TJS_REPORT_APPLY,
     "{'progressPercentage':45,'estimatedRemainingSeconds':3600,'metrics':[{'name':'loss',"
     "'value':'0.2347'},{'name':'accuracy','value':'0.9876'}],"
     "'lastUpdatedTime':'2026-06-12T03:00:00Z'}"},
    /* "Should accept an empty update request but not overwrite existing status" */
    {"an empty request", "{}", TJS_REPORT_EMPTY, "{}"},
    {"null", "null", TJS_REPORT_EMPTY, "{}"},
    {"a null trainerStatus", "{'trainerStatus':null}", TJS_REPORT_EMPTY, "{}"},
    {"unknown fields are ignored", "{'other':1,'trainerStatus':{'x':[],"
     "'lastUpdatedTime':'2026-01-01T00:00:00Z'}}", TJS_REPORT_APPLY,
     "{'lastUpdatedTime':'2026-01-01T00:00:00Z'}"},
    {"keys in any case", "{'TRAINERSTATUS':{'ProgressPercentage':7,"
     "'lastupdatedtime':'2026-01-01T00:00:00Z'}}", TJS_REPORT_APPLY,
     "{'progressPercentage':7,'lastUpdatedTime':'2026-01-01T00:00:00Z'}"},
    {"only the first value is read", "{} invalid payload", TJS_REPORT_EMPTY, "{}"},
    /* TestServerErrorResponses "invalid payload fails with 422 unprocessable entity" */
    {"not JSON", "invalid payload", TJS_REPORT_PAYLOAD, NULL},
    {"nothing", "", TJS_REPORT_PAYLOAD, NULL},
    {"an array", "[]", TJS_REPORT_PAYLOAD, NULL},
    {"a string trainerStatus", "{'trainerStatus':'50'}", TJS_REPORT_PAYLOAD, NULL},
    {"a fraction", "{'trainerStatus':{'progressPercentage':50.5}}", TJS_REPORT_PAYLOAD, NULL},
    {"past int32", "{'trainerStatus':{'estimatedRemainingSeconds':2147483648}}",
     TJS_REPORT_PAYLOAD, NULL},
    {"a number as a metric value", "{'trainerStatus':{'metrics':[{'name':'l','value':1}]}}",
     TJS_REPORT_PAYLOAD, NULL},
    {"a time that is not RFC 3339", "{'trainerStatus':{'lastUpdatedTime':'2026-01-01'}}",
     TJS_REPORT_PAYLOAD, NULL},
    /* "Should reject a request with progressPercentage > 100 with a useful error message" */
    {"progress past 100", "{'trainerStatus':{'progressPercentage':150,"
     "'lastUpdatedTime':'2026-01-01T00:00:00Z'}}", TJS_REPORT_INVALID,
     "TrainJob.trainer.kubeflow.org \"job\" is invalid: status.trainerStatus.progressPercentage:"
     " Invalid value: 150: status.trainerStatus.progressPercentage in body should be less than "
     "or equal to 100"},
    {"the time is required", "{'trainerStatus':{'progressPercentage':5}}", TJS_REPORT_INVALID,
     "TrainJob.trainer.kubeflow.org \"job\" is invalid: status.trainerStatus: Invalid value: "
     "\"object\": lastUpdatedTime is required when trainerStatus is present"},
    {"several errors", "{'trainerStatus':{'estimatedRemainingSeconds':-1,'metrics':[{'name':"
     "'loss'},{'name':'0123456789012345678901234567890123456789012345678901234567890123x',"
     "'value':'1'}],'lastUpdatedTime':'2026-01-01T00:00:00Z'}}", TJS_REPORT_INVALID,
     "TrainJob.trainer.kubeflow.org \"job\" is invalid: [status.trainerStatus."
     "estimatedRemainingSeconds: Invalid value: -1: status.trainerStatus."
     "estimatedRemainingSeconds in body should be greater than or equal to 0, "
     "status.trainerStatus.metrics[0].value: Invalid value: \"\": status.trainerStatus."
     "metrics[0].value in body should be at least 1 chars long, status.trainerStatus.metrics[1]."
     "name: Too long: may not be more than 64 bytes]"},
};

static void decoded_and_validated_as_upstream(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
        print_message("case: %s\n", bodies[i].what);
        char *body = strdup(bodies[i].body);
        for (char *p = body; *p; p++)
            *p = *p == '\'' ? '"' : *p;
        struct tjs_report r;
        assert_int_equal(tjs_report_parse(body, strlen(body), "job", &r), bodies[i].rc);
        if (bodies[i].rc == TJS_REPORT_INVALID) {
            assert_string_equal(r.message, bodies[i].want);
        } else if (bodies[i].want) {
            json_t *want = tu_qjson(bodies[i].want);
            json_t *got = bodies[i].rc == TJS_REPORT_APPLY ? r.status : r.echo;
            assert_true(json_equal(got, want));
            json_decref(want);
        }
        tjs_report_release(&r);
        free(body);
    }
}

/* The echo is the request as Go encodes it back: empty metric fields omitted. */
static void the_echo_is_go_s_encoding(void **state)
{
    (void)state;
    const char *body = "{\"trainerStatus\":{\"metrics\":[{\"name\":\"l\",\"value\":\"\"}],"
                       "\"lastUpdatedTime\":null}}";
    struct tjs_report r;
    assert_int_equal(tjs_report_parse(body, strlen(body), "job", &r), TJS_REPORT_INVALID);
    json_t *want = tu_qjson("{'trainerStatus':{'metrics':[{'name':'l'}],'lastUpdatedTime':null}}");
    assert_true(json_equal(r.echo, want));
    json_decref(want);
    tjs_report_release(&r);
}

/* 257 metrics: Too many, and each item is still checked. */
static void too_many_metrics(void **state)
{
    (void)state;
    json_t *list = json_array();
    for (int i = 0; i < 257; i++)
        json_array_append_new(list, json_pack("{s:s,s:s}", "name", "m", "value", "1"));
    json_t *req = json_pack("{s:{s:o,s:s}}", "trainerStatus", "metrics", list, "lastUpdatedTime",
                            "2026-01-01T00:00:00Z");
    char *body = json_dumps(req, 0);
    struct tjs_report r;
    assert_int_equal(tjs_report_parse(body, strlen(body), "job", &r), TJS_REPORT_INVALID);
    assert_string_equal(r.message, "TrainJob.trainer.kubeflow.org \"job\" is invalid: "
                                   "status.trainerStatus.metrics: Too many: 257: must have at "
                                   "most 256 items");
    tjs_report_release(&r);
    free(body);
    json_decref(req);
}

static void failure_is_a_metav1_status(void **state)
{
    (void)state;
    json_t *s = tjs_report_failure(403, "Forbidden", "Forbidden");
    json_t *want = tu_qjson("{'status':'Failure','message':'Forbidden','reason':'Forbidden',"
                            "'code':403}");
    assert_true(json_equal(s, want));
    json_decref(s);
    json_decref(want);
}

/* ---- plugins/trainjobstatus: TestEnforcePodSpec, TestBuild ---------------------------------- */

#define SVC "https://kubeflow-trainer-controller-manager.kubeflow-system.svc:10443"

static json_t *two_jobs(const char *trainer_containers)
{
    char text[2048];
    snprintf(text, sizeof(text),
             "{'spec':{'replicatedJobs':[{'name':'launcher','template':{'spec':{'template':{"
             "'spec':{'containers':[{'name':'launcher'}]}}}}},{'name':'node','template':{"
             "'metadata':{'labels':{'trainer.kubeflow.org/trainjob-ancestor-step':'%s'}},"
             "'spec':{'template':{'spec':{'initContainers':[{'name':'init'}],"
             "'containers':%s}}}}}]}}",
             trainer_containers ? "trainer" : "model-initializer",
             trainer_containers ? trainer_containers : "[{'name':'node'}]");
    return tu_qjson(text);
}

static void enforced(const json_t *c)
{
    json_t *want = tu_qjson(
        "[{'name':'KUBEFLOW_TRAINER_SERVER_URL','value':'" SVC "/apis/trainer.kubeflow.org/"
        "v1alpha1/namespaces/default/trainjobs/test-job/status'},{'name':"
        "'KUBEFLOW_TRAINER_SERVER_CA_CERT','value':'/var/run/secrets/kubeflow/trainer/ca.crt'},"
        "{'name':'KUBEFLOW_TRAINER_SERVER_TOKEN','value':'/var/run/secrets/kubeflow/trainer/"
        "token'}]");
    json_t *mounts = tu_qjson("[{'name':'kubeflow-trainer-token','mountPath':"
                              "'/var/run/secrets/kubeflow/trainer','readOnly':true}]");
    const json_t *env = jx_arr(c, "env");
    json_t *tail = json_array();
    for (size_t i = json_array_size(env) - 3; i < json_array_size(env); i++)
        json_array_append(tail, json_array_get(env, i));
    assert_true(json_equal(tail, want));
    assert_true(json_equal(jx_arr(c, "volumeMounts"), mounts));
    json_decref(tail);
    json_decref(want);
    json_decref(mounts);
}

static void TestEnforcePodSpec(void **state)
{
    (void)state;
    /* "does nothing if no trainer pods" */
    json_t *js = two_jobs(NULL), *before = json_deep_copy(js);
    assert_int_equal(tjs_report_enforce(js, "default", "test-job", SVC), 0);
    assert_true(json_equal(js, before));
    json_decref(js);
    json_decref(before);
    /* "injects runtime configuration into trainer containers", and "... into multiple
     * containers" (a variable the container has already is replaced, not repeated) */
    js = two_jobs("[{'name':'node'},{'name':'sidecar','env':[{'name':'A','value':'1'},"
                  "{'name':'KUBEFLOW_TRAINER_SERVER_URL','value':'old'}]}]");
    assert_int_equal(tjs_report_enforce(js, "default", "test-job", SVC), 0);
    const json_t *pod = jx_path(json_array_get(jx_arr(jx_obj(js, "spec"), "replicatedJobs"), 1),
                                "template.spec.template.spec");
    enforced(json_array_get(jx_arr(pod, "containers"), 0));
    const json_t *side = json_array_get(jx_arr(pod, "containers"), 1);
    assert_int_equal(json_array_size(jx_arr(side, "env")), 4); /* A, then the three */
    assert_string_equal(jx_str(json_array_get(jx_arr(side, "env"), 0), "name"), "A");
    enforced(side);
    assert_null(jx_arr(json_array_get(jx_arr(pod, "initContainers"), 0), "env"));
    json_t *vol = tu_qjson(
        "[{'name':'kubeflow-trainer-token','projected':{'sources':[{'serviceAccountToken':{"
        "'audience':'trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/test-job/"
        "status','expirationSeconds':3600,'path':'token'}},{'configMap':{'name':"
        "'test-job-tls-config','items':[{'key':'ca.crt','path':'ca.crt'}]}}]}}]");
    assert_true(json_equal(jx_arr(pod, "volumes"), vol));
    assert_int_equal(tjs_report_enforce(js, "default", "test-job", SVC), 0); /* idempotent */
    assert_true(json_equal(jx_arr(pod, "volumes"), vol));
    enforced(json_array_get(jx_arr(pod, "containers"), 0));
    json_decref(vol);
    json_decref(js);
}

/* TestBuild "creates ConfigMap with CA cert from secret" (the secret's lookup, and its rows
 * "returns error when webhook secret not found" / "... CA cert is missing", are the
 * controller's: tests/kube/test_progress.py). */
static void TestBuild(void **state)
{
    (void)state;
    json_t *cm = tjs_report_configmap("default", "test-job", "test-uid", "CA");
    json_t *want = tu_qjson(
        "{'apiVersion':'v1','kind':'ConfigMap','metadata':{'name':'test-job-tls-config',"
        "'namespace':'default','ownerReferences':[{'apiVersion':'trainer.kubeflow.org/v1alpha1',"
        "'kind':'TrainJob','name':'test-job','uid':'test-uid','controller':true,"
        "'blockOwnerDeletion':true}]},'data':{'ca.crt':'CA'}}");
    assert_true(json_equal(cm, want));
    json_decref(cm);
    json_decref(want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(TestTokenAudience_and_TestStatusUrl),
        cmocka_unit_test(route_wildcards_are_one_segment_each),
        cmocka_unit_test(TestExtractRawToken),
        cmocka_unit_test(decoded_and_validated_as_upstream),
        cmocka_unit_test(the_echo_is_go_s_encoding),
        cmocka_unit_test(too_many_metrics),
        cmocka_unit_test(failure_is_a_metav1_status),
        cmocka_unit_test(TestEnforcePodSpec),
        cmocka_unit_test(TestBuild),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
