/* jaxrt: process numbering, coordinator, environment of every flavour, checks (src/api/child/jaxrt.h
 * names the upstream source of each flavour). */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/child/construct.h"
#include "api/child/jaxrt.h"
#include "api/jobset/jobset.h"
#include "api/schema/keys.h"
#include "obj/tree/jx.h"

#define RJ(name, replicas, par, comp)                                                           \
    "{\"name\":\"" name "\",\"replicas\":" #replicas ",\"template\":{\"spec\":{"               \
    "\"parallelism\":" #par ",\"completions\":" #comp ",\"template\":{\"spec\":{"              \
    "\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}}}}"

/* A JobSet "js" with extra annotations `ann` (leading comma) and spec members `spec`. */
#define JS(ann, spec)                                                                           \
    "{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\",\"kind\":\"JobSet\","                        \
    "\"metadata\":{\"name\":\"js\",\"uid\":\"u\",\"annotations\":{\"x\":\"y\"" ann "}},"      \
    "\"spec\":{" spec "}}"

static const char *const flavors[] = {"jobset", "jaxjob", "trainjob", "aichor"};
static const int default_ports[] = {6666, 6666, 29500, 1234};

struct fx {
    json_t *js;
    struct js_view v;
    struct jaxrt rt;
    struct ferr_list errs;
    int rc;
};

/* Parses, sets the runtime annotation (unless NULL), defaults, validates as a JobSet, views
 * and runs jaxrt_init (result in f->rc, errors in f->errs). */
static void fx_init(struct fx *f, const char *text, const char *flavor)
{
    memset(f, 0, sizeof(*f));
    ferr_list_init(&f->errs);
    f->js = tu_json(text);
    if (flavor)
        assert_int_equal(jx_set_meta(jx_obj(f->js, "metadata"), "annotations", ANN_JAX_RUNTIME,
                                     flavor),
                         0);
    assert_int_equal(js_default(f->js), 0);
    if (js_validate(f->js, &f->errs) != 0)
        fail_msg("test JobSet invalid:\n%s", tu_ferrs(&f->errs));
    assert_int_equal(js_view_init(&f->v, f->js), 0);
    f->rc = jaxrt_init(&f->rt, f->js, &f->v, &f->errs);
}

static void fx_release(struct fx *f)
{
    jaxrt_release(&f->rt);
    js_view_release(&f->v);
    ferr_list_release(&f->errs);
    json_decref(f->js);
}

static void expect_json(const json_t *got, const char *want_text)
{
    json_t *want = tu_json(want_text);
    int eq = json_equal((json_t *)got, want);
    if (!eq) {
        char *g = json_dumps(got, JSON_ENCODE_ANY);
        char *w = json_dumps(want, JSON_ENCODE_ANY);
        print_error("got:  %s\nwant: %s\n", g ? g : "(null)", w ? w : "(null)");
        free(g);
        free(w);
    }
    json_decref(want);
    assert_true(eq);
}

/* ---- shapes ----------------------------------------------------------------------------- */

struct shape {
    const char *name;
    const char *js;
    long long num;
    const char *coord;
    long long ids[16]; /* expected id of every pod, in spec order (rj, job, pod); -1 = not JAX */
    size_t n_pods;
};

