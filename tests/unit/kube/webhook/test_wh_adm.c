/* The admission webhooks without a server: JSON patches, AdmissionReview answers of the JobSet
 * and pod handlers (defaults, create and update validation, process ids), the webhook
 * configurations' CA injection, and the certificates (made, checked, refused when expiring,
 * for other hosts or signed by another CA). */
#include "testutil.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "api/jobset/jobset.h"
#include "kube/webhook/wh_adm.h"
#include "kube/webhook/wh_jobset.h"
#include "kube/webhook/wh_cert.h"
#include "kube/webhook/wh_config.h"
#include "obj/base/b64.h"
#include "obj/tree/jpatch.h"
#include "obj/tree/jx.h"
#include "obj/base/sbuf.h"

static void test_jpatch(void **state)
{
    (void)state;
    json_t *a = tu_qjson("{'a':1,'b':{'c':[1,2],'d/e':'x'},'f':[1]}");
    json_t *b = tu_qjson("{'a':2,'b':{'c':[1,3],'d/e':'x','n':{}},'f':[1,2],'g':null}");
    json_t *ops = jpatch_diff(a, b);
    char *text = json_dumps(ops, JSON_COMPACT);
    assert_string_equal(text, "[{\"op\":\"replace\",\"path\":\"/a\",\"value\":2},"
                              "{\"op\":\"replace\",\"path\":\"/b/c/1\",\"value\":3},"
                              "{\"op\":\"add\",\"path\":\"/b/n\",\"value\":{}},"
                              "{\"op\":\"replace\",\"path\":\"/f\",\"value\":[1,2]},"
                              "{\"op\":\"add\",\"path\":\"/g\",\"value\":null}]");
    free(text);
    json_decref(ops);
    ops = jpatch_diff(b, a);
    text = json_dumps(ops, JSON_COMPACT);
    assert_non_null(strstr(text, "{\"op\":\"remove\",\"path\":\"/g\"}"));
    assert_non_null(strstr(text, "{\"op\":\"remove\",\"path\":\"/b/n\"}"));
    free(text);
    json_decref(ops);
    json_t *c = tu_qjson("{'d/e~':1}"), *d = tu_qjson("{'d/e~':2}");
    ops = jpatch_diff(c, d);
    assert_string_equal(jx_str(json_array_get(ops, 0), "path"), "/d~1e~0");
    json_decref(ops);
    json_decref(a);
    json_decref(b);
    json_decref(c);
    json_decref(d);
}

/* POSTs `review` to handler fn through wh_adm_serve; the decoded response. */
static json_t *review(wh_adm_fn fn, void *arg, json_t *req)
{
    struct wh_adm_route route = {fn, arg};
    json_t *rev = json_pack("{s:s,s:s,s:O}", "apiVersion", "admission.k8s.io/v1", "kind",
                            "AdmissionReview", "request", req);
    char *text = json_dumps(rev, JSON_COMPACT);
    struct sbuf body = {0};
    const char *ctype = NULL;
    int status = wh_adm_serve(&route, "/x", text, strlen(text), &body, &ctype);
    assert_int_equal(status, 200);
    assert_string_equal(ctype, "application/json");
    json_t *out = tu_json(sb_str(&body));
    sb_free(&body);
    free(text);
    json_decref(rev);
    json_t *resp = json_incref(jx_obj(out, "response"));
    json_decref(out);
    return resp;
}

/* The patch of a response, decoded. */
static json_t *patch_of(const json_t *resp)
{
    const char *p = jx_str(resp, "patch");
    if (!p)
        return NULL;
    assert_string_equal(jx_str(resp, "patchType"), "JSONPatch");
    char *raw = NULL;
    size_t n = 0;
    assert_int_equal(b64_decode(p, strlen(p), &raw, &n), 0);
    json_t *ops = tu_json(raw);
    free(raw);
    return ops;
}

static const char *js_yaml =
    "apiVersion: jobset.x-k8s.io/v1alpha2\n"
    "kind: JobSet\n"
    "metadata: {name: js, namespace: ns}\n"
    "spec:\n"
    "  replicatedJobs:\n"
    "  - name: a\n"
    "    replicas: 2\n"
    "    template:\n"
    "      spec:\n"
    "        parallelism: 2\n"
    "        completions: 2\n"
    "        template:\n"
    "          spec:\n"
    "            containers: [{name: c, image: i}]\n";

static void test_jobset_default_and_validate(void **state)
{
    (void)state;
    struct wh_ctx ctx = {0};
    json_t *js = tu_yaml(js_yaml);
    json_t *req = json_pack("{s:s,s:s,s:s,s:O}", "uid", "u-1", "operation", "CREATE",
                            "namespace", "ns", "object", js);
    json_t *resp = review(wh_jobset_default, &ctx, req);
    assert_string_equal(jx_str(resp, "uid"), "u-1");
    assert_true(jx_bool_or(resp, "allowed", false));
    json_t *ops = patch_of(resp);
    assert_non_null(ops);
    char *text = json_dumps(ops, JSON_COMPACT);
    assert_non_null(strstr(text, "\"path\":\"/spec/successPolicy\",\"value\":{\"operator\":\"All\"}"));
    assert_non_null(strstr(text, "\"path\":\"/spec/replicatedJobs/0/template/spec/completionMode\",\"value\":\"Indexed\""));
    assert_null(strstr(text, "/metadata/namespace"));
    free(text);
    json_decref(ops);
    json_decref(resp);

    /* valid: allowed; invalid: 422 with the field errors */
    resp = review(wh_jobset_validate, &ctx, req);
    assert_true(jx_bool_or(resp, "allowed", false));
    json_decref(resp);
    json_object_set_new(json_array_get(jx_arr(jx_obj(js, "spec"), "replicatedJobs"), 0),
                        "replicas", json_integer(-1));
    json_object_set_new(jx_obj(js, "spec"), "coordinator", json_pack("{s:s}", "replicatedJob", "nope"));
    json_object_set(req, "object", js);
    resp = review(wh_jobset_validate, &ctx, req);
    assert_false(jx_bool_or(resp, "allowed", true));
    const json_t *st = jx_obj(resp, "status");
    assert_int_equal(jx_int_or(st, "code", 0), 422);
    assert_string_equal(jx_str(st, "reason"), "Invalid");
    const char *msg = jx_str(st, "message");
    assert_non_null(strstr(msg, "JobSet.jobset.x-k8s.io \"js\" is invalid: ["));
    assert_non_null(strstr(msg, "spec.replicatedJobs[0].replicas: Invalid value: -1: must be "
                                "greater than or equal to 0"));
    assert_non_null(strstr(msg, "spec.coordinator.replicatedJob: Invalid value: \"nope\""));
    assert_int_equal(json_array_size(jx_arr(jx_obj(st, "details"), "causes")), 2);
    json_decref(resp);
    json_decref(req);
    json_decref(js);
}

