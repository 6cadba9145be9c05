/* The ElasticJobSet gate in the reconcile core (core/elastic.c): upstream's pod-level scaling
 * (kubernetes-sigs/jobset v0.12.0 pkg/controllers/jobset_controller.go syncJobScaling and
 * jobScalingNeedsPatch; the rows of jobset_controller_test.go TestSyncJobScaling, then
 * jaxset's own), and jaxset's Job-level scaling of replicas (KEP-463's future work): which
 * Jobs are created and deleted, in what order, and what the status counts. */
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
#define AT "2026-11-22T09:00:00Z"

static struct feature_gates gates(const char *value)
{
    struct feature_gates g = {0};
    struct err e = {{0}};
    if (*value)
        assert_int_equal(fg_set(&g, value, &e, NULL), 0);
    return g;
}

/* ",'<key>':<v>" for a JSON value text `v`, or "" when NULL. */
static const char *field(char *buf, size_t n, const char *key, const char *v)
{
    if (v)
        snprintf(buf, n, ",'%s':%s", key, v);
    else
        buf[0] = '\0';
    return buf;
}

/* JobSet "js": replicated job w with `replicas` Jobs whose template sets parallelism `par` and
 * completions `comp` (JSON text, NULL: unset); `fp` failurePolicy (NULL: none); `status`. */
static json_t *jobset(int replicas, const char *par, const char *comp, const char *fp,
                      const char *status)
{
    char text[2048], p[64], c[64], f[256];
    snprintf(text, sizeof(text),
             "{'apiVersion':'jobset.x-k8s.io/v1alpha2','kind':'JobSet','metadata':{'name':'js',"
             "'namespace':'default','uid':'u'},'spec':{'replicatedJobs':[{'name':'w',"
             "'replicas':%d,'template':{'spec':{'backoffLimit':0%s%s,'template':{'spec':{"
             "'containers':[{'name':'c','command':['true']}]}}}}}]%s}}",
             replicas, field(p, sizeof(p), "parallelism", par),
             field(c, sizeof(c), "completions", comp), field(f, sizeof(f), "failurePolicy", fp));
    json_t *js = tu_qjson(text);
    assert_int_equal(js_default(js), 0);
    if (status)
        json_object_set_new(js, "status", tu_qjson(status));
    return js;
}

/* Child Job js-w-<idx>: `st` 'r' ready, 's' succeeded, 'f' failed, 't' ready and being deleted,
 * 'p' ready and suspended; spec parallelism/completions `par`/`comp` (JSON text, NULL: unset);
 * job-restart-attempt `attempt` (< 0: no label). */
static json_t *job(int idx, char st, const char *par, const char *comp, int attempt)
{
    char text[1024], name[32], num[16], p[64], c[64];
    snprintf(name, sizeof(name), "js-w-%d", idx);
    snprintf(num, sizeof(num), "%d", idx);
    snprintf(text, sizeof(text),
             "{'apiVersion':'batch/v1','kind':'Job','metadata':{'name':'%s','namespace':"
             "'default'},'spec':{'suspend':%s%s%s},'status':{'active':%d,'ready':%d,"
             "'succeeded':%d,'failed':%d}}",
             name, st == 'p' ? "true" : "false", field(p, sizeof(p), "parallelism", par),
             field(c, sizeof(c), "completions", comp), st == 's' || st == 'f' ? 0 : 1,
             st == 's' || st == 'f' ? 0 : 1, st == 's', st == 'f');
    json_t *j = tu_qjson(text), *meta = jx_obj(j, "metadata");
    jx_set_meta(meta, "labels", LBL_RJ_NAME, "w");
    jx_set_meta(meta, "labels", LBL_RESTART_ATTEMPT, "0");
    jx_set_meta(meta, "labels", LBL_JOB_INDEX, num);
    if (attempt >= 0) {
        snprintf(num, sizeof(num), "%d", attempt);
        jx_set_meta(meta, "labels", LBL_JOB_RESTART_ATTEMPT, num);
    }
    if (st == 't')
        jx_set_str(meta, "deletionTimestamp", AT);
    if (st == 's' || st == 'f')
        json_object_set_new(jx_obj(j, "status"), "conditions",
                            json_pack("[{s:s,s:s,s:s,s:s}]", "type",
                                      st == 's' ? "Complete" : "Failed", "status", "True",
                                      "reason", st == 's' ? "" : "BackoffLimitExceeded",
                                      "lastTransitionTime", AT));
    return j;
}

