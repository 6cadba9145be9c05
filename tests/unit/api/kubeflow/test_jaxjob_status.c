/* Tests of the JAXJob status rules (src/api/kubeflow/jaxjob_status.h): every condition transition of the
 * Training Operator v1 (kubeflow/training-operator pkg/controller.v1/jax UpdateJobStatus,
 * pkg/controller.v1/common/job.go ReconcileJobs, pkg/util/status.go), runPolicy's suspend,
 * activeDeadlineSeconds, ttlSecondsAfterFinished and cleanPodPolicy, as one table. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/kubeflow/jaxjob_status.h"
#include "obj/tree/jx.h"
#include "obj/base/ktime.h"

#define NOW_STR "2026-11-22T10:00:00Z"
#define OLD "2026-11-22T08:00:00Z"

struct jcase {
    const char *name;
    const char *restart;    /* Worker restartPolicy (NULL: unset, Never) */
    const char *run_policy; /* JSON with ' or NULL */
    const char *old;        /* "Type=Status/Reason;..." (reasons without "JAXJob"), NULL: none */
    const char *old_extra;  /* JSON object merged into the old status, or NULL */
    long long active, succeeded, failed; /* the Job's counters */
    const char *js_cond;    /* the JobSet's condition True: "Failed", "Completed", "" (none),
                             * NULL: no JobSet */
    const char *job_reason; /* the failed Job's reason (with js_cond Failed) */
    const char *invalid;
    const char *want;       /* conditions, in order */
    const char *want_events; /* "Type/Reason;..." */
    const char *want_msg;   /* a substring of the last condition's message, or NULL */
    const char *want_counts; /* "active/succeeded/failed" of replicaStatuses.Worker, or NULL */
    enum jjs_cleanup cleanup;
    bool del_js, del_jj, changed;
    int requeue;            /* -1: none, 1: some */
};