static const struct shape shapes[] = {
    {"one RJ, replicas 4", JS("", "\"replicatedJobs\":[" RJ("workers", 4, 1, 1) "]"), 4,
     "js-workers-0-0.js", {0, 1, 2, 3}, 4},
    {"replicas 2 x parallelism 2", JS("", "\"replicatedJobs\":[" RJ("workers", 2, 2, 2) "]"), 4,
     "js-workers-0-0.js", {0, 1, 2, 3}, 4},
    {"leader + workers 3x2",
     JS("", "\"replicatedJobs\":[" RJ("leader", 1, 1, 1) "," RJ("workers", 3, 2, 2) "]"), 7,
     "js-leader-0-0.js", {0, 1, 2, 3, 4, 5, 6}, 7},
    {"spec.coordinator on the second RJ",
     JS("", "\"coordinator\":{\"replicatedJob\":\"workers\",\"jobIndex\":1},"
            "\"replicatedJobs\":[" RJ("leader", 1, 1, 1) "," RJ("workers", 2, 2, 2) "]"),
     5, "js-workers-1-0.js", {2, 3, 4, 0, 1}, 5},
    {"jax-replicated-jobs picks workers",
     JS(",\"jaxset.dev/jax-replicated-jobs\":\" workers \"",
        "\"replicatedJobs\":[" RJ("driver", 1, 1, 1) "," RJ("workers", 2, 2, 2) "]"),
     4, "js-workers-0-0.js", {-1, 0, 1, 2, 3}, 5},
    {"one pod", JS("", "\"replicatedJobs\":[" RJ("solo", 1, 1, 1) "]"), 1, "js-solo-0-0.js",
     {0}, 1},
    {"custom subdomain and port",
     JS(",\"jaxset.dev/jax-coordinator-port\":\"7000\"",
        "\"network\":{\"subdomain\":\"net\"},\"replicatedJobs\":[" RJ("w", 2, 1, 1) "]"),
     2, "js-w-0-0.net", {0, 1}, 2},
};

/* One pod's expected values. */
struct pod_want {
    size_t flavor; /* index into flavors[] */
    const char *host;
    int port;
    long long num, id;
};

/* The variables a pod must get, as a JSON text, derived from the documented contract. */
static void want_env(char *out, size_t n, const struct pod_want *w)
{
    int k = snprintf(out, n,
                     "[{\"name\":\"JAX_COORDINATOR_ADDRESS\",\"value\":\"%s:%d\"},"
                     "{\"name\":\"JAX_COORDINATOR_PORT\",\"value\":\"%d\"},"
                     "{\"name\":\"JAX_NUM_PROCESSES\",\"value\":\"%lld\"},"
                     "{\"name\":\"JAX_PROCESS_ID\",\"value\":\"%lld\"}",
                     w->host, w->port, w->port, w->num, w->id);
    if (w->flavor == 1)
        k += snprintf(out + k, n - (size_t)k,
                      ",{\"name\":\"COORDINATOR_ADDRESS\",\"value\":\"%s\"},"
                      "{\"name\":\"COORDINATOR_PORT\",\"value\":\"%d\"},"
                      "{\"name\":\"NUM_PROCESSES\",\"value\":\"%lld\"},"
                      "{\"name\":\"PROCESS_ID\",\"value\":\"%lld\"},"
                      "{\"name\":\"PYTHONUNBUFFERED\",\"value\":\"1\"}",
                      w->host, w->port, w->num, w->id);
    if (w->flavor == 3)
        k += snprintf(out + k, n - (size_t)k,
                      ",{\"name\":\"JAXOPERATOR_COORDINATOR_HOST\",\"value\":\"%s\"},"
                      "{\"name\":\"JAXOPERATOR_COORDINATOR_ADDRESS\",\"value\":\"%s:%d\"},"
                      "{\"name\":\"JAXOPERATOR_NUM_PROCESSES\",\"value\":\"%lld\"},"
                      "{\"name\":\"JAXOPERATOR_PROCESS_ID\",\"value\":\"%lld\"}",
                      w->host, w->host, w->port, w->num, w->id);
    snprintf(out + k, n - (size_t)k, "]");
}

/* A pod: the p-th in spec order, pod k of job j of replicated job r. */
struct pod_pos {
    size_t p, r;
    long long j, k;
};

