/* Feature gates: the --feature-gates syntax as component-base takes it (api/jobset/features.h), the
 * JobSet rules that depend on a gate (js_validate_gated) and the label RestartJob adds to every
 * child Job (construct_job_gated). */
#include "api/child/construct.h"
#include "api/jobset/features.h"
#include "api/jobset/jobset.h"
#include "api/schema/keys.h"
#include "obj/tree/jx.h"
#include "testutil.h"

#include <errno.h>
#include <string.h>

/* ---- parsing ------------------------------------------------------------------------------- */

static struct feature_gates parsed(const char *value)
{
    struct feature_gates g = {0};
    struct err e = {{0}};
    if (fg_set(&g, value, &e, NULL) != 0)
        fail_msg("fg_set(%s): %s", value, e.msg);
    return g;
}

static void test_defaults(void **state)
{
    (void)state;
    struct feature_gates zero = {0};
    for (int i = 0; i < FG_N; i++)
        assert_int_equal(fg_enabled(&zero, (enum fg_id)i), fg_enabled(NULL, (enum fg_id)i));
    assert_false(fg_enabled(NULL, FG_IN_PLACE_RESTART));
    assert_false(fg_enabled(NULL, FG_RESTART_JOB));
    assert_false(fg_enabled(NULL, FG_ELASTIC_JOBSET));
    assert_true(fg_enabled(NULL, FG_TLS_OPTIONS));
    assert_string_equal(fg_name(FG_IN_PLACE_RESTART), "InPlaceRestart");
    assert_string_equal(fg_name(FG_RESTART_JOB), "RestartJob");
    char buf[128];
    assert_string_equal(fg_format(NULL, buf, sizeof(buf)), "");
}

static void test_parse_values(void **state)
{
    (void)state;
    struct feature_gates g = parsed("InPlaceRestart=true,RestartJob=True");
    assert_true(fg_enabled(&g, FG_IN_PLACE_RESTART));
    assert_true(fg_enabled(&g, FG_RESTART_JOB));
    assert_false(fg_enabled(&g, FG_ELASTIC_JOBSET));
    /* Go's ParseBool spellings, spaces trimmed, empty items skipped */
    static const char *const on[] = {"1", "t", "T", "TRUE", "true", "True", " true "};
    for (size_t i = 0; i < sizeof(on) / sizeof(on[0]); i++) {
        char v[64];
        snprintf(v, sizeof(v), ",, RestartJob =%s,", on[i]);
        g = parsed(v);
        assert_true(fg_enabled(&g, FG_RESTART_JOB));
    }
    g = parsed("");
    assert_false(fg_enabled(&g, FG_RESTART_JOB));
    /* values add up; the later one wins */
    g = parsed("RestartJob=true");
    struct err e = {{0}};
    assert_int_equal(fg_set(&g, "InPlaceRestart=1,RestartJob=F", &e, NULL), 0);
    assert_true(fg_enabled(&g, FG_IN_PLACE_RESTART));
    assert_false(fg_enabled(&g, FG_RESTART_JOB));
    char buf[128];
    assert_string_equal(fg_format(&g, buf, sizeof(buf)), "InPlaceRestart=true");
}

static void test_all_alpha(void **state)
{
    (void)state;
    struct feature_gates g = parsed("AllAlpha=true");
    assert_true(fg_enabled(&g, FG_IN_PLACE_RESTART));
    assert_true(fg_enabled(&g, FG_RESTART_JOB));
    assert_true(fg_enabled(&g, FG_ELASTIC_JOBSET));
    assert_true(fg_enabled(&g, FG_TLS_OPTIONS)); /* GA: untouched */
    /* a gate set by name wins, whatever the order */
    g = parsed("RestartJob=false,AllAlpha=true");
    assert_false(fg_enabled(&g, FG_RESTART_JOB));
    assert_true(fg_enabled(&g, FG_IN_PLACE_RESTART));
    g = parsed("AllAlpha=true,RestartJob=false");
    assert_false(fg_enabled(&g, FG_RESTART_JOB));
    g = parsed("AllBeta=true");
    assert_false(fg_enabled(&g, FG_RESTART_JOB));
}

