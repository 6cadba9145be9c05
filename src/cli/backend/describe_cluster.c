/* describe_cluster: `describe` on a cluster: a job as `kubectl describe` shows an object, with
 * what a JAX user asks next: its conditions, replicated jobs, restart history (status.restarts, the
 * restart-attempt labels of its Jobs), child Jobs, pods with their JAX process ids, and the
 * events of the job, its Jobs and its pods (core/v1 and events.k8s.io/v1, once each). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/schema/keys.h"
#include "cli/util/cli.h"
#include "cli/backend/job_state.h"
#include "cli/backend/kpods.h"
#include "cli/backend/runs.h"
#include "cli/util/table.h"
#include "cli/backend/backend_int.h"
#include "cli/backend/describe.h"
#include "obj/tree/jx.h"
#include "obj/base/ktime.h"

#define LABEL_W 18

struct desc {
    struct cluster *c;
    const struct kc_res *k;
    const char *name;
    json_t *obj, *jobset, *jobs, *pods; /* owned; jobset: the JobSet that runs it */
    struct kpods_ids ids;
    int64_t now;
};

static const char *or_dash(const char *s)
{
    return s && *s ? s : "-";
}

static void header(const struct desc *d, const struct job_state *v)
{
    const json_t *meta = jx_obj(d->obj, "metadata"), *st = jx_obj(d->obj, "status");
    const json_t *fp = jx_path(d->obj, "spec.failurePolicy");
    const char *created = jx_str(meta, "creationTimestamp");
    char age[RUNS_HUMAN_MAX];
    table_field(LABEL_W, "Name:", "%s", d->name);
    table_field(LABEL_W, "Namespace:", "%s", or_dash(jx_str(meta, "namespace")));
    table_field(LABEL_W, "Kind:", "%s (%s)", d->k->kind, or_dash(jx_str(d->obj, "apiVersion")));
    table_field(LABEL_W, "Created:", "%s (%s ago)", or_dash(created),
                runs_age(created, d->now, age));
    table_field(LABEL_W, "State:", "%s", v->state);
    if (fp)
        table_field(LABEL_W, "Restarts:", "%lld (%lld of maxRestarts %lld)",
                    jx_int_or(st, "restarts", 0), jx_int_or(st, "restartsCountTowardsMax", 0),
                    jx_int_or(fp, "maxRestarts", 0));
    else if (v->restarts >= 0)
        table_field(LABEL_W, "Restarts:", "%lld", v->restarts);
    table_field(LABEL_W, "Terminal State:", "%s", or_dash(jx_str(st, "terminalState")));
    if (d->ids.have_rt && d->ids.rt.flavor != JAXRT_OFF)
        table_field(LABEL_W, "JAX Coordinator:", "%s:%d (%lld processes)", d->ids.rt.coord_host,
                    d->ids.rt.port, d->ids.rt.num_processes);
}

static void count_cell(struct table *t, long long n)
{
    if (n < 0)
        table_cell(t, "-");
    else
        table_cell(t, "%lld", n);
}

static int replicated_jobs(const struct job_state *v)
{
    static const char *const cols[] = {"Name", "Replicas", "Ready", "Active", "Succeeded",
                                       "Failed", "Suspended"};
    struct table t = table_new(7);
    for (size_t k = 0; k < 7; k++)
        table_cell(&t, "%s", cols[k]);
    for (size_t i = 0; i < v->n_rj; i++) {
        const struct job_state_rj *r = &v->rj[i];
        table_cell(&t, "%s", or_dash(r->name));
        count_cell(&t, r->replicas);
        count_cell(&t, r->ready);
        count_cell(&t, r->active);
        count_cell(&t, r->succeeded);
        count_cell(&t, r->failed);
        count_cell(&t, r->suspended);
    }
    return table_section("Replicated Jobs:", &t, 2);
}

static const char *label(const json_t *o, const char *key)
{
    return or_dash(jx_get_meta(jx_obj(o, "metadata"), "labels", key));
}

/* Every restart attempt the Jobs carry, with how many Jobs of it are live and terminating. */
static int restart_history(const struct desc *d)
{
    struct table t = table_new(4);
    long long max = -1;
    const json_t *j;
    size_t i;
    json_array_foreach (d->jobs, i, j) {
        const char *a = jx_get_meta(jx_obj(j, "metadata"), "labels", LBL_RESTART_ATTEMPT);
        long long n = a ? strtoll(a, NULL, 10) : -1;
        max = n > max ? n : max;
    }
    table_cell(&t, "Attempt");
    table_cell(&t, "Jobs");
    table_cell(&t, "Terminating");
    table_cell(&t, "Job Restarts (RestartJob)");
    for (long long a = 0; a <= max; a++) {
        long long jobs = 0, term = 0, jr = 0;
        json_array_foreach (d->jobs, i, j) {
            const char *s = jx_get_meta(jx_obj(j, "metadata"), "labels", LBL_RESTART_ATTEMPT);
            const char *r = jx_get_meta(jx_obj(j, "metadata"), "labels", LBL_JOB_RESTART_ATTEMPT);
            if (!s || strtoll(s, NULL, 10) != a)
                continue;
            jobs++;
            term += jx_str(jx_obj(j, "metadata"), "deletionTimestamp") != NULL;
            jr += r ? strtoll(r, NULL, 10) : 0;
        }
        if (!jobs)
            continue;
        table_cell(&t, "%lld", a);
        table_cell(&t, "%lld", jobs);
        table_cell(&t, "%lld", term);
        table_cell(&t, "%lld", jr);
    }
    return table_section("Restart History:", &t, 2);
}

