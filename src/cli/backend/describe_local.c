/* describe_local: `describe` of a local run: what happened in the latest run of NAME, as
 * `kubectl describe` shows an object: the run, the JobSet's conditions and replicated jobs, its
 * child Jobs, every pod of every restart attempt (oldest first), the first failed pod of each
 * attempt and the events. */
#include "cli/util/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/schema/keys.h"
#include "cli/backend/backend_int.h"
#include "cli/backend/describe.h"
#include "cli/backend/runs.h"
#include "cli/util/table.h"
#include "obj/tree/jx.h"
#include "obj/base/ktime.h"

#define LABEL_W 18 /* "Terminal State:" and its value */

static const char *or_dash(const char *s)
{
    return s && *s ? s : "-";
}

#define field(label, ...) table_field(LABEL_W, label, __VA_ARGS__)
#define section(title, t, indent) table_section(title, t, indent)

/* Whether the pods are JAX processes (they have process ids). */
static bool jax_run(const json_t *pods)
{
    const json_t *p;
    size_t i;
    json_array_foreach (pods, i, p)
        if (jx_int_or(p, "jaxProcessId", -1) >= 0)
            return true;
    return false;
}

static void header(const struct store_run *r, int64_t now)
{
    const json_t *meta = jx_obj(r->jobset, "metadata"), *st = jx_obj(r->jobset, "status");
    const json_t *fp = jx_path(r->jobset, "spec.failurePolicy");
    const char *start = jx_str(r->run, "startTime");
    int64_t s = store_start_ms(r), e = store_end_ms(r, now);
    char age[RUNS_HUMAN_MAX], dur[RUNS_HUMAN_MAX];
    long long exit_status = store_exit_status(r);
    field("Name:", "%s", r->name);
    field("Namespace:", "%s", or_dash(jx_str(meta, "namespace")));
    field("Source:", "%s", or_dash(jx_str(r->run, "source")));
    field("Run Directory:", "%s", r->dir);
    if (exit_status >= 0)
        field("State:", "%s (exit status %lld)", runs_state(r), exit_status);
    else
        field("State:", "%s", runs_state(r));
    if (s)
        field("Start Time:", "%s (%s ago)", start, runs_age(start, now, age));
    else
        field("Start Time:", "-");
    field("Duration:", "%s", s && e ? runs_human(e - s, dur) : "-");
    if (fp)
        field("Restarts:", "%lld (%lld of maxRestarts %lld)", jx_int_or(st, "restarts", 0),
              jx_int_or(st, "restartsCountTowardsMax", 0), jx_int_or(fp, "maxRestarts", 0));
    else
        field("Restarts:", "%lld", jx_int_or(st, "restarts", 0));
    field("Terminal State:", "%s", or_dash(jx_str(st, "terminalState")));
    if (jax_run(r->pods) && jx_int_or(r->run, "coordinatorPort", 0) > 0)
        field("JAX Coordinator:", "127.0.0.1:%lld", jx_int_or(r->run, "coordinatorPort", 0));
}

/* What the training last reported (run.json's trainerStatus, the TrainJob's
 * status.trainerStatus: local/run/runner_status.c), as kubectl describes a TrainJob's. */
static int trainer_status(const json_t *ts, int64_t now)
{
    char age[RUNS_HUMAN_MAX];
    const char *when = jx_str(ts, "lastUpdatedTime");
    if (!ts)
        return 0;
    printf("Trainer Status:\n");
    if (jx_int_or(ts, "progressPercentage", -1) >= 0)
        printf("  Progress Percentage:          %lld\n", jx_int_or(ts, "progressPercentage", 0));
    if (jx_int_or(ts, "estimatedRemainingSeconds", -1) >= 0)
        printf("  Estimated Remaining Seconds:  %lld\n",
               jx_int_or(ts, "estimatedRemainingSeconds", 0));
    if (when)
        printf("  Last Updated Time:            %s (%s ago)\n", when, runs_age(when, now, age));
    if (!json_array_size(jx_arr(ts, "metrics")))
        return 0;
    struct table t = table_new(2);
    const json_t *m;
    size_t i;
    table_cell(&t, "Name");
    table_cell(&t, "Value");
    json_array_foreach (jx_arr(ts, "metrics"), i, m) {
        table_cell(&t, "%s", or_dash(jx_str(m, "name")));
        table_cell(&t, "%s", or_dash(jx_str(m, "value")));
    }
    return section("  Metrics:", &t, 4);
}