static const struct {
    const char *value, *msg;
} bad[] = {
    {"InPlaceRestart", "missing bool value for InPlaceRestart"},
    {"RestartJob=true,InPlaceRestart=yes",
     "invalid value of InPlaceRestart=yes, err: strconv.ParseBool: parsing \"yes\": invalid "
     "syntax"},
    {"InPlaceRestart=", "invalid value of InPlaceRestart=, err: strconv.ParseBool: parsing \"\": "
                        "invalid syntax"},
    {"RestartJobs=true",
     "unrecognized feature gate: RestartJobs (known feature gates: AllAlpha, AllBeta, "
     "ElasticJobSet, InPlaceRestart, RestartJob, TLSOptions, TrainJobStatus)"},
    {"restartjob=true", "unrecognized feature gate: restartjob*"},
    {"TLSOptions=false", "cannot set feature gate TLSOptions to false, feature is locked to true"},
};

static void test_parse_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct feature_gates g = parsed("ElasticJobSet=true");
        struct feature_gates before = g;
        struct err e = {{0}};
        assert_int_equal(fg_set(&g, bad[i].value, &e, NULL), -EINVAL);
        size_t n = strlen(bad[i].msg);
        if (bad[i].msg[n - 1] == '*')
            assert_int_equal(strncmp(e.msg, bad[i].msg, n - 1), 0);
        else
            assert_string_equal(e.msg, bad[i].msg);
        assert_memory_equal(&g, &before, sizeof(g)); /* unchanged */
    }
}

static void test_ga_warning_and_map(void **state)
{
    (void)state;
    struct feature_gates g = {0};
    struct err e = {{0}}, w = {{0}};
    assert_int_equal(fg_set(&g, "TLSOptions=true", &e, &w), 0);
    assert_string_equal(w.msg, "Setting GA feature gate TLSOptions=true. It will be removed in a "
                               "future release.");
    assert_int_equal(fg_set(&g, "RestartJob=true", &e, &w), 0);
    assert_string_equal(w.msg, "");
    json_t *m = tu_qjson("{'InPlaceRestart':true,'RestartJob':false}");
    assert_int_equal(fg_set_map(&g, m, &e, &w), 0);
    assert_true(fg_enabled(&g, FG_IN_PLACE_RESTART));
    assert_false(fg_enabled(&g, FG_RESTART_JOB));
    json_decref(m);
    m = tu_qjson("{'InPlaceRestart':'true'}");
    assert_int_equal(fg_set_map(&g, m, &e, &w), -EINVAL);
    assert_string_equal(e.msg, "featureGates.InPlaceRestart: must be true or false");
    json_decref(m);
    m = tu_qjson("{'Nope':true}");
    assert_int_equal(fg_set_map(&g, m, &e, &w), -EINVAL);
    assert_non_null(strstr(e.msg, "unrecognized feature gate: Nope"));
    json_decref(m);
}

/* ---- validation ---------------------------------------------------------------------------- */

#define RJ(name, replicas, spec)                                                                   \
    "{'name':'" name "','replicas':" #replicas ",'template':{'spec':{" spec                        \
    "'template':{'spec':{'containers':[{'name':'c','command':['true']}]}}}}}"
#define IPR_SPEC                                                                                   \
    "'completions':2,'parallelism':2,'backoffLimit':2147483647,'podReplacementPolicy':'Failed',"

