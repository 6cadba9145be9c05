/* backend_local: the runs this machine keeps (local/store/store_run.h) as Kubernetes objects: a
 * run's JobSet annotated with its state, directory, id, pid and failure (BACKEND_ANN_*); for a
 * JAXJob's or TrainJob's run, that job with the status its controller would write (run.json's
 * "jaxjob" or "trainjob"); its Pods (cli/backend/pods.h), Jobs (jobs.json) and Events
 * (events.log); a TrainJob whose run ended without finishing it is Failed (RunFailed).  A
 * watch reads them again every LOCAL_POLL_MS and reports what changed, until no run it watches
 * is going. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/backend/job_state.h"
#include "api/schema/keys.h"
#include "cli/backend/backend.h"
#include "cli/backend/backend_int.h"
#include "cli/util/cli.h"
#include "cli/util/labelsel.h"
#include "cli/backend/pods.h"
#include "cli/backend/runs.h"
#include "local/store/rundir.h"
#include "obj/tree/cond.h"
#include "obj/tree/jx.h"
#include "obj/base/ktime.h"

#define LOCAL_POLL_MS 100

static int local_open(struct backend *b)
{
    (void)b;
    return EXIT_OK;
}

/* Keeps runs v[0..n) (taken) as the runs of the last read, in place of those before. */
static void keep_runs(struct backend *b, struct store_run *v, size_t n)
{
    for (size_t i = 0; i < b->n_runs; i++)
        store_run_free(&b->runs[i]);
    free(b->runs);
    b->runs = v;
    b->n_runs = n;
}

static void local_close(struct backend *b)
{
    keep_runs(b, NULL, 0);
}

/* Annotation `key` of `ann`: `v` as compact JSON (none when v is NULL).  0 or -ENOMEM. */
static int json_annotation(json_t *ann, const char *key, const json_t *v)
{
    char *text = v ? json_dumps(v, JSON_COMPACT) : NULL;
    int rc = !v ? 0 : !text ? -ENOMEM : jx_set_str(ann, key, text);
    free(text);
    return rc;
}

/* `obj` (a run's JobSet, JAXJob or TrainJob; NULL: none) copied and annotated as the run's:
 * its state, directory and id (pods_run_jobset), the pid of the process running it, its
 * failure record and its training progress when there are.  NULL when obj is, or on OOM. */
