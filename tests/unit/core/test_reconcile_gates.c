/* The reconcile core with feature gates on (rec_reconcile_gated): the RestartJob actions, which
 * restart one child Job through the status and the following passes, and the InPlaceRestart
 * step, which moves the in-place restart attempts of the status from the pods' annotations.
 * Expected values follow kubernetes-sigs/jobset pkg/controllers (failure_policy.go,
 * jobset_controller.go getChildJobs, in_place_restart.go). */
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/jobset/features.h"
#include "api/jobset/jobset.h"
#include "api/schema/keys.h"
#include "core/reconcile.h"
#include "obj/tree/jx.h"

#define NOW 1795341600000LL /* 2026-11-22T10:00:00Z */
#define FAILED_AT "2026-11-22T09:00:00Z"

static struct feature_gates gates(const char *value)
{
    struct feature_gates g = {0};
    struct err e = {{0}};
    assert_int_equal(fg_set(&g, value, &e, NULL), 0);
    return g;
}

/* A JobSet "js" with replicated job w (2 replicas of `pods` pods each), `fp` as failurePolicy
 * and `status` (NULL: none). */
static json_t *jobset(const char *fp, int pods, const char *status)
{
    char text[2048];
    snprintf(text, sizeof(text),
             "{'apiVersion':'jobset.x-k8s.io/v1alpha2','kind':'JobSet','metadata':{'name':'js',"
             "'namespace':'default','uid':'u'},'spec':{'failurePolicy':%s,'replicatedJobs':[{"
             "'name':'w','replicas':2,'template':{'spec':{'parallelism':%d,'completions':%d,"
             "'backoffLimit':2147483647,'podReplacementPolicy':'Failed','template':{'spec':{"
             "'containers':[{'name':'c','command':['true']}]}}}}}]}}",
             fp, pods, pods);
    json_t *js = tu_qjson(text);
    assert_int_equal(js_default(js), 0);
    if (status)
        json_object_set_new(js, "status", tu_qjson(status));
    return js;
}

/* Child Job js-w-<idx> of restart attempt 0: "ready" or "failed"; job_attempt < 0 leaves the
 * job-restart-attempt label out; idx_label NULL leaves job-index out. */
static json_t *job(int idx, const char *state, int job_attempt, const char *idx_label)
{
    char name[32], att[16];
    snprintf(name, sizeof(name), "js-w-%d", idx);
    json_t *j = json_pack("{s:s,s:s,s:{s:s,s:s,s:{s:s,s:s}},s:{s:i,s:i},s:{s:i,s:i,s:i}}",
                          "apiVersion", "batch/v1", "kind", "Job", "metadata", "name", name,
                          "namespace", "default", "labels", LBL_RJ_NAME, "w",
                          LBL_RESTART_ATTEMPT, "0", "spec", "parallelism", 1, "completions", 1,
                          "status", "active", 1, "ready", 1, "failed", 0);
    json_t *meta = jx_obj(j, "metadata");
    if (idx_label)
        jx_set_meta(meta, "labels", LBL_JOB_INDEX, idx_label);
    if (job_attempt >= 0) {
        snprintf(att, sizeof(att), "%d", job_attempt);
        jx_set_meta(meta, "labels", LBL_JOB_RESTART_ATTEMPT, att);
    }
    if (strcmp(state, "failed") == 0) {
        json_t *st = jx_obj(j, "status");
        jx_set_int(st, "ready", 0);
        jx_set_int(st, "active", 0);
        jx_set_int(st, "failed", 1);
        json_object_set_new(st, "conditions",
                            json_pack("[{s:s,s:s,s:s,s:s,s:s}]", "type", "Failed", "status",
                                      "True", "reason", "BackoffLimitExceeded", "message",
                                      "Job has reached the specified backoff limit",
                                      "lastTransitionTime", FAILED_AT));
    }
    return j;
}

static json_t *jobs2(const char *s0, int a0, const char *s1, int a1)
{
    json_t *arr = json_array();
    if (s0)
        json_array_append_new(arr, job(0, s0, a0, "0"));
    if (s1)
        json_array_append_new(arr, job(1, s1, a1, "1"));
    return arr;
}

/* The replicated job's entry of a status. */
static const json_t *rj_entry(const json_t *status)
{
    return json_array_get(jx_arr(status, "replicatedJobsStatus"), 0);
}

static char *dumps(const json_t *v)
{
    return v ? json_dumps(v, JSON_COMPACT) : strdup("null");
}