static json_t *jobset(const char *failure_policy, const char *rjs)
{
    char text[2048];
    snprintf(text, sizeof(text),
             "{'apiVersion':'jobset.x-k8s.io/v1alpha2','kind':'JobSet','metadata':{'name':'js'},"
             "'spec':{'failurePolicy':%s,'replicatedJobs':[%s]}}",
             failure_policy, rjs);
    json_t *js = tu_qjson(text);
    assert_int_equal(js_default(js), 0);
    return js;
}

/* The errors of validating js with the gates `value` (NULL: js_validate). */
static const char *errors_with(const json_t *js, const char *value)
{
    struct ferr_list l;
    ferr_list_init(&l);
    struct feature_gates g = parsed(value ? value : "");
    int rc = value ? js_validate_gated(js, &g, &l) : js_validate(js, &l);
    assert_true(rc >= 0);
    char *s = (char *)tu_ferrs(&l); /* a static buffer: one line per error */
    size_t n = strlen(s);
    if (n && s[n - 1] == '\n')
        s[n - 1] = '\0';
    ferr_list_release(&l);
    return s;
}

#define FP_RESTART_JOB                                                                             \
    "{'maxRestarts':2,'rules':[{'name':'one','action':'RestartJobAndIgnoreMaxRestarts'}]}"

static void test_validate_restart_job(void **state)
{
    (void)state;
    json_t *js = jobset(FP_RESTART_JOB, RJ("w", 2, ""));
    const char *off = "spec.failurePolicy.rules[0].action: Invalid value: "
                      "\"RestartJobAndIgnoreMaxRestarts\": RestartJob and "
                      "RestartJobAndIgnoreMaxRestarts failure policy actions are not allowed when "
                      "RestartJob feature gate is disabled (turn it on with "
                      "--feature-gates=RestartJob=true)";
    assert_string_equal(errors_with(js, NULL), off);
    assert_string_equal(errors_with(js, "InPlaceRestart=true"), off);
    assert_string_equal(errors_with(js, "RestartJob=true"), "");
    assert_string_equal(errors_with(js, "AllAlpha=true"), "");
    json_decref(js);
    /* with the gate on: at most 1024 replicas per replicated job (the status list's limit) */
    js = jobset(FP_RESTART_JOB, RJ("a", 1024, "") "," RJ("b", 1025, "") "," RJ("c", 2000, ""));
    assert_string_equal(errors_with(js, "RestartJob=true"),
                        "spec.replicatedJobs[1].replicas: Invalid value: 1025: JobSet cannot "
                        "have a failure policy rule with RestartJob or "
                        "RestartJobAndIgnoreMaxRestarts action and a replicated job with "
                        "replicas > 1024");
    json_decref(js);
    /* no such rule: no such limit */
    js = jobset("{'maxRestarts':1}", RJ("b", 1025, ""));
    assert_string_equal(errors_with(js, "RestartJob=true"), "");
    json_decref(js);
}

static void test_validate_in_place(void **state)
{
    (void)state;
    json_t *js = jobset("{'maxRestarts':3,'restartStrategy':'InPlaceRestart'}",
                        RJ("w", 2, IPR_SPEC));
    assert_string_equal(errors_with(js, NULL),
                        "spec.failurePolicy.restartStrategy: Invalid value: \"InPlaceRestart\": "
                        "InPlaceRestart restart strategy cannot be set when InPlaceRestart "
                        "feature gate is disabled (turn it on with "
                        "--feature-gates=InPlaceRestart=true)");
    assert_string_equal(errors_with(js, "InPlaceRestart=true"), "");
    json_decref(js);
    /* the template must keep its Jobs from failing and its pod count fixed */
    js = jobset("{'restartStrategy':'InPlaceRestart'}",
                RJ("a", 1, "'completions':2,'parallelism':3,'backoffLimit':6,"
                           "'podReplacementPolicy':'TerminatingOrFailed',") "," RJ("b", 1, ""));
    const char *want =
        "spec.replicatedJobs[0].template.spec.backoffLimit: Invalid value: 6: replicatedJob a: "
        "must be set to 2147483647 (MaxInt32) when in-place restart is enabled\n"
        "spec.replicatedJobs[0].template.spec.podReplacementPolicy: Invalid value: "
        "\"TerminatingOrFailed\": replicatedJob a: must be set to Failed when in-place restart "
        "is enabled\n"
        "spec.replicatedJobs[0].template.spec.completions: Invalid value: 2: replicatedJob a: "
        "completions and parallelism must be set and equal to each other when in-place restart "
        "is enabled\n"
        "spec.replicatedJobs[1].template.spec.backoffLimit: Invalid value: null: replicatedJob "
        "b: must be set to 2147483647 (MaxInt32) when in-place restart is enabled\n"
        "spec.replicatedJobs[1].template.spec.podReplacementPolicy: Invalid value: null: "
        "replicatedJob b: must be set to Failed when in-place restart is enabled\n"
        "spec.replicatedJobs[1].template.spec.completions: Invalid value: null: replicatedJob "
        "b: completions and parallelism must be set and equal to each other when in-place "
        "restart is enabled";
    assert_string_equal(errors_with(js, "InPlaceRestart=true"), want);
    json_decref(js);
}

