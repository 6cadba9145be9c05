/* construct: child Jobs, headless Service, owner reference (kubernetes-sigs/jobset, constructJob
 * and createHeadlessSvcIfNecessary). */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "api/child/construct.h"
#include "api/jobset/jobset.h"
#include "api/schema/keys.h"
#include "obj/tree/jx.h"

/* Three replicated jobs in two groups; the workers template carries labels and annotations,
 * one of which collides with a JobSet key. */
static const char three_rjs[] =
    "{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\",\"kind\":\"JobSet\","
    " \"metadata\":{\"name\":\"my-js\",\"uid\":\"u-1\"},"
    " \"spec\":{\"replicatedJobs\":["
    "  {\"name\":\"leader\",\"groupName\":\"g1\",\"template\":{\"spec\":{"
    "    \"template\":{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}}}},"
    "  {\"name\":\"workers\",\"replicas\":3,\"groupName\":\"g2\",\"template\":{"
    "    \"metadata\":{\"labels\":{\"app\":\"train\",\"jobset.sigs.k8s.io/job-index\":\"bogus\"},"
    "                \"annotations\":{\"note\":\"keep\"}},"
    "    \"spec\":{\"parallelism\":2,\"completions\":2,\"backoffLimit\":0,"
    "    \"template\":{\"metadata\":{\"labels\":{\"tier\":\"w\","
    "                  \"jobset.sigs.k8s.io/jobset-name\":\"other\"},"
    "                  \"annotations\":{\"pod-note\":\"p\"}},"
    "      \"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}}}},"
    "  {\"name\":\"ps\",\"replicas\":2,\"groupName\":\"g1\",\"template\":{\"spec\":{"
    "    \"template\":{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}}}}"
    " ]},"
    " \"status\":{\"restarts\":2}}";

/* Keys shared by the Job and its pod template for workers job 0 of three_rjs. */
#define WORKERS0_KEYS                                                                           \
    "\"jobset.sigs.k8s.io/jobset-name\":\"my-js\",\"jobset.sigs.k8s.io/jobset-uid\":\"u-1\","  \
    "\"jobset.sigs.k8s.io/replicatedjob-name\":\"workers\","                                   \
    "\"jobset.sigs.k8s.io/replicatedjob-replicas\":\"3\","                                     \
    "\"jobset.sigs.k8s.io/global-replicas\":\"6\",\"jobset.sigs.k8s.io/job-index\":\"0\","     \
    "\"jobset.sigs.k8s.io/job-global-index\":\"1\",\"jobset.sigs.k8s.io/group-name\":\"g2\","  \
    "\"jobset.sigs.k8s.io/group-replicas\":\"3\",\"jobset.sigs.k8s.io/job-group-index\":\"0\"," \
    "\"jobset.sigs.k8s.io/job-key\":\"1cec270bdc204f371be2e90c988ee2a84c10855a\","             \
    "\"jobset.sigs.k8s.io/restart-attempt\":\"2\""

struct fx {
    json_t *js;
    struct js_view v;
};

static void fx_init(struct fx *f, const char *text)
{
    struct ferr_list errs;
    ferr_list_init(&errs);
    f->js = tu_json(text);
    assert_int_equal(js_default(f->js), 0);
    int n = js_validate(f->js, &errs);
    if (n != 0)
        fail_msg("test JobSet invalid:\n%s", tu_ferrs(&errs));
    ferr_list_release(&errs);
    assert_int_equal(js_view_init(&f->v, f->js), 0);
}

static void fx_release(struct fx *f)
{
    js_view_release(&f->v);
    json_decref(f->js);
}

/* Asserts that `got` equals the JSON text `want`, printing both otherwise. */
static void expect_json(const json_t *got, const char *want_text)
{
    json_t *want = tu_json(want_text);
    int eq = json_equal((json_t *)got, want);
    if (!eq) {
        char *g = json_dumps(got, JSON_SORT_KEYS | JSON_ENCODE_ANY);
        char *w = json_dumps(want, JSON_SORT_KEYS | JSON_ENCODE_ANY);
        print_error("got:  %s\nwant: %s\n", g ? g : "(null)", w ? w : "(null)");
        free(g);
        free(w);
    }
    json_decref(want);
    assert_true(eq);
}