/* Checks one pod and marks its id in seen[]. */
static void check_pod(struct fx *f, const struct shape *s, struct pod_want *w,
                      const struct pod_pos *at, bool *seen)
{
    char want[4096];
    assert_true(at->p < s->n_pods);
    long long id = jaxrt_process_id(&f->rt, &f->v, at->r, at->j, at->k);
    assert_int_equal(id, s->ids[at->p]);
    json_t *env = jaxrt_pod_env(&f->rt, &f->v, at->r, at->j, at->k, NULL, 0);
    assert_non_null(env);
    if (id < 0) {
        assert_int_equal(json_array_size(env), 0);
    } else {
        assert_false(seen[id]);
        seen[id] = true;
        w->id = id;
        want_env(want, sizeof(want), w);
        expect_json(env, want);
    }
    json_decref(env);
}

static void check_shape_pods(struct fx *f, const struct shape *s, size_t fl, int port)
{
    bool seen[16] = {false};
    struct pod_pos at = {0};
    struct pod_want w = {.flavor = fl, .host = s->coord, .port = port, .num = s->num};
    for (at.r = 0; at.r < f->v.n_rj; at.r++)
        for (at.j = 0; at.j < f->v.rj[at.r].replicas; at.j++)
            for (at.k = 0; at.k < f->v.rj[at.r].pods_per_job; at.k++, at.p++)
                check_pod(f, s, &w, &at, seen);
    assert_int_equal(at.p, s->n_pods);
    for (long long i = 0; i < s->num; i++)
        assert_true(seen[i]); /* ids are exactly 0..N-1 */
}

static void test_shapes(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        for (size_t fl = 0; fl < 4; fl++) {
            const struct shape *s = &shapes[i];
            struct fx f;
            print_message("shape %s, flavour %s\n", s->name, flavors[fl]);
            fx_init(&f, s->js, flavors[fl]);
            if (f.rc != 0)
                fail_msg("unexpected errors:\n%s", tu_ferrs(&f.errs));
            int port = strstr(s->js, "7000") ? 7000 : default_ports[fl];
            assert_int_equal(f.rt.flavor, jaxrt_flavor_parse(flavors[fl]));
            assert_int_equal(f.rt.port, port);
            assert_int_equal(f.rt.num_processes, s->num);
            assert_string_equal(f.rt.coord_host, s->coord);
            check_shape_pods(&f, s, fl, port);
            fx_release(&f);
        }
    }
}

/* Hard-coded arrays, so that the derivation above cannot hide a shared mistake. */
static void test_env_literal(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, shapes[2].js, "jaxjob");
    assert_int_equal(f.rc, 0);
    json_t *env = jaxrt_pod_env(&f.rt, &f.v, 1, 1, 1, NULL, 0);
    expect_json(env, "[{\"name\":\"JAX_COORDINATOR_ADDRESS\",\"value\":\"js-leader-0-0.js:6666\"},"
                     "{\"name\":\"JAX_COORDINATOR_PORT\",\"value\":\"6666\"},"
                     "{\"name\":\"JAX_NUM_PROCESSES\",\"value\":\"7\"},"
                     "{\"name\":\"JAX_PROCESS_ID\",\"value\":\"4\"},"
                     "{\"name\":\"COORDINATOR_ADDRESS\",\"value\":\"js-leader-0-0.js\"},"
                     "{\"name\":\"COORDINATOR_PORT\",\"value\":\"6666\"},"
                     "{\"name\":\"NUM_PROCESSES\",\"value\":\"7\"},"
                     "{\"name\":\"PROCESS_ID\",\"value\":\"4\"},"
                     "{\"name\":\"PYTHONUNBUFFERED\",\"value\":\"1\"}]");
    json_decref(env);
    fx_release(&f);

    fx_init(&f, shapes[3].js, "aichor");
    assert_int_equal(f.rc, 0);
    /* local runner override: coordinator mapped to a local address */
    env = jaxrt_pod_env(&f.rt, &f.v, 0, 0, 0, "127.0.0.1", 40001);
    expect_json(env, "[{\"name\":\"JAX_COORDINATOR_ADDRESS\",\"value\":\"127.0.0.1:40001\"},"
                     "{\"name\":\"JAX_COORDINATOR_PORT\",\"value\":\"40001\"},"
                     "{\"name\":\"JAX_NUM_PROCESSES\",\"value\":\"5\"},"
                     "{\"name\":\"JAX_PROCESS_ID\",\"value\":\"2\"},"
                     "{\"name\":\"JAXOPERATOR_COORDINATOR_HOST\",\"value\":\"127.0.0.1\"},"
                     "{\"name\":\"JAXOPERATOR_COORDINATOR_ADDRESS\","
                     "\"value\":\"127.0.0.1:40001\"},"
                     "{\"name\":\"JAXOPERATOR_NUM_PROCESSES\",\"value\":\"5\"},"
                     "{\"name\":\"JAXOPERATOR_PROCESS_ID\",\"value\":\"2\"}]");
    json_decref(env);
    fx_release(&f);

    fx_init(&f, shapes[0].js, "trainjob");
    env = jaxrt_pod_env(&f.rt, &f.v, 0, 3, 0, NULL, 0);
    expect_json(env, "[{\"name\":\"JAX_COORDINATOR_ADDRESS\",\"value\":\"js-workers-0-0.js:29500\"},"
                     "{\"name\":\"JAX_COORDINATOR_PORT\",\"value\":\"29500\"},"
                     "{\"name\":\"JAX_NUM_PROCESSES\",\"value\":\"4\"},"
                     "{\"name\":\"JAX_PROCESS_ID\",\"value\":\"3\"}]");
    json_decref(env);
    fx_release(&f);
}

