/* Tests of the JobSet status math (src/core/status.h): the condition update
 * algorithm (kubernetes-sigs/jobset updateCondition), child Job classification and readiness,
 * semantic status equality. */
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/schema/keys.h"
#include "core/status.h"
#include "obj/tree/jx.h"

#define NOW_STR "2026-11-22T10:00:00Z"
#define OLD "2026-11-22T08:00:00Z"

/* ---- updateCondition ----------------------------------------------------------------------- */

#define C(type, st, reason, msg)                                                              \
    "{'type':'" type "','status':'" st "','lastTransitionTime':'" OLD "','reason':'" reason    \
    "','message':'" msg "'}"

struct cond_case {
    const char *name;
    const char *existing; /* JSON array or NULL */
    struct rec_cond c;
    int rc;
    const char *want; /* "Type=Status/Reason/Message@time; ..." ("@-" = no time, "+og" =
                       * observedGeneration kept) */
};

static const struct cond_case cond_cases[] = {
    {"append True when absent", NULL, {"Completed", true, "R", "m", REC_EVENT_NORMAL}, 1,
     "Completed=True/R/m@" NOW_STR},
    {"False not appended when absent", NULL, {"Suspended", false, "ResumeJobs", "m", REC_EVENT_NORMAL}, 0, ""},
    {"False not appended next to other types", "[" C("Completed", "True", "R", "m") "]",
     {"RestartingJobSet", false, "JobsReady", "m", REC_EVENT_NORMAL}, 0, "Completed=True/R/m@" OLD},
    {"status change replaces with a new time", "[" C("Suspended", "True", "SuspendedJobs", "s") "]",
     {"Suspended", false, "ResumeJobs", "r", REC_EVENT_NORMAL}, 1, "Suspended=False/ResumeJobs/r@" NOW_STR},
    {"reason change keeps the time", "[" C("RestartingJobSet", "False", "JobsReady", "a") "]",
     {"RestartingJobSet", false, "JobSetCompleted", "a", REC_EVENT_NORMAL}, 1,
     "RestartingJobSet=False/JobSetCompleted/a@" OLD},
    {"message change keeps the time", "[" C("RestartingJobSet", "True", "X", "first: a") "]",
     {"RestartingJobSet", true, "X", "first: b", REC_EVENT_NORMAL}, 1, "RestartingJobSet=True/X/first: b@" OLD},
    {"identical condition: nothing", "[" C("Suspended", "True", "SuspendedJobs", "s") "]",
     {"Suspended", true, "SuspendedJobs", "s", REC_EVENT_NORMAL}, 0, "Suspended=True/SuspendedJobs/s@" OLD},
    {"InProgress True + Completed True: InProgress becomes False",
     "[" C("StartupPolicyInProgress", "True", "P", "p") "]",
     {"StartupPolicyCompleted", true, "D", "d", REC_EVENT_NORMAL}, 1,
     "StartupPolicyInProgress=False/P/p@" OLD "; StartupPolicyCompleted=True/D/d@" NOW_STR},
    {"Completed True + InProgress True: Completed becomes False",
     "[" C("StartupPolicyCompleted", "True", "D", "d") "]",
     {"StartupPolicyInProgress", true, "P", "p", REC_EVENT_NORMAL}, 1,
     "StartupPolicyCompleted=False/D/d@" OLD "; StartupPolicyInProgress=True/P/p@" NOW_STR},
    {"pairing needs the existing one True",
     "[" C("StartupPolicyCompleted", "False", "D", "d") "]",
     {"StartupPolicyInProgress", true, "P", "p", REC_EVENT_NORMAL}, 1,
     "StartupPolicyCompleted=False/D/d@" OLD "; StartupPolicyInProgress=True/P/p@" NOW_STR},
    {"pairing needs the new one True", "[" C("StartupPolicyInProgress", "True", "P", "p") "]",
     {"StartupPolicyCompleted", false, "D", "d", REC_EVENT_NORMAL}, 0, "StartupPolicyInProgress=True/P/p@" OLD},
    {"other types are not paired", "[" C("Suspended", "True", "S", "s") "]",
     {"Completed", true, "R", "m", REC_EVENT_NORMAL}, 1, "Suspended=True/S/s@" OLD "; Completed=True/R/m@" NOW_STR},
    {"replacement happens in place",
     "[" C("Suspended", "True", "S", "s") "," C("RestartingJobSet", "True", "X", "x") "," C(
         "Completed", "False", "R", "m") "]",
     {"RestartingJobSet", false, "JobSetFailed", "f", REC_EVENT_NORMAL}, 1,
     "Suspended=True/S/s@" OLD "; RestartingJobSet=False/JobSetFailed/f@" NOW_STR
     "; Completed=False/R/m@" OLD},
    {"replacement drops fields the new condition lacks",
     "[{'type':'Suspended','status':'True','observedGeneration':3,'lastTransitionTime':'" OLD
     "','reason':'S','message':'s'}]",
     {"Suspended", true, "S", "changed", REC_EVENT_NORMAL}, 1, "Suspended=True/S/changed@" OLD},
    {"unchanged condition keeps extra fields",
     "[{'type':'Suspended','status':'True','observedGeneration':3,'lastTransitionTime':'" OLD
     "','reason':'S','message':'s'}]",
     {"Suspended", true, "S", "s", REC_EVENT_NORMAL}, 0, "Suspended=True/S/s@" OLD "+og"},
    {"kept time may be absent",
     "[{'type':'Suspended','status':'True','reason':'S','message':'s'}]",
     {"Suspended", true, "S2", "s", REC_EVENT_NORMAL}, 1, "Suspended=True/S2/s@-"},
};

