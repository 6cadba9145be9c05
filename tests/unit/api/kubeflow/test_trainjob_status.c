/* Tests of the TrainJob status rules (src/api/kubeflow/trainjob_status.h): Trainer v2's condition
 * transitions (kubeflow/trainer pkg/controller/trainjob_controller.go, the JobSet plugin's
 * Status), activeDeadlineSeconds, and what jaxset refuses to run, as tables. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/kubeflow/trainjob_status.h"
#include "obj/tree/jx.h"
#include "obj/base/ktime.h"

#define NOW_STR "2026-11-22T10:00:00Z"
#define OLD "2026-11-22T08:00:00Z"
#define JS_TIME "2026-11-22T09:00:00Z"
#define CREATED "2026-11-22T06:00:00Z"

struct tcase {
    const char *name;
    const char *spec_extra; /* JSON merged into spec, or NULL */
    const char *old;        /* "Type=Status/Reason;..." or NULL (no status) */
    const char *js_cond;    /* JobSet condition True ("Completed"/"Failed"), "" none, NULL: no
                             * JobSet */
    const char *why;        /* obs.why */
    const char *want;       /* conditions, in order */
    const char *want_events; /* "Reason;..." (all Warning) */
    const char *want_msg;   /* substring of the last condition's message */
    bool changed, del_js, finished;
    int requeue;            /* -1 none, 1 some */
};

static const struct tcase cases[] = {
    {"nothing yet", NULL, NULL, NULL, NULL, "", "", NULL, false, false, false, -1},
    {"a JobSet running: jobsStatus only", NULL, NULL, "", NULL, "", "", NULL, true, false,
     false, -1},
    {"the JobSet completed: Complete, copied", NULL, NULL, "Completed", NULL,
     "Complete=True/AllJobsCompleted", "", "jobset completed", true, false, true, -1},
    {"the JobSet failed: Failed, copied", NULL, NULL, "Failed", NULL, "Failed=True/FailedJobs",
     "", "jobset failed", true, false, true, -1},
    {"suspended", "{'suspend':true}", NULL, "", NULL, "Suspended=True/Suspended", "",
     "TrainJob is suspended", true, false, false, -1},
    {"resumed", "{'suspend':false}", "Suspended=True/Suspended", "", NULL,
     "Suspended=False/Resumed", "", "TrainJob is resumed", true, false, false, -1},
    {"never suspended: no Suspended condition", "{'suspend':false}", NULL, NULL, NULL, "", "",
     NULL, false, false, false, -1},
    {"runtime missing: Failed and an event", NULL, NULL, NULL, TJS_RUNTIME_NOT_FOUND,
     "Failed=True/TrainingRuntimeNotFound", "TrainingRuntimeNotFound", "why", true, false,
     false, -1},
    {"still missing: no new event, no change", NULL, "Failed=True/TrainingRuntimeNotFound",
     NULL, TJS_RUNTIME_NOT_FOUND, "Failed=True/TrainingRuntimeNotFound", "", NULL, false, false,
     false, -1},
    {"runtime found since: Failed cleared", NULL, "Failed=True/TrainingRuntimeNotFound", "",
     NULL, "", "", NULL, true, false, false, -1},
    {"another reason: a new event", NULL, "Failed=True/TrainingRuntimeNotFound", NULL,
     TJS_NOT_IMPLEMENTED, "Failed=True/NotImplementedByJaxset", "NotImplementedByJaxset", NULL,
     true, false, false, -1},
    {"deadline ahead: look again", "{'activeDeadlineSeconds':36000}", NULL, "", NULL, "", "",
     NULL, true, false, false, 1},
    {"deadline passed: Failed, the JobSet deleted", "{'activeDeadlineSeconds':60}", NULL, "",
     NULL, "Failed=True/DeadlineExceeded", "", "TrainJob exceeded its active deadline", true,
     true, true, -1},
    {"deadline passed since creation", "{'activeDeadlineSeconds':10800}", NULL, "", NULL,
     "Failed=True/DeadlineExceeded", "", NULL, true, true, true, -1},
    {"deadline Failed stays", "{'activeDeadlineSeconds':60}", "Failed=True/DeadlineExceeded",
     NULL, NULL, "Failed=True/DeadlineExceeded", "", NULL, false, false, true, -1},
    {"deadline counted from the resume", "{'activeDeadlineSeconds':10800}",
     "Suspended=False/Resumed", "", NULL, "Suspended=False/Resumed", "", NULL, true, false,
     false, 1},
    {"no deadline while suspended", "{'activeDeadlineSeconds':60,'suspend':true}", NULL, "",
     NULL, "Suspended=True/Suspended", "", NULL, true, false, false, -1},
};