/* jaxrt_apply_job leaves the first child Job exactly as construct_job built it. */
static void expect_apply_unchanged(struct fx *f)
{
    json_t *job = construct_job(f->js, &f->v, NULL, 0, 0);
    json_t *before = json_deep_copy(job);
    assert_int_equal(jaxrt_apply_job(&f->rt, &f->v, 0, 0, job), 0);
    assert_true(json_equal(job, before));
    json_decref(before);
    json_decref(job);
}

static void test_off(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, shapes[0].js, NULL);
    assert_int_equal(f.rc, 0);
    assert_int_equal(f.errs.n, 0);
    assert_int_equal(f.rt.flavor, JAXRT_OFF);
    assert_int_equal(jaxrt_process_id(&f.rt, &f.v, 0, 0, 0), -1);
    json_t *env = jaxrt_pod_env(&f.rt, &f.v, 0, 0, 0, NULL, 0);
    assert_int_equal(json_array_size(env), 0);
    json_decref(env);
    expect_apply_unchanged(&f);
    fx_release(&f);
}

/* ---- apply_job -------------------------------------------------------------------------- */

#define FIELDREF_ID(name)                                                                       \
    "{\"name\":\"" name "\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":"                       \
    "\"metadata.annotations['batch.kubernetes.io/job-completion-index']\"}}}"
#define LIT(name, v) "{\"name\":\"" name "\",\"value\":\"" v "\"}"

/* Two containers (one with env of its own) and an init container. */
static const char apply_js[] = JS(
    "", "\"replicatedJobs\":["
        "{\"name\":\"leader\",\"template\":{\"spec\":{\"template\":{\"spec\":{"
        " \"initContainers\":[{\"name\":\"init\",\"image\":\"i\"}],"
        " \"containers\":[{\"name\":\"a\",\"image\":\"i\",\"env\":[" LIT("MINE", "1") "]},"
        "                {\"name\":\"b\",\"image\":\"i\"}]}}}}},"
        RJ("workers", 2, 2, 2) "]");