static void test_jobset_update(void **state)
{
    (void)state;
    struct wh_ctx ctx = {0};
    json_t *old = tu_yaml(js_yaml);
    assert_int_equal(js_default(old), 0);
    json_t *new = json_deep_copy(old);
    json_t *pt = jx_path(json_array_get(jx_arr(jx_obj(new, "spec"), "replicatedJobs"), 0),
                         "template.spec.template");
    jx_set_meta(jx_ensure_obj(pt, "metadata"), "labels", "kueue", "x");
    json_t *req = json_pack("{s:s,s:s,s:O,s:O}", "uid", "u", "operation", "UPDATE", "object",
                            new, "oldObject", old);
    json_t *resp = review(wh_jobset_validate, &ctx, req);
    assert_false(jx_bool_or(resp, "allowed", true));
    assert_non_null(strstr(jx_str(jx_obj(resp, "status"), "message"),
                           "spec.replicatedJobs: Invalid value: "));
    assert_non_null(strstr(jx_str(jx_obj(resp, "status"), "message"), ": field is immutable"));
    json_decref(resp);
    /* suspended: the pod template's labels may change; the replicas still may not */
    jx_set_bool(jx_obj(new, "spec"), "suspend", true);
    json_object_set(req, "object", new);
    resp = review(wh_jobset_validate, &ctx, req);
    assert_true(jx_bool_or(resp, "allowed", false));
    json_decref(resp);
    json_object_set_new(json_array_get(jx_arr(jx_obj(new, "spec"), "replicatedJobs"), 0),
                        "replicas", json_integer(3));
    json_object_set_new(jx_obj(new, "spec"), "managedBy", json_string("x.io/y"));
    resp = review(wh_jobset_validate, &ctx, req);
    assert_false(jx_bool_or(resp, "allowed", true));
    assert_non_null(strstr(jx_str(jx_obj(resp, "status"), "message"), "spec.managedBy: Invalid "
                                                                       "value: \"x.io/y\": field is immutable"));
    json_decref(resp);
    json_decref(req);
    json_decref(old);
    json_decref(new);
}

static json_t *cached_js;
static json_t *get_js(void *arg, const char *ns, const char *name)
{
    (void)arg;
    if (!cached_js || strcmp(ns, "ns") != 0 || strcmp(name, "js") != 0)
        return NULL;
    return json_deep_copy(cached_js);
}

static json_t *pod(const char *rj, const char *job, const char *idx, bool offset)
{
    json_t *p = tu_qjson("{'metadata':{'name':'p','namespace':'ns','labels':{},'annotations':{}},"
                         "'spec':{'containers':[{'name':'c','env':[{'name':'A','value':'1'},"
                         "{'name':'JAX_PROCESS_ID','valueFrom':{'fieldRef':{'fieldPath':'x'}}}]},"
                         "{'name':'d'}]}}");
    json_t *m = jx_obj(p, "metadata");
    jx_set_meta(m, "labels", "jobset.sigs.k8s.io/jobset-name", "js");
    jx_set_meta(m, "labels", "jobset.sigs.k8s.io/replicatedjob-name", rj);
    jx_set_meta(m, "labels", "jobset.sigs.k8s.io/job-index", job);
    jx_set_meta(m, "annotations", "batch.kubernetes.io/job-completion-index", idx);
    if (offset)
        jx_set_meta(m, "annotations", "jaxset.dev/jax-process-id-offset", "0");
    return p;
}

/* Undoes RFC 6901 escaping in place. */
static char *unescape(char *t)
{
    char *w = t;
    for (char *r = t; *r; r++, w++) {
        if (r[0] == '~' && (r[1] == '0' || r[1] == '1'))
            *w = *++r == '0' ? '~' : '/';
        else
            *w = *r;
    }
    *w = '\0';
    return t;
}

/* Applies a JSON patch of add/remove/replace ops (what jpatch_diff makes) to `doc`. */
static void apply_patch(json_t *doc, const json_t *ops)
{
    size_t i;
    json_t *op;
    json_array_foreach (ops, i, op) {
        char path[512];
        snprintf(path, sizeof(path), "%s", jx_str(op, "path"));
        char *last = strrchr(path, '/');
        assert_non_null(last);
        *last++ = '\0';
        unescape(last);
        json_t *parent = doc;
        for (char *tok = strtok(path, "/"); tok; tok = strtok(NULL, "/"))
            parent = json_is_array(parent) ? json_array_get(parent, strtoul(tok, NULL, 10))
                                           : json_object_get(parent, unescape(tok));
        assert_non_null(parent);
        const char *kind = jx_str(op, "op");
        json_t *v = json_object_get(op, "value");
        if (json_is_array(parent)) {
            size_t k = strtoul(last, NULL, 10);
            if (!strcmp(kind, "remove"))
                json_array_remove(parent, k);
            else if (!strcmp(kind, "add"))
                json_array_insert(parent, k, v);
            else
                json_array_set(parent, k, v);
        } else if (!strcmp(kind, "remove")) {
            json_object_del(parent, last);
        } else {
            json_object_set(parent, last, v);
        }
    }
}