static const struct jcase cases[] = {
    {"a new JAXJob is Created", NULL, NULL, NULL, NULL, 0, 0, 0, NULL, NULL, NULL,
     "Created=True/Created", "", "JAXJob jj is created.", "0/0/0", JJS_CLEAN_NONE, false,
     false, true, -1},
    {"activeDeadlineSeconds asks to look again", NULL, "{'activeDeadlineSeconds':60}", NULL,
     NULL, 0, 0, 0, "", NULL, NULL, "Created=True/Created", "", NULL, "0/0/0", JJS_CLEAN_NONE,
     false, false, true, 1},
    {"active pods: Running", "OnFailure", NULL, "Created=True/Created", NULL, 2, 0, 0, "", NULL,
     NULL, "Created=True/Created;Running=True/Running", "", "JAXJob ns/jj is running.", "2/0/0",
     JJS_CLEAN_NONE, false, false, true, -1},
    {"nothing new: no change", "OnFailure", NULL, "Created=True/Created;Running=True/Running",
     "{'startTime':'" OLD "','replicaStatuses':{'Worker':{'active':2,'succeeded':0,'failed':0,"
     "'selector':'training.kubeflow.org/job-name=jj,training.kubeflow.org/operator-name="
     "jaxjob-controller,training.kubeflow.org/replica-type=worker','labelSelector':{"
     "'matchLabels':{'training.kubeflow.org/job-name':'jj','training.kubeflow.org/"
     "operator-name':'jaxjob-controller','training.kubeflow.org/replica-type':'worker'}}}}}",
     2, 0, 0, "", NULL, NULL, "Created=True/Created;Running=True/Running", "", NULL, "2/0/0",
     JJS_CLEAN_NONE, false, false, false, -1},
    {"a failed pod (OnFailure): Restarting replaces Running", "OnFailure", NULL,
     "Created=True/Created;Running=True/Running", NULL, 1, 0, 1, "", NULL, NULL,
     "Created=True/Created;Restarting=True/Restarting", "Warning/JAXJobRestarting",
     "JAXJob jj is restarting because 1 Worker replica(s) failed.", "1/0/1", JJS_CLEAN_NONE,
     false, false, true, -1},
    {"ExitCode restarts too", "ExitCode", NULL, "Created=True/Created;Running=True/Running",
     NULL, 0, 0, 2, "", NULL, NULL, "Created=True/Created;Restarting=True/Restarting",
     "Warning/JAXJobRestarting", "2 Worker replica(s) failed", "0/0/2", JJS_CLEAN_NONE, false,
     false, true, -1},
    {"all running again: Running replaces Restarting", "OnFailure", NULL,
     "Created=True/Created;Restarting=True/Restarting", NULL, 2, 0, 1, "", NULL, NULL,
     "Created=True/Created;Running=True/Running", "", NULL, "2/0/1", JJS_CLEAN_NONE, false,
     false, true, -1},
    {"a failed pod (Never): Failed, Running False", NULL, NULL,
     "Created=True/Created;Running=True/Running", NULL, 1, 0, 1, "", NULL, NULL,
     "Created=True/Created;Running=False/Running;Failed=True/Failed", "Normal/JAXJobFailed",
     "JAXJob jj is failed because 1 Worker replica(s) failed.", "1/0/1", JJS_CLEAN_NONE, false,
     false, true, -1},
    {"every replica succeeded: Succeeded, Running False", NULL, NULL,
     "Created=True/Created;Running=True/Running", NULL, 0, 2, 0, "", NULL, NULL,
     "Created=True/Created;Running=False/Running;Succeeded=True/Succeeded",
     "Normal/JAXJobSucceeded", "JAXJob ns/jj successfully completed.", "0/2/0",
     JJS_CLEAN_NONE, false, false, true, -1},
    {"Failed is final", "OnFailure", NULL, "Created=True/Created;Failed=True/Failed",
     "{'completionTime':'" OLD "'}", 0, 2, 0, "Completed", NULL, NULL,
     "Created=True/Created;Failed=True/Failed", "", NULL, NULL, JJS_CLEAN_NONE, false, false,
     false, -1},
    {"the Job's deadline failed the JobSet", "OnFailure", NULL,
     "Created=True/Created;Running=True/Running", NULL, 0, 0, 2, "Failed", "DeadlineExceeded",
     NULL, "Created=True/Created;Running=False/Running;Failed=True/Failed",
     "Normal/JAXJobFailed", "Job jj has failed because it was active longer than specified "
     "deadline", "0/0/2", JJS_CLEAN_NONE, false, false, true, -1},
    {"the Job's backoff limit failed the JobSet", "OnFailure", "{'backoffLimit':3}",
     "Created=True/Created;Restarting=True/Restarting", NULL, 0, 0, 4, "Failed",
     "BackoffLimitExceeded", NULL,
     "Created=True/Created;Restarting=True/Restarting;Failed=True/Failed",
     "Normal/JAXJobFailed", "has reached the specified backoff limit", "0/0/4",
     JJS_CLEAN_NONE, false, false, true, -1},
    {"a completed JobSet: Succeeded", "OnFailure", NULL, "Created=True/Created", NULL, 0, 1, 0,
     "Completed", NULL, NULL, "Created=True/Created;Succeeded=True/Succeeded",
     "Normal/JAXJobSucceeded", NULL, "0/1/0", JJS_CLEAN_NONE, false, false, true, -1},
    {"suspend: Running False, Suspended, active 0", NULL, "{'suspend':true}",
     "Created=True/Created;Running=True/Running",
     "{'replicaStatuses':{'Worker':{'active':2,'succeeded':0,'failed':0}}}", 2, 0, 0, "",
     NULL, NULL, "Created=True/Created;Running=False/Suspended;Suspended=True/Suspended",
     "Normal/JAXJobSuspended", "JAXJob jj is suspended.", "0/0/0", JJS_CLEAN_NONE, false,
     false, true, -1},
    {"resume: Suspended False, startTime now", NULL, "{'suspend':false}",
     "Created=True/Created;Suspended=True/Suspended", "{'startTime':'" OLD "'}", 0, 0, 0, "",
     NULL, NULL, "Created=True/Created;Suspended=False/Resumed", "Normal/JAXJobResumed",
     "JAXJob jj is resumed.", "0/0/0", JJS_CLEAN_NONE, false, false, true, -1},
    {"past activeDeadlineSeconds: Failed, the JobSet deleted", "OnFailure",
     "{'activeDeadlineSeconds':60}", "Created=True/Created;Running=True/Running",
     "{'startTime':'" OLD "'}", 2, 0, 0, "", NULL, NULL,
     "Created=True/Created;Running=False/Running;Failed=True/Failed", "Normal/JAXJobFailed",
     "Job jj has failed because it was active longer than specified deadline", NULL,
     JJS_CLEAN_NONE, true, false, true, -1},
    {"finished, cleanPodPolicy Running", NULL, "{'cleanPodPolicy':'Running'}",
     "Created=True/Created;Succeeded=True/Succeeded", "{'completionTime':'" OLD "'}", 0, 2, 0,
     "Completed", NULL, NULL, "Created=True/Created;Succeeded=True/Succeeded", "", NULL, NULL,
     JJS_CLEAN_RUNNING, false, false, false, -1},
    {"finished, cleanPodPolicy All", NULL, "{'cleanPodPolicy':'All'}",
     "Created=True/Created;Failed=True/Failed", "{'completionTime':'" OLD "'}", 0, 0, 1,
     "Failed", NULL, NULL, "Created=True/Created;Failed=True/Failed", "", NULL, NULL,
     JJS_CLEAN_ALL, false, false, false, -1},
    {"succeeded: leftover active counted as succeeded", NULL, NULL,
     "Created=True/Created;Succeeded=True/Succeeded",
     "{'completionTime':'" OLD "','replicaStatuses':{'Worker':{'active':1,'succeeded':1,'failed':0}}}", 0,
     2, 0, "Completed", NULL, NULL, "Created=True/Created;Succeeded=True/Succeeded", "", NULL,
     "0/2/0", JJS_CLEAN_NONE, false, false, true, -1},
    {"ttlSecondsAfterFinished not yet", NULL, "{'ttlSecondsAfterFinished':36000}",
     "Created=True/Created;Succeeded=True/Succeeded", "{'completionTime':'" OLD "'}", 0, 2, 0,
     "Completed", NULL, NULL, "Created=True/Created;Succeeded=True/Succeeded", "", NULL, NULL,
     JJS_CLEAN_NONE, false, false, false, 1},
    {"ttlSecondsAfterFinished passed: the JAXJob deleted", NULL,
     "{'ttlSecondsAfterFinished':60}", "Created=True/Created;Succeeded=True/Succeeded",
     "{'completionTime':'" OLD "'}", 0, 2, 0, "Completed", NULL, NULL,
     "Created=True/Created;Succeeded=True/Succeeded", "", NULL, NULL, JJS_CLEAN_NONE, false,
     true, false, -1},
    {"cannot be converted: Failed with a Warning", NULL, NULL, NULL, NULL, 0, 0, 0, NULL, NULL,
     "spec.jaxReplicaSpecs.Worker.template.spec.containers: Required value",
     "Created=True/Created;Failed=True/Failed", "Warning/JAXJobFailed",
     "JAXJob ns/jj cannot be run: spec.jaxReplicaSpecs.Worker.template.spec.containers: "
     "Required value", NULL, JJS_CLEAN_NONE, false, false, true, -1},
};