static void render_conds(const json_t *arr, char *out, size_t n)
{
    size_t i, off = 0;
    const json_t *c;
    out[0] = 0;
    json_array_foreach (arr, i, c) {
        const char *t = jx_str(c, "lastTransitionTime");
        off += (size_t)snprintf(out + off, n - off, "%s%s=%s/%s/%s@%s%s", i ? "; " : "",
                                jx_str(c, "type"), jx_str(c, "status"), jx_str(c, "reason"),
                                jx_str(c, "message"), t ? t : "-",
                                json_object_get(c, "observedGeneration") ? "+og" : "");
    }
}

static void test_cond_set(void **state)
{
    (void)state;
    char got[2048];
    for (size_t i = 0; i < sizeof(cond_cases) / sizeof(cond_cases[0]); i++) {
        const struct cond_case *k = &cond_cases[i];
        json_t *st = json_object();
        if (k->existing)
            json_object_set_new(st, "conditions", tu_qjson(k->existing));
        int rc = rec_cond_set(st, &k->c, NOW_STR);
        render_conds(jx_arr(st, "conditions"), got, sizeof(got));
        if (rc != k->rc || strcmp(got, k->want) != 0)
            fail_msg("%s: want rc %d \"%s\", got rc %d \"%s\"", k->name, k->rc, k->want, rc, got);
        if (!k->existing && !k->rc)
            assert_null(json_object_get(st, "conditions"));
        json_decref(st);
    }
}

static void test_fixed_conditions(void **state)
{
    (void)state;
    /* the conditions with fixed text (upstream pkg/constants/constants.go) */
    static const struct {
        const struct rec_cond *c;
        const char *want;
    } rows[] = {
        {&rec_cond_completed, "Completed True AllJobsCompleted jobset completed successfully N"},
        {&rec_cond_suspended, "Suspended True SuspendedJobs jobset is suspended N"},
        {&rec_cond_resumed, "Suspended False ResumeJobs jobset is resumed N"},
        {&rec_cond_startup_in_progress, "StartupPolicyInProgress True "
                                        "InOrderStartupPolicyInProgress in order startup policy "
                                        "is in progress N"},
        {&rec_cond_startup_completed, "StartupPolicyCompleted True InOrderStartupPolicyCompleted "
                                      "in order startup policy has completed N"},
        {&rec_cond_restarting_jobs_ready, "RestartingJobSet False JobsReady all jobs are ready N"},
        {&rec_cond_restarting_failed, "RestartingJobSet False JobSetFailed jobset failed N"},
        {&rec_cond_restarting_completed, "RestartingJobSet False JobSetCompleted jobset "
                                         "completed successfully N"},
        {&rec_cond_restarting_suspended, "RestartingJobSet False JobSetSuspended jobset is "
                                         "suspended N"},
    };
    char got[256];
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        const struct rec_cond *c = rows[i].c;
        snprintf(got, sizeof(got), "%s %s %s %s %c", c->type, c->status ? "True" : "False",
                 c->reason, c->message, c->event == REC_EVENT_NORMAL ? 'N' : 'W');
        assert_string_equal(got, rows[i].want);
    }
}