static int replicated_jobs(const json_t *st)
{
    static const char *const cols[] = {"ready", "active", "succeeded", "failed", "suspended"};
    struct table t = table_new(6);
    const json_t *e;
    size_t i;
    table_cell(&t, "Name");
    for (size_t k = 0; k < 5; k++)
        table_cell(&t, "%c%s", cols[k][0] - 'a' + 'A', cols[k] + 1);
    json_array_foreach (jx_arr(st, "replicatedJobsStatus"), i, e) {
        table_cell(&t, "%s", or_dash(jx_str(e, "name")));
        for (size_t k = 0; k < 5; k++)
            table_cell(&t, "%lld", jx_int_or(e, cols[k], 0));
    }
    return section("Replicated Jobs:", &t, 2);
}

/* Appends printf output to buf (of size n) at *off; what does not fit is cut. */
static void append(char *buf, size_t n, size_t *off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void append(char *buf, size_t n, size_t *off, const char *fmt, ...)
{
    va_list ap;
    if (*off >= n - 1)
        return;
    va_start(ap, fmt);
    int len = vsnprintf(buf + *off, n - *off, fmt, ap);
    va_end(ap);
    if (len > 0)
        *off = *off + (size_t)len < n ? *off + (size_t)len : n - 1;
}

/* The exit of a pod: of each terminated container with a nonzero code, "3" or "SIGTERM (143)"
 * ("<container>=..." when the pod has several); "0" when all ended with 0, "-" before. */
static void pod_exit(struct table *t, const json_t *pod)
{
    const json_t *cs = jx_arr(pod, "containers"), *c;
    char buf[512] = "";
    size_t off = 0, i, ended = 0;
    json_array_foreach (cs, i, c) {
        const char *st = jx_str(c, "state"), *sig = jx_str(c, "signal");
        long long code = jx_int_or(c, "exitCode", 0);
        if (!st || strcmp(st, "terminated"))
            continue;
        ended++;
        if (code == 0)
            continue;
        append(buf, sizeof(buf), &off, "%s", off ? ", " : "");
        if (json_array_size(cs) > 1)
            append(buf, sizeof(buf), &off, "%s=", or_dash(jx_str(c, "name")));
        if (sig)
            append(buf, sizeof(buf), &off, "SIG%s (%lld)", sig, code);
        else
            append(buf, sizeof(buf), &off, "%lld", code);
    }
    if (off)
        table_cell(t, "%s", buf);
    else
        table_cell(t, "%s", ended && ended == json_array_size(cs) ? "0" : "-");
}

static void pod_row(struct table *t, const json_t *p)
{
    table_cell(t, "%s", or_dash(jx_str(p, "name")));
    table_cell(t, "%s", or_dash(jx_str(p, "hostname")));
    if (jx_int_or(p, "jaxProcessId", -1) >= 0)
        table_cell(t, "%lld", jx_int_or(p, "jaxProcessId", -1));
    else
        table_cell(t, "-");
    table_cell(t, "%s", or_dash(jx_str(p, "phase")));
    table_cell(t, "%lld", jx_int_or(p, "restartCount", 0));
    pod_exit(t, p);
    table_cell(t, "%s", or_dash(jx_str(p, "startTime")));
    table_cell(t, "%s", or_dash(jx_str(p, "finishTime")));
}

/* The pods of restart attempt `attempt`, in the order of pods.json, under their header. */
static int attempt_pods(const json_t *pods, long long attempt)
{
    static const char *const head[] = {"Name",     "Hostname", "JAX Process", "Phase",
                                       "Restarts", "Exit",     "Start",       "Finish"};
    struct table t = table_new(8);
    const json_t *p;
    size_t i;
    char title[64];
    for (size_t k = 0; k < 8; k++)
        table_cell(&t, "%s", head[k]);
    json_array_foreach (pods, i, p)
        if (jx_int_or(p, "restartAttempt", 0) == attempt)
            pod_row(&t, p);
    snprintf(title, sizeof(title), "  Restart Attempt %lld:", attempt);
    return section(title, &t, 4);
}

/* Every pod, grouped by restart attempt, oldest attempt first. */
static int pods_section(const json_t *pods)
{
    long long lo = -1, next;
    const json_t *p;
    size_t i;
    int rc = 0;
    if (!json_array_size(pods)) {
        printf("Pods:  <none>\n");
        return 0;
    }
    printf("Pods:\n");
    for (;; lo = next) { /* the attempts in increasing order, each once */
        next = -1;
        json_array_foreach (pods, i, p) {
            long long a = jx_int_or(p, "restartAttempt", 0);
            if (a > lo && (next < 0 || a < next))
                next = a;
        }
        if (next < 0)
            return rc;
        if (attempt_pods(pods, next) < 0)
            rc = -1;
    }
}

/* A container's message on one line: a traceback's exception line and its last frame
 * ("ValueError: boom (File "train.py", line 3, in f)"), else its last line. */
static void message_cell(struct table *t, const char *m)
{
    const char *last = m ? strrchr(m, '\n') : NULL;
    if (!m || !*m)
        table_cell(t, "-");
    else if (!last)
        table_cell(t, "%s", m);
    else if (!strncmp(m, "File \"", 6))
        table_cell(t, "%s (%.*s)", last + 1, (int)strcspn(m, "\n"), m);
    else
        table_cell(t, "%s", last + 1);
}

/* The pod the runner named first failed at each restart and at the end (pods.json's
 * firstFailure), with what its container said last. */
static int failures_section(const json_t *pods)
{
    static const char *const head[] = {"Attempt", "Hostname", "JAX Process", "Pod",
                                       "Exit", "Error"};
    struct table t = table_new(6);
    const json_t *p, *c, *who;
    size_t i, k, n = 0;
    for (size_t h = 0; h < 6; h++)
        table_cell(&t, "%s", head[h]);
    json_array_foreach (pods, i, p) {
        if (!jx_bool_or(p, "firstFailure", false))
            continue;
        who = NULL;
        json_array_foreach (jx_arr(p, "containers"), k, c)
            if (!who && jx_str(c, "message"))
                who = c;
        table_cell(&t, "%lld", jx_int_or(p, "restartAttempt", 0));
        table_cell(&t, "%s", or_dash(jx_str(p, "hostname")));
        if (jx_int_or(p, "jaxProcessId", -1) >= 0)
            table_cell(&t, "%lld", jx_int_or(p, "jaxProcessId", -1));
        else
            table_cell(&t, "-");
        table_cell(&t, "%s", or_dash(jx_str(p, "name")));
        pod_exit(&t, p);
        message_cell(&t, jx_str(who, "message"));
        n++;
    }
    if (!n) {
        table_free(&t);
        return 0;
    }
    return section("First Failures:", &t, 2);
}

/* Events: "<time> <type> <reason>: <message>" lines of events.log, and the runner's
 * "Note <message>" lines (no time). */
static int events(const struct store_run *r, int64_t now)
{
    static const char *const cols[] = {"Type", "Reason", "Age", "Message"};
    char age[RUNS_HUMAN_MAX];
    struct table t = table_new(4);
    json_t *all = runs_events(r, true);
    const json_t *e;
    size_t i;
    for (size_t k = 0; k < 4; k++)
        table_cell(&t, "%s", cols[k]);
    json_array_foreach (all, i, e) {
        table_cell(&t, "%s", jx_str(e, "type"));
        table_cell(&t, "%s", or_dash(jx_str(e, "reason")));
        table_cell(&t, "%s", runs_age(jx_str(e, "lastTimestamp"), now, age));
        table_cell(&t, "%s", jx_str(e, "message"));
    }
    json_decref(all);
    return section("Events:", &t, 2) | (all ? 0 : -ENOMEM);
}

int describe_local(struct backend *b, const struct kc_res *k, const char *name)
{
    struct store_run r;
    int64_t now = kt_now_ms();
    if (k->family == JOB_KIND_OTHER || store_load(name, &r) < 0)
        return runs_not_found(b, "no run of \"%s\" found", name);
    const json_t *st = jx_obj(r.jobset, "status");
    header(&r, now);
    int rc = trainer_status(jx_obj(r.run, "trainerStatus"), now);
    rc |= describe_conditions(st);
    rc |= replicated_jobs(st);
    rc |= describe_jobs(r.jobs);
    rc |= pods_section(r.pods);
    rc |= failures_section(r.pods);
    rc |= events(&r, now);
    store_run_free(&r);
    if (rc) {
        fprintf(stderr, "jaxset describe: " ERR_OOM_MSG "\n");
        return EXIT_INVALID;
    }
    return EXIT_OK;
}