static json_t *job_of(struct fx *f, const char *rj, long long idx)
{
    long i = js_view_find(&f->v, rj);
    assert_true(i >= 0);
    json_t *job = construct_job(f->js, &f->v, NULL, (size_t)i, idx);
    assert_non_null(job);
    return job;
}

static const char owner_u1[] =
    "{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\",\"kind\":\"JobSet\",\"name\":\"my-js\","
    "\"uid\":\"u-1\",\"controller\":true,\"blockOwnerDeletion\":true}";

static void test_job_key(void **state)
{
    (void)state;
    char key[41];
    /* printf '%s' default/my-js-workers-0 | sha1sum */
    construct_job_key("default", "my-js-workers-0", key);
    assert_string_equal(key, "1cec270bdc204f371be2e90c988ee2a84c10855a");
    /* printf '%s' ns1/a-b-12 | sha1sum */
    construct_job_key("ns1", "a-b-12", key);
    assert_string_equal(key, "bcb4317298b701c57e4e5bb48e0a088df2392ebb");
}

static void expect_keys(const json_t *o, const char *const *want, size_t n)
{
    void *it = json_object_iter((json_t *)o);
    for (size_t i = 0; i < n; i++, it = json_object_iter_next((json_t *)o, it)) {
        assert_non_null(it);
        assert_string_equal(json_object_iter_key(it), want[i]);
    }
    assert_null(it);
}

static void expect_sorted(const json_t *o)
{
    const char *prev = NULL, *key;
    json_t *val;
    json_object_foreach ((json_t *)o, key, val) {
        if (prev)
            assert_true(strcmp(prev, key) < 0);
        prev = key;
    }
}

/* The whole Job for workers job 0: every key, template labels kept, JobSet keys winning. */
static void test_job_exact(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, three_rjs);
    json_t *before = json_deep_copy(f.js);
    json_t *job = job_of(&f, "workers", 0);
    expect_json(
        job,
        "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\","
        " \"metadata\":{\"name\":\"my-js-workers-0\",\"namespace\":\"default\","
        "  \"labels\":{\"app\":\"train\"," WORKERS0_KEYS "},"
        "  \"annotations\":{\"note\":\"keep\"," WORKERS0_KEYS "},"
        "  \"ownerReferences\":[{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\",\"kind\":\"JobSet\","
        "   \"name\":\"my-js\",\"uid\":\"u-1\",\"controller\":true,\"blockOwnerDeletion\":true}]},"
        " \"spec\":{\"parallelism\":2,\"completions\":2,\"backoffLimit\":0,"
        "  \"completionMode\":\"Indexed\",\"suspend\":false,"
        "  \"template\":{\"metadata\":{\"labels\":{\"tier\":\"w\"," WORKERS0_KEYS "},"
        "    \"annotations\":{\"pod-note\":\"p\"," WORKERS0_KEYS "}},"
        "   \"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}],"
        "    \"restartPolicy\":\"OnFailure\",\"subdomain\":\"my-js\"}}}}");
    static const char *const top[] = {"apiVersion", "kind", "metadata", "spec"};
    static const char *const meta[] = {"name", "namespace", "labels", "annotations",
                                       "ownerReferences"};
    static const char *const tmpl[] = {"metadata", "spec"};
    expect_keys(job, top, 4);
    expect_keys(jx_obj(job, "metadata"), meta, 5);
    expect_keys(jx_path(job, "spec.template"), tmpl, 2);
    expect_sorted(jx_path(job, "metadata.labels"));
    expect_sorted(jx_path(job, "spec.template.metadata.annotations"));
    /* the JobSet is left as it was */
    assert_true(json_equal(before, f.js));
    json_decref(before);
    json_decref(job);
    fx_release(&f);
}

static const char *const stamped_maps[] = {
    "metadata.labels",
    "metadata.annotations",
    "spec.template.metadata.labels",
    "spec.template.metadata.annotations",
};