static void apply_case(const char *js, const char *flavor, const char *rj, long long job,
                       const char *want_offset, const char *want_env_a)
{
    struct fx f;
    fx_init(&f, js, flavor);
    if (f.rc != 0)
        fail_msg("unexpected errors:\n%s", tu_ferrs(&f.errs));
    size_t r = (size_t)js_view_find(&f.v, rj);
    json_t *obj = construct_job(f.js, &f.v, NULL, r, job);
    assert_non_null(obj);
    assert_int_equal(jaxrt_apply_job(&f.rt, &f.v, r, job, obj), 0);
    const json_t *pt = jx_path(obj, "spec.template");
    const char *off = jx_str(jx_path(pt, "metadata.annotations"), ANN_PROCESS_ID_OFFSET);
    if (want_offset)
        assert_string_equal(off ? off : "(none)", want_offset);
    else
        assert_null(off);
    const json_t *ctrs = jx_path(pt, "spec.containers");
    expect_json(jx_arr(json_array_get(ctrs, 0), "env"), want_env_a);
    /* every container gets the same entries (after its own); init containers none */
    const json_t *ea = jx_arr(json_array_get(ctrs, 0), "env");
    for (size_t c = 1; c < json_array_size(ctrs); c++) {
        const json_t *e = jx_arr(json_array_get(ctrs, c), "env");
        size_t skip = json_array_size(ea) - json_array_size(e);
        for (size_t k = 0; k < json_array_size(e); k++)
            assert_true(json_equal(json_array_get(e, k), json_array_get(ea, k + skip)));
    }
    assert_null(jx_arr(json_array_get(jx_path(pt, "spec.initContainers"), 0), "env"));
    json_decref(obj);
    fx_release(&f);
}