static long long pod_restarts(const json_t *pod)
{
    long long n = 0;
    const json_t *cs;
    size_t i;
    json_array_foreach (jx_arr(jx_obj(pod, "status"), "containerStatuses"), i, cs)
        n += jx_int_or(cs, "restartCount", 0);
    return n;
}

static int pods_section(const struct desc *d)
{
    static const char *const cols[] = {"Name", "Hostname", "JAX Process", "Phase", "Restarts",
                                       "Restart Attempt", "Node", "Age"};
    struct table t = table_new(8);
    const json_t *p;
    size_t i;
    char age[RUNS_HUMAN_MAX];
    for (size_t k = 0; k < 8; k++)
        table_cell(&t, "%s", cols[k]);
    json_array_foreach (d->pods, i, p) {
        const json_t *meta = jx_obj(p, "metadata");
        table_cell(&t, "%s", or_dash(jx_str(meta, "name")));
        table_cell(&t, "%s", or_dash(kpods_hostname(p)));
        count_cell(&t, kpods_process_id(&d->ids, p));
        table_cell(&t, "%s%s", or_dash(jx_str(jx_obj(p, "status"), "phase")),
                   jx_str(meta, "deletionTimestamp") ? " (terminating)" : "");
        table_cell(&t, "%lld", pod_restarts(p));
        table_cell(&t, "%s", label(p, LBL_RESTART_ATTEMPT));
        table_cell(&t, "%s", or_dash(jx_str(jx_obj(p, "spec"), "nodeName")));
        table_cell(&t, "%s", runs_age(jx_str(meta, "creationTimestamp"), d->now, age));
    }
    return table_section("Pods:", &t, 2);
}

/* Whether `name` is the job's, its JobSet's, or one of its Jobs' or pods'. */
static bool ours(const struct desc *d, const char *name)
{
    const json_t *o;
    size_t i;
    if (!name)
        return false;
    if (!strcmp(name, d->name))
        return true;
    json_array_foreach (d->jobs, i, o)
        if (!strcmp(name, or_dash(jx_str(jx_obj(o, "metadata"), "name"))))
            return true;
    json_array_foreach (d->pods, i, o)
        if (!strcmp(name, or_dash(jx_str(jx_obj(o, "metadata"), "name"))))
            return true;
    return false;
}

/* An event of either API as one row: {t, type, reason, from, object, message, uid}. */
static json_t *event_row(const json_t *e, bool core)
{
    const json_t *about = jx_obj(e, core ? "involvedObject" : "regarding");
    const char *times[] = {"lastTimestamp", "deprecatedLastTimestamp", "eventTime",
                           "firstTimestamp", "deprecatedFirstTimestamp"};
    const char *when = NULL;
    for (size_t i = 0; i < 5 && !when; i++)
        when = jx_str(e, times[i]);
    if (!when)
        when = jx_str(jx_obj(e, "metadata"), "creationTimestamp");
    int64_t ms = 0;
    if (!when || kt_parse(when, &ms) < 0)
        ms = 0;
    const char *from = core ? jx_str(jx_obj(e, "source"), "component") : NULL;
    if (!from)
        from = jx_str(e, core ? "reportingComponent" : "reportingController");
    return json_pack("{s:I, s:s, s:s, s:s, s:s++, s:s, s:s}", "t", (json_int_t)ms,
                     "type", or_dash(jx_str(e, "type")), "reason", or_dash(jx_str(e, "reason")),
                     "from", or_dash(from), "object", or_dash(jx_str(about, "kind")), "/",
                     or_dash(jx_str(about, "name")),
                     "message", or_dash(jx_str(e, core ? "message" : "note")),
                     "uid", or_dash(jx_str(jx_obj(e, "metadata"), "uid")));
}

static bool seen_uid(const json_t *rows, const char *uid)
{
    const json_t *r;
    size_t i;
    json_array_foreach (rows, i, r)
        if (!strcmp(jx_str(r, "uid"), uid) && strcmp(uid, "-"))
            return true;
    return false;
}