static void expect_everywhere(const json_t *job, const char *key, const char *want)
{
    for (size_t m = 0; m < sizeof(stamped_maps) / sizeof(stamped_maps[0]); m++) {
        const char *got = jx_str(jx_path(job, stamped_maps[m]), key);
        if (!want) {
            if (got)
                fail_msg("%s[%s] = %s, want absent", stamped_maps[m], key, got);
            continue;
        }
        if (!got || strcmp(got, want) != 0)
            fail_msg("%s[%s] = %s, want %s", stamped_maps[m], key, got ? got : "(absent)",
                     want);
    }
}

static void test_indexes(void **state)
{
    (void)state;
    static const struct {
        const char *rj;
        long long job;
        const char *name, *global, *group, *group_replicas, *group_index, *key;
    } cases[] = {
        {"leader", 0, "my-js-leader-0", "0", "g1", "3", "0",
         "e7f805d1a0b65eebaa52d86cb49b01294841dde9"},
        {"workers", 0, "my-js-workers-0", "1", "g2", "3", "0",
         "1cec270bdc204f371be2e90c988ee2a84c10855a"},
        {"workers", 1, "my-js-workers-1", "2", "g2", "3", "1",
         "33d4f6e098125ae9854348a4878f7f03b8964661"},
        {"ps", 1, "my-js-ps-1", "5", "g1", "3", "2", "d278601c655ec2ea96f3ec9f85a4d9a4151be71d"},
    };
    struct fx f;
    fx_init(&f, three_rjs);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char idx[8];
        snprintf(idx, sizeof(idx), "%lld", cases[i].job);
        json_t *job = job_of(&f, cases[i].rj, cases[i].job);
        assert_string_equal(jx_str(jx_obj(job, "metadata"), "name"), cases[i].name);
        expect_everywhere(job, LBL_JOB_INDEX, idx);
        expect_everywhere(job, LBL_RJ_NAME, cases[i].rj);
        expect_everywhere(job, LBL_JOB_GLOBAL_INDEX, cases[i].global);
        expect_everywhere(job, LBL_GROUP_NAME, cases[i].group);
        expect_everywhere(job, LBL_GROUP_REPLICAS, cases[i].group_replicas);
        expect_everywhere(job, LBL_JOB_GROUP_INDEX, cases[i].group_index);
        expect_everywhere(job, LBL_JOB_KEY, cases[i].key);
        expect_everywhere(job, LBL_GLOBAL_REPLICAS, "6");
        expect_everywhere(job, LBL_RESTART_ATTEMPT, "2");
        expect_everywhere(job, LBL_JOBSET_UID, "u-1");
        expect_everywhere(job, LBL_COORDINATOR, NULL);
        json_decref(job);
    }
    fx_release(&f);
}

#define SIMPLE_JS(meta, spec_extra)                                                             \
    "{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\",\"kind\":\"JobSet\","                        \
    " \"metadata\":{\"name\":\"t\",\"uid\":\"u-2\"" meta "},"                                 \
    " \"spec\":{" spec_extra "\"replicatedJobs\":["                                            \
    "  {\"name\":\"workers\",\"replicas\":2,\"template\":{\"spec\":{\"parallelism\":2,"        \
    "   \"completions\":2,\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\","            \
    "   \"image\":\"i\"}]}}}}}]}}"