static void test_apply_job(void **state)
{
    (void)state;
    /* one pod per Job: literal id */
    apply_case(apply_js, "jobset", "leader", 0, "0",
               "[" LIT("MINE", "1") "," LIT("JAX_COORDINATOR_ADDRESS", "js-leader-0-0.js:6666")
               "," LIT("JAX_COORDINATOR_PORT", "6666") "," LIT("JAX_NUM_PROCESSES", "5")
               "," LIT("JAX_PROCESS_ID", "0") "]");
    apply_case(shapes[0].js, "trainjob", "workers", 2, "2",
               "[" LIT("JAX_COORDINATOR_ADDRESS", "js-workers-0-0.js:29500")
               "," LIT("JAX_COORDINATOR_PORT", "29500") "," LIT("JAX_NUM_PROCESSES", "4")
               "," LIT("JAX_PROCESS_ID", "2") "]");
    /* several pods, first is process 0: completion index */
    apply_case(shapes[1].js, "jaxjob", "workers", 0, "0",
               "[" LIT("JAX_COORDINATOR_ADDRESS", "js-workers-0-0.js:6666")
               "," LIT("JAX_COORDINATOR_PORT", "6666") "," LIT("JAX_NUM_PROCESSES", "4")
               "," FIELDREF_ID("JAX_PROCESS_ID") "," LIT("COORDINATOR_ADDRESS",
                                                         "js-workers-0-0.js")
               "," LIT("COORDINATOR_PORT", "6666") "," LIT("NUM_PROCESSES", "4")
               "," FIELDREF_ID("PROCESS_ID") "," LIT("PYTHONUNBUFFERED", "1") "]");
    /* several pods, not starting at 0: ids left out, offset annotated */
    apply_case(apply_js, "jobset", "workers", 1, "3",
               "[" LIT("JAX_COORDINATOR_ADDRESS", "js-leader-0-0.js:6666")
               "," LIT("JAX_COORDINATOR_PORT", "6666") "," LIT("JAX_NUM_PROCESSES", "5") "]");
    /* AIchor with spec.coordinator: host from the coordinator label */
    apply_case(shapes[3].js, "aichor", "workers", 1, "0",
               "[" LIT("JAX_COORDINATOR_ADDRESS", "js-workers-1-0.js:1234")
               "," LIT("JAX_COORDINATOR_PORT", "1234") "," LIT("JAX_NUM_PROCESSES", "5")
               "," FIELDREF_ID("JAX_PROCESS_ID")
               ",{\"name\":\"JAXOPERATOR_COORDINATOR_HOST\",\"valueFrom\":{\"fieldRef\":"
               "{\"fieldPath\":\"metadata.labels['jobset.sigs.k8s.io/coordinator']\"}}},"
               LIT("JAXOPERATOR_COORDINATOR_ADDRESS", "$(JAXOPERATOR_COORDINATOR_HOST):1234")
               "," LIT("JAXOPERATOR_NUM_PROCESSES", "5") "," FIELDREF_ID("JAXOPERATOR_PROCESS_ID")
               "]");
    apply_case(shapes[3].js, "aichor", "leader", 0, "2",
               "[" LIT("JAX_COORDINATOR_ADDRESS", "js-workers-1-0.js:1234")
               "," LIT("JAX_COORDINATOR_PORT", "1234") "," LIT("JAX_NUM_PROCESSES", "5")
               "," LIT("JAX_PROCESS_ID", "2")
               ",{\"name\":\"JAXOPERATOR_COORDINATOR_HOST\",\"valueFrom\":{\"fieldRef\":"
               "{\"fieldPath\":\"metadata.labels['jobset.sigs.k8s.io/coordinator']\"}}},"
               LIT("JAXOPERATOR_COORDINATOR_ADDRESS", "$(JAXOPERATOR_COORDINATOR_HOST):1234")
               "," LIT("JAXOPERATOR_NUM_PROCESSES", "5") "," LIT("JAXOPERATOR_PROCESS_ID", "2")
               "]");
    /* AIchor without spec.coordinator: literal host */
    apply_case(shapes[5].js, "aichor", "solo", 0, "0",
               "[" LIT("JAX_COORDINATOR_ADDRESS", "js-solo-0-0.js:1234")
               "," LIT("JAX_COORDINATOR_PORT", "1234") "," LIT("JAX_NUM_PROCESSES", "1")
               "," LIT("JAX_PROCESS_ID", "0") "," LIT("JAXOPERATOR_COORDINATOR_HOST",
                                                      "js-solo-0-0.js")
               "," LIT("JAXOPERATOR_COORDINATOR_ADDRESS", "js-solo-0-0.js:1234")
               "," LIT("JAXOPERATOR_NUM_PROCESSES", "1") "," LIT("JAXOPERATOR_PROCESS_ID", "0")
               "]");
}

/* A replicated job that is not a JAX one is left alone. */
static void test_apply_not_jax(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, shapes[4].js, "jobset");
    assert_int_equal(f.rc, 0);
    expect_apply_unchanged(&f);
    fx_release(&f);
}

/* ---- errors ----------------------------------------------------------------------------- */