/* "Type=Status/Reason;..." -> a conditions array at time OLD. */
static json_t *conds_of(const char *spec)
{
    json_t *out = json_array();
    for (const char *t = spec; *t; t += strcspn(t, ";") + (t[strcspn(t, ";")] == ';')) {
        char type[64], status[16], reason[64];
        assert_int_equal(sscanf(t, "%63[^=]=%15[^/]/%63[^;]", type, status, reason), 3);
        char full[80];
        snprintf(full, sizeof(full), "JAXJob%s", reason);
        json_array_append_new(out, json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}", "type", type,
                                             "status", status, "reason", full, "message", "m",
                                             "lastUpdateTime", OLD, "lastTransitionTime", OLD));
    }
    return out;
}

static json_t *jaxjob_of(const struct jcase *c)
{
    json_t *w = json_pack("{s:i,s:{s:{s:[{s:s}]}}}", "replicas", 2, "template", "spec",
                          "containers", "name", "jax");
    if (c->restart)
        jx_set_str(w, "restartPolicy", c->restart);
    json_t *jj = json_pack("{s:{s:s,s:s,s:s},s:{s:{s:o}}}", "metadata", "name", "jj",
                           "namespace", "ns", "uid", "u1", "spec", "jaxReplicaSpecs", "Worker",
                           w);
    if (c->run_policy)
        jx_set_new(jx_obj(jj, "spec"), "runPolicy", tu_qjson(c->run_policy));
    if (c->old) {
        json_t *st = json_pack("{s:o}", "conditions", conds_of(c->old));
        if (c->old_extra) {
            json_t *x = tu_qjson(c->old_extra);
            json_object_update(st, x);
            json_decref(x);
        }
        jx_set_new(jj, "status", st);
    }
    return jj;
}