static void test_network(void **state)
{
    (void)state;
    static const struct {
        const char *name, *js, *subdomain;
        bool publish;
    } cases[] = {
        {"default", SIMPLE_JS("", ""), "t", true},
        {"custom subdomain", SIMPLE_JS("", "\"network\":{\"subdomain\":\"sub\"},"), "sub", true},
        {"no DNS hostnames", SIMPLE_JS("", "\"network\":{\"enableDNSHostnames\":false},"), NULL,
         true},
        {"not-ready hidden",
         SIMPLE_JS("", "\"network\":{\"publishNotReadyAddresses\":false},"), "t", false},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct fx f;
        fx_init(&f, cases[i].js);
        json_t *job = job_of(&f, "workers", 1);
        const char *sub = jx_str(jx_path(job, "spec.template.spec"), "subdomain");
        if (!cases[i].subdomain)
            assert_null(sub);
        else
            assert_string_equal(sub ? sub : "(none)", cases[i].subdomain);
        assert_int_equal(f.v.dns_hostnames, cases[i].subdomain != NULL);
        if (cases[i].subdomain) {
            json_t *svc = construct_service(f.js, &f.v);
            assert_non_null(svc);
            char want[1024];
            snprintf(want, sizeof(want),
                     "{\"apiVersion\":\"v1\",\"kind\":\"Service\","
                     " \"metadata\":{\"name\":\"%s\",\"namespace\":\"default\","
                     "  \"ownerReferences\":[{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\","
                     "   \"kind\":\"JobSet\",\"name\":\"t\",\"uid\":\"u-2\",\"controller\":true,"
                     "   \"blockOwnerDeletion\":true}]},"
                     " \"spec\":{\"clusterIP\":\"None\","
                     "  \"selector\":{\"jobset.sigs.k8s.io/jobset-name\":\"t\"},"
                     "  \"publishNotReadyAddresses\":%s}}",
                     cases[i].subdomain, cases[i].publish ? "true" : "false");
            expect_json(svc, want);
            json_decref(svc);
        }
        json_decref(job);
        fx_release(&f);
    }
}

static void test_suspend(void **state)
{
    (void)state;
    static const struct {
        const char *js;
        bool want;
    } cases[] = {
        {SIMPLE_JS("", ""), false},
        {SIMPLE_JS("", "\"suspend\":true,"), true},
        {SIMPLE_JS("", "\"suspend\":false,"), false},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct fx f;
        fx_init(&f, cases[i].js);
        json_t *job = job_of(&f, "workers", 0);
        json_t *s = json_object_get(jx_obj(job, "spec"), "suspend");
        assert_true(json_is_boolean(s));
        assert_int_equal(json_is_true(s), cases[i].want);
        json_decref(job);
        fx_release(&f);
    }
}

static void test_coordinator(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, SIMPLE_JS("", "\"coordinator\":{\"replicatedJob\":\"workers\","
                              "\"jobIndex\":1,\"podIndex\":1},"
                              "\"network\":{\"subdomain\":\"net\"},"));
    for (long long j = 0; j < 2; j++) {
        json_t *job = job_of(&f, "workers", j);
        expect_everywhere(job, LBL_COORDINATOR, "t-workers-1-1.net");
        json_decref(job);
    }
    fx_release(&f);
}

static void test_namespace(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, SIMPLE_JS(",\"namespace\":\"team-a\"", ""));
    json_t *job = job_of(&f, "workers", 0);
    assert_string_equal(jx_str(jx_obj(job, "metadata"), "namespace"), "team-a");
    /* printf '%s' team-a/t-workers-0 | sha1sum */
    expect_everywhere(job, LBL_JOB_KEY, "fdf0dc2bf23d33b73fd3eab8526602e929dd5f86");
    json_decref(job);
    fx_release(&f);
}

#define EXCL_JS(js_ann, rj_ann)                                                                 \
    "{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\",\"kind\":\"JobSet\","                        \
    " \"metadata\":{\"name\":\"t\",\"uid\":\"u-2\",\"annotations\":{" js_ann "}},"           \
    " \"spec\":{\"replicatedJobs\":["                                                          \
    "  {\"name\":\"workers\",\"template\":{\"metadata\":{\"annotations\":{" rj_ann "}},"       \
    "   \"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}],"  \
    "   \"nodeSelector\":{\"pool\":\"a\"},"                                                    \
    "   \"tolerations\":[{\"key\":\"gpu\",\"operator\":\"Exists\"}]}}}}}]}}"

#define EXCL "\"alpha.jobset.sigs.k8s.io/exclusive-topology\":"
#define NSEL "\"alpha.jobset.sigs.k8s.io/node-selector\":"