static void expect_json(const json_t *v, const char *want)
{
    char *got = dumps(v);
    json_t *w = tu_qjson(want);
    char *wants = dumps(w);
    assert_string_equal(got, wants);
    free(got);
    free(wants);
    json_decref(w);
}

/* ---- RestartJob ---------------------------------------------------------------------------- */

#define FP_RULE(action, max) "{'maxRestarts':" #max ",'rules':[{'name':'r','action':'" action "'}]}"

static void test_restart_job_gate_off(void **state)
{
    (void)state;
    json_t *js = jobset(FP_RULE("RestartJob", 2), 1, NULL), *jobs = jobs2("ready", -1, "failed", -1);
    struct rec_plan plan = {0};
    struct err e = {{0}};
    struct feature_gates g = gates("InPlaceRestart=true");
    assert_int_equal(rec_reconcile_gated(js, jobs, NULL, NOW, &g, &plan, &e), -EINVAL);
    assert_string_equal(e.msg, "RestartJob failure policy action cannot be used when the feature "
                               "gate RestartJob is disabled (turn it on with "
                               "--feature-gates=RestartJob=true)");
    assert_int_equal(rec_reconcile(js, jobs, NOW, &plan, &e), -EINVAL);
    json_decref(js);
    json_decref(jobs);
}

/* The three passes of one RestartJob: count, delete the one Job, create it again. */
static void test_restart_job_passes(void **state)
{
    (void)state;
    struct feature_gates g = gates("RestartJob=true");
    struct rec_plan p1, p2, p3;
    struct err e = {{0}};
    json_t *js = jobset(FP_RULE("RestartJob", 2), 1, NULL), *jobs = jobs2("ready", 0, "failed", 0);
    assert_int_equal(rec_reconcile_gated(js, jobs, NULL, NOW, &g, &p1, &e), 0);
    assert_int_equal(p1.n_creates + p1.n_deletes + p1.n_patches, 0);
    assert_true(p1.status_changed);
    assert_int_equal(jx_int_or(p1.status, "restarts", -1), 0);
    assert_null(json_object_get(p1.status, "restartsCountTowardsMax"));
    assert_null(json_object_get(p1.status, "conditions")); /* no Restarting condition */
    expect_json(json_object_get(rj_entry(p1.status), "jobRestarts"), "[0,1]");
    expect_json(json_object_get(rj_entry(p1.status), "jobRestartsCountTowardsMax"), "[0,1]");
    assert_int_equal(p1.n_events, 1);
    assert_int_equal(p1.events[0].type, REC_EVENT_WARNING);
    assert_string_equal(p1.events[0].reason, "RestartJobFailurePolicyAction");
    assert_string_equal(p1.events[0].message,
                        "applying RestartJob failure policy action (first failed job: js-w-1)");
    /* pass 2: the failed Job is outdated (label 0 < 1): deleted; the other one stays */
    json_object_set(js, "status", p1.status);
    assert_int_equal(rec_reconcile_gated(js, jobs, NULL, NOW, &g, &p2, &e), 0);
    assert_int_equal(p2.n_deletes, 1);
    assert_string_equal(p2.deletes[0].name, "js-w-1");
    assert_int_equal(p2.n_creates, 0); /* its name is still taken */
    assert_int_equal(p2.n_events, 0);
    expect_json(json_object_get(rj_entry(p2.status), "jobRestarts"), "[0,1]");
    assert_int_equal(jx_int_or(rj_entry(p2.status), "failed", -1), 0); /* previous: not counted */
    /* pass 3: it is gone: created again with its count as job-restart-attempt */
    json_decref(jobs);
    json_object_set(js, "status", p2.status);
    jobs = jobs2("ready", 0, NULL, 0);
    assert_int_equal(rec_reconcile_gated(js, jobs, NULL, NOW, &g, &p3, &e), 0);
    assert_int_equal(p3.n_creates, 1);
    const json_t *meta = jx_obj(p3.creates[0], "metadata");
    assert_string_equal(jx_str(meta, "name"), "js-w-1");
    assert_string_equal(jx_get_meta(meta, "labels", LBL_JOB_RESTART_ATTEMPT), "1");
    assert_string_equal(jx_get_meta(meta, "labels", LBL_RESTART_ATTEMPT), "0");
    assert_false(p3.status_changed);
    rec_plan_release(&p1);
    rec_plan_release(&p2);
    rec_plan_release(&p3);
    json_decref(js);
    json_decref(jobs);
}