static void test_finished(void **state)
{
    (void)state;
    static const struct {
        const char *conds;
        bool want;
        const char *reason;
    } cases[] = {
        {"[]", false, NULL},
        {"[" C("Completed", "False", "R", "m") "]", false, NULL},
        {"[" C("Suspended", "True", "S", "s") "," C("Failed", "True", "F", "f") "]", true, "F"},
        {"[" C("Completed", "True", "A", "a") "," C("Failed", "True", "F", "f") "]", true, "A"},
        {"[" C("Restarting", "True", "X", "x") "]", false, NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *arr = tu_qjson(cases[i].conds);
        const json_t *c = NULL;
        assert_int_equal(rec_finished(arr, &c), cases[i].want);
        if (cases[i].want)
            assert_string_equal(jx_str(c, "reason"), cases[i].reason);
        json_decref(arr);
    }
    assert_false(rec_finished(NULL, NULL));
}

/* ---- child Jobs ---------------------------------------------------------------------------- */

static const struct {
    const char *attempt; /* NULL = no label */
    long long restarts;
    const char *conds;
    int rc;
    enum rec_bucket want;
} classify_cases[] = {
    {"0", 0, "[]", 0, REC_BUCKET_ACTIVE},
    {"0", 1, "[]", 0, REC_BUCKET_PREVIOUS},
    {"0", 1, "[{'type':'Failed','status':'True'}]", 0, REC_BUCKET_PREVIOUS},
    {"2", 1, "[]", 0, REC_BUCKET_ACTIVE},
    {"+1", 1, "[]", 0, REC_BUCKET_ACTIVE},
    {"-1", 0, "[]", 0, REC_BUCKET_PREVIOUS},
    {"1", 1, "[{'type':'Complete','status':'True'}]", 0, REC_BUCKET_SUCCEEDED},
    {"1", 1, "[{'type':'Failed','status':'True'}]", 0, REC_BUCKET_FAILED},
    {"1", 1, "[{'type':'Failed','status':'False'},{'type':'Complete','status':'True'}]", 0,
     REC_BUCKET_SUCCEEDED},
    {"1", 1, "[{'type':'Complete','status':'True'},{'type':'Failed','status':'True'}]", 0,
     REC_BUCKET_SUCCEEDED},
    {"1", 1, "[{'type':'FailureTarget','status':'True'}]", 0, REC_BUCKET_ACTIVE},
    {"1", 1, "[{'type':'SuccessCriteriaMet','status':'True'}]", 0, REC_BUCKET_ACTIVE},
    {"1", 1, "[{'type':'Complete','status':'Unknown'}]", 0, REC_BUCKET_ACTIVE},
    {NULL, 0, "[]", -EINVAL, 0},
    {"", 0, "[]", -EINVAL, 0},
    {" 1", 0, "[]", -EINVAL, 0},
    {"1x", 0, "[]", -EINVAL, 0},
    {"+", 0, "[]", -EINVAL, 0},
};

static void test_classify(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(classify_cases) / sizeof(classify_cases[0]); i++) {
        json_t *job = tu_qjson("{'metadata':{'name':'j'},'status':{}}");
        if (classify_cases[i].attempt)
            jx_set_meta(json_object_get(job, "metadata"), "labels", LBL_RESTART_ATTEMPT,
                        classify_cases[i].attempt);
        json_object_set_new(json_object_get(job, "status"), "conditions",
                            tu_qjson(classify_cases[i].conds));
        enum rec_bucket b = REC_BUCKET_N;
        const json_t *fc = NULL;
        int rc = rec_job_classify(job, classify_cases[i].restarts, &b, &fc);
        if (rc != classify_cases[i].rc || (!rc && b != classify_cases[i].want))
            fail_msg("case %zu: want rc %d bucket %d, got rc %d bucket %d", i,
                     classify_cases[i].rc, classify_cases[i].want, rc, b);
        if (!rc && b == REC_BUCKET_FAILED)
            assert_string_equal(jx_str(fc, "type"), "Failed");
        json_decref(job);
    }
}