static const struct excl_case {
    const char *name, *js, *topo, *nsel;
} excl_cases[] = {
    {"none", EXCL_JS("", ""), NULL, NULL},
    {"jobset level", EXCL_JS(EXCL "\"zone\"", ""), "zone", NULL},
    {"jobset level node-selector", EXCL_JS(EXCL "\"zone\"," NSEL "\"true\"", ""), "zone", "true"},
    {"rj wins", EXCL_JS(EXCL "\"zone\"", EXCL "\"rack\""), "rack", NULL},
    {"rj wins, jobset node-selector kept", EXCL_JS(EXCL "\"zone\"," NSEL "\"x\"", EXCL "\"rack\""),
     "rack", "x"},
    {"rj level both", EXCL_JS("", EXCL "\"rack\"," NSEL "\"y\""), "rack", "y"},
    {"node-selector alone", EXCL_JS(NSEL "\"x\"", ""), NULL, NULL},
};

static const char *or_dash(const char *s)
{
    return s ? s : "-";
}

static void check_exclusive(const struct excl_case *c, const json_t *job)
{
    const json_t *pspec = jx_path(job, "spec.template.spec");
    for (size_t m = 0; m < 2; m++) {
        const json_t *a = jx_path(job, stamped_maps[2 * m + 1]); /* Job, then pod template */
        assert_string_equal(or_dash(jx_str(a, ANN_EXCLUSIVE_TOPOLOGY)), or_dash(c->topo));
        if (c->topo)
            assert_string_equal(or_dash(jx_str(a, ANN_NODE_SELECTOR)), or_dash(c->nsel));
    }
    if (c->topo && c->nsel) {
        expect_json(jx_obj(pspec, "nodeSelector"),
                    "{\"pool\":\"a\",\"alpha.jobset.sigs.k8s.io/namespaced-job\":"
                    "\"default_t-workers-0\"}");
        expect_json(jx_arr(pspec, "tolerations"),
                    "[{\"key\":\"gpu\",\"operator\":\"Exists\"},"
                    " {\"key\":\"alpha.jobset.sigs.k8s.io/no-schedule\","
                    "  \"operator\":\"Exists\",\"effect\":\"NoSchedule\"}]");
    } else {
        expect_json(jx_obj(pspec, "nodeSelector"), "{\"pool\":\"a\"}");
        expect_json(jx_arr(pspec, "tolerations"), "[{\"key\":\"gpu\",\"operator\":\"Exists\"}]");
    }
}

static void test_exclusive(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(excl_cases) / sizeof(excl_cases[0]); i++) {
        struct fx f;
        print_message("case %s\n", excl_cases[i].name);
        fx_init(&f, excl_cases[i].js);
        json_t *job = job_of(&f, "workers", 0);
        expect_everywhere(job, LBL_JOBSET_NAME, "t");
        check_exclusive(&excl_cases[i], job);
        json_decref(job);
        fx_release(&f);
    }
}

static void test_owner_ref(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, three_rjs);
    json_t *ref = construct_owner_ref(&f.v);
    expect_json(ref, owner_u1);
    static const char *const order[] = {"apiVersion", "kind", "name", "uid", "controller",
                                        "blockOwnerDeletion"};
    expect_keys(ref, order, 6);
    json_decref(ref);
    fx_release(&f);

    /* no uid: "" (render assigns one before constructing) */
    fx_init(&f, "{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\",\"kind\":\"JobSet\","
                "\"metadata\":{\"name\":\"n\"},\"spec\":{\"replicatedJobs\":[{\"name\":\"a\","
                "\"template\":{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":"
                "\"c\",\"image\":\"i\"}]}}}}}]}}");
    json_t *job = job_of(&f, "a", 0);
    assert_string_equal(jx_str(json_array_get(jx_path(job, "metadata.ownerReferences"), 0), "uid"),
                        "");
    expect_everywhere(job, LBL_JOBSET_UID, "");
    /* a template without metadata gets one, placed before its spec */
    static const char *const tmpl[] = {"metadata", "spec"};
    expect_keys(jx_path(job, "spec.template"), tmpl, 2);
    json_decref(job);
    fx_release(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_job_key),     cmocka_unit_test(test_job_exact),
        cmocka_unit_test(test_indexes),     cmocka_unit_test(test_network),
        cmocka_unit_test(test_suspend),     cmocka_unit_test(test_coordinator),
        cmocka_unit_test(test_namespace),   cmocka_unit_test(test_exclusive),
        cmocka_unit_test(test_owner_ref),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