/* The events of one API (skipped quietly when the cluster does not serve it). */
static void collect_events(struct desc *d, const char *res, json_t *rows)
{
    const struct kc_res core = {"Event", "", "v1", "events", "event", NULL, true, JOB_KIND_OTHER};
    const struct kc_res ek = {"Event", "events.k8s.io", "v1", "events", "event", NULL, true,
                            JOB_KIND_OTHER};
    bool is_core = !strcmp(res, "core");
    char *path = kc_res_path(is_core ? &core : &ek, d->c->ns, NULL, NULL);
    struct kc_cli_resp r = {0};
    const json_t *e;
    size_t i;
    if (path && cluster_request(d->c, "GET", path, NULL, &r) == 0) {
        json_array_foreach (jx_arr(r.body, "items"), i, e) {
            const json_t *about = jx_obj(e, is_core ? "involvedObject" : "regarding");
            if (!ours(d, jx_str(about, "name")) ||
                seen_uid(rows, or_dash(jx_str(jx_obj(e, "metadata"), "uid"))))
                continue;
            json_t *row = event_row(e, is_core);
            if (row && json_object_set_new(row, "i", json_integer((json_int_t)
                                                                   json_array_size(rows))) == 0)
                json_array_append(rows, row);
            json_decref(row);
        }
    }
    kc_cli_resp_free(&r);
    free(path);
}

static int by_time(const void *a, const void *b)
{
    json_int_t x = json_integer_value(json_object_get(*(json_t *const *)a, "t"));
    json_int_t y = json_integer_value(json_object_get(*(json_t *const *)b, "t"));
    if (x != y)
        return x < y ? -1 : 1;
    x = json_integer_value(json_object_get(*(json_t *const *)a, "i")); /* the server's order */
    y = json_integer_value(json_object_get(*(json_t *const *)b, "i"));
    return x < y ? -1 : x > y;
}

static int events_section(struct desc *d)
{
    static const char *const cols[] = {"Type", "Reason", "Age", "From", "Object", "Message"};
    json_t *rows = json_array();
    struct table t = table_new(6);
    char age[RUNS_HUMAN_MAX];
    collect_events(d, "core", rows);
    collect_events(d, "events.k8s.io", rows);
    size_t n = json_array_size(rows);
    json_t **v = calloc(n ? n : 1, sizeof(*v));
    for (size_t i = 0; v && i < n; i++)
        v[i] = json_array_get(rows, i);
    if (v)
        qsort(v, n, sizeof(*v), by_time);
    for (size_t k = 0; k < 6; k++)
        table_cell(&t, "%s", cols[k]);
    for (size_t i = 0; v && i < n; i++) {
        json_int_t ms = json_integer_value(json_object_get(v[i], "t"));
        table_cell(&t, "%s", jx_str(v[i], "type"));
        table_cell(&t, "%s", jx_str(v[i], "reason"));
        table_cell(&t, "%s", ms ? runs_human(d->now - ms, age) : "-");
        table_cell(&t, "%s", jx_str(v[i], "from"));
        table_cell(&t, "%s", jx_str(v[i], "object"));
        table_cell(&t, "%s", jx_str(v[i], "message"));
    }
    free(v);
    json_decref(rows);
    return table_section("Events:", &t, 2);
}

/* The JobSet that runs the job: itself, or (TrainJob) the JobSet of its name. */
static void find_jobset(struct desc *d)
{
    if (d->k->family == JOB_KIND_JOBSET) {
        d->jobset = json_incref(d->obj);
    } else if (d->k->family == JOB_KIND_TRAINJOB) {
        char *path = kc_res_path(kc_res_find("jobset"), d->c->ns, d->name, NULL);
        struct kc_cli_resp r = {0};
        if (path && cluster_request(d->c, "GET", path, NULL, &r) == 0)
            d->jobset = json_incref(r.body);
        kc_cli_resp_free(&r);
        free(path);
    }
}

static int describe(struct desc *d)
{
    struct job_state v;
    int rc = cluster_get(d->c, d->k, d->name, &d->obj);
    if (rc == EXIT_OK)
        rc = kpods_list(d->c, "jobs", d->k, d->name, &d->jobs);
    if (rc == EXIT_OK)
        rc = kpods_list(d->c, "pods", d->k, d->name, &d->pods);
    if (rc != EXIT_OK)
        return rc;
    find_jobset(d);
    kpods_ids_init(&d->ids, d->jobset);
    kpods_sort(d->pods, &d->ids);
    if (job_state_read(d->k->family, d->obj, &v) < 0) {
        kpods_ids_release(&d->ids);
        fprintf(stderr, "jaxset describe: " ERR_OOM_MSG "\n");
        return EXIT_CLUSTER;
    }
    header(d, &v);
    int bad = describe_conditions(jx_obj(d->obj, "status"));
    bad |= replicated_jobs(&v);
    job_state_release(&v);
    bad |= restart_history(d);
    bad |= describe_jobs(d->jobs);
    bad |= pods_section(d);
    bad |= events_section(d);
    kpods_ids_release(&d->ids);
    if (bad)
        fprintf(stderr, "jaxset describe: " ERR_OOM_MSG "\n");
    return bad ? EXIT_CLUSTER : EXIT_OK;
}

int describe_cluster(struct backend *b, const struct kc_res *k, const char *name)
{
    struct desc d = {.c = b->c, .k = k, .name = name, .now = kt_now_ms()};
    int rc = describe(&d);
    json_decref(d.obj);
    json_decref(d.jobset);
    json_decref(d.jobs);
    json_decref(d.pods);
    return rc;
}