static void test_restart_job_ignore_max(void **state)
{
    (void)state;
    struct feature_gates g = gates("RestartJob=true");
    struct rec_plan p;
    struct err e = {{0}};
    json_t *js = jobset(FP_RULE("RestartJobAndIgnoreMaxRestarts", 0), 1,
                        "{'restarts':0,'replicatedJobsStatus':[{'name':'w','ready':1,"
                        "'succeeded':0,'failed':1,'active':1,'suspended':0,'jobRestarts':[5,0]}]}");
    json_t *jobs = jobs2("failed", 5, "ready", 0);
    assert_int_equal(rec_reconcile_gated(js, jobs, NULL, NOW, &g, &p, &e), 0);
    expect_json(json_object_get(rj_entry(p.status), "jobRestarts"), "[6,0]");
    assert_null(json_object_get(rj_entry(p.status), "jobRestartsCountTowardsMax"));
    assert_string_equal(p.events[0].reason, "RestartJobAndIgnoreMaxRestartsFailurePolicyAction");
    assert_null(jx_str(p.status, "terminalState"));
    rec_plan_release(&p);
    json_decref(js);
    json_decref(jobs);
}

/* RestartJob and RestartJobSet compare restartsCountTowardsMax plus every Job's counted
 * restarts with maxRestarts while the gate is on. */
static void test_restart_job_max(void **state)
{
    (void)state;
    static const char *const fps[] = {FP_RULE("RestartJob", 3), "{'maxRestarts':3}"};
    struct feature_gates g = gates("RestartJob=true");
    for (size_t i = 0; i < 2; i++) {
        struct rec_plan p;
        struct err e = {{0}};
        json_t *js = jobset(fps[i], 1,
                            "{'restarts':1,'restartsCountTowardsMax':1,'replicatedJobsStatus':[{"
                            "'name':'w','jobRestarts':[1,1],'jobRestartsCountTowardsMax':[1,1]}]}");
        json_t *jobs = jobs2("failed", 1, "ready", 1);
        jx_set_meta(jx_obj(json_array_get(jobs, 0), "metadata"), "labels", LBL_RESTART_ATTEMPT,
                    "1");
        jx_set_meta(jx_obj(json_array_get(jobs, 1), "metadata"), "labels", LBL_RESTART_ATTEMPT,
                    "1");
        assert_int_equal(rec_reconcile_gated(js, jobs, NULL, NOW, &g, &p, &e), 0);
        assert_string_equal(jx_str(p.status, "terminalState"), "Failed");
        const json_t *c = json_array_get(jx_arr(p.status, "conditions"), 0);
        assert_string_equal(jx_str(c, "reason"), "ReachedMaxRestarts");
        assert_string_equal(jx_str(c, "message"), "jobset failed due to reaching max number of "
                                                  "restarts (first failed job: js-w-0)");
        rec_plan_release(&p);
        /* the same status with the gate off: only restartsCountTowardsMax counts, and the
         * per-Job lists are dropped from the status */
        if (i == 1) {
            assert_int_equal(rec_reconcile(js, jobs, NOW, &p, &e), 0);
            assert_null(jx_str(p.status, "terminalState"));
            assert_int_equal(jx_int_or(p.status, "restarts", -1), 2);
            assert_null(json_object_get(rj_entry(p.status), "jobRestarts"));
            rec_plan_release(&p);
        }
        json_decref(js);
        json_decref(jobs);
    }
}

static void test_restart_job_label_errors(void **state)
{
    (void)state;
    struct feature_gates g = gates("RestartJob=true");
    static const struct {
        const char *idx;
        int attempt;
        const char *msg;
    } bad[] = {
        {NULL, 0, "job js-w-0: missing label jobset.sigs.k8s.io/job-index"},
        {"x", 0, "job js-w-0: invalid value for label jobset.sigs.k8s.io/job-index, must be "
                 "integer"},
        {"2", 0, "job js-w-0: job index 2 is out of bounds for replicated job w"},
        {"-1", 0, "job js-w-0: job index -1 is out of bounds for replicated job w"},
    };
    json_t *js = jobset("{'maxRestarts':1}", 1, NULL);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        json_t *jobs = json_pack("[o]", job(0, "ready", bad[i].attempt, bad[i].idx));
        struct rec_plan p;
        struct err e = {{0}};
        assert_int_equal(rec_reconcile_gated(js, jobs, NULL, NOW, &g, &p, &e), -EINVAL);
        assert_string_equal(e.msg, bad[i].msg);
        assert_int_equal(rec_reconcile(js, jobs, NOW, &p, &e), 0); /* gate off: not read */
        rec_plan_release(&p);
        json_decref(jobs);
    }
    /* a Job made before the gate was on (no job-restart-attempt label) is kept */
    json_t *jobs = jobs2("ready", -1, "ready", -1);
    struct rec_plan p;
    struct err e = {{0}};
    json_object_set_new(js, "status", tu_qjson("{'replicatedJobsStatus':[{'name':'w',"
                                               "'jobRestarts':[3,3]}]}"));
    assert_int_equal(rec_reconcile_gated(js, jobs, NULL, NOW, &g, &p, &e), 0);
    assert_int_equal(p.n_deletes + p.n_creates, 0);
    expect_json(json_object_get(rj_entry(p.status), "jobRestarts"), "[3,3]");
    rec_plan_release(&p);
    json_decref(jobs);
    json_decref(js);
}

