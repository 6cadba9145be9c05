/* Table tests of the pure JobSet reconcile (src/core/reconcile.h).
 *
 * Each case describes a JobSet compactly (replicated jobs "a=1,b=2<a:Ready", extra spec JSON,
 * the observed status) and the observed child Jobs as rows {rj, index, attempt, state, ...};
 * the expected plan is written as short strings (creates/deletes by name, patches, conditions
 * "Type=Status/Reason", events "W:Reason", restarts "restarts/countTowardsMax", ...).
 * JSON in the tables uses single quotes, turned into double quotes before parsing. */
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/jobset/jobset.h"
#include "api/schema/keys.h"
#include "core/reconcile.h"
#include "core/status.h"
#include "obj/tree/cond.h"
#include "obj/tree/jx.h"

#define NOW 1795341600000LL /* 2026-11-22T10:00:00Z, in ms */
#define NOW_STR "2026-11-22T10:00:00Z"
#define T_OLD "2026-11-22T08:00:00Z"
#define MAXJ 8

/* Condition JSON (single quotes) with lastTransitionTime t (COND: T_OLD). */
#define COND_AT(type, st, reason, msg, t)                                                    \
    "{'type':'" type "','status':'" st "','lastTransitionTime':'" t "','reason':'" reason     \
    "','message':'" msg "'}"
#define COND(type, st, reason, msg) COND_AT(type, st, reason, msg, T_OLD)
#define C_COMPLETED COND("Completed", "True", "AllJobsCompleted", "jobset completed successfully")
#define C_FAILED COND("Failed", "True", "FailedJobs", "x")
#define C_SUSPENDED COND("Suspended", "True", "SuspendedJobs", "jobset is suspended")
#define C_RESTARTING(reason, msg) COND("RestartingJobSet", "True", reason, msg)
#define C_IN_PROGRESS                                                                    \
    COND("StartupPolicyInProgress", "True", "InOrderStartupPolicyInProgress",             \
         "in order startup policy is in progress")
#define C_STARTUP_DONE                                                                   \
    COND("StartupPolicyCompleted", "True", "InOrderStartupPolicyCompleted",               \
         "in order startup policy has completed")

enum {
    F_TERMINATING = 1 << 0, /* metadata.deletionTimestamp set */
    F_STARTED = 1 << 1,     /* status.startTime set */
    F_NO_RJ_LABEL = 1 << 2, /* no replicatedjob-name label */
    F_BAD_ATTEMPT = 1 << 3, /* restart-attempt label "x" */
    F_NO_ATTEMPT = 1 << 4,  /* no restart-attempt label */
};

/* An observed child Job "js-<rj>-<idx>".  state: pending (no pods), active (1 pod, not
 * ready), ready, suspended, complete, failed (reason/msg/t: Failed condition, t = seconds after
 * 09:00:00), or "pods:<par>/<comp>/<ready>/<succeeded>/<active>" (comp 0 = unset). */
struct tjob {
    const char *rj;
    int idx;
    int attempt;
    const char *state;
    const char *reason;
    const char *msg;
    int t;
    unsigned flags;
};

struct rcase {
    const char *name;
    const char *rjs;    /* "a=1,b=2<a:Ready" */
    const char *spec;   /* JSON object merged into spec (before defaulting), or NULL */
    const char *status; /* observed status JSON, or NULL */
    struct tjob jobs[MAXJ];
    bool deleting; /* metadata.deletionTimestamp set on the JobSet */
    int rc;        /* expected return (0 or -errno) */
    bool skipped;
    const char *creates;  /* names, space separated, in order */
    const char *deletes;
    const char *patches;  /* "name:suspend" | "name:resume" | "name:resume+clear" */
    const char *conds;    /* "Type=Status/Reason; ..." in status order */
    const char *cond_msg; /* "Type: message" (exact) */
    const char *cond_ltt; /* "Type@lastTransitionTime" */
    const char *events;   /* "N:Reason W:Reason ..." */
    const char *ev_msg;   /* "Reason: message" for the first event with that reason */
    const char *restarts; /* "restarts/countTowardsMax"; NULL = "0/0" */
    const char *terminal; /* NULL = "" */
    const char *rjstat;   /* "name=ready/succeeded/failed/active/suspended ..."; NULL = unchecked */
    int changed;          /* 1 / -1 / 0 = unchecked */
    bool service;
    bool delete_js;
    long long requeue_ms; /* 0 = none (-1) */
};

/* ---- builders ------------------------------------------------------------------------------ */

static json_t *mk_rj(const char *tok, size_t n)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%.*s", (int)n, tok);
    char *lt = strchr(buf, '<');
    if (lt)
        *lt = '\0';
    char *eq = strchr(buf, '=');
    assert_non_null(eq);
    *eq = '\0';
    json_t *rj = tu_qjson("{'template':{'spec':{'parallelism':1,'completions':1,'template':{'spec':"
                       "{'containers':[{'name':'c','image':'busybox'}]}}}}}");
    json_object_set_new(rj, "name", json_string(buf));
    json_object_set_new(rj, "replicas", json_integer(strtol(eq + 1, NULL, 10)));
    while (lt) {
        char *dep = lt + 1, *colon = strchr(dep, ':');
        lt = strchr(dep, '<');
        if (lt)
            *lt = '\0';
        assert_non_null(colon);
        *colon = '\0';
        json_t *d = json_pack("{s:s, s:s}", "name", dep, "status", colon + 1);
        json_array_append_new(jx_ensure_arr(rj, "dependsOn"), d);
    }
    return rj;
}

static json_t *mk_jobset(const struct rcase *k)
{
    json_t *js = tu_qjson("{'apiVersion':'jobset.x-k8s.io/v1alpha2','kind':'JobSet','metadata':"
                       "{'name':'js','namespace':'default','uid':'uid-1'},'spec':{}}");
    json_t *spec = json_object_get(js, "spec"), *rjs = json_array();
    for (const char *p = k->rjs; p && *p;) {
        size_t n = strcspn(p, ",");
        json_array_append_new(rjs, mk_rj(p, n));
        p += n + (p[n] == ',');
    }
    json_object_set_new(spec, "replicatedJobs", rjs);
    if (k->spec) {
        json_t *extra = tu_qjson(k->spec);
        json_object_update(spec, extra);
        json_decref(extra);
    }
    assert_int_equal(js_default(js), 0);
    if (k->status)
        json_object_set_new(js, "status", tu_qjson(k->status));
    if (k->deleting)
        jx_set_str(json_object_get(js, "metadata"), "deletionTimestamp", T_OLD);
    return js;
}

static void job_labels(json_t *meta, const struct tjob *t)
{
    char idx[16], att[16];
    snprintf(idx, sizeof(idx), "%d", t->idx);
    snprintf(att, sizeof(att), "%d", t->attempt);
    if (!(t->flags & F_NO_RJ_LABEL))
        jx_set_meta(meta, "labels", LBL_RJ_NAME, t->rj);
    jx_set_meta(meta, "labels", LBL_JOB_INDEX, idx);
    if (t->flags & F_BAD_ATTEMPT)
        jx_set_meta(meta, "labels", LBL_RESTART_ATTEMPT, "x");
    else if (!(t->flags & F_NO_ATTEMPT))
        jx_set_meta(meta, "labels", LBL_RESTART_ATTEMPT, att);
}

static json_t *finish_cond(const struct tjob *t)
{
    char ts[KT_RFC3339_MAX];
    assert_int_equal(kt_format(NOW + (t->t - 3600) * 1000, ts), 0);
    if (strcmp(t->state, "complete") == 0)
        return json_pack("{s:s, s:s, s:s}", "type", "Complete", "status", "True",
                         "lastTransitionTime", ts);
    return json_pack("{s:s, s:s, s:s, s:s, s:s}", "type", "Failed", "status", "True", "reason",
                     t->reason ? t->reason : "BackoffLimitExceeded", "message",
                     t->msg ? t->msg : "Job has reached the specified backoff limit",
                     "lastTransitionTime", ts);
}

/* status counters and spec.parallelism/completions for a state. */
static void job_state(json_t *job, const struct tjob *t)
{
    json_t *spec = json_object_get(job, "spec"), *st = json_object_get(job, "status");
    int par = 1, comp = 1, ready = 0, succ = 0, active = 0;
    const char *s = t->state;
    if (strncmp(s, "pods:", 5) == 0)
        assert_int_equal(sscanf(s + 5, "%d/%d/%d/%d/%d", &par, &comp, &ready, &succ, &active), 5);
    else if (strcmp(s, "active") == 0)
        active = 1;
    else if (strcmp(s, "ready") == 0)
        active = ready = 1;
    else if (strcmp(s, "complete") == 0)
        succ = 1;
    jx_set_int(spec, "parallelism", par);
    if (comp)
        jx_set_int(spec, "completions", comp);
    jx_set_bool(spec, "suspend", strcmp(s, "suspended") == 0);
    jx_set_int(st, "active", active);
    jx_set_int(st, "ready", ready);
    jx_set_int(st, "succeeded", succ);
    jx_set_int(st, "failed", strcmp(s, "failed") == 0);
    if (strcmp(s, "complete") == 0 || strcmp(s, "failed") == 0)
        json_array_append_new(jx_ensure_arr(st, "conditions"), finish_cond(t));
}

static json_t *mk_job(const struct tjob *t)
{
    char name[128];
    snprintf(name, sizeof(name), "js-%s-%d", t->rj, t->idx);
    json_t *job = tu_qjson("{'apiVersion':'batch/v1','kind':'Job','metadata':{'namespace':"
                        "'default'},'spec':{'template':{'metadata':{},'spec':{'containers':"
                        "[{'name':'c','image':'busybox'}]}}},'status':{}}");
    json_t *meta = json_object_get(job, "metadata");
    jx_set_str(meta, "name", name);
    job_labels(meta, t);
    job_state(job, t);
    if (t->flags & F_TERMINATING)
        jx_set_str(meta, "deletionTimestamp", T_OLD);
    if (t->flags & F_STARTED)
        jx_set_str(json_object_get(job, "status"), "startTime", T_OLD);
    return job;
}

static json_t *mk_jobs(const struct tjob *rows)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < MAXJ && rows[i].rj; i++)
        json_array_append_new(arr, mk_job(&rows[i]));
    return arr;
}

/* ---- renderers ----------------------------------------------------------------------------- */