static json_t *conds_of(const char *spec)
{
    json_t *out = json_array();
    for (const char *t = spec; *t; t += strcspn(t, ";") + (t[strcspn(t, ";")] == ';')) {
        char type[64], status[16], reason[64];
        assert_int_equal(sscanf(t, "%63[^=]=%15[^/]/%63[^;]", type, status, reason), 3);
        json_array_append_new(out, json_pack("{s:s,s:s,s:s,s:s,s:s}", "type", type, "status",
                                             status, "reason", reason, "message", "why",
                                             "lastTransitionTime", OLD));
    }
    return out;
}

/* Created four hours before NOW; the old conditions (a resume among them) two hours before. */
static json_t *trainjob_of(const struct tcase *c)
{
    json_t *tj = json_pack("{s:{s:s,s:s,s:s,s:s},s:{s:{s:s}}}", "metadata", "name", "tj",
                           "namespace", "ns", "uid", "u1", "creationTimestamp", CREATED, "spec",
                           "runtimeRef", "name", "jax-distributed");
    if (c->spec_extra) {
        json_t *x = tu_qjson(c->spec_extra);
        json_object_update(jx_obj(tj, "spec"), x);
        json_decref(x);
    }
    if (c->old)
        jx_set_new(tj, "status", json_pack("{s:o}", "conditions", conds_of(c->old)));
    return tj;
}

static json_t *jobset_of(const struct tcase *c)
{
    if (!c->js_cond)
        return NULL;
    json_t *conds = json_array();
    if (strcmp(c->js_cond, "Completed") == 0)
        json_array_append_new(conds, json_pack("{s:s,s:s,s:s,s:s,s:s}", "type", "Completed",
                                               "status", "True", "reason", "AllJobsCompleted",
                                               "message", "jobset completed successfully",
                                               "lastTransitionTime", JS_TIME));
    else if (strcmp(c->js_cond, "Failed") == 0)
        json_array_append_new(conds, json_pack("{s:s,s:s,s:s,s:s,s:s}", "type", "Failed",
                                               "status", "True", "reason", "FailedJobs",
                                               "message", "jobset failed due to one or more "
                                               "job failures", "lastTransitionTime", JS_TIME));
    return json_pack("{s:{s:o,s:[{s:s,s:i,s:i,s:i,s:i,s:i}]}}", "status", "conditions", conds,
                     "replicatedJobsStatus", "name", "node", "ready", 1, "succeeded", 0,
                     "failed", 0, "active", 1, "suspended", 0);
}

static void conds_str(const json_t *st, char *out, size_t n)
{
    size_t i, len = 0;
    json_t *k;
    out[0] = '\0';
    json_array_foreach (jx_arr(st, "conditions"), i, k)
        len += (size_t)snprintf(out + len, n - len, "%s%s=%s/%s", i ? ";" : "",
                                jx_str(k, "type"), jx_str(k, "status"), jx_str(k, "reason"));
}

static void events_str(const json_t *evs, char *out, size_t n)
{
    size_t i, len = 0;
    json_t *e;
    out[0] = '\0';
    json_array_foreach (evs, i, e) {
        assert_string_equal(jx_str(e, "type"), "Warning");
        len += (size_t)snprintf(out + len, n - len, "%s%s", i ? ";" : "", jx_str(e, "reason"));
    }
}

static void check_case(const struct tcase *c, const struct tjs_result *r)
{
    char got[1024];
    conds_str(r->status, got, sizeof(got));
    if (strcmp(got, c->want) != 0)
        fail_msg("%s: conditions %s, want %s", c->name, got, c->want);
    events_str(r->events, got, sizeof(got));
    if (strcmp(got, c->want_events) != 0)
        fail_msg("%s: events %s, want %s", c->name, got, c->want_events);
    size_t n = json_array_size(jx_arr(r->status, "conditions"));
    const char *msg = jx_str(json_array_get(jx_arr(r->status, "conditions"), n - 1), "message");
    if (c->want_msg && (!msg || !strstr(msg, c->want_msg)))
        fail_msg("%s: message %s, want %s", c->name, msg ? msg : "(none)", c->want_msg);
    if (r->changed != c->changed || r->delete_jobset != c->del_js ||
        r->finished != c->finished || (c->requeue < 0) != (r->requeue_ms < 0))
        fail_msg("%s: changed %d del_js %d finished %d requeue %lld", c->name, r->changed,
                 r->delete_jobset, r->finished, (long long)r->requeue_ms);
    if (c->js_cond && json_array_size(jx_arr(r->status, "jobsStatus")) != 1)
        fail_msg("%s: jobsStatus %zu entries", c->name,
                 json_array_size(jx_arr(r->status, "jobsStatus")));
}