/* ---- InPlaceRestart ------------------------------------------------------------------------ */

#define FP_IPR "{'maxRestarts':3,'restartStrategy':'InPlaceRestart'}"

/* Pods "a,a,a,-" (attempt a, '-' no annotation, 'F' a failed pod, "a^n" with containers
 * restarted n times). */
static json_t *pods(const char *spec)
{
    json_t *arr = json_array();
    for (const char *p = spec; *p;) {
        size_t n = strcspn(p, ",");
        char tok[32];
        snprintf(tok, sizeof(tok), "%.*s", (int)n, p);
        json_t *pod = json_pack("{s:{s:s},s:{s:s,s:[{s:s,s:i}]}}", "metadata", "name", tok,
                                "status", "phase", "Running", "containerStatuses", "name", "c",
                                "restartCount", 0);
        char *hat = strchr(tok, '^');
        if (hat) {
            *hat = '\0';
            jx_set_int(json_array_get(jx_arr(jx_obj(pod, "status"), "containerStatuses"), 0),
                       "restartCount", strtol(hat + 1, NULL, 10));
        }
        if (tok[0] == 'F') {
            jx_set_str(jx_obj(pod, "status"), "phase", "Failed");
            memmove(tok, tok + 1, strlen(tok));
        }
        if (strcmp(tok, "-") != 0)
            jx_set_meta(jx_obj(pod, "metadata"), "annotations", ANN_IN_PLACE_RESTART_ATTEMPT, tok);
        json_array_append_new(arr, pod);
        p += n + (p[n] == ',');
    }
    return arr;
}

struct ipr_case {
    const char *status; /* extra status fields, or NULL */
    const char *pods;
    const char *want;   /* "previous/current" ("-" absent), or "Failed", or "EINVAL" */
};

static const struct ipr_case ipr_cases[] = {
    {NULL, "", "-/-"},                   /* nothing has started */
    {NULL, "0,0,0", "-/-"},              /* one pod not annotated yet */
    {NULL, "0,0,0,-", "-/-"},            /* ... or its agent has not written it yet */
    {NULL, "0,0,0,0", "-/0"},            /* every pod at 0: the barriers lift */
    {"'currentInPlaceRestartAttempt':0", "0,0,0,0", "-/0"},
    {"'currentInPlaceRestartAttempt':0", "0,1,0,0", "0/0"}, /* a pod restarted: everyone */
    {"'currentInPlaceRestartAttempt':0,'previousInPlaceRestartAttempt':0", "1,1,0,1", "0/0"},
    {"'currentInPlaceRestartAttempt':0,'previousInPlaceRestartAttempt':0", "1,1,1,1", "0/1"},
    {"'currentInPlaceRestartAttempt':0", "F0,1,1,1,1", "-/1"}, /* failed pods left out */
    {"'previousInPlaceRestartAttempt':2", "2,1,1,1", "2/-"},   /* never lowered */
    {NULL, "3,3,3^3,3", "-/3"},
    {NULL, "3,3,3^4,3", "Failed"}, /* a container restarted more than maxRestarts times */
    {NULL, "F0^4", "Failed"},      /* failed pods count there */
    {NULL, "4,3,3,3", "Failed"},   /* the attempt went past maxRestarts */
    {"'restarts':1,'restartsCountTowardsMax':0", "4,3,3,3", "3/-"}, /* one did not count */
    {NULL, "0,x,0,0", "EINVAL"},
    {NULL, "0,-2,0,0", "EINVAL"},
};