/* The value of variable `name` (an id, or the process count) in the containers of the pod the
 * webhook made, or -1 when the webhook leaves the pod alone. */
static long long pod_id(const char *rj, const char *job, const char *idx, const char *name)
{
    struct wh_ctx ctx = {.jobset_get = get_js};
    json_t *p = pod(rj, job, idx, true);
    json_t *req = json_pack("{s:s,s:s,s:s,s:O}", "uid", "u", "operation", "CREATE",
                            "namespace", "ns", "object", p);
    json_t *resp = review(wh_pod_default, &ctx, req);
    assert_true(jx_bool_or(resp, "allowed", false));
    json_t *ops = patch_of(resp);
    long long id = -1;
    if (ops) {
        apply_patch(p, ops);
        const char *ann = jx_get_meta(jx_obj(p, "metadata"), "annotations",
                                      "jaxset.dev/jax-process-id");
        json_t *ctrs = jx_arr(jx_obj(p, "spec"), "containers");
        for (size_t c = 0; c < 2; c++) {
            const json_t *env = jx_arr(json_array_get(ctrs, c), "env");
            long long got = -1;
            for (size_t k = 0; k < json_array_size(env); k++) {
                const json_t *e = json_array_get(env, k);
                if (strcmp(jx_str(e, "name"), name) == 0) {
                    assert_int_equal(got, -1); /* set once */
                    assert_null(json_object_get(e, "valueFrom"));
                    got = strtoll(jx_str(e, "value"), NULL, 10);
                }
            }
            assert_true(got >= 0);
            assert_true(c == 0 || got == id);
            id = got;
        }
        assert_non_null(ann);
        if (strstr(name, "PROCESS_ID")) /* not for the process count */
            assert_int_equal(strtoll(ann, NULL, 10), id);
        /* the other variables are kept */
        assert_string_equal(jx_str(json_array_get(jx_arr(json_array_get(ctrs, 0), "env"), 0),
                                   "name"), "A");
    }
    json_decref(ops);
    json_decref(resp);
    json_decref(req);
    json_decref(p);
    return id;
}

static void test_pod_ids(void **state)
{
    (void)state;
    cached_js = tu_yaml("apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\n"
                        "metadata:\n  name: js\n  namespace: ns\n"
                        "  annotations: {jaxset.dev/jax-runtime: aichor}\n"
                        "spec:\n  coordinator: {replicatedJob: b, jobIndex: 1, podIndex: 1}\n"
                        "  replicatedJobs:\n"
                        "  - name: a\n    replicas: 2\n    template: {spec: {parallelism: 2, "
                        "completions: 2, template: {spec: {containers: [{name: c, image: i}]}}}}\n"
                        "  - name: b\n    replicas: 2\n    template: {spec: {parallelism: 3, "
                        "completions: 3, template: {spec: {containers: [{name: c, image: i}]}}}}\n");
    /* spec order a0: 0,1 a1: 2,3 b0: 4,5,6 b1: 7,8,9; rotated so that b1 pod 1 (8) is 0 */
    assert_int_equal(pod_id("b", "1", "1", "JAXOPERATOR_PROCESS_ID"), 0);
    assert_int_equal(pod_id("b", "1", "2", "JAXOPERATOR_PROCESS_ID"), 1);
    assert_int_equal(pod_id("a", "0", "0", "JAXOPERATOR_PROCESS_ID"), 2);
    assert_int_equal(pod_id("a", "1", "1", "JAXOPERATOR_PROCESS_ID"), 5);
    assert_int_equal(pod_id("b", "0", "0", "JAXOPERATOR_PROCESS_ID"), 6);
    assert_int_equal(pod_id("b", "1", "0", "JAX_PROCESS_ID"), 9);
    assert_int_equal(pod_id("b", "1", "0", "JAX_NUM_PROCESSES"), 10);
    assert_int_equal(pod_id("a", "0", "1", "JAXOPERATOR_NUM_PROCESSES"), 10);

    /* a pod naming no pod of the JobSet is refused; an unknown JobSet is refused (retried) */
    struct wh_ctx ctx = {.jobset_get = get_js};
    const char *bad[][3] = {{"b", "2", "0"}, {"a", "0", "2"}, {"zz", "0", "0"}};
    for (size_t i = 0; i < 3; i++) {
        json_t *p = pod(bad[i][0], bad[i][1], bad[i][2], true);
        json_t *req = json_pack("{s:s,s:s,s:O}", "uid", "u", "operation", "CREATE", "object", p);
        json_t *resp = review(wh_pod_default, &ctx, req);
        assert_false(jx_bool_or(resp, "allowed", true));
        json_decref(resp);
        json_decref(req);
        json_decref(p);
    }
    /* a pod without the offset annotation (not a JAX pod) is left alone */
    json_t *p = pod("a", "0", "0", false);
    json_t *req = json_pack("{s:s,s:s,s:O}", "uid", "u", "operation", "CREATE", "object", p);
    json_t *resp = review(wh_pod_default, &ctx, req);
    assert_true(jx_bool_or(resp, "allowed", false));
    assert_null(jx_str(resp, "patch"));
    json_decref(resp);
    json_decref(req);
    json_decref(p);
    /* ElasticJobSet: b scaled to 3 Jobs; a new pod, of a new Job or an old one, counts 13
     * whatever its template said, and is numbered among them */
    json_object_set_new(json_array_get(jx_arr(jx_obj(cached_js, "spec"), "replicatedJobs"), 1),
                        "replicas", json_integer(3));
    assert_int_equal(pod_id("b", "2", "0", "JAX_NUM_PROCESSES"), 13);
    assert_int_equal(pod_id("b", "2", "0", "JAXOPERATOR_PROCESS_ID"), 2);
    assert_int_equal(pod_id("a", "0", "0", "JAX_PROCESS_ID"), 5);
    assert_int_equal(pod_id("a", "0", "0", "JAXOPERATOR_NUM_PROCESSES"), 13);
    json_decref(cached_js);
    cached_js = NULL;
}