static json_t *jobset_of(const struct jcase *c)
{
    if (!c->js_cond)
        return NULL;
    json_t *conds = json_array();
    if (c->js_cond[0])
        json_array_append_new(conds, json_pack("{s:s,s:s}", "type", c->js_cond, "status",
                                               "True"));
    return json_pack("{s:{s:s},s:{s:o}}", "metadata", "name", "jj", "status", "conditions",
                     conds);
}

static json_t *jobs_of(const struct jcase *c)
{
    json_t *st = json_pack("{s:I,s:I,s:I}", "active", (json_int_t)c->active, "succeeded",
                           (json_int_t)c->succeeded, "failed", (json_int_t)c->failed);
    if (c->job_reason)
        jx_set_new(st, "conditions", json_pack("[{s:s,s:s,s:s}]", "type", "Failed", "status",
                                               "True", "reason", c->job_reason));
    return json_pack("[{s:o}]", "status", st);
}

/* The result's conditions as "Type=Status/Reason;..." (reasons less "JAXJob"). */
static void conds_str(const json_t *st, char *out, size_t n)
{
    size_t i, len = 0;
    json_t *k;
    out[0] = '\0';
    json_array_foreach (jx_arr(st, "conditions"), i, k) {
        const char *r = jx_str(k, "reason");
        len += (size_t)snprintf(out + len, n - len, "%s%s=%s/%s", i ? ";" : "",
                                jx_str(k, "type"), jx_str(k, "status"),
                                r && strncmp(r, "JAXJob", 6) == 0 ? r + 6 : "?");
    }
}

static void events_str(const json_t *evs, char *out, size_t n)
{
    size_t i, len = 0;
    json_t *e;
    out[0] = '\0';
    json_array_foreach (evs, i, e)
        len += (size_t)snprintf(out + len, n - len, "%s%s/%s", i ? ";" : "", jx_str(e, "type"),
                                jx_str(e, "reason"));
}

static void check_times(const struct jcase *c, const struct jjs_result *r)
{
    const json_t *st = r->status;
    if (r->changed)
        assert_string_equal(jx_str(st, "lastReconcileTime"), NOW_STR);
    if (strstr(c->want, "Succeeded=True") || strstr(c->want, "Failed=True"))
        assert_non_null(jx_str(st, "completionTime"));
    if (c->old && strstr(c->old, "Suspended=True") && strstr(c->want, "Resumed"))
        assert_string_equal(jx_str(st, "startTime"), NOW_STR);
    else if (c->want_counts && !(c->run_policy && strstr(c->run_policy, "'suspend':true")) &&
             !(c->old && (strstr(c->old, "Succeeded=True") || strstr(c->old, "Failed=True"))) &&
             !jx_str(st, "startTime"))
        fail_msg("%s: no startTime", c->name);
}

static void check_case(const struct jcase *c, const struct jjs_result *r)
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
    if (c->want_counts) {
        const json_t *w = jx_path(r->status, "replicaStatuses.Worker");
        snprintf(got, sizeof(got), "%lld/%lld/%lld", jx_int_or(w, "active", -1),
                 jx_int_or(w, "succeeded", -1), jx_int_or(w, "failed", -1));
        if (strcmp(got, c->want_counts) != 0)
            fail_msg("%s: counts %s, want %s", c->name, got, c->want_counts);
    }
    if (r->cleanup != c->cleanup || r->delete_jobset != c->del_js ||
        r->delete_jaxjob != c->del_jj || r->changed != c->changed ||
        (c->requeue < 0) != (r->requeue_ms < 0))
        fail_msg("%s: cleanup %d del_js %d del_jj %d changed %d requeue %lld", c->name,
                 r->cleanup, r->delete_jobset, r->delete_jaxjob, r->changed,
                 (long long)r->requeue_ms);
    check_times(c, r);
}