/* ---- construction -------------------------------------------------------------------------- */

static void test_job_restart_label(void **state)
{
    (void)state;
    json_t *js = jobset("{'maxRestarts':1}", RJ("w", 3, ""));
    json_object_set_new(js, "status",
                        tu_qjson("{'restarts':1,'replicatedJobsStatus':[{'name':'w','ready':0,"
                                 "'jobRestarts':[0,4]}]}"));
    struct js_view v;
    assert_int_equal(js_view_init(&v, js), 0);
    struct feature_gates on = parsed("RestartJob=true");
    for (long long idx = 0; idx < 3; idx++) {
        json_t *plain = construct_job(js, &v, NULL, 0, idx);
        json_t *gated = construct_job_gated(js, &v, NULL, &on, 0, idx);
        const json_t *meta = jx_obj(gated, "metadata");
        const char *want = idx == 1 ? "4" : "0"; /* absent entries count 0 */
        assert_null(jx_get_meta(jx_obj(plain, "metadata"), "labels", LBL_JOB_RESTART_ATTEMPT));
        assert_string_equal(jx_get_meta(meta, "labels", LBL_JOB_RESTART_ATTEMPT), want);
        assert_string_equal(jx_get_meta(meta, "annotations", LBL_JOB_RESTART_ATTEMPT), want);
        const json_t *pmeta = jx_path(gated, "spec.template.metadata");
        assert_string_equal(jx_get_meta(pmeta, "labels", LBL_JOB_RESTART_ATTEMPT), want);
        assert_string_equal(jx_get_meta(meta, "labels", LBL_RESTART_ATTEMPT), "1");
        /* nothing else differs */
        json_object_del(jx_obj(meta, "labels"), LBL_JOB_RESTART_ATTEMPT);
        json_object_del(jx_obj(meta, "annotations"), LBL_JOB_RESTART_ATTEMPT);
        json_object_del(jx_obj(pmeta, "labels"), LBL_JOB_RESTART_ATTEMPT);
        json_object_del(jx_obj(pmeta, "annotations"), LBL_JOB_RESTART_ATTEMPT);
        assert_true(json_equal(plain, gated));
        json_decref(plain);
        json_decref(gated);
    }
    assert_int_equal(js_job_restarts(js, "w", 1), 4);
    assert_int_equal(js_job_restarts(js, "w", 7), 0);
    assert_int_equal(js_job_restarts(js, "x", 1), 0);
    js_view_release(&v);
    json_decref(js);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_parse_values),
        cmocka_unit_test(test_all_alpha),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_ga_warning_and_map),
        cmocka_unit_test(test_validate_restart_job),
        cmocka_unit_test(test_validate_in_place),
        cmocka_unit_test(test_job_restart_label),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