static const struct {
    const char *name, *flavor, *js, *want;
} error_cases[] = {
    {"port too big", "jobset",
     JS(",\"jaxset.dev/jax-coordinator-port\":\"70000\"",
        "\"replicatedJobs\":[" RJ("a", 1, 1, 1) "]"),
     "metadata.annotations[jaxset.dev/jax-coordinator-port]: Invalid value: \"70000\": "
     "must be between 1 and 65535, inclusive"},
    {"port zero", "jobset",
     JS(",\"jaxset.dev/jax-coordinator-port\":\"0\"",
        "\"replicatedJobs\":[" RJ("a", 1, 1, 1) "]"),
     "metadata.annotations[jaxset.dev/jax-coordinator-port]: Invalid value: \"0\""},
    {"port not a number", "aichor",
     JS(",\"jaxset.dev/jax-coordinator-port\":\"12a\"",
        "\"replicatedJobs\":[" RJ("a", 1, 1, 1) "]"),
     "metadata.annotations[jaxset.dev/jax-coordinator-port]: Invalid value: \"12a\""},
    {"unknown RJ", "jobset",
     JS(",\"jaxset.dev/jax-replicated-jobs\":\"a,nope\"",
        "\"replicatedJobs\":[" RJ("a", 1, 1, 1) "]"),
     "metadata.annotations[jaxset.dev/jax-replicated-jobs]: Invalid value: \"nope\""},
    {"reserved env", "jobset",
     JS("", "\"replicatedJobs\":[" RJ("a", 1, 1, 1) ",{\"name\":\"b\",\"template\":{"
            "\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\","
            "\"image\":\"i\",\"env\":[{\"name\":\"OK\",\"value\":\"1\"},"
            "{\"name\":\"JAX_PROCESS_ID\",\"value\":\"0\"}]}]}}}}}]"),
     "spec.replicatedJobs[1].template.spec.template.spec.containers[0].env[1].name: "
     "Invalid value: \"JAX_PROCESS_ID\": is set by the JAX runtime and may not be set in "
     "the manifest"},
    {"reserved env in init container (jaxjob name)", "jaxjob",
     JS("", "\"replicatedJobs\":[{\"name\":\"a\",\"template\":{"
            "\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\","
            "\"image\":\"i\"}],\"initContainers\":[{\"name\":\"i\",\"image\":\"i\","
            "\"env\":[{\"name\":\"PROCESS_ID\",\"value\":\"0\"}]}]}}}}}]"),
     "spec.replicatedJobs[0].template.spec.template.spec.initContainers[0].env[0].name: "
     "Invalid value: \"PROCESS_ID\""},
    {"parallelism != completions", "true",
     JS("", "\"replicatedJobs\":[" RJ("a", 1, 2, 4) "]"),
     "spec.replicatedJobs[0].template.spec.parallelism: Invalid value: 2: must equal "
     "completions for a JAX replicated job (every process must run at once)"},
    {"unknown flavour", "mpi", JS("", "\"replicatedJobs\":[" RJ("a", 1, 1, 1) "]"),
     "metadata.annotations[jaxset.dev/jax-runtime]: Unsupported value: \"mpi\": supported "
     "values: \"jobset\", \"jaxjob\", \"trainjob\", \"aichor\""},
    {"no JAX replicated job", "jobset",
     JS(",\"jaxset.dev/jax-replicated-jobs\":\" , \"",
        "\"replicatedJobs\":[" RJ("a", 1, 1, 1) "]"),
     "metadata.annotations[jaxset.dev/jax-runtime]: Invalid value: \"jobset\": no "
     "replicated job runs JAX processes"},
    {"only zero replicas", "jobset", JS("", "\"replicatedJobs\":[" RJ("a", 0, 1, 1) "]"),
     "no replicated job runs JAX processes"},
    {"coordinator not a JAX RJ", "jobset",
     JS(",\"jaxset.dev/jax-replicated-jobs\":\"b\"",
        "\"coordinator\":{\"replicatedJob\":\"a\"},"
        "\"replicatedJobs\":[" RJ("a", 1, 1, 1) "," RJ("b", 1, 1, 1) "]"),
     "spec.coordinator.replicatedJob: Invalid value: \"a\": must name a replicated job "
     "that runs JAX processes"},
    {"NonIndexed", "jobset",
     JS("", "\"replicatedJobs\":[{\"name\":\"a\",\"template\":{\"spec\":{"
            "\"completionMode\":\"NonIndexed\",\"parallelism\":2,\"completions\":2,"
            "\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}}}}]"),
     "spec.replicatedJobs[0].template.spec.completionMode: Invalid value: \"NonIndexed\""},
};

static void test_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(error_cases) / sizeof(error_cases[0]); i++) {
        struct fx f;
        print_message("case %s\n", error_cases[i].name);
        fx_init(&f, error_cases[i].js, error_cases[i].flavor);
        assert_int_equal(f.rc, (int)f.errs.n);
        assert_true(f.rc >= 1);
        tu_assert_ferr(&f.errs, error_cases[i].want);
        fx_release(&f);
    }
}