static void test_table(void **state)
{
    (void)state;
    int64_t now;
    assert_int_equal(kt_parse(NOW_STR, &now), 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct tcase *c = &cases[i];
        json_t *tj = trainjob_of(c), *js = jobset_of(c);
        struct tjs_obs obs = {js, c->why, c->why ? "why" : NULL};
        struct tjs_result r;
        assert_int_equal(tjs_compute(tj, &obs, now, &r), 0);
        check_case(c, &r);
        tjs_result_release(&r);
        json_decref(tj);
        json_decref(js);
    }
}

/* jobsStatus is the JobSet's replicatedJobsStatus; a copied condition keeps the JobSet's
 * lastTransitionTime; Failed keeps its time while it stays. */
static void test_details(void **state)
{
    (void)state;
    int64_t now;
    assert_int_equal(kt_parse(NOW_STR, &now), 0);
    const struct tcase c = {.js_cond = "Completed", .old = "Failed=True/TrainingRuntimeNotFound"};
    json_t *tj = trainjob_of(&c), *js = jobset_of(&c);
    struct tjs_obs obs = {js, NULL, NULL};
    struct tjs_result r;
    assert_int_equal(tjs_compute(tj, &obs, now, &r), 0);
    json_t *want = tu_qjson("[{'name':'node','ready':1,'succeeded':0,'failed':0,'active':1,"
                            "'suspended':0}]");
    assert_true(json_equal(jx_arr(r.status, "jobsStatus"), want));
    const json_t *cc = json_array_get(jx_arr(r.status, "conditions"), 0);
    assert_string_equal(jx_str(cc, "type"), "Complete");
    assert_string_equal(jx_str(cc, "lastTransitionTime"), JS_TIME);
    tjs_result_release(&r);
    obs = (struct tjs_obs){NULL, TJS_RUNTIME_NOT_FOUND, "other words"};
    assert_int_equal(tjs_compute(tj, &obs, now, &r), 0);
    cc = json_array_get(jx_arr(r.status, "conditions"), 0);
    assert_string_equal(jx_str(cc, "lastTransitionTime"), OLD);
    assert_string_equal(jx_str(cc, "message"), "other words");
    tjs_result_release(&r);
    json_decref(want);
    json_decref(tj);
    json_decref(js);
}

static void test_unsupported(void **state)
{
    (void)state;
    static const struct {
        const char *tj_spec, *rt_spec, *want; /* want: message prefix, or NULL */
    } t[] = {
        {"{}", "{'mlPolicy':{'jax':{}}}", NULL},
        /* runtime patches, initializers and pod groups are built (api/kubeflow/trainjob_patch.h,
         * api/kubeflow/trainjob_init.h, api/kubeflow/trainjob_podgroup.h), not refused */
        {"{'initializer':{'model':{'storageUri':'hf://m'}}}", "{'mlPolicy':{'jax':{}}}", NULL},
        {"{'runtimePatches':[{'manager':'m'}]}", "{'mlPolicy':{'jax':{}}}", NULL},
        {"{}", "{'mlPolicy':{'jax':{}},'podGroupPolicy':{'coscheduling':{}}}", NULL},
        {"{}", "{'mlPolicy':{'jax':{},'torch':{}}}", "spec.mlPolicy.torch:"},
        {"{}", "{'mlPolicy':{'jax':{},'mpi':{}},'podGroupPolicy':{'volcano':{}}}",
         "spec.mlPolicy.mpi:"},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        json_t *tj = json_pack("{s:o}", "spec", tu_qjson(t[i].tj_spec));
        json_t *rt = json_pack("{s:s,s:{s:s},s:o}", "kind", "ClusterTrainingRuntime",
                               "metadata", "name", "r", "spec", tu_qjson(t[i].rt_spec));
        char buf[512];
        const char *got = tjs_unsupported(tj, rt, buf, sizeof(buf));
        if (t[i].want ? !got || strncmp(got, t[i].want, strlen(t[i].want)) != 0 : got != NULL)
            fail_msg("case %zu: got %s, want %s", i, got ? got : "NULL",
                     t[i].want ? t[i].want : "NULL");
        json_decref(tj);
        json_decref(rt);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_details),
        cmocka_unit_test(test_unsupported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