struct sbuf {
    char s[4096];
    size_t n;
};

static void sb_add(struct sbuf *b, const char *sep, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void sb_add(struct sbuf *b, const char *sep, const char *fmt, ...)
{
    va_list ap;
    if (b->n && b->n < sizeof(b->s))
        b->n += (size_t)snprintf(b->s + b->n, sizeof(b->s) - b->n, "%s", sep);
    va_start(ap, fmt);
    if (b->n < sizeof(b->s))
        b->n += (size_t)vsnprintf(b->s + b->n, sizeof(b->s) - b->n, fmt, ap);
    va_end(ap);
}

static void render_creates(const struct rec_plan *p, struct sbuf *b)
{
    for (size_t i = 0; i < p->n_creates; i++)
        sb_add(b, " ", "%s", jx_str(jx_obj(p->creates[i], "metadata"), "name"));
}

static void render_deletes(const struct rec_plan *p, struct sbuf *b)
{
    for (size_t i = 0; i < p->n_deletes; i++) {
        assert_true(p->deletes[i].foreground);
        sb_add(b, " ", "%s", p->deletes[i].name);
    }
}

static void render_patches(const struct rec_plan *p, struct sbuf *b)
{
    for (size_t i = 0; i < p->n_patches; i++) {
        const struct rec_patch *pa = &p->patches[i];
        assert_int_equal(jx_bool_or(jx_obj(pa->job, "spec"), "suspend", !pa->suspend),
                         pa->suspend);
        sb_add(b, " ", "%s:%s%s", pa->name, pa->suspend ? "suspend" : "resume",
               pa->clear_start_time ? "+clear" : "");
    }
}

static void render_conds(const json_t *status, struct sbuf *b)
{
    size_t i;
    const json_t *c;
    json_array_foreach (jx_arr(status, "conditions"), i, c)
        sb_add(b, "; ", "%s=%s/%s", jx_str(c, "type"), jx_str(c, "status"), jx_str(c, "reason"));
}

static void render_events(const struct rec_plan *p, struct sbuf *b)
{
    for (size_t i = 0; i < p->n_events; i++)
        sb_add(b, " ", "%c:%s", p->events[i].type == REC_EVENT_WARNING ? 'W' : 'N',
               p->events[i].reason);
}

static void render_rjstat(const json_t *status, struct sbuf *b)
{
    size_t i;
    const json_t *r;
    json_array_foreach (jx_arr(status, "replicatedJobsStatus"), i, r)
        sb_add(b, " ", "%s=%lld/%lld/%lld/%lld/%lld", jx_str(r, "name"),
               jx_int_or(r, "ready", -1), jx_int_or(r, "succeeded", -1),
               jx_int_or(r, "failed", -1), jx_int_or(r, "active", -1),
               jx_int_or(r, "suspended", -1));
}

static void expect_str(const char *cname, const char *what, const char *want, const char *got)
{
    if (strcmp(want ? want : "", got) != 0)
        fail_msg("case \"%s\": %s: want \"%s\", got \"%s\"", cname, what, want ? want : "", got);
}

typedef void (*plan_render)(const struct rec_plan *p, struct sbuf *b);
typedef void (*status_render)(const json_t *s, struct sbuf *b);

static void expect_plan(const struct rcase *k, const char *what, const char *want,
                        const struct rec_plan *p, plan_render f)
{
    struct sbuf b = {.n = 0};
    b.s[0] = 0;
    f(p, &b);
    expect_str(k->name, what, want, b.s);
}

static void expect_status(const struct rcase *k, const char *what, const char *want,
                          const json_t *s, status_render f)
{
    struct sbuf b = {.n = 0};
    b.s[0] = 0;
    f(s, &b);
    expect_str(k->name, what, want, b.s);
}

/* "Type: message" / "Type@time" against the condition of that type. */
static void expect_cond_field(const struct rcase *k, const json_t *status, const char *spec,
                              char sep, const char *field)
{
    if (!spec)
        return;
    const char *cut = strchr(spec, sep);
    assert_non_null(cut);
    char type[64];
    snprintf(type, sizeof(type), "%.*s", (int)(cut - spec), spec);
    const json_t *c = cond_find(status, type, NULL);
    if (!c)
        fail_msg("case \"%s\": no %s condition", k->name, type);
    expect_str(k->name, field, cut + (sep == ':' ? 2 : 1), jx_str(c, field));
}

static void expect_event_msg(const struct rcase *k, const struct rec_plan *p)
{
    if (!k->ev_msg)
        return;
    const char *cut = strstr(k->ev_msg, ": ");
    assert_non_null(cut);
    for (size_t i = 0; i < p->n_events; i++)
        if (strncmp(p->events[i].reason, k->ev_msg, (size_t)(cut - k->ev_msg)) == 0 &&
            !p->events[i].reason[cut - k->ev_msg]) {
            expect_str(k->name, "event message", cut + 2, p->events[i].message);
            return;
        }
    fail_msg("case \"%s\": no event for \"%s\"", k->name, k->ev_msg);
}

/* Invariants of every status: restarts present, six counters in every RJ entry. */
static void expect_status_shape(const struct rcase *k, const json_t *s)
{
    size_t i;
    const json_t *r;
    static const char *const keys[] = {"name", "ready", "succeeded", "failed", "active",
                                       "suspended"};
    if (!json_is_integer(json_object_get(s, "restarts")))
        fail_msg("case \"%s\": status.restarts missing", k->name);
    json_array_foreach (jx_arr(s, "replicatedJobsStatus"), i, r) {
        assert_int_equal(json_object_size(r), 6);
        for (size_t j = 0; j < 6; j++)
            if (!json_object_get(r, keys[j]))
                fail_msg("case \"%s\": replicatedJobsStatus[%zu].%s missing", k->name, i,
                         keys[j]);
    }
}

static void check_status(const struct rcase *k, const struct rec_plan *p)
{
    const json_t *s = p->status;
    char restarts[64];
    expect_status_shape(k, s);
    expect_status(k, "conditions", k->conds, s, render_conds);
    expect_cond_field(k, s, k->cond_msg, ':', "message");
    expect_cond_field(k, s, k->cond_ltt, '@', "lastTransitionTime");
    snprintf(restarts, sizeof(restarts), "%lld/%lld", jx_int_or(s, "restarts", -1),
             jx_int_or(s, "restartsCountTowardsMax", 0));
    expect_str(k->name, "restarts", k->restarts ? k->restarts : "0/0", restarts);
    expect_str(k->name, "terminalState", k->terminal,
               jx_str(s, "terminalState") ? jx_str(s, "terminalState") : "");
    if (k->rjstat)
        expect_status(k, "replicatedJobsStatus", k->rjstat, s, render_rjstat);
    if (k->changed)
        expect_str(k->name, "status_changed", k->changed > 0 ? "true" : "false",
                   p->status_changed ? "true" : "false");
}

static void check_plan(const struct rcase *k, const struct rec_plan *p)
{
    expect_str(k->name, "skipped", k->skipped ? "yes" : "no", p->skipped ? "yes" : "no");
    expect_plan(k, "creates", k->creates, p, render_creates);
    expect_plan(k, "deletes", k->deletes, p, render_deletes);
    expect_plan(k, "patches", k->patches, p, render_patches);
    expect_plan(k, "events", k->events, p, render_events);
    expect_event_msg(k, p);
    expect_str(k->name, "ensure_service", k->service ? "yes" : "no",
               p->service ? "yes" : "no");
    expect_str(k->name, "delete_jobset", k->delete_js ? "yes" : "no",
               p->delete_jobset ? "yes" : "no");
    if (p->requeue_after_ms != (k->requeue_ms ? k->requeue_ms : -1))
        fail_msg("case \"%s\": requeue_after_ms: want %lld, got %lld", k->name,
                 k->requeue_ms ? k->requeue_ms : -1, p->requeue_after_ms);
    if (k->skipped) {
        assert_null(p->status);
        assert_false(p->status_changed);
        return;
    }
    check_status(k, p);
}

static void run_case(const struct rcase *k)
{
    json_t *js = mk_jobset(k), *jobs = mk_jobs(k->jobs);
    struct rec_plan plan = {.n_creates = 0};
    struct err e = {{0}};
    int rc = rec_reconcile(js, jobs, NOW, &plan, &e);
    if (rc != k->rc)
        fail_msg("case \"%s\": rc: want %d, got %d (%s)", k->name, k->rc, rc, e.msg);
    if (!rc) {
        check_plan(k, &plan);
        rec_plan_release(&plan);
    }
    json_decref(js);
    json_decref(jobs);
}

static void run_table(const struct rcase *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        run_case(&t[i]);
}

#define RUN_TABLE(t) run_table(t, sizeof(t) / sizeof(t[0]))

/* Total number of table cases, printed at the end. */
static size_t n_cases;
#define COUNT(t) (n_cases += sizeof(t) / sizeof(t[0]))

/* ---- tables ------------------------------------------------------------------------------- */

#define RJS1(name, r, s, f, a, u)                                                            \
    "{'name':'" name "','ready':" #r ",'succeeded':" #s ",'failed':" #f ",'active':" #a        \
    ",'suspended':" #u "}"
#define RESTART_MSG(job) "applying RestartJobSet failure policy action (first failed job: " job ")"
#define FP_RULES(max, rules) "{'failurePolicy':{'maxRestarts':" #max ",'rules':[" rules "]}}"
#define IN_ORDER "{'startupPolicy':{'startupPolicyOrder':'InOrder'}}"

/* Creation, classification and ReplicatedJobStatus math (kubernetes-sigs/jobset
 * reconcileReplicatedJobs, getChildJobs, calculateReplicatedJobStatuses). */
static const struct rcase t_create[] = {
    {.name = "fresh JobSet: every Job is created",
     .rjs = "w=2",
     .creates = "js-w-0 js-w-1",
     .rjstat = "w=0/0/0/0/0",
     .changed = 1,
     .service = true},
    {.name = "RJs created in spec order; status sorted by name descending",
     .rjs = "w=1,d=1,x=1",
     .creates = "js-w-0 js-d-0 js-x-0",
     .rjstat = "x=0/0/0/0/0 w=0/0/0/0/0 d=0/0/0/0/0",
     .service = true},
    {.name = "only missing Jobs are created",
     .rjs = "w=3",
     .jobs = {{"w", 0, 0, "ready"}, {"w", 2, 0, "active"}},
     .creates = "js-w-1",
     .rjstat = "w=1/0/0/2/0",
     .service = true},
    {.name = "steady state: nothing to do, status unchanged",
     .rjs = "w=2",
     .status = "{'restarts':0,'replicatedJobsStatus':[" RJS1("w", 2, 0, 0, 2, 0) "]}",
     .jobs = {{"w", 0, 0, "ready"}, {"w", 1, 0, "ready"}},
     .rjstat = "w=2/0/0/2/0",
     .changed = -1,
     .service = true},
    {.name = "replicas 0 creates nothing",
     .rjs = "w=0",
     .rjstat = "w=0/0/0/0/0",
     .service = true},
    {.name = "enableDNSHostnames false: no Service",
     .rjs = "w=1",
     .spec = "{'network':{'enableDNSHostnames':false}}",
     .creates = "js-w-0"},
    {.name = "restart-attempt above status.restarts counts as current",
     .rjs = "w=1",
     .jobs = {{"w", 0, 3, "ready"}},
     .rjstat = "w=1/0/0/1/0",
     .service = true},
    {.name = "Job without replicatedjob-name label: not counted, still not recreated",
     .rjs = "w=1",
     .jobs = {{"w", 0, 0, "ready", .flags = F_NO_RJ_LABEL}},
     .rjstat = "w=0/0/0/0/0",
     .service = true},
    {.name = "Job naming an unknown RJ is not counted",
     .rjs = "w=1",
     .jobs = {{"zz", 0, 0, "ready"}},
     .creates = "js-w-0",
     .rjstat = "w=0/0/0/0/0",
     .service = true},
    {.name = "non-integer restart-attempt label is an error",
     .rjs = "w=1",
     .jobs = {{"w", 0, 0, "ready", .flags = F_BAD_ATTEMPT}},
     .rc = -EINVAL},
    {.name = "missing restart-attempt label is an error",
     .rjs = "w=1",
     .jobs = {{"w", 0, 0, "ready", .flags = F_NO_ATTEMPT}},
     .rc = -EINVAL},
    {.name = "counters: complete, ready, pending, suspended",
     .rjs = "w=4",
     .jobs = {{"w", 0, 0, "complete"},
              {"w", 1, 0, "ready"},
              {"w", 2, 0, "pending"},
              {"w", 3, 0, "suspended"}},
     .patches = "js-w-3:resume",
     .rjstat = "w=1/1/0/1/1",
     .service = true},
    {.name = "ready: succeeded+ready pods >= min(parallelism, completions)",
     .rjs = "w=1",
     .jobs = {{"w", 0, 0, "pods:4/2/1/1/1"}},
     .rjstat = "w=1/0/0/1/0",
     .service = true},
    {.name = "not ready below min(parallelism, completions)",
     .rjs = "w=1",
     .jobs = {{"w", 0, 0, "pods:4/3/1/1/1"}},
     .rjstat = "w=0/0/0/1/0",
     .service = true},
    {.name = "completions unset: parallelism decides readiness",
     .rjs = "w=1",
     .jobs = {{"w", 0, 0, "pods:2/0/2/0/2"}},
     .rjstat = "w=1/0/0/1/0",
     .service = true},
    {.name = "completions above parallelism: parallelism decides readiness",
     .rjs = "w=1",
     .jobs = {{"w", 0, 0, "pods:2/4/2/0/2"}},
     .rjstat = "w=1/0/0/1/0",
     .service = true},
    {.name = "parallelism 0 counts as ready, not active",
     .rjs = "w=1",
     .jobs = {{"w", 0, 0, "pods:0/0/0/0/0"}},
     .rjstat = "w=1/0/0/0/0",
     .service = true},
};

/* Restart mechanics: previous attempts, Recreate vs BlockingRecreate (failurePolicyRecreateAll,
 * reconcileReplicatedJobs). */
static const struct rcase t_restart[] = {
    {.name = "previous-attempt Jobs are deleted and not recreated while present",
     .rjs = "w=2",
     .status = "{'restarts':1}",
     .jobs = {{"w", 0, 0, "ready"}, {"w", 1, 0, "ready"}},
     .deletes = "js-w-0 js-w-1",
     .restarts = "1/0",
     .rjstat = "w=0/0/0/0/0",
     .service = true},
    {.name = "Recreate: a terminating Job is not deleted again; a gone one is recreated",
     .rjs = "w=2",
     .status = "{'restarts':1}",
     .jobs = {{"w", 0, 0, "ready", .flags = F_TERMINATING}},
     .creates = "js-w-1",
     .restarts = "1/0",
     .service = true},
    {.name = "BlockingRecreate: nothing created while a previous-attempt Job exists",
     .rjs = "w=2",
     .spec = "{'failurePolicy':{'restartStrategy':'BlockingRecreate'}}",
     .status = "{'restarts':1}",
     .jobs = {{"w", 0, 0, "ready", .flags = F_TERMINATING}},
     .restarts = "1/0",
     .service = true},
    {.name = "BlockingRecreate: everything created once previous Jobs are gone",
     .rjs = "w=2",
     .spec = "{'failurePolicy':{'restartStrategy':'BlockingRecreate'}}",
     .status = "{'restarts':1}",
     .creates = "js-w-0 js-w-1",
     .restarts = "1/0",
     .service = true},
    {.name = "BlockingRecreate: current-attempt Jobs do not block",
     .rjs = "w=2",
     .spec = "{'failurePolicy':{'restartStrategy':'BlockingRecreate'}}",
     .status = "{'restarts':1}",
     .jobs = {{"w", 0, 1, "ready"}},
     .creates = "js-w-1",
     .restarts = "1/0",
     .rjstat = "w=1/0/0/1/0",
     .service = true},
    {.name = "older-attempt Jobs are ignored by status and failure policy",
     .rjs = "w=2",
     .status = "{'restarts':2}",
     .jobs = {{"w", 0, 2, "ready"}, {"w", 1, 1, "failed"}},
     .deletes = "js-w-1",
     .restarts = "2/0",
     .rjstat = "w=1/0/0/1/0",
     .service = true},
    {.name = "new attempt all ready: RestartingJobSet=False/JobsReady",
     .rjs = "w=2",
     .status = "{'restarts':1,'restartsCountTowardsMax':1,'conditions':[" C_RESTARTING(
         "DefaultFailurePolicy", RESTART_MSG("js-w-0")) "]}",
     .jobs = {{"w", 0, 1, "ready"}, {"w", 1, 1, "complete"}},
     .conds = "RestartingJobSet=False/JobsReady",
     .cond_msg = "RestartingJobSet: all jobs are ready",
     .cond_ltt = "RestartingJobSet@" NOW_STR,
     .events = "N:JobsReady",
     .ev_msg = "JobsReady: all jobs are ready",
     .restarts = "1/1",
     .rjstat = "w=1/1/0/1/0",
     .service = true},
    {.name = "new attempt not all ready: RestartingJobSet stays True",
     .rjs = "w=2",
     .status = "{'restarts':1,'restartsCountTowardsMax':1,'conditions':[" C_RESTARTING(
         "DefaultFailurePolicy", RESTART_MSG("js-w-0")) "]}",
     .jobs = {{"w", 0, 1, "ready"}, {"w", 1, 1, "active"}},
     .conds = "RestartingJobSet=True/DefaultFailurePolicy",
     .cond_ltt = "RestartingJobSet@" T_OLD,
     .restarts = "1/1",
     .service = true},
    {.name = "after a restart, dependsOn chains start over",
     .rjs = "i=1,w=1<i:Complete",
     .status = "{'restarts':1}",
     .jobs = {{"w", 0, 0, "ready", .flags = F_TERMINATING}},
     .creates = "js-i-0",
     .restarts = "1/0",
     .rjstat = "w=0/0/0/0/0 i=0/0/0/0/0",
     .service = true},
};

/* Every condition of pkg/constants/constants.go, and the updateCondition rules seen through a
 * reconcile. */
static const struct rcase t_conditions[] = {
    {.name = "Completed=True/AllJobsCompleted",
     .rjs = "w=2",
     .jobs = {{"w", 0, 0, "complete"}, {"w", 1, 0, "complete"}},
     .conds = "Completed=True/AllJobsCompleted",
     .cond_msg = "Completed: jobset completed successfully",
     .cond_ltt = "Completed@" NOW_STR,
     .events = "N:AllJobsCompleted",
     .terminal = "Completed",
     .rjstat = "w=0/2/0/0/0",
     .changed = 1},
    {.name = "Failed=True/FailedJobs (no failurePolicy)",
     .rjs = "w=2",
     .jobs = {{"w", 0, 0, "ready"}, {"w", 1, 0, "failed"}},
     .conds = "Failed=True/FailedJobs",
     .cond_msg = "Failed: jobset failed due to one or more job failures (first failed job: js-w-1)",
     .events = "W:FailedJobs",
     .ev_msg = "FailedJobs: jobset failed due to one or more job failures (first failed job: js-w-1)",
     .terminal = "Failed",
     .rjstat = "w=1/0/1/1/0"},
    {.name = "Failed=True/FailJobSetFailurePolicyAction",
     .rjs = "w=1",
     .spec = FP_RULES(3, "{'name':'stop','action':'FailJobSet'}"),
     .jobs = {{"w", 0, 0, "failed"}},
     .conds = "Failed=True/FailJobSetFailurePolicyAction",
     .cond_msg = "Failed: applying FailJobSet failure policy action (first failed job: js-w-0)",
     .events = "W:FailJobSetFailurePolicyAction",
     .terminal = "Failed"},
    {.name = "Failed=True/ReachedMaxRestarts (maxRestarts 0)",
     .rjs = "w=1",
     .spec = "{'failurePolicy':{'maxRestarts':0}}",
     .jobs = {{"w", 0, 0, "failed"}},
     .conds = "Failed=True/ReachedMaxRestarts",
     .cond_msg = "Failed: jobset failed due to reaching max number of restarts (first failed job: "
                 "js-w-0)",
     .events = "W:ReachedMaxRestarts",
     .terminal = "Failed"},
    {.name = "Suspended=True/SuspendedJobs",
     .rjs = "w=2",
     .spec = "{'suspend':true}",
     .creates = "js-w-0 js-w-1",
     .conds = "Suspended=True/SuspendedJobs",
     .cond_msg = "Suspended: jobset is suspended",
     .events = "N:SuspendedJobs",
     .service = true},
    {.name = "Suspended=False/ResumeJobs flips an existing condition",
     .rjs = "w=1",
     .status = "{'conditions':[" C_SUSPENDED "]}",
     .jobs = {{"w", 0, 0, "suspended"}},
     .patches = "js-w-0:resume",
     .conds = "Suspended=False/ResumeJobs",
     .cond_msg = "Suspended: jobset is resumed",
     .cond_ltt = "Suspended@" NOW_STR,
     .events = "N:ResumeJobs",
     .rjstat = "w=0/0/0/0/1",
     .service = true},
    {.name = "Suspended=False is not appended when never suspended",
     .rjs = "w=1",
     .jobs = {{"w", 0, 0, "active"}},
     .rjstat = "w=0/0/0/1/0",
     .service = true},
    {.name = "StartupPolicyInProgress=True",
     .rjs = "a=1,b=1",
     .spec = IN_ORDER,
     .creates = "js-a-0",
     .conds = "StartupPolicyInProgress=True/InOrderStartupPolicyInProgress",
     .cond_msg = "StartupPolicyInProgress: in order startup policy is in progress",
     .events = "N:InOrderStartupPolicyInProgress",
     .service = true},
    {.name = "StartupPolicyCompleted=True flips InProgress to False, keeping its time",
     .rjs = "a=1,b=1",
     .spec = IN_ORDER,
     .status = "{'conditions':[" C_IN_PROGRESS "]}",
     .jobs = {{"a", 0, 0, "ready"}, {"b", 0, 0, "ready"}},
     .conds = "StartupPolicyInProgress=False/InOrderStartupPolicyInProgress; "
              "StartupPolicyCompleted=True/InOrderStartupPolicyCompleted",
     .cond_msg = "StartupPolicyCompleted: in order startup policy has completed",
     .cond_ltt = "StartupPolicyInProgress@" T_OLD,
     .events = "N:InOrderStartupPolicyCompleted",
     .service = true},
    {.name = "StartupPolicyInProgress=True again flips Completed to False",
     .rjs = "a=1,b=1",
     .spec = IN_ORDER,
     .status = "{'restarts':1,'conditions':[" COND("StartupPolicyInProgress", "False",
                                                   "InOrderStartupPolicyInProgress",
                                                   "in order startup policy is in progress")
                   "," C_STARTUP_DONE "]}",
     .creates = "js-a-0",
     .conds = "StartupPolicyInProgress=True/InOrderStartupPolicyInProgress; "
              "StartupPolicyCompleted=False/InOrderStartupPolicyCompleted",
     .cond_ltt = "StartupPolicyInProgress@" NOW_STR,
     .events = "N:InOrderStartupPolicyInProgress",
     .restarts = "1/0",
     .service = true},
    {.name = "RestartingJobSet=True/FailurePolicy_<rule>",
     .rjs = "w=2",
     .spec = FP_RULES(3, "{'name':'retry','action':'RestartJobSet'}"),
     .jobs = {{"w", 0, 0, "ready"}, {"w", 1, 0, "failed"}},
     .conds = "RestartingJobSet=True/FailurePolicy_retry",
     .cond_msg = "RestartingJobSet: " RESTART_MSG("js-w-1"),
     .events = "W:FailurePolicy_retry W:RestartJobSetFailurePolicyAction",
     .ev_msg = "RestartJobSetFailurePolicyAction: " RESTART_MSG("js-w-1"),
     .restarts = "1/1",
     .rjstat = "w=1/0/1/1/0",
     .changed = 1},
    {.name = "RestartingJobSet=True/DefaultFailurePolicy",
     .rjs = "w=1",
     .spec = "{'failurePolicy':{'maxRestarts':1}}",
     .jobs = {{"w", 0, 0, "failed"}},
     .conds = "RestartingJobSet=True/DefaultFailurePolicy",
     .events = "W:DefaultFailurePolicy W:RestartJobSetFailurePolicyAction",
     .ev_msg = "DefaultFailurePolicy: " RESTART_MSG("js-w-0"),
     .restarts = "1/1"},
    {.name = "RestartingJobSet=False/JobSetFailed",
     .rjs = "w=1",
     .spec = "{'failurePolicy':{'maxRestarts':1}}",
     .status = "{'restarts':1,'restartsCountTowardsMax':1,'conditions':[" C_RESTARTING(
         "DefaultFailurePolicy", RESTART_MSG("js-w-0")) "]}",
     .jobs = {{"w", 0, 1, "failed"}},
     .conds = "RestartingJobSet=False/JobSetFailed; Failed=True/ReachedMaxRestarts",
     .cond_msg = "RestartingJobSet: jobset failed",
     .cond_ltt = "RestartingJobSet@" NOW_STR,
     .events = "W:ReachedMaxRestarts N:JobSetFailed",
     .restarts = "1/1",
     .terminal = "Failed"},
    {.name = "RestartingJobSet=False/JobSetCompleted (after JobsReady)",
     .rjs = "w=1",
     .status = "{'restarts':1,'conditions':[" C_RESTARTING("DefaultFailurePolicy",
                                                           RESTART_MSG("js-w-0")) "]}",
     .jobs = {{"w", 0, 1, "complete"}},
     .conds = "RestartingJobSet=False/JobSetCompleted; Completed=True/AllJobsCompleted",
     .cond_msg = "RestartingJobSet: jobset completed successfully",
     .events = "N:JobsReady N:AllJobsCompleted N:JobSetCompleted",
     .restarts = "1/0",
     .terminal = "Completed"},
    {.name = "RestartingJobSet=False/JobSetSuspended",
     .rjs = "w=1",
     .spec = "{'suspend':true}",
     .status = "{'restarts':1,'conditions':[" C_RESTARTING("DefaultFailurePolicy",
                                                           RESTART_MSG("js-w-0")) "]}",
     .jobs = {{"w", 0, 1, "ready"}},
     .patches = "js-w-0:suspend",
     .conds = "RestartingJobSet=False/JobSetSuspended; Suspended=True/SuspendedJobs",
     .cond_msg = "RestartingJobSet: jobset is suspended",
     .events = "N:SuspendedJobs N:JobSetSuspended",
     .restarts = "1/0",
     .service = true},
    {.name = "reason-only change keeps lastTransitionTime",
     .rjs = "w=1",
     .status = "{'conditions':[" COND("RestartingJobSet", "False", "JobsReady",
                                      "all jobs are ready") "]}",
     .jobs = {{"w", 0, 0, "complete"}},
     .conds = "RestartingJobSet=False/JobSetCompleted; Completed=True/AllJobsCompleted",
     .cond_ltt = "RestartingJobSet@" T_OLD,
     .events = "N:AllJobsCompleted N:JobSetCompleted",
     .terminal = "Completed"},
    {.name = "identical condition: no event, status unchanged",
     .rjs = "a=1,b=1",
     .spec = IN_ORDER,
     .status = "{'conditions':[" C_IN_PROGRESS "],'replicatedJobsStatus':[" RJS1(
         "a", 0, 0, 0, 1, 0) "," RJS1("b", 0, 0, 0, 0, 0) "]}",
     .jobs = {{"a", 0, 0, "active"}},
     .conds = "StartupPolicyInProgress=True/InOrderStartupPolicyInProgress",
     .cond_ltt = "StartupPolicyInProgress@" T_OLD,
     .rjstat = "b=0/0/0/0/0 a=0/0/0/1/0",
     .changed = -1,
     .service = true},
    {.name = "False-valued RestartingJobSet is not appended when absent",
     .rjs = "w=1",
     .jobs = {{"w", 0, 0, "ready"}},
     .rjstat = "w=1/0/0/1/0",
     .changed = 1,
     .service = true},
};

/* Failure policy (executeFailurePolicy). */
static const struct rcase t_failure[] = {
    {.name = "no policy: first failed Job by Failed lastTransitionTime",
     .rjs = "w=3",
     .jobs = {{"w", 0, 0, "failed", .t = 30}, {"w", 1, 0, "ready"}, {"w", 2, 0, "failed", .t = 10}},
     .conds = "Failed=True/FailedJobs",
     .cond_msg = "Failed: jobset failed due to one or more job failures (first failed job: js-w-2)",
     .events = "W:FailedJobs",
     .terminal = "Failed",
     .rjstat = "w=1/0/2/1/0"},
    {.name = "no policy: equal failure times keep the first Job seen",
     .rjs = "w=2",
     .jobs = {{"w", 1, 0, "failed", .t = 10}, {"w", 0, 0, "failed", .t = 10}},
     .conds = "Failed=True/FailedJobs",
     .cond_msg = "Failed: jobset failed due to one or more job failures (first failed job: js-w-1)",
     .events = "W:FailedJobs",
     .terminal = "Failed"},
    {.name = "rule with a matching reason applies",
     .rjs = "w=1",
     .spec = FP_RULES(5, "{'name':'dl','action':'FailJobSet','onJobFailureReasons':["
                         "'DeadlineExceeded']}"),
     .jobs = {{"w", 0, 0, "failed", "DeadlineExceeded"}},
     .conds = "Failed=True/FailJobSetFailurePolicyAction",
     .events = "W:FailJobSetFailurePolicyAction",
     .terminal = "Failed"},
    {.name = "reason not listed: default RestartJobSet",
     .rjs = "w=1",
     .spec = FP_RULES(5, "{'name':'dl','action':'FailJobSet','onJobFailureReasons':["
                         "'DeadlineExceeded','PodFailurePolicy']}"),
     .jobs = {{"w", 0, 0, "failed", "BackoffLimitExceeded"}},
     .conds = "RestartingJobSet=True/DefaultFailurePolicy",
     .events = "W:DefaultFailurePolicy W:RestartJobSetFailurePolicyAction",
     .restarts = "1/1"},
    {.name = "first matching rule wins",
     .rjs = "w=1",
     .spec = FP_RULES(5, "{'name':'r1','action':'RestartJobSetAndIgnoreMaxRestarts',"
                         "'onJobFailureReasons':['BackoffLimitExceeded']},"
                         "{'name':'r2','action':'FailJobSet'}"),
     .jobs = {{"w", 0, 0, "failed"}},
     .conds = "RestartingJobSet=True/FailurePolicy_r1",
     .cond_msg = "RestartingJobSet: applying RestartJobSetAndIgnoreMaxRestarts failure policy "
                 "action (first failed job: js-w-0)",
     .events = "W:FailurePolicy_r1 W:RestartJobSetAndIgnoreMaxRestartsFailurePolicyAction",
     .ev_msg = "RestartJobSetAndIgnoreMaxRestartsFailurePolicyAction: applying "
               "RestartJobSetAndIgnoreMaxRestarts failure policy action (first failed job: js-w-0)",
     .restarts = "1/0"},
    {.name = "a later rule applies when earlier ones do not",
     .rjs = "w=1",
     .spec = FP_RULES(5, "{'name':'r1','action':'FailJobSet','onJobFailureReasons':["
                         "'DeadlineExceeded']},{'name':'r2','action':"
                         "'RestartJobSetAndIgnoreMaxRestarts'}"),
     .jobs = {{"w", 0, 0, "failed"}},
     .conds = "RestartingJobSet=True/FailurePolicy_r2",
     .events = "W:FailurePolicy_r2 W:RestartJobSetAndIgnoreMaxRestartsFailurePolicyAction",
     .restarts = "1/0"},
    {.name = "a rule's first failed Job is the earliest among the Jobs it matches",
     .rjs = "w=2",
     .spec = FP_RULES(5, "{'name':'dl','action':'FailJobSet','onJobFailureReasons':["
                         "'DeadlineExceeded']}"),
     .jobs = {{"w", 0, 0, "failed", "DeadlineExceeded", .t = 50},
              {"w", 1, 0, "failed", "BackoffLimitExceeded", .t = 10}},
     .conds = "Failed=True/FailJobSetFailurePolicyAction",
     .cond_msg = "Failed: applying FailJobSet failure policy action (first failed job: js-w-0)",
     .events = "W:FailJobSetFailurePolicyAction",
     .terminal = "Failed"},
    {.name = "default action takes the earliest failed Job overall",
     .rjs = "w=2",
     .spec = FP_RULES(5, "{'name':'dl','action':'FailJobSet','onJobFailureReasons':["
                         "'PodFailurePolicy']}"),
     .jobs = {{"w", 0, 0, "failed", .t = 50}, {"w", 1, 0, "failed", .t = 10}},
     .conds = "RestartingJobSet=True/DefaultFailurePolicy",
     .cond_msg = "RestartingJobSet: " RESTART_MSG("js-w-1"),
     .events = "W:DefaultFailurePolicy W:RestartJobSetFailurePolicyAction",
     .restarts = "1/1"},
    {.name = "message pattern matches (unanchored extended regex)",
     .rjs = "w=1",
     .spec = FP_RULES(5, "{'name':'pre','action':'FailJobSet','onJobFailureMessagePatterns':["
                         "'preempt(ed|ion)']}"),
     .jobs = {{"w", 0, 0, "failed", "PodFailurePolicy", "pod was preempted by the scheduler"}},
     .conds = "Failed=True/FailJobSetFailurePolicyAction",
     .events = "W:FailJobSetFailurePolicyAction",
     .terminal = "Failed"},
    {.name = "message pattern does not match: default",
     .rjs = "w=1",
     .spec = FP_RULES(5, "{'name':'oom','action':'FailJobSet','onJobFailureMessagePatterns':["
                         "'^oom$']}"),
     .jobs = {{"w", 0, 0, "failed", "PodFailurePolicy", "pod was preempted"}},
     .conds = "RestartingJobSet=True/DefaultFailurePolicy",
     .events = "W:DefaultFailurePolicy W:RestartJobSetFailurePolicyAction",
     .restarts = "1/1"},
    {.name = "invalid pattern matches nothing",
     .rjs = "w=1",
     .spec = FP_RULES(5, "{'name':'bad','action':'FailJobSet','onJobFailureMessagePatterns':["
                         "'([']}"),
     .jobs = {{"w", 0, 0, "failed", "PodFailurePolicy", "(["}},
     .conds = "RestartingJobSet=True/DefaultFailurePolicy",
     .events = "W:DefaultFailurePolicy W:RestartJobSetFailurePolicyAction",
     .restarts = "1/1"},
    {.name = "invalid pattern is skipped, a later pattern matches",
     .rjs = "w=1",
     .spec = FP_RULES(5, "{'name':'bad','action':'FailJobSet','onJobFailureMessagePatterns':["
                         "'([','preempt']}"),
     .jobs = {{"w", 0, 0, "failed", "PodFailurePolicy", "pod was preempted"}},
     .conds = "Failed=True/FailJobSetFailurePolicyAction",
     .events = "W:FailJobSetFailurePolicyAction",
     .terminal = "Failed"},
    {.name = "reasons and patterns must both match",
     .rjs = "w=1",
     .spec = FP_RULES(5, "{'name':'both','action':'FailJobSet','onJobFailureReasons':["
                         "'BackoffLimitExceeded'],'onJobFailureMessagePatterns':['^xyz']}"),
     .jobs = {{"w", 0, 0, "failed", "BackoffLimitExceeded", "abc xyz"}},
     .conds = "RestartingJobSet=True/DefaultFailurePolicy",
     .events = "W:DefaultFailurePolicy W:RestartJobSetFailurePolicyAction",
     .restarts = "1/1"},
    {.name = "target RJ matches",
     .rjs = "d=1,w=1",
     .spec = FP_RULES(5, "{'name':'tw','action':'FailJobSet','targetReplicatedJobs':['w']}"),
     .jobs = {{"d", 0, 0, "ready"}, {"w", 0, 0, "failed"}},
     .conds = "Failed=True/FailJobSetFailurePolicyAction",
     .cond_msg = "Failed: applying FailJobSet failure policy action (first failed job: js-w-0)",
     .events = "W:FailJobSetFailurePolicyAction",
     .terminal = "Failed",
     .rjstat = "w=0/0/1/0/0 d=1/0/0/1/0"},
    {.name = "target RJ does not match: default",
     .rjs = "d=1,w=1",
     .spec = FP_RULES(5, "{'name':'td','action':'FailJobSet','targetReplicatedJobs':['d']}"),
     .jobs = {{"d", 0, 0, "ready"}, {"w", 0, 0, "failed"}},
     .conds = "RestartingJobSet=True/DefaultFailurePolicy",
     .events = "W:DefaultFailurePolicy W:RestartJobSetFailurePolicyAction",
     .restarts = "1/1"},
    {.name = "a failed Job without replicatedjob-name label matches no rule",
     .rjs = "w=1",
     .spec = FP_RULES(5, "{'name':'any','action':'FailJobSet'}"),
     .jobs = {{"w", 0, 0, "failed", .flags = F_NO_RJ_LABEL}},
     .conds = "RestartingJobSet=True/DefaultFailurePolicy",
     .cond_msg = "RestartingJobSet: " RESTART_MSG("js-w-0"),
     .events = "W:DefaultFailurePolicy W:RestartJobSetFailurePolicyAction",
     .restarts = "1/1",
     .rjstat = "w=0/0/0/0/0"},
    {.name = "RestartJobSet at the limit: ReachedMaxRestarts",
     .rjs = "w=1",
     .spec = FP_RULES(2, "{'name':'retry','action':'RestartJobSet'}"),
     .status = "{'restarts':2,'restartsCountTowardsMax':2}",
     .jobs = {{"w", 0, 2, "failed"}},
     .conds = "Failed=True/ReachedMaxRestarts",
     .events = "W:ReachedMaxRestarts",
     .restarts = "2/2",
     .terminal = "Failed"},
    {.name = "RestartJobSet below the limit restarts",
     .rjs = "w=1",
     .spec = FP_RULES(2, "{'name':'retry','action':'RestartJobSet'}"),
     .status = "{'restarts':1,'restartsCountTowardsMax':1}",
     .jobs = {{"w", 0, 1, "failed"}},
     .conds = "RestartingJobSet=True/FailurePolicy_retry",
     .events = "W:FailurePolicy_retry W:RestartJobSetFailurePolicyAction",
     .restarts = "2/2"},
    {.name = "maxRestarts 3: the third restart is allowed",
     .rjs = "w=1",
     .spec = "{'failurePolicy':{'maxRestarts':3}}",
     .status = "{'restarts':2,'restartsCountTowardsMax':2}",
     .jobs = {{"w", 0, 2, "failed"}},
     .conds = "RestartingJobSet=True/DefaultFailurePolicy",
     .events = "W:DefaultFailurePolicy W:RestartJobSetFailurePolicyAction",
     .restarts = "3/3"},
    {.name = "maxRestarts 3: the fourth failure fails the JobSet",
     .rjs = "w=1",
     .spec = "{'failurePolicy':{'maxRestarts':3}}",
     .status = "{'restarts':3,'restartsCountTowardsMax':3}",
     .jobs = {{"w", 0, 3, "failed"}},
     .conds = "Failed=True/ReachedMaxRestarts",
     .events = "W:ReachedMaxRestarts",
     .restarts = "3/3",
     .terminal = "Failed"},
    {.name = "RestartJobSetAndIgnoreMaxRestarts past the limit still restarts",
     .rjs = "w=1",
     .spec = FP_RULES(1, "{'name':'always','action':'RestartJobSetAndIgnoreMaxRestarts'}"),
     .status = "{'restarts':1,'restartsCountTowardsMax':1}",
     .jobs = {{"w", 0, 1, "failed"}},
     .conds = "RestartingJobSet=True/FailurePolicy_always",
     .events = "W:FailurePolicy_always W:RestartJobSetAndIgnoreMaxRestartsFailurePolicyAction",
     .restarts = "2/1"},
    {.name = "only restartsCountTowardsMax counts toward the limit",
     .rjs = "w=1",
     .spec = "{'failurePolicy':{'maxRestarts':1}}",
     .status = "{'restarts':5}",
     .jobs = {{"w", 0, 5, "failed"}},
     .conds = "RestartingJobSet=True/DefaultFailurePolicy",
     .events = "W:DefaultFailurePolicy W:RestartJobSetFailurePolicyAction",
     .restarts = "6/1"},
    {.name = "a matching RestartJob rule is an error with the gate off",
     .rjs = "w=1",
     .spec = FP_RULES(5, "{'name':'one','action':'RestartJob'}"),
     .jobs = {{"w", 0, 0, "failed"}},
     .rc = -EINVAL},
    {.name = "a RestartJob rule that does not match is harmless",
     .rjs = "d=1,w=1",
     .spec = FP_RULES(5, "{'name':'one','action':'RestartJob','targetReplicatedJobs':['d']}"),
     .jobs = {{"d", 0, 0, "ready"}, {"w", 0, 0, "failed"}},
     .conds = "RestartingJobSet=True/DefaultFailurePolicy",
     .events = "W:DefaultFailurePolicy W:RestartJobSetFailurePolicyAction",
     .restarts = "1/1"},
    {.name = "repeat restart with an identical condition: only the action event",
     .rjs = "w=1",
     .spec = "{'failurePolicy':{'maxRestarts':3}}",
     .status = "{'restarts':1,'restartsCountTowardsMax':1,'conditions':[" C_RESTARTING(
         "DefaultFailurePolicy", RESTART_MSG("js-w-0")) "]}",
     .jobs = {{"w", 0, 1, "failed"}},
     .conds = "RestartingJobSet=True/DefaultFailurePolicy",
     .cond_ltt = "RestartingJobSet@" T_OLD,
     .events = "W:RestartJobSetFailurePolicyAction",
     .restarts = "2/2"},
    {.name = "a failure takes precedence over success",
     .rjs = "w=2",
     .jobs = {{"w", 0, 0, "complete"}, {"w", 1, 0, "failed"}},
     .conds = "Failed=True/FailedJobs",
     .events = "W:FailedJobs",
     .terminal = "Failed",
     .rjstat = "w=0/1/1/0/0"},
    {.name = "a failure pass creates nothing and skips the Service",
     .rjs = "w=2",
     .spec = "{'failurePolicy':{'maxRestarts':1}}",
     .jobs = {{"w", 0, 0, "failed"}},
     .conds = "RestartingJobSet=True/DefaultFailurePolicy",
     .events = "W:DefaultFailurePolicy W:RestartJobSetFailurePolicyAction",
     .restarts = "1/1"},
};

/* Success policy (executeSuccessPolicy) and finished JobSets. */
static const struct rcase t_success[] = {
    {.name = "All: not every Job complete yet",
     .rjs = "w=2",
     .jobs = {{"w", 0, 0, "complete"}, {"w", 1, 0, "ready"}},
     .rjstat = "w=1/1/0/1/0",
     .service = true},
    {.name = "Any without targets: the first Complete Job completes the JobSet",
     .rjs = "i=1,w=2",
     .spec = "{'successPolicy':{'operator':'Any'}}",
     .jobs = {{"i", 0, 0, "complete"}, {"w", 0, 0, "active"}, {"w", 1, 0, "active"}},
     .conds = "Completed=True/AllJobsCompleted",
     .events = "N:AllJobsCompleted",
     .terminal = "Completed"},
    {.name = "Any with targets: a non-target Complete Job is not enough",
     .rjs = "i=1,w=2",
     .spec = "{'successPolicy':{'operator':'Any','targetReplicatedJobs':['w']}}",
     .jobs = {{"i", 0, 0, "complete"}},
     .creates = "js-w-0 js-w-1",
     .service = true},
    {.name = "Any with targets: a target Complete Job completes the JobSet",
     .rjs = "i=1,w=2",
     .spec = "{'successPolicy':{'operator':'Any','targetReplicatedJobs':['w']}}",
     .jobs = {{"i", 0, 0, "active"}, {"w", 0, 0, "active"}, {"w", 1, 0, "complete"}},
     .conds = "Completed=True/AllJobsCompleted",
     .events = "N:AllJobsCompleted",
     .terminal = "Completed"},
    {.name = "All with targets: every target Job complete",
     .rjs = "i=1,w=2",
     .spec = "{'successPolicy':{'operator':'All','targetReplicatedJobs':['w']}}",
     .jobs = {{"i", 0, 0, "active"}, {"w", 0, 0, "complete"}, {"w", 1, 0, "complete"}},
     .conds = "Completed=True/AllJobsCompleted",
     .events = "N:AllJobsCompleted",
     .terminal = "Completed"},
    {.name = "All with targets: one target Job still running",
     .rjs = "i=1,w=2",
     .spec = "{'successPolicy':{'operator':'All','targetReplicatedJobs':['w']}}",
     .jobs = {{"i", 0, 0, "complete"}, {"w", 0, 0, "complete"}, {"w", 1, 0, "active"}},
     .service = true},
    {.name = "All without targets counts the Jobs of every RJ",
     .rjs = "i=1,w=2",
     .jobs = {{"i", 0, 0, "complete"}, {"w", 0, 0, "complete"}, {"w", 1, 0, "complete"}},
     .conds = "Completed=True/AllJobsCompleted",
     .events = "N:AllJobsCompleted",
     .terminal = "Completed",
     .rjstat = "w=0/2/0/0/0 i=0/1/0/0/0"},
    {.name = "Completed JobSet: active Jobs are deleted, terminating ones skipped",
     .rjs = "w=3",
     .status = "{'terminalState':'Completed','conditions':[" C_COMPLETED "]}",
     .jobs = {{"w", 0, 0, "active"},
              {"w", 1, 0, "complete"},
              {"w", 2, 0, "ready", .flags = F_TERMINATING}},
     .deletes = "js-w-0",
     .conds = "Completed=True/AllJobsCompleted",
     .terminal = "Completed",
     .rjstat = "w=1/1/0/2/0",
     .changed = 1},
    {.name = "Failed JobSet: previous-attempt Jobs are left alone, nothing created",
     .rjs = "w=2",
     .status = "{'restarts':1,'terminalState':'Failed','conditions':[" C_FAILED "]}",
     .jobs = {{"w", 0, 0, "ready"}, {"w", 1, 1, "active"}},
     .deletes = "js-w-1",
     .conds = "Failed=True/FailedJobs",
     .restarts = "1/0",
     .terminal = "Failed"},
};

/* StartupPolicy InOrder (startup_policy.go), including the resume order
 * (resumeJobsIfNecessary). */
static const struct rcase t_in_order[] = {
    {.name = "first RJ not started: nothing new",
     .rjs = "a=2,b=1",
     .spec = IN_ORDER,
     .status = "{'conditions':[" C_IN_PROGRESS "]}",
     .jobs = {{"a", 0, 0, "ready"}, {"a", 1, 0, "active"}},
     .conds = "StartupPolicyInProgress=True/InOrderStartupPolicyInProgress",
     .service = true},
    {.name = "next RJ created once the previous one started",
     .rjs = "a=2,b=1",
     .spec = IN_ORDER,
     .jobs = {{"a", 0, 0, "ready"}, {"a", 1, 0, "ready"}},
     .creates = "js-b-0",
     .conds = "StartupPolicyInProgress=True/InOrderStartupPolicyInProgress",
     .events = "N:InOrderStartupPolicyInProgress",
     .service = true},
    {.name = "succeeded Jobs count as started",
     .rjs = "a=2,b=1",
     .spec = IN_ORDER,
     .jobs = {{"a", 0, 0, "complete"}, {"a", 1, 0, "ready"}},
     .creates = "js-b-0",
     .conds = "StartupPolicyInProgress=True/InOrderStartupPolicyInProgress",
     .events = "N:InOrderStartupPolicyInProgress",
     .service = true},
    {.name = "suspended: every Job created, no startup condition",
     .rjs = "a=2,b=1",
     .spec = "{'suspend':true,'startupPolicy':{'startupPolicyOrder':'InOrder'}}",
     .creates = "js-a-0 js-a-1 js-b-0",
     .conds = "Suspended=True/SuspendedJobs",
     .events = "N:SuspendedJobs",
     .service = true},
    {.name = "resume: only the first not-started RJ is resumed",
     .rjs = "a=2,b=1",
     .spec = IN_ORDER,
     .status = "{'conditions':[" C_SUSPENDED "]}",
     .jobs = {{"a", 0, 0, "suspended"}, {"b", 0, 0, "suspended"}, {"a", 1, 0, "suspended"}},
     .patches = "js-a-0:resume js-a-1:resume",
     .conds = "Suspended=True/SuspendedJobs; "
              "StartupPolicyInProgress=True/InOrderStartupPolicyInProgress",
     .events = "N:InOrderStartupPolicyInProgress",
     .service = true},
    {.name = "resume: started RJs skipped, the next one resumed",
     .rjs = "a=2,b=1",
     .spec = IN_ORDER,
     .status = "{'conditions':[" C_SUSPENDED "," C_IN_PROGRESS "]}",
     .jobs = {{"a", 0, 0, "ready"}, {"a", 1, 0, "ready"}, {"b", 0, 0, "suspended"}},
     .patches = "js-b-0:resume",
     .conds = "Suspended=True/SuspendedJobs; "
              "StartupPolicyInProgress=True/InOrderStartupPolicyInProgress",
     .service = true},
    {.name = "resume completes once every RJ started",
     .rjs = "a=1,b=1",
     .spec = IN_ORDER,
     .status = "{'conditions':[" C_SUSPENDED "," C_IN_PROGRESS "]}",
     .jobs = {{"a", 0, 0, "ready"}, {"b", 0, 0, "ready"}},
     .conds = "Suspended=False/ResumeJobs; "
              "StartupPolicyInProgress=False/InOrderStartupPolicyInProgress; "
              "StartupPolicyCompleted=True/InOrderStartupPolicyCompleted",
     .events = "N:InOrderStartupPolicyCompleted N:ResumeJobs",
     .service = true},
};

/* dependsOn (dependencyReachedStatus). */
static const struct rcase t_depends_on[] = {
    {.name = "Complete dependency unmet: only the first RJ",
     .rjs = "i=1,w=2<i:Complete",
     .creates = "js-i-0",
     .service = true},
    {.name = "Complete dependency not met by a ready Job",
     .rjs = "i=1,w=2<i:Complete",
     .jobs = {{"i", 0, 0, "ready"}},
     .service = true},
    {.name = "Complete dependency met",
     .rjs = "i=1,w=2<i:Complete",
     .jobs = {{"i", 0, 0, "complete"}},
     .creates = "js-w-0 js-w-1",
     .service = true},
    {.name = "Ready dependency met by a ready Job",
     .rjs = "d=1,w=2<d:Ready",
     .jobs = {{"d", 0, 0, "ready"}},
     .creates = "js-w-0 js-w-1",
     .service = true},
    {.name = "Ready dependency not met by an active Job",
     .rjs = "d=1,w=2<d:Ready",
     .jobs = {{"d", 0, 0, "active"}},
     .service = true},
    {.name = "Ready dependency met by a succeeded Job",
     .rjs = "d=1,w=2<d:Ready",
     .jobs = {{"d", 0, 0, "complete"}},
     .creates = "js-w-0 js-w-1",
     .service = true},
    {.name = "an unmet dependency skips only that RJ",
     .rjs = "i=1,w=1<i:Complete,x=1",
     .creates = "js-i-0 js-x-0",
     .service = true},
    {.name = "several dependencies: all are needed",
     .rjs = "a=1,b=1,c=1<a:Ready<b:Complete",
     .jobs = {{"a", 0, 0, "ready"}, {"b", 0, 0, "active"}},
     .service = true},
    {.name = "several dependencies met",
     .rjs = "a=1,b=1,c=1<a:Ready<b:Complete",
     .jobs = {{"a", 0, 0, "ready"}, {"b", 0, 0, "complete"}},
     .creates = "js-c-0",
     .service = true},
    {.name = "suspended: dependent RJs are not created",
     .rjs = "i=1,w=1<i:Complete",
     .spec = "{'suspend':true}",
     .creates = "js-i-0",
     .conds = "Suspended=True/SuspendedJobs",
     .events = "N:SuspendedJobs",
     .service = true},
    {.name = "resume skips RJs whose dependencies are unmet",
     .rjs = "i=1,w=1<i:Complete",
     .status = "{'conditions':[" C_SUSPENDED "]}",
     .jobs = {{"i", 0, 0, "suspended"}, {"w", 0, 0, "suspended"}},
     .patches = "js-i-0:resume",
     .conds = "Suspended=False/ResumeJobs",
     .events = "N:ResumeJobs",
     .service = true},
};

/* Suspend and resume (suspendJobs, resumeJobsIfNecessary). */
static const struct rcase t_suspend[] = {
    {.name = "suspend: only active, not-yet-suspended Jobs are patched",
     .rjs = "w=3",
     .spec = "{'suspend':true}",
     .jobs = {{"w", 0, 0, "ready"}, {"w", 1, 0, "suspended"}, {"w", 2, 0, "complete"}},
     .patches = "js-w-0:suspend",
     .conds = "Suspended=True/SuspendedJobs",
     .events = "N:SuspendedJobs",
     .rjstat = "w=1/1/0/1/1",
     .service = true},
    {.name = "suspend: previous-attempt Jobs are deleted, not patched",
     .rjs = "w=1",
     .spec = "{'suspend':true}",
     .status = "{'restarts':1}",
     .jobs = {{"w", 0, 0, "ready"}},
     .deletes = "js-w-0",
     .conds = "Suspended=True/SuspendedJobs",
     .events = "N:SuspendedJobs",
     .restarts = "1/0",
     .service = true},
    {.name = "resume clears startTime first",
     .rjs = "w=1",
     .status = "{'conditions':[" C_SUSPENDED "]}",
     .jobs = {{"w", 0, 0, "suspended", .flags = F_STARTED}},
     .patches = "js-w-0:resume+clear",
     .conds = "Suspended=False/ResumeJobs",
     .events = "N:ResumeJobs",
     .service = true},
    {.name = "resume touches only suspended Jobs",
     .rjs = "w=2",
     .status = "{'conditions':[" C_SUSPENDED "]}",
     .jobs = {{"w", 0, 0, "suspended"}, {"w", 1, 0, "ready"}},
     .patches = "js-w-0:resume",
     .conds = "Suspended=False/ResumeJobs",
     .events = "N:ResumeJobs",
     .service = true},
    {.name = "already suspended: no patch, no event, status unchanged",
     .rjs = "w=2",
     .spec = "{'suspend':true}",
     .status = "{'conditions':[" C_SUSPENDED "],'replicatedJobsStatus':[" RJS1("w", 0, 0, 0, 0,
                                                                              2) "]}",
     .jobs = {{"w", 0, 0, "suspended"}, {"w", 1, 0, "suspended"}},
     .conds = "Suspended=True/SuspendedJobs",
     .changed = -1,
     .service = true},
};

#define FINISHED_AT(t)                                                                        \
    "{'terminalState':'Completed','conditions':[" COND_AT("Completed", "True",                \
                                                         "AllJobsCompleted",                  \
                                                         "jobset completed successfully", t) "]}"

/* ttlSecondsAfterFinished (executeTTLAfterFinishedPolicy). */
static const struct rcase t_ttl[] = {
    {.name = "finished without TTL: no requeue",
     .rjs = "w=1",
     .status = FINISHED_AT("2026-11-22T09:00:00Z"),
     .conds = "Completed=True/AllJobsCompleted",
     .terminal = "Completed"},
    {.name = "TTL not expired: requeue for the remainder",
     .rjs = "w=1",
     .spec = "{'ttlSecondsAfterFinished':300}",
     .status = FINISHED_AT("2026-11-22T09:59:00Z"),
     .conds = "Completed=True/AllJobsCompleted",
     .terminal = "Completed",
     .requeue_ms = 240000},
    {.name = "TTL expired: delete the JobSet",
     .rjs = "w=1",
     .spec = "{'ttlSecondsAfterFinished':60}",
     .status = FINISHED_AT("2026-11-22T09:00:00Z"),
     .conds = "Completed=True/AllJobsCompleted",
     .terminal = "Completed",
     .delete_js = true},
    {.name = "TTL expiring exactly now deletes",
     .rjs = "w=1",
     .spec = "{'ttlSecondsAfterFinished':60}",
     .status = FINISHED_AT("2026-11-22T09:59:00Z"),
     .conds = "Completed=True/AllJobsCompleted",
     .terminal = "Completed",
     .delete_js = true},
    {.name = "TTL 0 deletes at once",
     .rjs = "w=1",
     .spec = "{'ttlSecondsAfterFinished':0}",
     .status = FINISHED_AT("2026-11-22T09:59:59Z"),
     .conds = "Completed=True/AllJobsCompleted",
     .terminal = "Completed",
     .delete_js = true},
    {.name = "fractional finish time",
     .rjs = "w=1",
     .spec = "{'ttlSecondsAfterFinished':1}",
     .status = FINISHED_AT("2026-11-22T09:59:59.500Z"),
     .conds = "Completed=True/AllJobsCompleted",
     .terminal = "Completed",
     .requeue_ms = 500},
    {.name = "finish time with a UTC offset",
     .rjs = "w=1",
     .spec = "{'ttlSecondsAfterFinished':120}",
     .status = FINISHED_AT("2026-11-22T10:59:00+01:00"),
     .conds = "Completed=True/AllJobsCompleted",
     .terminal = "Completed",
     .requeue_ms = 60000},
    {.name = "Failed condition gives the finish time",
     .rjs = "w=1",
     .spec = "{'ttlSecondsAfterFinished':180}",
     .status = "{'terminalState':'Failed','conditions':[" COND_AT(
         "Failed", "True", "FailedJobs", "x", "2026-11-22T09:58:00Z") "]}",
     .conds = "Failed=True/FailedJobs",
     .terminal = "Failed",
     .requeue_ms = 60000},
    {.name = "finish condition without a time is an error",
     .rjs = "w=1",
     .spec = "{'ttlSecondsAfterFinished':10}",
     .status = "{'conditions':[{'type':'Completed','status':'True','reason':'AllJobsCompleted'}]}",
     .rc = -EINVAL},
    {.name = "TTL is ignored while running",
     .rjs = "w=1",
     .spec = "{'ttlSecondsAfterFinished':0}",
     .creates = "js-w-0",
     .service = true},
    {.name = "finished with TTL pending: active Jobs deleted and requeue",
     .rjs = "w=1",
     .spec = "{'ttlSecondsAfterFinished':300}",
     .status = FINISHED_AT("2026-11-22T09:59:00Z"),
     .jobs = {{"w", 0, 0, "active"}},
     .deletes = "js-w-0",
     .conds = "Completed=True/AllJobsCompleted",
     .terminal = "Completed",
     .requeue_ms = 240000},
};

/* managedBy, deletion, semantic status comparison (managedByExternalController,
 * replicatedJobStatusesEqual). */
static const struct rcase t_misc[] = {
    {.name = "managedBy another controller: skipped",
     .rjs = "w=1",
     .spec = "{'managedBy':'kueue.x-k8s.io/multikueue'}",
     .skipped = true},
    {.name = "managedBy another controller: skipped even with unreadable Jobs",
     .rjs = "w=1",
     .spec = "{'managedBy':'example.com/other'}",
     .jobs = {{"w", 0, 0, "failed", .flags = F_BAD_ATTEMPT}},
     .skipped = true},
    {.name = "managedBy the JobSet controller: reconciled",
     .rjs = "w=1",
     .spec = "{'managedBy':'jobset.sigs.k8s.io/jobset-controller'}",
     .creates = "js-w-0",
     .service = true},
    {.name = "being deleted: skipped",
     .rjs = "w=1",
     .deleting = true,
     .skipped = true},
    {.name = "status equal despite RJ order, missing counters, absent restarts",
     .rjs = "a=1,w=1",
     .status = "{'replicatedJobsStatus':[{'name':'a'},{'name':'w','ready':1,'active':1}]}",
     .jobs = {{"w", 0, 0, "ready"}},
     .creates = "js-a-0",
     .rjstat = "w=1/0/0/1/0 a=0/0/0/0/0",
     .changed = -1,
     .service = true},
    {.name = "a counter change marks the status changed",
     .rjs = "w=1",
     .status = "{'restarts':0,'replicatedJobsStatus':[" RJS1("w", 0, 0, 0, 1, 0) "]}",
     .jobs = {{"w", 0, 0, "ready"}},
     .rjstat = "w=1/0/0/1/0",
     .changed = 1,
     .service = true},
    {.name = "empty terminalState and restartsCountTowardsMax 0 equal absent ones",
     .rjs = "w=1",
     .status = "{'restarts':0,'restartsCountTowardsMax':0,'terminalState':'','conditions':[],"
               "'replicatedJobsStatus':[" RJS1("w", 1, 0, 0, 1, 0) "]}",
     .jobs = {{"w", 0, 0, "ready"}},
     .changed = -1,
     .service = true},
};

static void test_create(void **state)
{
    (void)state;
    RUN_TABLE(t_create);
}

static void test_restart(void **state)
{
    (void)state;
    RUN_TABLE(t_restart);
}

static void test_conditions_table(void **state)
{
    (void)state;
    RUN_TABLE(t_conditions);
}

static void test_failure(void **state)
{
    (void)state;
    RUN_TABLE(t_failure);
}

static void test_success(void **state)
{
    (void)state;
    RUN_TABLE(t_success);
}

static void test_in_order(void **state)
{
    (void)state;
    RUN_TABLE(t_in_order);
}

static void test_depends_on(void **state)
{
    (void)state;
    RUN_TABLE(t_depends_on);
}

static void test_suspend(void **state)
{
    (void)state;
    RUN_TABLE(t_suspend);
}

static void test_ttl(void **state)
{
    (void)state;
    RUN_TABLE(t_ttl);
}

static void test_misc(void **state)
{
    (void)state;
    RUN_TABLE(t_misc);
}

static void test_case_count(void **state)
{
    (void)state;
    COUNT(t_create);
    COUNT(t_restart);
    COUNT(t_conditions);
    COUNT(t_failure);
    COUNT(t_success);
    COUNT(t_in_order);
    COUNT(t_depends_on);
    COUNT(t_suspend);
    COUNT(t_ttl);
    COUNT(t_misc);
    print_message("%zu reconcile table cases\n", n_cases);
    assert_true(n_cases >= 80);
}

/* ---- single-purpose tests ------------------------------------------------------------------ */

static json_t *reconcile_ok(const json_t *js, const json_t *jobs, struct rec_plan *plan)
{
    struct err e = {{0}};
    int rc = rec_reconcile(js, jobs, NOW, plan, &e);
    if (rc)
        fail_msg("rec_reconcile: %d (%s)", rc, e.msg);
    return plan->status;
}

static void test_created_jobs_carry_attempt_and_suspend(void **state)
{
    (void)state;
    static const struct rcase k = {.name = "c", .rjs = "w=2", .spec = "{'suspend':true}",
                                   .status = "{'restarts':2}"};
    json_t *js = mk_jobset(&k);
    struct rec_plan plan;
    reconcile_ok(js, NULL, &plan);
    assert_int_equal(plan.n_creates, 2);
    for (size_t i = 0; i < 2; i++) {
        const json_t *job = plan.creates[i], *meta = jx_obj(job, "metadata");
        assert_string_equal(jx_get_meta(meta, "labels", LBL_RESTART_ATTEMPT), "2");
        assert_string_equal(jx_get_meta(meta, "labels", LBL_RJ_NAME), "w");
        assert_string_equal(jx_str(meta, "namespace"), "default");
        assert_true(jx_bool_or(jx_obj(job, "spec"), "suspend", false));
    }
    assert_string_equal(jx_str(jx_obj(plan.creates[1], "metadata"), "name"), "js-w-1");
    rec_plan_release(&plan);
    json_decref(js);
}

static void test_resume_merges_pod_template(void **state)
{
    (void)state;
    static const struct rcase k = {
        .name = "m",
        .rjs = "w=1",
        .spec = "{'replicatedJobs':[{'name':'w','replicas':1,'template':{'spec':{'template':{"
                "'metadata':{'labels':{'kueue':'a'},'annotations':{'an':'1'}},'spec':{"
                "'nodeSelector':{'zone':'z'},'tolerations':[{'key':'t1','operator':'Exists'}],"
                "'schedulingGates':[{'name':'g'}],'containers':[{'name':'c','image':'i'}]}}}}}]}",
        .status = "{'conditions':[" C_SUSPENDED "]}"};
    static const struct tjob row = {"w", 0, 0, "suspended", .flags = F_STARTED};
    json_t *js = mk_jobset(&k), *job = mk_job(&row), *jobs = json_array();
    json_t *pt = jx_path(job, "spec.template");
    json_object_set_new(json_object_get(pt, "metadata"), "labels",
                        tu_qjson("{'x':'y','kueue':'old'}"));
    json_object_set_new(json_object_get(pt, "spec"), "tolerations",
                        tu_qjson("[{'key':'t0','operator':'Exists'},{'key':'t1','operator':'Exists'}]"));
    json_array_append_new(jobs, job);
    struct rec_plan plan;
    reconcile_ok(js, jobs, &plan);
    assert_int_equal(plan.n_patches, 1);
    assert_true(plan.patches[0].clear_start_time);
    json_t *want = tu_qjson("{'metadata':{'labels':{'x':'y','kueue':'a'},'annotations':{'an':'1'}},"
                         "'spec':{'containers':[{'name':'c','image':'busybox'}],'tolerations':["
                         "{'key':'t0','operator':'Exists'},{'key':'t1','operator':'Exists'}],"
                         "'nodeSelector':{'zone':'z'},'schedulingGates':[{'name':'g'}]}}");
    const json_t *got = jx_path(plan.patches[0].job, "spec.template");
    if (!json_equal(want, got)) {
        char *s = json_dumps(got, JSON_SORT_KEYS);
        fail_msg("merged template: %s", s);
    }
    assert_null(json_object_get(jx_obj(plan.patches[0].job, "status"), "startTime"));
    assert_false(jx_bool_or(jx_obj(plan.patches[0].job, "spec"), "suspend", true));
    json_decref(want);
    rec_plan_release(&plan);
    json_decref(js);
    json_decref(jobs);
}

static void keys_of(const json_t *o, char *out, size_t n)
{
    const char *k;
    json_t *v;
    size_t off = 0;
    out[0] = 0;
    json_object_foreach ((json_t *)o, k, v)
        off += (size_t)snprintf(out + off, n - off, "%s%s", off ? " " : "", k);
}

static void test_status_layout(void **state)
{
    (void)state;
    static const struct rcase k = {
        .name = "l",
        .rjs = "w=1",
        .spec = "{'suspend':true}",
        .status = "{'currentInPlaceRestartAttempt':2,'terminalState':'','restarts':1,"
                  "'restartsCountTowardsMax':1}"};
    json_t *js = mk_jobset(&k);
    struct rec_plan plan;
    const json_t *s = reconcile_ok(js, NULL, &plan);
    char keys[512];
    keys_of(s, keys, sizeof(keys));
    assert_string_equal(keys, "conditions restarts restartsCountTowardsMax replicatedJobsStatus "
                              "currentInPlaceRestartAttempt");
    keys_of(json_array_get(jx_arr(s, "replicatedJobsStatus"), 0), keys, sizeof(keys));
    assert_string_equal(keys, "name ready succeeded failed active suspended");
    keys_of(json_array_get(jx_arr(s, "conditions"), 0), keys, sizeof(keys));
    assert_string_equal(keys, "type status lastTransitionTime reason message");
    assert_string_equal(jx_str(json_array_get(jx_arr(s, "conditions"), 0), "lastTransitionTime"),
                        NOW_STR);
    assert_true(plan.status_changed);
    rec_plan_release(&plan);
    json_decref(js);
}

static void test_error_messages(void **state)
{
    (void)state;
    static const struct rcase bad = {.name = "b", .rjs = "w=1",
                                     .jobs = {{"w", 0, 0, "ready", .flags = F_BAD_ATTEMPT}}};
    static const struct rcase gated = {.name = "g", .rjs = "w=1",
                                       .spec = FP_RULES(1, "{'name':'one','action':'RestartJob'}"),
                                       .jobs = {{"w", 0, 0, "failed"}}};
    const struct rcase *cases[] = {&bad, &gated};
    const char *want[] = {"job js-w-0: invalid value for label jobset.sigs.k8s.io/restart-attempt",
                          "RestartJob failure policy action cannot be used when the feature gate "
                          "RestartJob is disabled"};
    for (size_t i = 0; i < 2; i++) {
        json_t *js = mk_jobset(cases[i]), *jobs = mk_jobs(cases[i]->jobs);
        struct rec_plan plan = {.n_creates = 7};
        struct err e = {{0}};
        assert_int_equal(rec_reconcile(js, jobs, NOW, &plan, &e), -EINVAL);
        assert_non_null(strstr(e.msg, want[i]));
        assert_int_equal(plan.n_creates, 7); /* untouched on failure */
        json_decref(js);
        json_decref(jobs);
    }
}

static void test_inputs_untouched_and_release(void **state)
{
    (void)state;
    static const struct rcase k = {.name = "p", .rjs = "w=2",
                                   .status = "{'conditions':[" C_SUSPENDED "]}",
                                   .jobs = {{"w", 0, 0, "suspended", .flags = F_STARTED}}};
    json_t *js = mk_jobset(&k), *jobs = mk_jobs(k.jobs);
    char *before_js = json_dumps(js, JSON_SORT_KEYS), *before_jobs = json_dumps(jobs, 0);
    struct rec_plan plan;
    reconcile_ok(js, jobs, &plan);
    char *after_js = json_dumps(js, JSON_SORT_KEYS), *after_jobs = json_dumps(jobs, 0);
    assert_string_equal(before_js, after_js);
    assert_string_equal(before_jobs, after_jobs);
    assert_int_equal(plan.n_creates, 1);
    assert_int_equal(plan.n_patches, 1);
    rec_plan_release(&plan);
    rec_plan_release(&plan);
    assert_null(plan.status);
    assert_int_equal(plan.requeue_after_ms, -1);
    rec_plan_release(NULL);
    free(before_js);
    free(before_jobs);
    free(after_js);
    free(after_jobs);
    json_decref(js);
    json_decref(jobs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create),
        cmocka_unit_test(test_restart),
        cmocka_unit_test(test_conditions_table),
        cmocka_unit_test(test_failure),
        cmocka_unit_test(test_success),
        cmocka_unit_test(test_in_order),
        cmocka_unit_test(test_depends_on),
        cmocka_unit_test(test_suspend),
        cmocka_unit_test(test_ttl),
        cmocka_unit_test(test_misc),
        cmocka_unit_test(test_case_count),
        cmocka_unit_test(test_created_jobs_carry_attempt_and_suspend),
        cmocka_unit_test(test_resume_merges_pod_template),
        cmocka_unit_test(test_status_layout),
        cmocka_unit_test(test_error_messages),
        cmocka_unit_test(test_inputs_untouched_and_release),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