static void test_table(void **state)
{
    (void)state;
    int64_t now;
    assert_int_equal(kt_parse(NOW_STR, &now), 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct jcase *c = &cases[i];
        json_t *jj = jaxjob_of(c), *js = jobset_of(c), *jobs = jobs_of(c);
        struct jjs_obs obs = {js, jobs, c->invalid, NULL};
        struct jjs_result r;
        assert_int_equal(jjs_compute(jj, &obs, now, &r), 0);
        check_case(c, &r);
        jjs_result_release(&r);
        json_decref(jj);
        json_decref(js);
        json_decref(jobs);
    }
}

/* lastTransitionTime stays while a condition's status does (a new reason only). */
static void test_transition_time(void **state)
{
    (void)state;
    int64_t now;
    assert_int_equal(kt_parse(NOW_STR, &now), 0);
    const struct jcase c = {.old = "Created=True/Created;Running=True/Running"};
    json_t *jj = jaxjob_of(&c), *jobs = json_array();
    jx_set_new(jx_obj(jj, "spec"), "runPolicy", json_pack("{s:b}", "suspend", 1));
    struct jjs_obs obs = {NULL, jobs, NULL, NULL};
    struct jjs_result r;
    assert_int_equal(jjs_compute(jj, &obs, now, &r), 0);
    const json_t *run = json_array_get(jx_arr(r.status, "conditions"), 1);
    assert_string_equal(jx_str(run, "status"), "False");
    assert_string_equal(jx_str(run, "lastTransitionTime"), NOW_STR);
    /* Created, unchanged, keeps its time */
    assert_string_equal(jx_str(json_array_get(jx_arr(r.status, "conditions"), 0),
                               "lastTransitionTime"), OLD);
    jjs_result_release(&r);
    json_decref(jj);
    json_decref(jobs);
}

/* A spec change carried out by a gang restart (obs.respec): Restarting in place of Running,
 * active 0, one Normal event with the message; the same again changes nothing; then the new
 * JobSet's running pods bring Running back.  And an edit that cannot be converted (obs.invalid)
 * fails the JAXJob and deletes the JobSet it has. */
static void test_respec_and_invalid_edit(void **state)
{
    (void)state;
    int64_t now;
    assert_int_equal(kt_parse(NOW_STR, &now), 0);
    const struct jcase c = {.restart = "Never", .old = "Created=True/Created;Running=True/Running",
                            .old_extra = "{'startTime':'" OLD "','replicaStatuses':{'Worker':{"
                                         "'active':2,'succeeded':0,'failed':0}}}"};
    const char *why = "JAXJob jj is restarting with 3 Worker replica(s) instead of 2: the JAX "
                      "process count is fixed when the processes start.";
    json_t *jj = jaxjob_of(&c), *jobs = json_array();
    struct jjs_obs obs = {NULL, NULL, NULL, why};
    struct jjs_result r;
    char got[1024];
    assert_int_equal(jjs_compute(jj, &obs, now, &r), 0);
    conds_str(r.status, got, sizeof(got));
    assert_string_equal(got, "Created=True/Created;Restarting=True/Restarting");
    events_str(r.events, got, sizeof(got));
    assert_string_equal(got, "Normal/JAXJobRestarting");
    assert_string_equal(jx_str(json_array_get(r.events, 0), "message"), why);
    assert_int_equal(jx_int_or(jx_path(r.status, "replicaStatuses.Worker"), "active", -1), 0);
    assert_false(r.finished || r.delete_jobset);
    /* the next pass, the JobSet still going: nothing new */
    jx_set_new(jj, "status", json_incref(r.status));
    jjs_result_release(&r);
    assert_int_equal(jjs_compute(jj, &obs, now, &r), 0);
    assert_false(r.changed);
    assert_int_equal(json_array_size(r.events), 0);
    jjs_result_release(&r);
    /* the new JobSet's three pods run (restartPolicy Never: no failure from the old ones) */
    json_t *js = json_pack("{s:{s:s},s:{s:[]}}", "metadata", "name", "jj", "status",
                           "conditions");
    json_array_append_new(jobs, json_pack("{s:{s:i,s:i,s:i}}", "status", "active", 3,
                                          "succeeded", 0, "failed", 0));
    struct jjs_obs after = {js, jobs, NULL, NULL};
    assert_int_equal(jjs_compute(jj, &after, now, &r), 0);
    conds_str(r.status, got, sizeof(got));
    assert_string_equal(got, "Created=True/Created;Running=True/Running");
    jjs_result_release(&r);
    /* an edit that cannot be run: Failed, and the running JobSet goes */
    struct jjs_obs bad = {js, jobs, "spec.jaxReplicaSpecs[Worker].replicas: Invalid value", NULL};
    assert_int_equal(jjs_compute(jj, &bad, now, &r), 0);
    conds_str(r.status, got, sizeof(got));
    assert_non_null(strstr(got, "Failed=True/Failed"));
    assert_true(r.finished && r.delete_jobset);
    jjs_result_release(&r);
    json_decref(js);
    json_decref(jobs);
    json_decref(jj);
}