static void run_ipr_case(const struct ipr_case *k, const struct feature_gates *g)
{
    char status[256];
    snprintf(status, sizeof(status), "{%s}", k->status ? k->status : "");
    json_t *js = jobset(FP_IPR, 2, status), *p = pods(k->pods);
    json_t *jobs = jobs2("ready", -1, "ready", -1);
    struct rec_plan plan;
    struct err e = {{0}};
    int rc = rec_reconcile_gated(js, jobs, p, NOW, g, &plan, &e);
    if (strcmp(k->want, "EINVAL") == 0) {
        assert_int_equal(rc, -EINVAL);
        assert_string_equal(e.msg, "invalid value for annotation "
                                   "jobset.sigs.k8s.io/in-place-restart-attempt, must be "
                                   "non-negative integer");
    } else if (strcmp(k->want, "Failed") == 0) {
        assert_int_equal(rc, 0);
        const json_t *c = json_array_get(jx_arr(plan.status, "conditions"), 0);
        assert_string_equal(jx_str(c, "reason"), "ReachedMaxRestarts");
        assert_string_equal(jx_str(c, "message"),
                            "jobset failed due to reaching max number of restarts");
        assert_string_equal(jx_str(plan.status, "terminalState"), "Failed");
    } else {
        char wp[16], wc[16];
        assert_int_equal(rc, 0);
        assert_int_equal(sscanf(k->want, "%15[^/]/%15s", wp, wc), 2);
        assert_int_equal(jx_int_or(plan.status, "previousInPlaceRestartAttempt", -1),
                         strcmp(wp, "-") ? strtoll(wp, NULL, 10) : -1);
        assert_int_equal(jx_int_or(plan.status, "currentInPlaceRestartAttempt", -1),
                         strcmp(wc, "-") ? strtoll(wc, NULL, 10) : -1);
        assert_int_equal(plan.n_patches, 0);
    }
    if (rc == 0)
        rec_plan_release(&plan);
    json_decref(js);
    json_decref(p);
    json_decref(jobs);
}

static void test_in_place_restart(void **state)
{
    (void)state;
    struct feature_gates g = gates("InPlaceRestart=true");
    for (size_t i = 0; i < sizeof(ipr_cases) / sizeof(ipr_cases[0]); i++) {
        print_message("case %zu: %s\n", i, ipr_cases[i].pods);
        run_ipr_case(&ipr_cases[i], &g);
    }
}

/* Gate off: the pods are not read, the status fields stay as they are. */
static void test_in_place_gate_off(void **state)
{
    (void)state;
    json_t *js = jobset(FP_IPR, 2, "{'currentInPlaceRestartAttempt':0}");
    json_t *p = pods("0,1,x,0"), *jobs = jobs2("ready", -1, "ready", -1);
    struct rec_plan plan;
    struct err e = {{0}};
    struct feature_gates g = gates("RestartJob=true");
    assert_int_equal(rec_reconcile_gated(js, jobs, p, NOW, &g, &plan, &e), 0);
    assert_null(json_object_get(plan.status, "previousInPlaceRestartAttempt"));
    assert_int_equal(jx_int_or(plan.status, "currentInPlaceRestartAttempt", -1), 0);
    rec_plan_release(&plan);
    /* a strategy other than InPlaceRestart with the gate on: the same */
    json_decref(js);
    js = jobset("{'maxRestarts':3}", 2, NULL);
    g = gates("InPlaceRestart=true");
    assert_int_equal(rec_reconcile_gated(js, jobs, p, NOW, &g, &plan, &e), 0);
    assert_null(json_object_get(plan.status, "previousInPlaceRestartAttempt"));
    assert_null(json_object_get(plan.status, "currentInPlaceRestartAttempt"));
    rec_plan_release(&plan);
    json_decref(js);
    json_decref(p);
    json_decref(jobs);
}

/* A Job that fails anyway goes through the failure policy (Recreate), before any pod is read. */
static void test_in_place_failed_job(void **state)
{
    (void)state;
    json_t *js = jobset(FP_IPR, 2, NULL), *p = pods("0,x"), *jobs = jobs2("ready", -1, "failed", -1);
    struct rec_plan plan;
    struct err e = {{0}};
    struct feature_gates g = gates("InPlaceRestart=true");
    assert_int_equal(rec_reconcile_gated(js, jobs, p, NOW, &g, &plan, &e), 0);
    assert_int_equal(jx_int_or(plan.status, "restarts", -1), 1);
    rec_plan_release(&plan);
    json_decref(js);
    json_decref(p);
    json_decref(jobs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_restart_job_gate_off),
        cmocka_unit_test(test_restart_job_passes),
        cmocka_unit_test(test_restart_job_ignore_max),
        cmocka_unit_test(test_restart_job_max),
        cmocka_unit_test(test_restart_job_label_errors),
        cmocka_unit_test(test_in_place_restart),
        cmocka_unit_test(test_in_place_gate_off),
        cmocka_unit_test(test_in_place_failed_job),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