/* What is not an error: a non-JAX RJ may do as it likes; PROCESS_ID is free outside jaxjob. */
static void test_not_errors(void **state)
{
    (void)state;
    static const struct {
        const char *name, *flavor, *js;
    } cases[] = {
        {"non-JAX RJ with parallelism < completions", "jobset",
         JS(",\"jaxset.dev/jax-replicated-jobs\":\"a\"",
            "\"replicatedJobs\":[" RJ("a", 1, 1, 1) "," RJ("b", 1, 1, 3) "]")},
        {"PROCESS_ID under jobset", "jobset",
         JS("", "\"replicatedJobs\":[{\"name\":\"a\",\"template\":{"
                "\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\","
                "\"image\":\"i\",\"env\":[{\"name\":\"PROCESS_ID\",\"value\":\"0\"}]}]}}}}}]")},
        {"port 65535 and \"true\"", "true",
         JS(",\"jaxset.dev/jax-coordinator-port\":\"65535\"",
            "\"replicatedJobs\":[" RJ("a", 1, 1, 1) "]")},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct fx f;
        print_message("case %s\n", cases[i].name);
        fx_init(&f, cases[i].js, cases[i].flavor);
        if (f.rc != 0)
            fail_msg("unexpected errors:\n%s", tu_ferrs(&f.errs));
        assert_int_equal(f.rt.flavor, JAXRT_JOBSET);
        fx_release(&f);
    }
}

/* Only the names that carry a process's identity are reserved: upstream's JAXJob controller
 * lets a user's PYTHONUNBUFFERED stand beside the one it adds. */
static void test_reserved_names(void **state)
{
    (void)state;
    static const char *const identity[] = {"JAX_COORDINATOR_ADDRESS", "JAX_NUM_PROCESSES",
                                           "JAX_PROCESS_ID", "JAX_COORDINATOR_PORT",
                                           "COORDINATOR_ADDRESS", "COORDINATOR_PORT",
                                           "NUM_PROCESSES", "PROCESS_ID"};
    for (size_t i = 0; i < sizeof(identity) / sizeof(identity[0]); i++)
        assert_true(jaxrt_is_reserved(JAXRT_JAXJOB, identity[i]));
    assert_false(jaxrt_is_reserved(JAXRT_JAXJOB, "PYTHONUNBUFFERED"));
    assert_false(jaxrt_is_reserved(JAXRT_JOBSET, "PROCESS_ID"));
    assert_true(jaxrt_is_reserved(JAXRT_AICHOR, "JAXOPERATOR_PROCESS_ID"));
    assert_false(jaxrt_is_reserved(JAXRT_OFF, "JAX_PROCESS_ID"));
    /* the count, which the pod webhook sets per pod (an elastic JobSet's new size) */
    assert_true(jaxrt_is_num_var(JAXRT_JOBSET, "JAX_NUM_PROCESSES"));
    assert_true(jaxrt_is_num_var(JAXRT_JAXJOB, "NUM_PROCESSES"));
    assert_true(jaxrt_is_num_var(JAXRT_AICHOR, "JAXOPERATOR_NUM_PROCESSES"));
    assert_false(jaxrt_is_num_var(JAXRT_JOBSET, "NUM_PROCESSES"));
    assert_false(jaxrt_is_num_var(JAXRT_TRAINJOB, "JAX_PROCESS_ID"));
    assert_false(jaxrt_is_num_var(JAXRT_OFF, "JAX_NUM_PROCESSES"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),     cmocka_unit_test(test_env_literal),
        cmocka_unit_test(test_off),        cmocka_unit_test(test_apply_job),
        cmocka_unit_test(test_apply_not_jax), cmocka_unit_test(test_errors),
        cmocka_unit_test(test_not_errors), cmocka_unit_test(test_reserved_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