static void test_job_ready(void **state)
{
    (void)state;
    static const struct {
        const char *job;
        bool want;
    } cases[] = {
        {"{}", false}, /* parallelism defaults to 1 */
        {"{'status':{'ready':1}}", true},
        {"{'spec':{'parallelism':3},'status':{'ready':2}}", false},
        {"{'spec':{'parallelism':3},'status':{'ready':2,'succeeded':1}}", true},
        {"{'spec':{'parallelism':3,'completions':2},'status':{'ready':2}}", true},
        {"{'spec':{'parallelism':2,'completions':5},'status':{'ready':1}}", false},
        {"{'spec':{'parallelism':2,'completions':5},'status':{'ready':2}}", true},
        {"{'spec':{'parallelism':0}}", true},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *job = tu_qjson(cases[i].job);
        if (rec_job_ready(job) != cases[i].want)
            fail_msg("%s: want %d", cases[i].job, cases[i].want);
        json_decref(job);
    }
}

/* ---- semantic equality ------------------------------------------------------------------- */

#define RJ(name, r) "{'name':'" name "','ready':" #r ",'succeeded':0,'failed':0,'active':0,'suspended':0}"

static const struct {
    const char *a, *b;
    bool equal;
} eq_cases[] = {
    {NULL, "{}", true},
    {"{'restarts':0}", NULL, true},
    {"{'restarts':1}", "{}", false},
    {"{'restartsCountTowardsMax':0}", "{}", true},
    {"{'restartsCountTowardsMax':1}", "{}", false},
    {"{'terminalState':''}", "{}", true},
    {"{'terminalState':'Failed'}", "{}", false},
    {"{'conditions':[]}", "{}", true},
    {"{'replicatedJobsStatus':[]}", "{}", true},
    {"{'replicatedJobsStatus':[" RJ("a", 1) "," RJ("b", 2) "]}",
     "{'replicatedJobsStatus':[" RJ("b", 2) "," RJ("a", 1) "]}", true},
    {"{'replicatedJobsStatus':[{'name':'a','ready':1}]}",
     "{'replicatedJobsStatus':[" RJ("a", 1) "]}", true},
    {"{'replicatedJobsStatus':[{'name':'a','ready':1,'jobRestarts':[]}]}",
     "{'replicatedJobsStatus':[" RJ("a", 1) "]}", true},
    {"{'replicatedJobsStatus':[" RJ("a", 1) "]}", "{'replicatedJobsStatus':[" RJ("a", 2) "]}",
     false},
    {"{'replicatedJobsStatus':[" RJ("a", 1) "]}",
     "{'replicatedJobsStatus':[" RJ("a", 1) "," RJ("b", 0) "]}", false},
    {"{'conditions':[" C("A", "True", "r", "m") "," C("B", "True", "r", "m") "]}",
     "{'conditions':[" C("B", "True", "r", "m") "," C("A", "True", "r", "m") "]}", false},
    {"{'conditions':[" C("A", "True", "r", "m") "]}", "{'conditions':[" C("A", "True", "r", "n") "]}",
     false},
    {"{'currentInPlaceRestartAttempt':1}", "{}", false},
    {"{'currentInPlaceRestartAttempt':null}", "{}", true},
};

static void test_status_equal(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(eq_cases) / sizeof(eq_cases[0]); i++) {
        json_t *a = eq_cases[i].a ? tu_qjson(eq_cases[i].a) : NULL;
        json_t *b = eq_cases[i].b ? tu_qjson(eq_cases[i].b) : NULL;
        if (rec_status_equal(a, b) != eq_cases[i].equal || rec_status_equal(b, a) != eq_cases[i].equal)
            fail_msg("%s vs %s: want equal=%d", eq_cases[i].a ? eq_cases[i].a : "NULL",
                     eq_cases[i].b ? eq_cases[i].b : "NULL", eq_cases[i].equal);
        json_decref(a);
        json_decref(b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cond_set),       cmocka_unit_test(test_fixed_conditions),
        cmocka_unit_test(test_finished),       cmocka_unit_test(test_classify),
        cmocka_unit_test(test_job_ready),      cmocka_unit_test(test_status_equal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