static void test_bad_review(void **state)
{
    (void)state;
    struct wh_adm_route route = {wh_jobset_default, NULL};
    struct sbuf body = {0};
    const char *ctype = NULL;
    const char *text = "{\"kind\":\"AdmissionReview\"}";
    assert_int_equal(wh_adm_serve(&route, "/x", text, strlen(text), &body, &ctype), 200);
    json_t *out = tu_json(sb_str(&body));
    assert_false(jx_bool_or(jx_obj(out, "response"), "allowed", true));
    assert_int_equal(jx_int_or(jx_path(out, "response.status"), "code", 0), 400);
    json_decref(out);
    sb_free(&body);
}

static void test_jaxjob(void **state)
{
    (void)state;
    json_t *job = tu_qjson("{'apiVersion':'kubeflow.org/v1','kind':'JAXJob','metadata':{'name':"
                           "'Bad_Name'},'spec':{'jaxReplicaSpecs':{'Worker':{'template':{'spec':"
                           "{'containers':[{'name':'main'}]}}},'Chief':{'template':{'spec':"
                           "{'containers':[]}}}}}}");
    json_t *req = json_pack("{s:s,s:s,s:O}", "uid", "u", "operation", "CREATE", "object", job);
    json_t *resp = review(wh_jaxjob_validate, NULL, req);
    assert_false(jx_bool_or(resp, "allowed", true));
    const char *msg = jx_str(jx_obj(resp, "status"), "message");
    assert_non_null(strstr(msg, "JAXJob.kubeflow.org \"Bad_Name\" is invalid: [metadata.name: "
                                "Invalid value: \"Bad_Name\": should match: a DNS-1035 label"));
    assert_non_null(strstr(msg, "spec.jaxReplicaSpecs[Worker].template.spec.containers[0].image: "
                                "Required value: must be required"));
    assert_non_null(strstr(msg, "spec.jaxReplicaSpecs[Worker].template.spec.containers: Required "
                                "value: must have at least one container with name jax"));
    assert_non_null(strstr(msg, "spec.jaxReplicaSpecs[Chief]: Unsupported value: \"Chief\": "
                                "supported values: \"Worker\""));
    assert_non_null(strstr(msg, "spec.jaxReplicaSpecs[Chief].template.spec.containers: Required "
                                "value: must be specified"));
    json_decref(resp);
    /* a good one; and no replica specs at all */
    json_t *good = tu_qjson("{'metadata':{'name':'ok'},'spec':{'jaxReplicaSpecs':{'Worker':"
                            "{'template':{'spec':{'containers':[{'name':'jax','image':'i'}]}}}}}}");
    json_object_set(req, "object", good);
    resp = review(wh_jaxjob_validate, NULL, req);
    assert_true(jx_bool_or(resp, "allowed", false));
    json_decref(resp);
    json_object_del(jx_obj(good, "spec"), "jaxReplicaSpecs");
    resp = review(wh_jaxjob_validate, NULL, req);
    assert_string_equal(jx_str(jx_obj(resp, "status"), "message"),
                        "JAXJob.kubeflow.org \"ok\" is invalid: spec.jaxReplicaSpecs: Required "
                        "value: must be required");
    json_decref(resp);
    json_decref(good);
    json_decref(req);
    json_decref(job);
}

static const char *rt_json =
    "{'metadata':{'name':'jax','labels':{'trainer.kubeflow.org/support':'deprecated'}},"
    "'spec':{'mlPolicy':{'jax':{}},'template':{'spec':{'replicatedJobs':[{'name':'node',"
    "'template':{'spec':{'template':{'spec':{'containers':[{'name':'node'}]}}}}}]}}}}";

static int get_rt(void *arg, bool cluster, const char *ns, const char *name, json_t **out)
{
    (void)arg;
    (void)ns;
    *out = cluster && strcmp(name, "jax") == 0 ? tu_qjson(rt_json) : NULL;
    return 0;
}

static json_t *tj_review(const char *op, const char *obj, const char *old, struct wh_ctx *ctx)
{
    json_t *req = json_pack("{s:s,s:s,s:o}", "uid", "u", "operation", op, "object",
                            tu_qjson(obj));
    if (old)
        json_object_set_new(req, "oldObject", tu_qjson(old));
    json_t *resp = review(wh_trainjob_validate, ctx, req);
    json_decref(req);
    return resp;
}

static void assert_denied(json_t *resp, int code, const char *msg)
{
    assert_false(jx_bool_or(resp, "allowed", true));
    assert_int_equal(jx_int_or(jx_obj(resp, "status"), "code", 0), code);
    assert_string_equal(jx_str(jx_obj(resp, "status"), "message"), msg);
    json_decref(resp);
}

#define TJ(ref, rest)                                                                         \
    "{'metadata':{'name':'t','namespace':'ns'},'spec':{'runtimeRef':" ref rest "}}"