/* Jobs "rr.f": one per character ('.': none at that index), every one with `par`/`comp`. */
static json_t *jobs_of(const char *states, const char *par, const char *comp, int attempt)
{
    json_t *arr = json_array();
    for (int i = 0; states[i]; i++)
        if (states[i] != '.')
            json_array_append_new(arr, job(i, states[i], par, comp, attempt));
    return arr;
}

static const json_t *rj_entry(const json_t *status)
{
    return json_array_get(jx_arr(status, "replicatedJobsStatus"), 0);
}

/* ---- pod-level scaling: syncJobScaling ----------------------------------------------------- */

struct sync_case {
    const char *name;
    const char *tp, *tc; /* the template's parallelism and completions (NULL: unset) */
    const char *jp, *jc; /* the Job's */
    char state;          /* the Job's state (job()) */
    const char *gates;
    bool patch;
};

static const struct sync_case sync_cases[] = {
    /* kubernetes-sigs/jobset v0.12.0 jobset_controller_test.go TestSyncJobScaling */
    {"jobs in sync, no patch needed", "2", "2", "2", "2", 'r', "ElasticJobSet=true", false},
    {"jobs out of sync, patch needed", "8", "8", "2", "2", 'r', "ElasticJobSet=true", true},
    {"parallelism is changed, completions kept the same (invalid scaling, no patch)", "8", "2",
     "2", "2", 'r', "ElasticJobSet=true", false},
    {"parallelism kept the same, completions is changed (invalid scaling, no patch)", "2", "8",
     "2", "2", 'r', "ElasticJobSet=true", false},
    {"jobs out of sync, but feature gate disabled (no patch)", "8", "8", "2", "2", 'r', "",
     false},
    /* jaxset's */
    {"a scale down is patched too", "1", "1", "4", "4", 'r', "ElasticJobSet=true", true},
    {"a template that sets neither asks nothing of the API server's 1 and 1", NULL, NULL, "1",
     "1", 'r', "ElasticJobSet=true", false},
    {"a template that sets neither brings a Job of 2 back to the defaults", NULL, NULL, "2",
     "2", 'r', "ElasticJobSet=true", true},
    {"a Job being deleted is not patched", "8", "8", "2", "2", 't', "ElasticJobSet=true",
     false},
    {"a suspended Job is patched and stays suspended", "8", "8", "2", "2", 'p',
     "ElasticJobSet=true", true},
    {"other gates alone do not scale", "8", "8", "2", "2", 'r',
     "RestartJob=true,InPlaceRestart=true", false},
};

static void run_sync_case(const struct sync_case *k)
{
    json_t *js = jobset(1, k->tp, k->tc, NULL, NULL);
    json_t *jobs = json_pack("[o]", job(0, k->state, k->jp, k->jc, -1));
    struct feature_gates g = gates(k->gates);
    struct rec_plan p;
    struct err e = {{0}};
    if (k->state == 'p')
        jx_set_bool(jx_obj(js, "spec"), "suspend", true);
    assert_int_equal(rec_reconcile_gated(js, jobs, NULL, NOW, &g, &p, &e), 0);
    size_t scales = 0;
    for (size_t i = 0; i < p.n_patches; i++) {
        const struct rec_patch *pa = &p.patches[i];
        if (!pa->scale)
            continue;
        scales++;
        const json_t *spec = jx_obj(pa->job, "spec");
        assert_string_equal(pa->name, "js-w-0");
        assert_int_equal(pa->suspend, k->state == 'p');
        assert_false(pa->clear_start_time);
        assert_int_equal(jx_int_or(spec, "parallelism", -1), k->tp ? atoll(k->tp) : -1);
        assert_int_equal(jx_int_or(spec, "completions", -1), k->tc ? atoll(k->tc) : -1);
        assert_int_equal(jx_bool_or(spec, "suspend", false), k->state == 'p');
    }
    assert_int_equal(scales, k->patch ? 1 : 0);
    assert_int_equal(p.n_creates + p.n_deletes, 0);
    rec_plan_release(&p);
    json_decref(js);
    json_decref(jobs);
}

static void test_sync_job_scaling(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(sync_cases) / sizeof(sync_cases[0]); i++) {
        print_message("case %zu: %s\n", i, sync_cases[i].name);
        run_sync_case(&sync_cases[i]);
    }
}