static json_t *annotated(const json_t *obj, const struct store_run *r)
{
    json_t *o = pods_run_jobset(obj, runs_state(r), r->dir, store_run_id(r));
    json_t *ann = jx_ensure_obj(jx_ensure_obj(o, "metadata"), "annotations");
    long long pid = store_live_pid(r->dir, r->run);
    char num[24];
    int rc = ann ? 0 : -ENOMEM;
    snprintf(num, sizeof(num), "%lld", pid);
    if (rc == 0 && pid > 0)
        rc = jx_set_str(ann, BACKEND_ANN_RUN_PID, num);
    if (rc == 0)
        rc = json_annotation(ann, BACKEND_ANN_RUN_FAILURE, jx_obj(r->run, "failure"));
    if (rc == 0)
        rc = json_annotation(ann, BACKEND_ANN_RUN_PROGRESS, jx_obj(r->run, "trainerStatus"));
    if (rc) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* The JAXJob ("jaxjob") or TrainJob ("trainjob") a run of one keeps, created when the run
 * started, annotated with the run as its JobSet is (a wait ends with an Interrupted run, a
 * row names its run); NULL when none. */
static json_t *run_job(const struct store_run *r, const char *key)
{
    json_t *jj = annotated(jx_obj(r->run, key), r);
    json_t *meta = jx_obj(jj, "metadata");
    if (json_is_object(meta) && jx_str(r->run, "startTime"))
        jx_set_str(meta, "creationTimestamp", jx_str(r->run, "startTime"));
    return jj;
}

/* A TrainJob whose run ended without finishing it (interrupted, killed, Lost: neither Complete
 * nor Failed) is Failed, reason RunFailed, so that a wait on it ends (the SDK's among them).
 * 0 or -ENOMEM. */
static int unfinished(json_t *tj, const struct store_run *r)
{
    char msg[64];
    const struct cond failed = {.type = "Failed", .status = COND_TRUE, .reason = "RunFailed",
                                .message = msg};
    const json_t *st = jx_obj(tj, "status");
    if (store_live(r) || cond_true(st, "Complete") || cond_true(st, "Failed"))
        return 0;
    snprintf(msg, sizeof(msg), "jaxset run ended: %s", runs_state(r));
    return cond_append(jx_ensure_obj(tj, "status"), cond_new(&failed));
}

/* A copy of every Job of jobs.json, with its apiVersion and kind. */
static json_t *run_jobs(const struct store_run *r)
{
    json_t *out = json_array(), *j;
    const json_t *e;
    size_t i;
    json_array_foreach (r->jobs, i, e) {
        if (!out || !(j = json_deep_copy(e)) || json_array_append_new(out, j) < 0) {
            json_decref(out);
            return NULL;
        }
        if (!jx_str(j, "apiVersion"))
            jx_set_str(j, "apiVersion", "batch/v1");
        if (!jx_str(j, "kind"))
            jx_set_str(j, "kind", "Job");
    }
    return out;
}

/* The JobSet of a run that has not written it yet: its name and the run's annotations. */
static json_t *starting(const struct store_run *r)
{
    json_t *js = json_pack("{s:s, s:s, s:{s:s, s:s}}", "apiVersion", "jobset.x-k8s.io/v1alpha2",
                           "kind", "JobSet", "metadata", "name", r->name, "namespace",
                           "default");
    json_t *out = js ? annotated(js, r) : NULL;
    json_decref(js);
    return out;
}

static bool is_kind(const struct kc_res *k, const char *kind)
{
    return !strcmp(k->kind, kind);
}

/* The run's JobSet as printed: annotated with the run's state, directory and id, and named as
 * the run when it carries no name.  NULL when the run has none (yet) or on OOM. */
static json_t *run_jobset(const struct store_run *r)
{
    json_t *js = !r->jobset ? (store_live(r) ? starting(r) : NULL) : annotated(r->jobset, r);
    json_t *meta = jx_ensure_obj(js, "metadata");
    if (meta && !jx_str(meta, "name"))
        jx_set_str(meta, "name", r->name);
    return js;
}

/* The objects of kind k that run r holds, appended to items: 0, -ENOMEM, or -EINVAL when a
 * run keeps no object of that kind. */
static int run_objects(const struct store_run *r, const struct kc_res *k, json_t *items)
{
    json_t *got = NULL, *js;
    if (k->family == JOB_KIND_JOBSET) {
        if (!(got = run_jobset(r)))
            return r->jobset || store_live(r) ? -ENOMEM : 0;
    } else if (k->family == JOB_KIND_JAXJOB || k->family == JOB_KIND_TRAINJOB) {
        const char *key = k->family == JOB_KIND_JAXJOB ? "jaxjob" : "trainjob";
        if (!jx_obj(r->run, key))
            return 0;
        got = run_job(r, key);
        if (got && k->family == JOB_KIND_TRAINJOB && unfinished(got, r) < 0) {
            json_decref(got);
            got = NULL;
        }
    } else if (is_kind(k, "Event")) {
        json_t *v = runs_events(r, false);
        int rc = v ? json_array_extend(items, v) : -ENOMEM;
        json_decref(v);
        return rc < 0 ? -ENOMEM : 0;
    } else if (is_kind(k, "Pod") || is_kind(k, "Job")) {
        js = run_jobset(r);
        json_t *v = is_kind(k, "Job") ? run_jobs(r)
                                      : pods_run_pods(js, r->pods, r->jobs, runs_state(r));
        int rc = v ? json_array_extend(items, v) : -ENOMEM;
        json_decref(v);
        json_decref(js);
        return rc < 0 ? -ENOMEM : 0;
    } else {
        return -EINVAL;
    }
    if (!got || json_array_append_new(items, got) < 0)
        return -ENOMEM;
    return 0;
}

static int oom(const struct backend *b)
{
    fprintf(stderr, "jaxset %s: " ERR_OOM_MSG "\n", b->c->cmd);
    return EXIT_INVALID;
}

static int no_such_kind(const struct backend *b, const struct kc_res *k)
{
    fprintf(stderr, "jaxset %s: a local run keeps no %s (jobsets, jaxjobs, trainjobs, pods, "
                    "jobs and events; other kinds are a cluster's)\n", b->c->cmd, k->plural);
    return EXIT_INVALID;
}

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

/* Appends to items the objects of kind k run r holds with the labels of `selector` (and the
 * name `name`, when not NULL): how many, -ENOMEM, or -EINVAL (no such kind, a bad selector). */
static int run_matching(const struct store_run *r, const struct kc_res *k, const char *selector,
                        const char *name, json_t *items)
{
    json_t *all = json_array(), *o;
    int rc = all ? run_objects(r, k, all) : -ENOMEM, n = 0;
    size_t i;
    json_array_foreach (all, i, o) {
        int m = rc ? 0 : labelsel_match(selector, o);
        if (m > 0 && name && strcmp(name, or_empty(jx_str(jx_obj(o, "metadata"), "name"))))
            m = 0;
        rc = m < 0 ? m : rc;
        if (m > 0 && json_array_append(items, o) < 0)
            rc = -ENOMEM;
        n += m > 0;
    }
    json_decref(all);
    return rc ? rc : n;
}

/* run_matching over the runs v[0..n): 0 or a negative errno; *going (when not NULL): whether
 * a run with one of them is still going. */
static int runs_matching(const struct store_run *v, size_t n, const struct kc_res *k,
                         const char *selector, const char *name, json_t *items, bool *going)
{
    int rc = 0;
    for (size_t i = 0; rc >= 0 && i < n; i++) {
        rc = run_matching(&v[i], k, selector, name, items);
        if (going)
            *going |= rc > 0 && store_live(&v[i]);
    }
    return rc < 0 ? rc : 0;
}

/* The objects of kind k (named `name`, when not NULL) of every run kept (`all`) or of the
 * latest run of each name, with the labels of `selector`: a new array in *out, or an exit
 * status after printing why.  *going: whether a run that has one of them is still going.
 * Each run is read once; the backend keeps them for its rows. */
static int collect(struct backend *b, const struct kc_res *k, const char *selector,
                   const char *name, json_t **out, bool *going)
{
    struct store_run *v = NULL;
    size_t n = 0;
    json_t *items = json_array();
    int rc = items ? store_list(b->all_runs, &v, &n) : -ENOMEM;
    if (rc == -ENOENT || rc == -ENAMETOOLONG) /* no state home */
        fprintf(stderr, "jaxset: %s\n", rd_home_error(rc));
    rc = rc ? -ENOMEM : 0;
    *going = false;
    if (rc == 0)
        rc = runs_matching(v, n, k, selector, name, items, going);
    keep_runs(b, v, n);
    *out = rc ? NULL : items;
    if (rc)
        json_decref(items);
    if (rc == -EINVAL && selector && (k->family != JOB_KIND_OTHER || is_kind(k, "Pod") ||
                                      is_kind(k, "Job")))
        return cli_usage_error(b->c->cmd, "-l takes key=value, key==value, key!=value, key "
                                          "and !key, separated by commas");
    return rc == -EINVAL ? no_such_kind(b, k) : rc ? oom(b) : EXIT_OK;
}

static int local_list(struct backend *b, const struct kc_res *k, const char *selector,
                      json_t **out)
{
    json_t *items = NULL;
    bool going;
    int rc = collect(b, k, selector, NULL, &items, &going);
    *out = rc ? NULL : json_pack("{s:o, s:{s:s}}", "items", items, "metadata",
                                 "resourceVersion", "");
    return rc ? rc : *out ? EXIT_OK : oom(b);
}

static int not_found(const struct backend *b, const struct kc_res *k, const char *name)
{
    if (b->quiet)
        return EXIT_INVALID;
    if (k->family == JOB_KIND_JOBSET)
        return runs_not_found(b, "no run of \"%s\" found", name);
    if (k->family != JOB_KIND_OTHER)
        return runs_not_found(b, "no run of %s \"%s\" found", k->singular, name);
    return runs_not_found(b, "%s \"%s\" not found in the runs kept", k->plural, name);
}

/* A pod or Job of any latest run, by name (*going: whether its run is going). */
static int get_part(struct backend *b, const struct kc_res *k, const char *name, json_t **out,
                    bool *going)
{
    json_t *items = NULL;
    int rc = collect(b, k, NULL, name, &items, going);
    *out = json_incref(json_array_get(items, 0));
    json_decref(items);
    return rc ? rc : *out ? EXIT_OK : not_found(b, k, name);
}

/* local_get, and whether the run read is going. */
static int get_one(struct backend *b, const struct kc_res *k, const char *name, json_t **out,
                   bool *going)
{
    struct store_run r;
    *out = NULL;
    *going = false;
    if (k->family == JOB_KIND_OTHER)
        return get_part(b, k, name, out, going);
    if (strchr(name, '/') || store_load(name, &r) < 0)
        return not_found(b, k, name);
    *going = store_live(&r);
    json_t *items = json_array();
    int rc = items ? run_objects(&r, k, items) : -ENOMEM;
    if (k->family == JOB_KIND_JOBSET && rc == 0 && !r.jobset)
        fprintf(stderr, "jaxset %s: %s/jobset.json is unreadable\n", b->c->cmd, r.dir);
    *out = json_incref(json_array_get(items, 0));
    json_decref(items);
    bool had_jobset = r.jobset != NULL;
    struct store_run *kept = malloc(sizeof(*kept));
    if (kept)
        *kept = r;
    else
        store_run_free(&r);
    keep_runs(b, kept, kept ? 1 : 0);
    if (rc < 0)
        return oom(b);
    return *out ? EXIT_OK : had_jobset || k->family != JOB_KIND_JOBSET ? not_found(b, k, name)
                                                                        : EXIT_INVALID;
}

static int local_get(struct backend *b, const struct kc_res *k, const char *name,
                     json_t **out)
{
    bool going;
    return get_one(b, k, name, out, &going);
}

/* A watch's view of `items` (taken): name -> object, by NAME/run id when listing. */
static json_t *keyed(json_t *items, const char *name)
{
    json_t *snap = json_object(), *o;
    size_t i;
    json_array_foreach (items, i, o) {
        const json_t *meta = jx_obj(o, "metadata");
        const char *id = jx_get_meta(meta, "annotations", BACKEND_ANN_RUN_ID);
        char key[512];
        if (name)
            snprintf(key, sizeof(key), "%s", name);
        else
            snprintf(key, sizeof(key), "%s/%s", or_empty(jx_str(meta, "name")), or_empty(id));
        json_object_set(snap, key, o);
    }
    json_decref(items);
    return snap;
}

/* What a watch sees at one time: name -> object; *going: whether a run it shows is going. */
static json_t *snapshot(struct backend *b, const struct kc_res *k, const char *name,
                        const char *selector, bool *going)
{
    json_t *items = NULL, *o;
    if (name) { /* quietly: a run deleted under a watch is a DELETED event */
        bool quiet = b->quiet;
        b->quiet = true;
        items = json_array();
        if (get_one(b, k, name, &o, going) == EXIT_OK)
            json_array_append_new(items, o);
        b->quiet = quiet;
        return keyed(items, name);
    }
    if (collect(b, k, selector, NULL, &items, going) != EXIT_OK)
        return NULL;
    return keyed(items, NULL);
}

/* The same view of the runs read last (those the command printed before its watch), read
 * again from nowhere: the watch starts from what was shown, so that no change between that
 * read and its first one is lost. */
static json_t *shown(struct backend *b, const struct kc_res *k, const char *name,
                     const char *selector)
{
    json_t *items = json_array();
    int rc = !items ? -ENOMEM
             : name && k->family != JOB_KIND_OTHER /* get_one: the run of that name */
                 ? (b->n_runs ? run_objects(&b->runs[0], k, items) : 0)
                 : runs_matching(b->runs, b->n_runs, k, selector, name, items, NULL);
    if (rc < 0) {
        json_decref(items);
        return NULL;
    }
    while (name && json_array_size(items) > 1) /* get_one and get_part show the first */
        json_array_remove(items, json_array_size(items) - 1);
    return keyed(items, name);
}

/* The events from `prev` to `cur`: fn's first nonzero answer, or 0. */
static int changes(const json_t *prev, const json_t *cur, kc_cli_event_fn fn, void *arg)
{
    const char *key;
    json_t *o;
    int rc = 0;
    json_object_foreach ((json_t *)cur, key, o) {
        const json_t *was = json_object_get(prev, key);
        if (!rc && (!was || !json_equal(was, o)))
            rc = fn(arg, was ? "MODIFIED" : "ADDED", o);
    }
    json_object_foreach ((json_t *)prev, key, o)
        if (!rc && !json_object_get(cur, key))
            rc = fn(arg, "DELETED", o);
    return rc;
}

static int local_watch(struct backend *b, const struct kc_res *k, const char *name,
                       const char *selector, const char *rv, int64_t deadline_ms,
                       kc_cli_event_fn fn, void *arg)
{
    bool going = true, first = true;
    json_t *prev = shown(b, k, name, selector), *cur;
    int rc = prev ? 0 : -ENOMEM;
    (void)rv;
    while (rc == 0 && going) {
        if (deadline_ms && kt_mono_ms() >= deadline_ms)
            break;
        if (!first)
            kt_sleep_ms(LOCAL_POLL_MS);
        first = false;
        cur = snapshot(b, k, name, selector, &going);
        /* a run read before its supervisor wrote its end and found gone after: the files
         * hold its end now, read them again so that the watch shows it */
        if (cur && !going) {
            bool ended;
            json_decref(cur);
            cur = snapshot(b, k, name, selector, &ended);
        }
        if (!cur) {
            rc = -ENOMEM;
            break;
        }
        rc = changes(prev, cur, fn, arg);
        json_decref(prev);
        prev = cur;
    }
    json_decref(prev);
    return rc;
}

static size_t local_columns(const struct backend *b, bool wide, const char **out)
{
    static const char *const head[] = {"NAME",     "STATE",    "TERMINALSTATE", "RESTARTS",
                                       "AGE",      "DURATION", "PROGRESS",      "PODS",
                                       "EXIT",     "RUN DIRECTORY"};
    size_t n = 0;
    for (size_t i = 0; i < (wide ? 10u : 7u); i++) {
        out[n++] = head[i];
        if (i == 0 && b->all_runs)
            out[n++] = "RUN";
    }
    return n;
}

/* The pods of the last restart attempt. */
static long long last_attempt_pods(const json_t *pods)
{
    long long last = -1, n = 0;
    const json_t *p;
    size_t i;
    json_array_foreach (pods, i, p) {
        long long a = jx_int_or(p, "restartAttempt", 0);
        if (a > last) {
            last = a;
            n = 0;
        }
        n += a == last;
    }
    return n;
}

/* The latest training progress reported (run.json's trainerStatus: runner_status.c): "45%",
 * "reported" when a report had no percentage, "-" when none came. */
static void progress_cell(struct table *t, const json_t *ts)
{
    long long pct = jx_int_or(ts, "progressPercentage", -1);
    if (pct >= 0)
        table_cell(t, "%lld%%", pct);
    else
        table_cell(t, "%s", ts ? "reported" : "-");
}

static void run_row(struct table *t, const struct store_run *r, bool wide, bool ids, int64_t now)
{
    const json_t *st = jx_obj(r->jobset, "status");
    const char *term = jx_str(st, "terminalState");
    int64_t start = store_start_ms(r), end = store_end_ms(r, now);
    char age[RUNS_HUMAN_MAX], dur[RUNS_HUMAN_MAX];
    table_cell(t, "%s", r->name);
    if (ids)
        table_cell(t, "%s", store_run_id(r));
    table_cell(t, "%s", runs_state(r));
    table_cell(t, "%s", term ? term : "-");
    table_cell(t, "%lld", jx_int_or(st, "restarts", 0));
    table_cell(t, "%s", start ? runs_human(now - start, age) : "-");
    table_cell(t, "%s", start && end ? runs_human(end - start, dur) : "-");
    progress_cell(t, jx_obj(r->run, "trainerStatus"));
    if (!wide)
        return;
    table_cell(t, "%lld", last_attempt_pods(r->pods));
    if (store_exit_status(r) >= 0)
        table_cell(t, "%lld", store_exit_status(r));
    else
        table_cell(t, "-");
    table_cell(t, "%s", r->dir);
}

/* One run's row, of the run whose JobSet (or JAXJob) `obj` is: as the read that found `obj`
 * loaded it, else read again. */
static void local_row(struct backend *b, const struct kc_res *k, const json_t *obj, bool wide,
                      struct table *t)
{
    const json_t *meta = jx_obj(obj, "metadata");
    const char *name = jx_str(meta, "name") ? jx_str(meta, "name") : "?";
    const char *dir = jx_get_meta(meta, "annotations", BACKEND_ANN_RUN_DIR);
    struct store_run r = {0};
    (void)k;
    for (size_t i = 0; dir && i < b->n_runs; i++)
        if (!strcmp(b->runs[i].dir, dir)) {
            run_row(t, &b->runs[i], wide, b->all_runs, kt_now_ms());
            return;
        }
    if ((dir ? store_load_dir(name, dir, &r) : store_load(name, &r)) < 0)
        r = (struct store_run){0};
    snprintf(r.name, sizeof(r.name), "%s", name);
    run_row(t, &r, wide, b->all_runs, kt_now_ms());
    store_run_free(&r);
}

const struct backend_ops backend_local_ops = {
    .open = local_open,
    .close = local_close,
    .get = local_get,
    .list = local_list,
    .watch = local_watch,
    .remove = delete_local,
    .logs = logs_local,
    .describe = describe_local,
    .columns = local_columns,
    .row = local_row,
};