#define CTR "{'name':'jax','apiGroup':'trainer.kubeflow.org','kind':'ClusterTrainingRuntime'}"

static void test_trainjob(void **state)
{
    (void)state;
    struct wh_ctx ctx = {.runtime_get = get_rt};
    json_t *resp = tj_review("CREATE", TJ(CTR, ""), NULL, &ctx);
    assert_true(jx_bool_or(resp, "allowed", false));
    assert_non_null(strstr(json_string_value(json_array_get(jx_arr(resp, "warnings"), 0)),
                           "Referenced ClusterTrainingRuntime \"jax\" is deprecated"));
    json_decref(resp);
    assert_denied(tj_review("CREATE", TJ("{'name':'x','apiGroup':'trainer.kubeflow.org','kind':"
                                         "'MyRuntime'}", ""), NULL, &ctx),
                  403, "unsupported runtime: MyRuntime.trainer.kubeflow.org");
    assert_denied(tj_review("CREATE", TJ("{'name':'x','apiGroup':'trainer.kubeflow.org','kind':"
                                         "'TrainingRuntime'}", ""), NULL, &ctx),
                  403, "spec.runtimeRef: Invalid value: {\"name\":\"x\",\"apiGroup\":\"trainer."
                       "kubeflow.org\",\"kind\":\"TrainingRuntime\"}: trainingruntimes.trainer."
                       "kubeflow.org \"x\" not found: specified trainingRuntime must be created "
                       "before the TrainJob is created");
    assert_denied(tj_review("CREATE", TJ(CTR, ",'initializer':{'dataset':{}},'runtimePatches':"
                                         "[{'manager':'nodomain'}]"), NULL, &ctx),
                  403, "[spec.runtimeRef: Invalid value: " "{\"name\":\"jax\",\"apiGroup\":"
                       "\"trainer.kubeflow.org\",\"kind\":\"ClusterTrainingRuntime\"}: must have "
                       "dataset-initializer job when trainJob is configured with input "
                       "datasetConfig, spec.runtimePatches.manager: Invalid value: \"nodomain\": "
                       "must be a domain-prefixed path (such as \"acme.io/foo\")]");
    assert_denied(tj_review("UPDATE", TJ(CTR, ",'runtimePatches':[{'manager':'a.io/b'}]"),
                            TJ(CTR, ""), &ctx),
                  403, "spec.runtimePatches: Forbidden: RuntimePatches can only be modified when "
                       "the TrainJob is suspended before or after the update");
    resp = tj_review("UPDATE", TJ(CTR, ",'suspend':true,'runtimePatches':[{'manager':'a.io/b'}]"),
                     TJ(CTR, ""), &ctx);
    assert_true(jx_bool_or(resp, "allowed", false));
    json_decref(resp);
    assert_denied(tj_review("UPDATE", TJ("{'name':'y','kind':'ClusterTrainingRuntime'}",
                                         ",'managedBy':'me'"), TJ(CTR, ""), &ctx),
                  422, "TrainJob.trainer.kubeflow.org \"t\" is invalid: [spec.managedBy: Invalid "
                       "value: \"string\": ManagedBy must be trainer.kubeflow.org/trainjob-"
                       "controller or kueue.x-k8s.io/multikueue if set, spec.runtimeRef: Invalid "
                       "value: \"object\": field is immutable]");
    /* without runtime caches: only the CRD's rules */
    ctx.runtime_get = NULL;
    resp = tj_review("CREATE", TJ("{'name':'x','apiGroup':'trainer.kubeflow.org','kind':"
                                  "'TrainingRuntime'}", ""), NULL, &ctx);
    assert_true(jx_bool_or(resp, "allowed", false));
    json_decref(resp);
}

static json_t *placed_leader;

static json_t *named_leader(void *arg, const char *ns, const char *base)
{
    (void)arg;
    json_t *out = json_array();
    if (placed_leader && strcmp(ns, "ns") == 0 && strcmp(base, "js-w-0-0") == 0)
        json_array_append(out, placed_leader);
    return out;
}

static int no_node(void *arg, const char *name, json_t **out)
{
    (void)arg;
    (void)name;
    *out = NULL;
    return -ENOENT;
}

#define PLACED(idx, spec) "{'metadata':{'name':'js-w-0-" idx "-x','labels':{"                    \
    "'jobset.sigs.k8s.io/jobset-name':'js','jobset.sigs.k8s.io/replicatedjob-name':'w',"          \
    "'jobset.sigs.k8s.io/job-index':'0','jobset.sigs.k8s.io/job-key':'k'},'annotations':{"        \
    "'jobset.sigs.k8s.io/jobset-name':'js','alpha.jobset.sigs.k8s.io/exclusive-topology':'zone'," \
    "'batch.kubernetes.io/job-completion-index':'" idx "'},'ownerReferences':[{'uid':'j',"        \
    "'controller':true}]},'spec':{" spec "}}"

/* Exclusive placement through the AdmissionReview: the leader's affinities as a patch, a
 * follower refused by the validating path with upstream's 403 message, a leader's missing
 * Node a 404 NotFound, and a pod the webhook leaves alone answered without a patch. */
/* The runtime webhooks (kubeflow/trainer v2.3.0 pkg/webhooks trainingruntime_webhook.go,
 * clustertrainingruntime_webhook.go): one review of `op` for a runtime of `kind` whose trainer
 * job has `replicas`, labelled `labels` (JSON text). */