/* ---- Job-level scaling: replicas ----------------------------------------------------------- */

struct scale_case {
    const char *name;
    int replicas;
    const char *jobs;    /* jobs_of() */
    const char *gates;
    const char *creates; /* the names created, in order, comma-separated */
    const char *deletes; /* the names deleted, in order */
    long long ready, succeeded, failed, active;
    const char *finished; /* the condition the pass sets, or NULL */
};

#define ON "ElasticJobSet=true"

static const struct scale_case scale_cases[] = {
    {"scale up from 2 to 3 creates index 2", 3, "rr", ON, "js-w-2", "", 2, 0, 0, 2, NULL},
    {"scale up from 1 to 3 creates 1 then 2", 3, "r", ON, "js-w-1,js-w-2", "", 1, 0, 0, 1, NULL},
    {"scale down from 3 to 1 deletes 2 then 1, not counted any more", 1, "rrr", ON, "",
     "js-w-2,js-w-1", 1, 0, 0, 1, NULL},
    {"without the gate the Jobs above replicas stay and count", 1, "rrr", "", "", "", 3, 0, 0, 3,
     NULL},
    {"a failed Job scaled away is no failure of the JobSet", 1, "rf", ON, "", "js-w-1", 1, 0, 0,
     1, NULL},
    {"... which it is without the gate", 1, "rf", "", "", "", 1, 0, 1, 1, "Failed"},
    {"a succeeded Job scaled away does not complete the JobSet", 1, "rs", ON, "", "js-w-1", 1,
     0, 0, 1, NULL},
    {"... which it does without the gate", 1, "rs", "", "", "", 1, 1, 0, 1, "Completed"},
    {"a Job scaled away and being deleted is not deleted again", 2, "rrt", ON, "", "", 2, 0, 0,
     2, NULL},
    {"scaled up again before it is gone, its name is not reused yet", 3, "rrt", ON, "", "", 3, 0,
     0, 3, NULL},
    {"scale down to 2 deletes only what is above", 2, "rr.rr", ON, "", "js-w-4,js-w-3", 2, 0, 0,
     2, NULL},
};

typedef const char *name_fn(const struct rec_plan *p, size_t i);

/* "a,b" == the names name_at gives for 0..n-1. */
static void expect_names(const char *want, size_t n, name_fn *name_at, const struct rec_plan *p)
{
    char got[256] = "";
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(got);
        snprintf(got + len, sizeof(got) - len, "%s%s", i ? "," : "", name_at(p, i));
    }
    assert_string_equal(got, want);
}

static const char *create_at(const struct rec_plan *p, size_t i)
{
    return jx_str(jx_obj(p->creates[i], "metadata"), "name");
}

static const char *delete_at(const struct rec_plan *p, size_t i)
{
    return p->deletes[i].name;
}

static void run_scale_case(const struct scale_case *k)
{
    json_t *js = jobset(k->replicas, "1", "1", NULL, NULL);
    json_t *jobs = jobs_of(k->jobs, "1", "1", -1);
    struct feature_gates g = gates(k->gates);
    struct rec_plan p;
    struct err e = {{0}};
    assert_int_equal(rec_reconcile_gated(js, jobs, NULL, NOW, &g, &p, &e), 0);
    expect_names(k->creates, p.n_creates, create_at, &p);
    expect_names(k->deletes, p.n_deletes, delete_at, &p);
    for (size_t i = 0; i < p.n_deletes; i++)
        assert_true(p.deletes[i].foreground);
    assert_int_equal(p.n_patches, 0);
    const json_t *rj = rj_entry(p.status);
    assert_int_equal(jx_int_or(rj, "ready", -1), k->ready);
    assert_int_equal(jx_int_or(rj, "succeeded", -1), k->succeeded);
    assert_int_equal(jx_int_or(rj, "failed", -1), k->failed);
    assert_int_equal(jx_int_or(rj, "active", -1), k->active);
    assert_int_equal(jx_int_or(p.status, "restarts", -1), 0);
    const char *term = jx_str(p.status, "terminalState");
    if (k->finished)
        assert_string_equal(term, k->finished);
    else
        assert_null(term);
    for (size_t i = 0; i < p.n_creates; i++) /* made as any Job: its index, the template's */
        assert_int_equal(jx_int_or(jx_obj(p.creates[i], "spec"), "parallelism", -1), 1);
    rec_plan_release(&p);
    json_decref(js);
    json_decref(jobs);
}