/* jjs_pod_index_labels: what a pod's metadata still lacks of the per-pod labels. */
static void test_pod_index_labels(void **state)
{
    (void)state;
#define KF "'training.kubeflow.org/operator-name':'jaxjob-controller'," \
           "'training.kubeflow.org/replica-type':'worker'"
#define IDX "'batch.kubernetes.io/job-completion-index'"
    static const struct {
        const char *meta, *want;
    } rows[] = {
        /* index 0 is the master; the index from the annotation */
        {"{'labels':{" KF "},'annotations':{" IDX ":'0'}}",
         "{'training.kubeflow.org/replica-index':'0','training.kubeflow.org/job-role':'master'}"},
        {"{'labels':{" KF "},'annotations':{" IDX ":'3'}}",
         "{'training.kubeflow.org/replica-index':'3'}"},
        /* else from the label (Kubernetes >= 1.28 sets both) */
        {"{'labels':{" KF "," IDX ":'12'}}", "{'training.kubeflow.org/replica-index':'12'}"},
        /* already labelled: nothing; a wrong value is corrected */
        {"{'labels':{" KF ",'training.kubeflow.org/replica-index':'0',"
         "'training.kubeflow.org/job-role':'master'},'annotations':{" IDX ":'0'}}", "{}"},
        {"{'labels':{" KF ",'training.kubeflow.org/replica-index':'0'},'annotations':{" IDX
         ":'1'}}", "{'training.kubeflow.org/replica-index':'1'}"},
        /* not a JAXJob Worker pod, or no index: nothing */
        {"{'labels':{'training.kubeflow.org/replica-type':'worker'},'annotations':{" IDX
         ":'0'}}", "{}"},
        {"{'labels':{'training.kubeflow.org/operator-name':'pytorchjob-controller',"
         "'training.kubeflow.org/replica-type':'worker'},'annotations':{" IDX ":'0'}}", "{}"},
        {"{'labels':{" KF "}}", "{}"},
        {"{'labels':{" KF "},'annotations':{" IDX ":'-1'}}", "{}"},
        {"{'labels':{" KF "},'annotations':{" IDX ":'1x'}}", "{}"},
        {"{}", "{}"},
    };
#undef KF
#undef IDX
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        json_t *meta = tu_qjson(rows[i].meta), *want = tu_qjson(rows[i].want);
        json_t *got = jjs_pod_index_labels(meta);
        if (!json_equal(got, want)) {
            char *g = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS);
            print_error("case %zu: %s: got %s\n", i, rows[i].meta, g ? g : "(null)");
            free(g);
            fail();
        }
        json_decref(got);
        json_decref(want);
        json_decref(meta);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_transition_time),
        cmocka_unit_test(test_pod_index_labels),
        cmocka_unit_test(test_respec_and_invalid_edit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