static json_t *rt_review(const char *op, const char *kind, int replicas, const char *labels)
{
    char text[1024];
    snprintf(text, sizeof(text),
             "{'apiVersion':'trainer.kubeflow.org/v1alpha1','kind':'%s','metadata':{'name':'jax',"
             "'labels':%s},'spec':{'template':{'spec':{'replicatedJobs':[{'name':'node',"
             "'replicas':%d,'template':{'metadata':{'labels':{"
             "'trainer.kubeflow.org/trainjob-ancestor-step':'trainer'}},'spec':{'template':{"
             "'spec':{'containers':[{'name':'node','image':'i'}]}}}}}]}}}}",
             kind, labels, replicas);
    json_t *rt = tu_qjson(text);
    json_t *req = json_pack("{s:s,s:s,s:{s:s,s:s,s:s},s:O}", "uid", "u", "operation", op, "kind",
                            "group", "trainer.kubeflow.org", "version", "v1alpha1", "kind", kind,
                            "object", rt);
    if (strcmp(op, "UPDATE") == 0)
        json_object_set(req, "oldObject", rt);
    json_t *resp = review(wh_runtime_validate, NULL, req);
    json_decref(req);
    json_decref(rt);
    return resp;
}

static void test_runtime_webhooks(void **state)
{
    (void)state;
    static const char *const bad = "spec.template.spec.replicatedJobs[0].replicas: Invalid value: "
                                   "0: must be greater than or equal to 1";
    static const char *const kinds[] = {"TrainingRuntime", "ClusterTrainingRuntime"};
    for (size_t k = 0; k < 2; k++) {
        json_t *resp = rt_review("CREATE", kinds[k], 1, "{}");
        assert_true(jx_bool_or(resp, "allowed", false));
        assert_null(jx_arr(resp, "warnings"));
        json_decref(resp);
        assert_denied(rt_review("CREATE", kinds[k], 0, "{}"), 403, bad);
        /* a multi-slice trainer job (a deliberate difference: upstream wants 1) */
        resp = rt_review("CREATE", kinds[k], 2, "{}");
        assert_true(jx_bool_or(resp, "allowed", false));
        json_decref(resp);
        /* the handler does not read the opt-out label: the objectSelector keeps such runtimes
         * away from it, as upstream's */
        assert_denied(rt_review("CREATE", kinds[k], 0,
                                "{'trainer.kubeflow.org/webhook-validation':'disabled'}"),
                      403, bad);
    }
    /* UPDATE: upstream's ClusterTrainingRuntime validator checks it, the TrainingRuntime one
     * admits it */
    assert_denied(rt_review("UPDATE", "ClusterTrainingRuntime", 0, "{}"), 403, bad);
    json_t *resp = rt_review("UPDATE", "TrainingRuntime", 0, "{}");
    assert_true(jx_bool_or(resp, "allowed", false));
    json_decref(resp);
    /* a deprecated ClusterTrainingRuntime is created with upstream's warning */
    resp = rt_review("CREATE", "ClusterTrainingRuntime", 1,
                     "{'trainer.kubeflow.org/support':'deprecated'}");
    assert_true(jx_bool_or(resp, "allowed", false));
    assert_non_null(strstr(json_string_value(json_array_get(jx_arr(resp, "warnings"), 0)),
                           "ClusterTrainingRuntime \"jax\" is deprecated and will be removed"));
    json_decref(resp);
    resp = rt_review("CREATE", "TrainingRuntime", 1,
                     "{'trainer.kubeflow.org/support':'deprecated'}");
    assert_null(jx_arr(resp, "warnings"));
    json_decref(resp);
}

static void test_pod_placement_reviews(void **state)
{
    (void)state;
    struct wh_ctx ctx = {.place = {named_leader, no_node, NULL}};
    json_t *leader = tu_qjson(PLACED("0", "'containers':[]"));
    json_t *req = json_pack("{s:s,s:s,s:s,s:O}", "uid", "u", "operation", "CREATE",
                            "namespace", "ns", "object", leader);
    json_t *resp = review(wh_pod_default, &ctx, req);
    json_t *ops = patch_of(resp);
    char *text = json_dumps(ops, JSON_COMPACT);
    assert_non_null(strstr(text, "\"path\":\"/spec/affinity\""));
    assert_null(strstr(text, "/metadata/namespace"));
    free(text);
    json_decref(ops);
    json_decref(resp);
    json_decref(req);
    json_t *follower = tu_qjson(PLACED("1", "'containers':[]"));
    req = json_pack("{s:s,s:s,s:s,s:O}", "uid", "u", "operation", "CREATE", "namespace", "ns",
                    "object", follower);
    resp = review(wh_pod_validate, &ctx, req);
    assert_denied(resp, 403, "follower pod node selector not set");
    placed_leader = tu_qjson(PLACED("0", "'nodeName':'gone'"));
    resp = review(wh_pod_default, &ctx, req);
    assert_denied(resp, 404, "nodes \"gone\" not found");
    json_decref(req);
    json_decref(placed_leader);
    placed_leader = NULL;
    json_t *plain = tu_qjson("{'metadata':{'name':'p','annotations':{"
                             "'jobset.sigs.k8s.io/jobset-name':'js'}}}");
    req = json_pack("{s:s,s:s,s:s,s:O}", "uid", "u", "operation", "CREATE", "namespace", "ns",
                    "object", plain);
    resp = review(wh_pod_default, &ctx, req);
    assert_true(jx_bool_or(resp, "allowed", false));
    assert_null(jx_str(resp, "patch"));
    json_decref(resp);
    json_decref(req);
    json_decref(plain);
    json_decref(follower);
    json_decref(leader);
}