static void test_scale_replicas(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(scale_cases) / sizeof(scale_cases[0]); i++) {
        print_message("case %zu: %s\n", i, scale_cases[i].name);
        run_scale_case(&scale_cases[i]);
    }
}

/* Replicas and parallelism changed together: the kept Jobs are patched, the new one made at
 * the new size, the one above deleted. */
static void test_scale_both(void **state)
{
    (void)state;
    struct feature_gates g = gates(ON);
    struct rec_plan p;
    struct err e = {{0}};
    json_t *js = jobset(2, "4", "4", NULL, NULL), *jobs = jobs_of("r.r", "2", "2", -1);
    assert_int_equal(rec_reconcile_gated(js, jobs, NULL, NOW, &g, &p, &e), 0);
    assert_int_equal(p.n_deletes, 1);
    assert_string_equal(p.deletes[0].name, "js-w-2");
    assert_int_equal(p.n_creates, 1);
    assert_string_equal(create_at(&p, 0), "js-w-1");
    assert_int_equal(jx_int_or(jx_obj(p.creates[0], "spec"), "parallelism", -1), 4);
    assert_int_equal(p.n_patches, 1);
    assert_true(p.patches[0].scale);
    assert_string_equal(p.patches[0].name, "js-w-0");
    assert_int_equal(jx_int_or(jx_obj(p.patches[0].job, "spec"), "completions", -1), 4);
    rec_plan_release(&p);
    json_decref(js);
    json_decref(jobs);
}

/* With RestartJob on too, the per-Job restart lists follow replicas: a new index starts at 0,
 * a Job above replicas is deleted rather than refused as out of bounds. */
static void test_scale_with_restart_job(void **state)
{
    (void)state;
    struct feature_gates g = gates("RestartJob=true,ElasticJobSet=true");
    struct feature_gates only = gates("RestartJob=true");
    struct rec_plan p;
    struct err e = {{0}};
    const char *st = "{'restarts':0,'replicatedJobsStatus':[{'name':'w','ready':2,"
                     "'succeeded':0,'failed':0,'active':2,'suspended':0,'jobRestarts':[0,1]}]}";
    json_t *js = jobset(3, "1", "1", "{'maxRestarts':3}", st);
    json_t *jobs = json_pack("[oo]", job(0, 'r', "1", "1", 0), job(1, 'r', "1", "1", 1));
    assert_int_equal(rec_reconcile_gated(js, jobs, NULL, NOW, &g, &p, &e), 0);
    assert_int_equal(p.n_creates, 1);
    const json_t *meta = jx_obj(p.creates[0], "metadata");
    assert_string_equal(jx_str(meta, "name"), "js-w-2");
    assert_string_equal(jx_get_meta(meta, "labels", LBL_JOB_RESTART_ATTEMPT), "0");
    char *got = json_dumps(json_object_get(rj_entry(p.status), "jobRestarts"), JSON_COMPACT);
    assert_string_equal(got, "[0,1,0]");
    free(got);
    rec_plan_release(&p);
    json_decref(js);
    /* down to 1: js-w-1 (index 1 of a list now [0]) is deleted, not an error */
    js = jobset(1, "1", "1", "{'maxRestarts':3}", st);
    assert_int_equal(rec_reconcile_gated(js, jobs, NULL, NOW, &g, &p, &e), 0);
    assert_int_equal(p.n_deletes, 1);
    assert_string_equal(p.deletes[0].name, "js-w-1");
    got = json_dumps(json_object_get(rj_entry(p.status), "jobRestarts"), JSON_COMPACT);
    assert_string_equal(got, "[0]");
    free(got);
    rec_plan_release(&p);
    /* RestartJob alone keeps upstream's error for a Job outside the list */
    json_object_set_new(js, "status", tu_qjson("{'replicatedJobsStatus':[{'name':'w',"
                                               "'jobRestarts':[0]}]}"));
    assert_int_equal(rec_reconcile_gated(js, jobs, NULL, NOW, &only, &p, &e), -EINVAL);
    assert_string_equal(e.msg, "job js-w-1: job index 1 is out of bounds for replicated job w");
    json_decref(js);
    json_decref(jobs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sync_job_scaling),
        cmocka_unit_test(test_scale_replicas),
        cmocka_unit_test(test_scale_both),
        cmocka_unit_test(test_scale_with_restart_job),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
