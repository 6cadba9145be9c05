/* fuzz_admission: any request body given to the controller's admission webhooks (JobSet
 * defaulting and validation, the pod webhook, JAXJob validation) is answered with HTTP 200 and an
 * AdmissionReview whose response says allowed or not and, when it carries a patch, a base64
 * JSON array of operations; nothing crashes or leaks.  The pod webhook's JobSet cache holds one
 * JAX JobSet.  Built as a libFuzzer target with clang when JAXSET_FUZZ is on (as scripts/fuzz.sh
 * configures build-fuzz: `cmake --build build-fuzz --target fuzz_admission`, then run it on a
 * copy of fuzz/corpus/admission) and linked with fuzz/replay.c as the CTest test
 * fuzz/fuzz_admission. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/webhook/wh_adm.h"
#include "kube/webhook/wh_jobset.h"
#include "obj/base/b64.h"
#include "obj/tree/jx.h"
#include "obj/base/sbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char cached[] =
    "{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\",\"kind\":\"JobSet\",\"metadata\":{\"name\":"
    "\"js\",\"namespace\":\"ns\",\"annotations\":{\"jaxset.dev/jax-runtime\":\"aichor\"}},"
    "\"spec\":{\"coordinator\":{\"replicatedJob\":\"b\",\"jobIndex\":1,\"podIndex\":1},"
    "\"replicatedJobs\":[{\"name\":\"a\",\"replicas\":2,\"template\":{\"spec\":{"
    "\"parallelism\":2,\"completions\":2,\"template\":{\"spec\":{\"containers\":[{\"name\":"
    "\"c\",\"image\":\"i\"}]}}}}},{\"name\":\"b\",\"replicas\":2,\"template\":{\"spec\":{"
    "\"parallelism\":3,\"completions\":3,\"template\":{\"spec\":{\"containers\":[{\"name\":"
    "\"c\",\"image\":\"i\"}]}}}}}]}}";

static json_t *get(void *arg, const char *ns, const char *name)
{
    (void)arg;
    if (strcmp(ns, "ns") != 0 || strcmp(name, "js") != 0)
        return NULL;
    return json_loads(cached, 0, NULL);
}

/* Every ClusterTrainingRuntime "jax" and TrainingRuntime ns/jax exist: a JAX runtime. */
static int get_rt(void *arg, bool cluster, const char *ns, const char *name, json_t **out)
{
    (void)arg;
    *out = NULL;
    if (strcmp(name, "jax") != 0 || (!cluster && (!ns || strcmp(ns, "ns") != 0)))
        return 0;
    *out = json_loads("{\"metadata\":{\"name\":\"jax\"},\"spec\":{\"mlPolicy\":{\"jax\":"
                      "{}},\"template\":{\"spec\":{\"replicatedJobs\":[{\"name\":\"node\","
                      "\"template\":{\"spec\":{\"template\":{\"spec\":{\"containers\":[{"
                      "\"name\":\"node\"}]}}}}}]}}}}",
                      0, NULL);
    return *out ? 0 : -ENOMEM;
}

static void die(const char *why, const char *body)
{
    fprintf(stderr, "fuzz_admission: %s\n%s\n", why, body);
    abort();
}

static void check(const char *body)
{
    json_t *out = json_loads(body, 0, NULL);
    const json_t *resp = jx_obj(out, "response");
    if (!resp || !json_is_boolean(json_object_get(resp, "allowed")))
        die("no AdmissionReview response with allowed", body);
    const char *patch = jx_str(resp, "patch");
    if (patch) {
        char *raw = NULL;
        size_t n = 0;
        if (b64_decode(patch, strlen(patch), &raw, &n) < 0)
            die("the patch is not base64", body);
        json_t *ops = json_loadb(raw, n, 0, NULL);
        if (!json_is_array(ops) || json_array_size(ops) == 0)
            die("the patch is not a JSON array of operations", body);
        json_decref(ops);
        free(raw);
    }
    json_decref(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct wh_ctx ctx = {.jobset_get = get, .runtime_get = get_rt};
    const wh_adm_fn fns[] = {wh_jobset_default, wh_jobset_validate, wh_pod_default,
                          wh_jaxjob_validate, wh_trainjob_validate};
    char *req = malloc(size + 1);
    if (!req)
        return 0;
    memcpy(req, data, size);
    req[size] = '\0';
    for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
        struct wh_adm_route route = {fns[i], &ctx};
        struct sbuf body = {0};
        const char *ctype = NULL;
        int status = wh_adm_serve(&route, "/fuzz", req, size, &body, &ctype);
        if (status != 200)
            die("not answered 200", sb_str(&body));
        check(sb_str(&body));
        sb_free(&body);
    }
    free(req);
    return 0;
}