static void test_whconfig(void **state)
{
    (void)state;
    json_t *m = wh_config_new(true, "mwc", "sys", "svc", NULL);
    json_t *v = wh_config_new(false, "vwc", "sys", "svc", "https://127.0.0.1:9443/");
    assert_int_equal(json_array_size(jx_arr(m, "webhooks")), 2);
    assert_int_equal(json_array_size(jx_arr(v, "webhooks")), 6);
    /* the runtime webhooks, which a runtime labelled webhook-validation: disabled opts out of */
    for (size_t i = 4; i < 6; i++) {
        const json_t *w = json_array_get(jx_arr(v, "webhooks"), i);
        char *sel = json_dumps(json_object_get(w, "objectSelector"), JSON_COMPACT);
        assert_string_equal(sel, "{\"matchExpressions\":[{\"key\":\"trainer.kubeflow.org/"
                                 "webhook-validation\",\"operator\":\"NotIn\",\"values\":"
                                 "[\"disabled\"]}]}");
        free(sel);
    }
    assert_string_equal(jx_str(json_array_get(jx_arr(v, "webhooks"), 4), "name"),
                        "validator.clustertrainingruntime.trainer.kubeflow.org");
    assert_string_equal(jx_str(jx_path(json_array_get(jx_arr(v, "webhooks"), 5), "clientConfig"),
                               "url"),
                        "https://127.0.0.1:9443/validate-trainer-kubeflow-org-v1alpha1-"
                        "trainingruntime");
    assert_null(json_object_get(json_array_get(jx_arr(v, "webhooks"), 3), "objectSelector"));
    assert_string_equal(jx_str(jx_path(json_array_get(jx_arr(v, "webhooks"), 1), "clientConfig"),
                               "url"),
                        "https://127.0.0.1:9443/validate--v1-pod");
    assert_string_equal(jx_str(jx_path(json_array_get(jx_arr(v, "webhooks"), 3), "clientConfig"),
                               "url"),
                        "https://127.0.0.1:9443/validate-trainer-kubeflow-org-v1alpha1-trainjob");
    assert_string_equal(jx_str(jx_path(json_array_get(jx_arr(v, "webhooks"), 0), "clientConfig"), "url"),
                        "https://127.0.0.1:9443/validate-jobset-x-k8s-io-v1alpha2-jobset");
    assert_int_equal(wh_config_inject(m, "Q0E=", NULL), 1);
    assert_int_equal(wh_config_inject(m, "Q0E=", NULL), 0);
    const json_t *cc = jx_obj(json_array_get(jx_arr(m, "webhooks"), 1), "clientConfig");
    assert_string_equal(jx_str(cc, "caBundle"), "Q0E=");
    assert_string_equal(jx_str(jx_obj(cc, "service"), "path"), "/mutate--v1-pod");
    /* by url: the service's path kept */
    assert_int_equal(wh_config_inject(m, "Q0E=", "https://h:1"), 1);
    cc = jx_obj(json_array_get(jx_arr(m, "webhooks"), 1), "clientConfig");
    assert_string_equal(jx_str(cc, "url"), "https://h:1/mutate--v1-pod");
    assert_null(jx_obj(cc, "service"));
    json_decref(m);
    json_decref(v);
}

static void test_certs(void **state)
{
    (void)state;
    const char *hosts[] = {"svc.ns.svc", "127.0.0.1"};
    struct wh_cert c = {0}, d = {0};
    struct err e = {{0}};
    int64_t now = (int64_t)time(NULL), end = 0;
    const char *why = NULL;
    assert_int_equal(wh_cert_generate(hosts, 2, now, 3600, &c, &e), 0);
    assert_non_null(strstr(c.tls_key, "PRIVATE KEY"));
    assert_int_equal(wh_cert_check(&c, hosts, 2, now, 60, &end, &why), 0);
    assert_true(end >= now + 3599 && end <= now + 3601);
    /* expiring within the lookahead, another host, another CA: a new pair is needed */
    assert_int_equal(wh_cert_check(&c, hosts, 2, now, 3600, NULL, &why), 1);
    assert_string_equal(why, "the certificates expire soon");
    const char *other[] = {"other.ns.svc"};
    assert_int_equal(wh_cert_check(&c, other, 1, now, 60, NULL, &why), 1);
    assert_int_equal(wh_cert_generate(hosts, 2, now, 3600, &d, &e), 0);
    free(d.ca_crt);
    d.ca_crt = strdup(c.ca_crt);
    assert_int_equal(wh_cert_check(&d, hosts, 2, now, 60, NULL, &why), 1);
    free(d.tls_key);
    d.tls_key = strdup("garbage");
    assert_int_equal(wh_cert_check(&d, hosts, 2, now, 60, NULL, &why), 1);
    assert_int_equal(wh_cert_copy(&d, &c), 0);
    assert_string_equal(d.tls_crt, c.tls_crt);
    wh_cert_release(&c);
    wh_cert_release(&d);
}

/* controller-runtime's decoder refuses an object that is not one (400): a CREATE or UPDATE of
 * `null`, a string or a number is not allowed by default. */
static void test_object_not_an_object_is_refused(void **state)
{
    (void)state;
    struct wh_ctx ctx = {0};
    wh_adm_fn fns[] = {wh_jobset_default, wh_jobset_validate};
    json_t *values[] = {json_null(), json_string("a string"), json_integer(7)};
    for (size_t f = 0; f < 2; f++)
        for (size_t v = 0; v < 3; v++) {
            json_t *req = json_pack("{s:s,s:s,s:s,s:O}", "uid", "u-2", "operation", "CREATE",
                                    "namespace", "ns", "object", values[v]);
            json_t *resp = review(fns[f], &ctx, req);
            assert_string_equal(jx_str(resp, "uid"), "u-2");
            assert_false(jx_bool_or(resp, "allowed", true));
            assert_int_equal(jx_int_or(jx_obj(resp, "status"), "code", 0), 400);
            assert_non_null(strstr(jx_str(jx_obj(resp, "status"), "message"), "not an object"));
            json_decref(resp);
            json_decref(req);
        }
    /* an UPDATE whose oldObject is a string: refused too */
    json_t *js = tu_yaml(js_yaml);
    json_t *req = json_pack("{s:s,s:s,s:s,s:O,s:s}", "uid", "u-3", "operation", "UPDATE",
                            "namespace", "ns", "object", js, "oldObject", "x");
    json_t *resp = review(wh_jobset_validate, &ctx, req);
    assert_false(jx_bool_or(resp, "allowed", true));
    assert_non_null(strstr(jx_str(jx_obj(resp, "status"), "message"), "request.oldObject"));
    json_decref(resp);
    json_decref(req);
    json_decref(js);
    for (size_t v = 0; v < 3; v++)
        json_decref(values[v]);
}

/* JSON allows U+0000 in strings (kube-apiserver sends "\u0000" as it was written): a JobSet with
 * one in an annotation is admitted like any other, its review answered with its uid. */
static void test_nul_in_a_string_is_admitted(void **state)
{
    (void)state;
    struct wh_ctx ctx = {0};
    json_t *js = tu_yaml(js_yaml);
    json_object_set_new(jx_obj(js, "metadata"), "annotations",
                        json_pack("{s:s#}", "x", "a\0b", (size_t)3));
    json_t *rev = json_pack("{s:s,s:s,s:{s:s,s:s,s:s,s:O}}", "apiVersion", "admission.k8s.io/v1",
                            "kind", "AdmissionReview", "request", "uid", "u-nul", "operation",
                            "CREATE", "namespace", "ns", "object", js);
    char *text = json_dumps(rev, JSON_COMPACT);
    assert_non_null(strstr(text, "\\u0000"));
    wh_adm_fn fns[] = {wh_jobset_default, wh_jobset_validate};
    for (size_t f = 0; f < 2; f++) {
        struct wh_adm_route route = {fns[f], &ctx};
        struct sbuf body = {0};
        const char *ctype = NULL;
        assert_int_equal(wh_adm_serve(&route, "/x", text, strlen(text), &body, &ctype), 200);
        json_t *out = tu_json(sb_str(&body));
        assert_string_equal(jx_str(jx_obj(out, "response"), "uid"), "u-nul");
        assert_true(jx_bool_or(jx_obj(out, "response"), "allowed", false));
        json_decref(out);
        sb_free(&body);
    }
    free(text);
    json_decref(rev);
    json_decref(js);
}

/* CPU seconds to default and validate a JobSet of n replicated jobs through wh_adm_serve. */
static double admit_seconds(size_t n)
{
    json_t *js = tu_yaml(js_yaml);
    json_t *rjs = jx_arr(jx_obj(js, "spec"), "replicatedJobs");
    json_t *rj0 = json_deep_copy(json_array_get(rjs, 0));
    json_array_clear(rjs);
    for (size_t i = 0; i < n; i++) {
        json_t *rj = json_deep_copy(rj0);
        char name[32];
        snprintf(name, sizeof(name), "r%zu", i);
        json_object_set_new(rj, "name", json_string(name));
        json_array_append_new(rjs, rj);
    }
    json_t *rev = json_pack("{s:s,s:s,s:{s:s,s:s,s:s,s:O}}", "apiVersion", "admission.k8s.io/v1",
                            "kind", "AdmissionReview", "request", "uid", "u", "operation",
                            "CREATE", "namespace", "ns", "object", js);
    char *text = json_dumps(rev, JSON_COMPACT);
    struct wh_ctx ctx = {0};
    wh_adm_fn fns[] = {wh_jobset_default, wh_jobset_validate};
    clock_t t0 = clock();
    for (size_t f = 0; f < 2; f++) {
        struct wh_adm_route route = {fns[f], &ctx};
        struct sbuf body = {0};
        const char *ctype = NULL;
        assert_int_equal(wh_adm_serve(&route, "/x", text, strlen(text), &body, &ctype), 200);
        assert_non_null(strstr(sb_str(&body), "\"allowed\":true"));
        sb_free(&body);
    }
    double s = (double)(clock() - t0) / CLOCKS_PER_SEC;
    free(text);
    json_decref(rev);
    json_decref(rj0);
    json_decref(js);
    return s;
}

/* Admission work is linear in the request: 64 times the replicated jobs costs about 64 times
 * the time (quadratic name checks made it thousands of times), measured as a ratio of CPU
 * times so that the machine's speed and sanitizers do not matter. */
static void test_admission_is_linear_in_replicated_jobs(void **state)
{
    (void)state;
    double small = 1e9;
    for (int i = 0; i < 3; i++) {
        double s = admit_seconds(250);
        small = s < small ? s : small;
    }
    double large = admit_seconds(250 * 64);
    fprintf(stderr, "admission: 250 replicated jobs %.4f s, 16000: %.4f s (x%.0f)\n", small,
            large, large / (small > 0 ? small : 1e-6));
    assert_true(large < 250 * (small > 1e-3 ? small : 1e-3));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jpatch),
        cmocka_unit_test(test_jobset_default_and_validate),
        cmocka_unit_test(test_jobset_update),
        cmocka_unit_test(test_pod_ids),
        cmocka_unit_test(test_bad_review),
        cmocka_unit_test(test_object_not_an_object_is_refused),
        cmocka_unit_test(test_nul_in_a_string_is_admitted),
        cmocka_unit_test(test_admission_is_linear_in_replicated_jobs),
        cmocka_unit_test(test_jaxjob),
        cmocka_unit_test(test_trainjob),
        cmocka_unit_test(test_runtime_webhooks),
        cmocka_unit_test(test_pod_placement_reviews),
        cmocka_unit_test(test_whconfig),
        cmocka_unit_test(test_certs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
