/* The cluster backend's plan operations (core/plan_exec.h rec_ops) over the REST client:
 * creates and deletes of a pass run in parallel, at most ctl_opts.max_parallel in flight
 * (upstream: workqueue.ParallelizeUntil with constants.MaxParallelism). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/schema/keys.h"
#include "api/jobset/local_ann.h"
#include "kube/ctl/ctl_int.h"
#include "core/status.h"
#include "kube/client/kc_log.h"
#include "obj/tree/cond.h"
#include "obj/tree/jx.h"
#include "obj/base/ktime.h"
#include "obj/base/sbuf.h"

#define LOGGER "jobset"

/* ---- parallel writes ------------------------------------------------------------------- */

struct wreq {
    const char *method;
    char *path;
    json_t *body;  /* owned */
    bool ok_exists, ok_missing, ok_conflict;
    struct cache_inf *observe; /* the answer (the object written) goes into this cache, or NULL */
};

struct batch {
    struct ctl *c;
    struct wreq *w;
    size_t n, sent, done;
    bool all_done;
    int *rcs;
    struct err *errs;
    struct bslot { struct batch *b; size_t i; } *slots;
};

static void send_next(struct batch *b);

static void batch_done(void *arg, const struct kc_resp *r)
{
    struct bslot *s = arg;
    struct batch *b = s->b;
    const struct wreq *w = &b->w[s->i];
    int rc = r->rc;
    if ((rc == -EEXIST && w->ok_exists) || (rc == -ENOENT && w->ok_missing) ||
        (rc == -JX_ECONFLICT && w->ok_conflict))
        rc = 0;
    b->rcs[s->i] = rc;
    if (r->rc == 0 && w->observe && r->body)
        cache_inf_observe(w->observe, r->body);
    if (rc < 0)
        err_set(&b->errs[s->i], rc, "%s", r->msg);
    b->done++;
    send_next(b);
    b->all_done = b->done == b->n;
}

static void send_next(struct batch *b)
{
    int max = b->c->o->max_parallel > 0 ? b->c->o->max_parallel : 50;
    while (b->sent < b->n && b->sent - b->done < (size_t)max) {
        size_t i = b->sent++;
        int rc = kc_send(b->c->kc, b->w[i].method, b->w[i].path, b->w[i].body, NULL,
                         batch_done, &b->slots[i]);
        if (rc < 0) {
            b->rcs[i] = rc;
            err_set(&b->errs[i], rc, ERR_OOM_MSG);
            b->done++;
        }
    }
}

/* Sends every request, waits for all; rcs[i]/errs[i] per request. */
static void run_batch(struct ctl *c, struct wreq *w, size_t n, int *rcs, struct err *errs)
{
    struct batch b = {.c = c, .w = w, .n = n, .rcs = rcs, .errs = errs};
    b.slots = calloc(n, sizeof(*b.slots));
    if (!b.slots) {
        for (size_t i = 0; i < n; i++)
            rcs[i] = err_oom(&errs[i]);
        return;
    }
    for (size_t i = 0; i < n; i++)
        b.slots[i] = (struct bslot){&b, i};
    send_next(&b);
    b.all_done = b.done == n;
    kc_wait(c->kc, &b.all_done);
    free(b.slots);
}

static void free_wreqs(struct wreq *w, size_t n)
{
    for (size_t i = 0; w && i < n; i++) {
        free(w[i].path);
        json_decref(w[i].body);
    }
    free(w);
}

/* ---- jobs whose name is taken ---------------------------------------------------------------
 * Child Jobs are named "<jobset>-<replicated job>-<index>"
 * (kubernetes-sigs/jobset pkg/util/placement GenJobName), so JobSet "a-b" with replicated job
 * "c" and JobSet "a" with "b-c" both want "a-b-c-0": whichever comes second finds it existing.
 * Upstream's createJobs ignores AlreadyExists (the cache may lag behind its own create), and the
 * second JobSet then waits for a Job that never comes while its log says it was created.  Here
 * the Job found is read: when its controller is the JobSet itself, the create is done (the
 * cache was behind, as upstream assumes); otherwise the create fails (a Warning event
 * JobCreationFailed, core/plan_exec.h, and a retry with backoff) and the JobSet gets the
 * condition JobNameConflict (core/status.h) naming the Job's controller; the JobSet is queued
 * again as soon as that Job goes (its owner deleted, say), not only when the backoff ends. */

/* The controller owner reference of `m` (borrowed), or NULL. */
static const json_t *controller_of(const json_t *m)
{
    const json_t *ref;
    size_t i;
    json_array_foreach (jx_arr(m, "ownerReferences"), i, ref)
        if (jx_bool_or(ref, "controller", false))
            return ref;
    return NULL;
}

/* [yields] Job ns/name, which a create found existing, is read: 0 when its controller has `uid`
 * (the cache was behind), 1 with `e` naming its controller when it is another's, -errno with
 * `e` when it cannot be read (-EAGAIN: deleted since). */
static int job_owner(struct ctl *c, const char *ns, const char *name, const char *uid,
                     struct err *e)
{
    char *path = ctl__path("/apis/batch/v1", "jobs", ns, name, NULL);
    json_t *job = NULL;
    int rc = path ? kc_call(c->kc, "GET", path, NULL, NULL, &job, e) : err_oom(e);
    const json_t *ref = controller_of(jx_obj(job, "metadata"));
    const char *ruid = jx_str(ref, "uid");
    if (rc == -ENOENT) /* gone again since: the next pass creates it */
        rc = err_set(e, -EAGAIN, "jobs.batch \"%s\" existed, then was deleted", name);
    if (rc < 0)
        goto out;
    if (ruid && uid && strcmp(ruid, uid) == 0)
        rc = 0;
    else if (ref)
        rc = err_set(e, 1, "jobs.batch \"%s\" already exists and is controlled by %s %s (uid %s), "
                     "not by this JobSet", name, jx_str(ref, "kind") ? jx_str(ref, "kind") : "",
                     jx_str(ref, "name") ? jx_str(ref, "name") : "", ruid ? ruid : "");
    else
        rc = err_set(e, 1, "jobs.batch \"%s\" already exists and has no controller, not this "
                     "JobSet", name);
out:
    json_decref(job);
    free(path);
    return rc;
}

/* [yields] Sets the JobSet's (`js`, as observed) JobNameConflict condition to `message` unless
 * it says so already; a failure is logged (the pass fails anyway and is retried). */
static void conflict_condition(struct ctl *c, const json_t *js, const char *message)
{
    const json_t *m = jx_obj(js, "metadata");
    char now[KT_RFC3339_MAX];
    struct err e = {{0}};
    json_t *status = json_deep_copy(json_object_get(js, "status"));
    status = status ? status : json_object();
    const struct cond k = {.type = REC_COND_JOB_NAME_CONFLICT, .status = COND_TRUE,
                           .reason = "JobNameTaken", .message = message, .transition = now,
                           .transition_first = true};
    int rc = status && kt_format(kt_now_ms(), now) == 0 ? cond_set(status, &k) : -ENOMEM;
    if (rc > 0)
        rc = ctl__kind_put_status(c, &ctl__kind_js, c->jobsets, js, status, &e);
    if (rc < 0)
        kc_log(rc == -JX_ECONFLICT ? KC_LOG_DEBUG : KC_LOG_ERROR, LOGGER, jx_str(m, "namespace"),
               "%s: writing the %s condition: %s", jx_str(m, "name"), REC_COND_JOB_NAME_CONFLICT,
               rc == -ENOMEM ? ERR_OOM_MSG : e.msg);
    json_decref(status);
}

/* JobSet `key` ("ns/name") waits for Job ns/job to go. */
static void conflict_wait(struct ctl *c, const char *ns, const char *job, const char *key)
{
    char name[600];
    snprintf(name, sizeof(name), "%s/%s", ns ? ns : "", job ? job : "");
    json_t *keys = json_object_get(c->name_waiters, name);
    if (!keys && json_object_set_new(c->name_waiters, name, keys = json_object()) < 0)
        return; /* out of memory: the backoff retries it */
    json_object_set_new(keys, key, json_true());
}

void ctl__conflict_gone(struct ctl *c, const json_t *job)
{
    const json_t *m = jx_obj(job, "metadata");
    char name[600], ns[256];
    const char *k, *jsname;
    json_t *v;
    snprintf(name, sizeof(name), "%s/%s", jx_str(m, "namespace") ? jx_str(m, "namespace") : "",
             jx_str(m, "name") ? jx_str(m, "name") : "");
    json_t *keys = json_object_get(c->name_waiters, name);
    json_object_foreach (keys, k, v)
        if (ctl__split_key(k, ns, sizeof(ns), &jsname))
            ctl__enqueue(c, "", ns, jsname);
    json_object_del(c->name_waiters, name);
}

/* A Job that exists already is the JobSet's own (its cache was behind) or another owner's
 * (above): only the first counts as done.  The log says what was made. */
static void created_or_taken(struct ctl_pass *ps, json_t *const *jobs, size_t n, int *rcs,
                             struct err *errs)
{
    size_t made = 0, existed = 0, taken = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        if (rcs[i] != -EEXIST) {
            made += rcs[i] == 0;
            continue;
        }
        const char *name = jx_str(jx_obj(jobs[i], "metadata"), "name");
        int o = job_owner(ps->c, ps->ns, name, ps->uid, &errs[i]);
        rcs[i] = o > 0 ? -EEXIST : o;
        existed += o == 0;
        if (o > 0)
            conflict_wait(ps->c, ps->ns, name, ps->key);
        if (o > 0 && taken++ == 0)
            first = i;
    }
    if (taken)
        conflict_condition(ps->c, ps->raw, errs[first].msg);
    struct sbuf b = SBUF_INIT;
    sb_printf(&b, "created %zu of %zu jobs", made, n);
    if (existed)
        sb_printf(&b, ", %zu found existing as this JobSet's", existed);
    if (taken)
        sb_printf(&b, "; %zu not created, the name being another owner's: %s", taken,
                  errs[first].msg);
    kc_log(taken ? KC_LOG_ERROR : KC_LOG_INFO, LOGGER, ps->ns, "%s: %s", ps->name,
           sb_failed(&b) ? ERR_OOM_MSG : sb_str(&b));
    sb_free(&b);
}

/* ---- jobs ------------------------------------------------------------------------------- */

static void op_create_jobs(void *ctx, json_t *const *jobs, size_t n, int *rcs, struct err *errs)
{
    struct ctl_pass *ps = ctx;
    struct wreq *w = calloc(n, sizeof(*w));
    bool oom = false;
    for (size_t i = 0; w && i < n; i++) {
        /* with a restart grace the pods carry it: a first deletion by the Job controller or
         * the garbage collector gets it too (api/jobset/local_ann.h) */
        oom = oom || local_ann_cap_job_grace(jobs[i], ps->grace) < 0;
        w[i] = (struct wreq){"POST", ctl__path("/apis/batch/v1", "jobs", ps->ns, NULL, NULL),
                             json_incref(jobs[i]), false, false, false, ps->c->jobs};
    }
    if (!w || oom) {
        free_wreqs(w, w ? n : 0);
        for (size_t i = 0; i < n; i++)
            rcs[i] = err_oom(&errs[i]);
        return;
    }
    run_batch(ps->c, w, n, rcs, errs);
    created_or_taken(ps, jobs, n, rcs, errs);
    free_wreqs(w, n);
}

static int op_create_job(void *ctx, json_t *job, struct err *e)
{
    int rc = 0;
    op_create_jobs(ctx, &job, 1, &rc, e);
    return rc;
}

/* pods_of_jobs before the pod cache has listed: one list of the JobSet's pods, kept when
 * their Job is one of `uids`. */
static int pods_listed(struct ctl_pass *ps, const json_t *uids, json_t **out)
{
    char *sel = NULL, *esc = NULL, *path = NULL, *base = NULL;
    json_t *list = NULL;
    struct err e;
    int rc = -ENOMEM;
    if (asprintf(&sel, "%s=%s", LBL_JOBSET_NAME, ps->name) >= 0 && (esc = kc_escape(sel)) &&
        (base = ctl__path("/api/v1", "pods", ps->ns, NULL, NULL)) &&
        asprintf(&path, "%s?labelSelector=%s", base, esc) >= 0)
        rc = kc_call(ps->c->kc, "GET", path, NULL, NULL, &list, &e);
    if (rc == 0) {
        *out = json_array();
        json_t *pod;
        size_t i;
        json_array_foreach (jx_arr(list, "items"), i, pod) {
            const char *owner = jx_get_meta(jx_obj(pod, "metadata"), "labels",
                                            LBL_K8S_CONTROLLER_UID_LEGACY);
            if (*out && owner && json_object_get(uids, owner) && json_array_append(*out, pod) < 0)
                rc = -ENOMEM;
        }
        rc = *out ? rc : -ENOMEM;
    }
    if (rc < 0) { /* nothing half-made goes back */
        json_decref(*out);
        *out = NULL;
    }
    json_decref(list);
    free(sel);
    free(esc);
    free(base);
    free(path);
    return rc;
}

/* The pods of the Jobs `uids` (a uid -> true object): from the pod cache once it has listed
 * (ctl_pods.c keeps the pods of JobSets), else from one list of the JobSet's pods.  0 with *out
 * a new array, or a negative errno. */
static int pods_of_jobs(struct ctl_pass *ps, const json_t *uids, json_t **out)
{
    const char *uid;
    const json_t *v;
    *out = NULL;
    if (ps->c->pods && cache_inf_synced(ps->c->pods)) {
        json_t *all = json_array();
        json_object_foreach ((json_t *)uids, uid, v) {
            json_t *some = ctl__owned(ps->c->pods, ps->ns, uid);
            if (!all || !some || json_array_extend(all, some) < 0) {
                json_decref(some);
                json_decref(all);
                return -ENOMEM;
            }
            json_decref(some);
        }
        *out = all;
        return 0;
    }
    return pods_listed(ps, uids, out);
}

/* The pods of the Jobs just deleted in the foreground (uids: their Jobs' uids) are deleted by
 * the controller at once, with their own grace, rather than one by one by the garbage
 * collector, which a restart would wait on: its workers and its client's rate (20 requests/s
 * by default in kube-controller-manager) made most of a recovery's time (bench/kube/README.md,
 * placement).  The end is the same: the Jobs go once their pods are gone.  With
 * jaxset.dev/restart-grace-seconds they are deleted with that grace period (a second delete
 * shortens a pod's grace, as kubectl delete --grace-period does), so that workers that take
 * SIGTERM as a preemption notice do not hold a restart. */
static int delete_pods_of(struct ctl_pass *ps, const json_t *uids)
{
    json_t *pods = NULL, *pod;
    int rc = pods_of_jobs(ps, uids, &pods);
    if (rc < 0)
        return rc;
    size_t i, n = 0;
    struct wreq *w = calloc(json_array_size(pods) + 1, sizeof(*w));
    json_array_foreach (pods, i, pod) {
        const json_t *m = jx_obj(pod, "metadata");
        /* a pod already terminating (the garbage collector deleting the Job's pods with
         * their own grace) is deleted again unless its grace is already as short */
        const json_t *dg = json_object_get(m, "deletionGracePeriodSeconds");
        if (!w || (json_object_get(m, "deletionTimestamp") &&
                   (ps->grace < 0 || (json_is_integer(dg) && json_integer_value(dg) <= ps->grace))))
            continue;
        json_t *opts = json_pack("{s:s,s:s}", "kind", "DeleteOptions", "apiVersion", "v1");
        if (opts && ps->grace >= 0)
            jx_set_int(opts, "gracePeriodSeconds", ps->grace);
        w[n++] = (struct wreq){"DELETE",
                               ctl__path("/api/v1", "pods", ps->ns, jx_str(m, "name"), NULL),
                               opts, false, true, false, NULL};
    }
    int *rcs = calloc(n + 1, sizeof(*rcs));
    struct err *errs = calloc(n + 1, sizeof(*errs));
    if (w && rcs && errs)
        run_batch(ps->c, w, n, rcs, errs);
    if (ps->grace >= 0)
        kc_log(KC_LOG_INFO, LOGGER, ps->ns, "%s: deleted %zu pods with grace %llds", ps->name, n,
               ps->grace);
    else
        kc_log(KC_LOG_INFO, LOGGER, ps->ns, "%s: deleted the %zu pods of the deleted jobs",
               ps->name, n);
    free(rcs);
    free(errs);
    free_wreqs(w, n);
    json_decref(pods);
    return w && rcs && errs ? 0 : -ENOMEM;
}

static int op_delete_jobs(void *ctx, const struct rec_delete *d, size_t n, struct err *e)
{
    struct ctl_pass *ps = ctx;
    struct wreq *w = calloc(n, sizeof(*w));
    int *rcs = calloc(n, sizeof(*rcs));
    struct err *errs = calloc(n, sizeof(*errs));
    json_t *uids = json_object();
    int rc = 0;
    for (size_t i = 0; w && i < n; i++) {
        json_t *j = cache_store_get(cache_inf_store(ps->c->jobs), ps->ns, d[i].name);
        const char *uid = jx_str(jx_obj(j, "metadata"), "uid");
        json_t *opts = json_pack("{s:s,s:s,s:s}", "kind", "DeleteOptions", "apiVersion", "v1",
                                 "propagationPolicy", d[i].foreground ? "Foreground" : "Background");
        /* The Job as observed, by uid: Job names are reused by the next attempt, and a delete
         * that reaches the server late (sent by a controller that died meanwhile) must not
         * remove its successor; a Conflict means that one is already gone. */
        if (uid) {
            if (d[i].foreground || ps->grace >= 0)
                json_object_set_new(uids, uid, json_true());
            json_object_set_new(opts, "preconditions", json_pack("{s:s}", "uid", uid));
        }
        json_decref(j);
        w[i] = (struct wreq){"DELETE", ctl__path("/apis/batch/v1", "jobs", ps->ns, d[i].name, NULL),
                             opts, false, true, uid != NULL, NULL};
    }
    if (!w || !rcs || !errs) {
        rc = err_oom(e);
        goto out;
    }
    run_batch(ps->c, w, n, rcs, errs);
    for (size_t i = 0; i < n && !rc; i++)
        if ((rc = rcs[i]) < 0)
            *e = errs[i];
    kc_log(KC_LOG_INFO, LOGGER, ps->ns, "%s: deleted %zu jobs", ps->name, n);
    if (!rc && json_object_size(uids))
        delete_pods_of(ps, uids);
out:
    json_decref(uids);
    free_wreqs(w, n);
    free(rcs);
    free(errs);
    return rc;
}

static int op_delete_job(void *ctx, const char *name, bool fg, struct err *e)
{
    struct rec_delete d = {(char *)name, fg};
    return op_delete_jobs(ctx, &d, 1, e);
}

/* dst[key] gains src[key]'s entries (maps: src wins; arrays: items dst lacks). */
static void merge_field(json_t *dst, const json_t *src, const char *key)
{
    json_t *from = json_object_get(src, key), *to = json_object_get(dst, key), *v;
    if (!from)
        return;
    if (!to || json_typeof(to) != json_typeof(from)) {
        json_object_set(dst, key, from);
        return;
    }
    if (json_is_object(from)) {
        json_object_update(to, from);
        return;
    }
    size_t i, k;
    json_t *x;
    json_array_foreach (from, i, v) {
        bool has = false;
        json_array_foreach (to, k, x)
            has = has || json_equal(x, v);
        if (!has)
            json_array_append(to, v);
    }
}

/* The ElasticJobSet gate's scale patch: a JSON merge patch of spec.parallelism and
 * spec.completions, as upstream's syncJobScaling sends it (client.MergeFrom; an absent value is
 * a null, which removes it). */
static int scale_job(struct ctl_pass *ps, const struct rec_patch *pa, struct err *e)
{
    const json_t *want = jx_obj(pa->job, "spec");
    json_t *p = json_object_get(want, "parallelism"), *c = json_object_get(want, "completions");
    json_t *patch = json_pack("{s:{s:O,s:O}}", "spec", "parallelism", p ? p : json_null(),
                              "completions", c ? c : json_null());
    char *path = ctl__path("/apis/batch/v1", "jobs", ps->ns, pa->name, NULL);
    int rc = path && patch ? kc_call(ps->c->kc, "PATCH", path, patch,
                                     "application/merge-patch+json", NULL, e)
                           : err_oom(e);
    if (rc == 0)
        kc_log(KC_LOG_INFO, LOGGER, ps->ns, "%s: job %s scaled to its template's parallelism "
               "and completions", ps->name, pa->name);
    json_decref(patch);
    free(path);
    return rc;
}

/* The suspend/resume Update on the whole Job: the cache holds only part of it, so the Job is
 * read, the fields the core changed are applied, and it is written back with its
 * resourceVersion (a Conflict fails the pass, which is retried). */
static int op_update_job(void *ctx, const struct rec_patch *pa, struct err *e)
{
    struct ctl_pass *ps = ctx;
    if (pa->scale)
        return scale_job(ps, pa, e);
    char *path = ctl__path("/apis/batch/v1", "jobs", ps->ns, pa->name, NULL);
    char *spath = ctl__path("/apis/batch/v1", "jobs", ps->ns, pa->name, "status");
    json_t *job = NULL;
    int rc = path && spath ? kc_call(ps->c->kc, "GET", path, NULL, NULL, &job, e)
                           : err_oom(e);
    if (rc == 0 && pa->clear_start_time && json_object_get(jx_obj(job, "status"), "startTime")) {
        json_object_del(jx_obj(job, "status"), "startTime");
        json_t *upd = NULL;
        rc = kc_call(ps->c->kc, "PUT", spath, job, NULL, &upd, e);
        if (rc == 0) {
            json_decref(job);
            job = upd;
        }
    }
    if (rc == 0) {
        json_t *spec = jx_ensure_obj(job, "spec"), *pt = jx_ensure_obj(spec, "template");
        const json_t *want = jx_path(pa->job, "spec.template");
        jx_set_bool(spec, "suspend", pa->suspend);
        merge_field(jx_ensure_obj(pt, "metadata"), jx_obj(want, "metadata"), "labels");
        merge_field(jx_ensure_obj(pt, "metadata"), jx_obj(want, "metadata"), "annotations");
        for (const char *const *k = (const char *const[]){"nodeSelector", "tolerations",
                                                          "schedulingGates", NULL};
             *k; k++)
            merge_field(jx_ensure_obj(pt, "spec"), jx_obj(want, "spec"), *k);
        rc = kc_call(ps->c->kc, "PUT", path, job, NULL, NULL, e);
    }
    if (rc == 0)
        kc_log(KC_LOG_INFO, LOGGER, ps->ns, "%s: job %s %s", ps->name, pa->name,
             pa->suspend ? "suspended" : "resumed");
    json_decref(job);
    free(path);
    free(spath);
    return rc;
}

/* ---- service, claims, status, events, jobset ------------------------------------------- */

static int create_unless_exists(struct ctl_pass *ps, const char *prefix, const char *res,
                                json_t *obj, struct err *e)
{
    char *path = ctl__path(prefix, res, ps->ns, NULL, NULL);
    int rc = path ? kc_call(ps->c->kc, "POST", path, obj, NULL, NULL, e)
                  : err_oom(e);
    free(path);
    return rc == -EEXIST ? 0 : rc;
}

static int op_create_service(void *ctx, json_t *svc, struct err *e)
{
    struct ctl_pass *ps = ctx;
    json_t *have = cache_store_get(cache_inf_store(ps->c->services), ps->ns,
                              jx_str(jx_obj(svc, "metadata"), "name"));
    json_decref(have);
    return have ? 0 : create_unless_exists(ps, "/api/v1", "services", svc, e);
}

static int op_create_pvc(void *ctx, json_t *pvc, struct err *e)
{
    return create_unless_exists(ctx, "/api/v1", "persistentvolumeclaims", pvc, e);
}

/* PUT .../status of the JobSet as observed (its resourceVersion: a Conflict means another
 * writer came first; the pass fails and the key is retried with the newer object). */
/* A status write in flight and the events of its pass, sent once it succeeded (upstream
 * records a pass's events only after its status update).  The write does not hold up the
 * next JobSet's reconcile: the key itself is not reconciled again until the answer is in
 * (ctl_workers.c), then it is queued at once, as upstream's reconcile follows its own write. */
struct ctl_pstatus {
    struct ctl *c;
    char *key, *ns, *name;
    json_t *events;
    bool finished, failed; /* the write moves the JobSet to a terminal state */
};

static void pstatus_free(struct ctl_pstatus *p)
{
    json_decref(p->events);
    free(p->key);
    free(p->ns);
    free(p->name);
    free(p);
}

static void status_written(void *arg, const struct kc_resp *r)
{
    struct ctl_pstatus *p = arg;
    struct ctl *c = p->c;
    json_object_del(c->status_inflight, p->key);
    if (r->rc < 0) {
        kc_log(r->rc == -JX_ECONFLICT ? KC_LOG_DEBUG : KC_LOG_ERROR, LOGGER, p->key, "writing status: %s",
             r->msg);
        cache_queue_retry(c->q, p->key, kt_mono_ms());
        pstatus_free(p);
        return;
    }
    if (r->body) {
        cache_inf_observe(c->jobsets, r->body);
        ctl__owner_changed(c, r->body); /* the cache took the change without a callback */
    }
    size_t i;
    json_t *ev;
    json_array_foreach (p->events, i, ev)
        ctl__event_send(c, ev);
    if (p->finished)
        ctl__obs_finished(c, p->ns, p->name, p->failed);
    cache_queue_forget(c->q, p->key);
    cache_queue_add(c->q, p->key);
    pstatus_free(p);
}

/* PUT .../status of the JobSet as observed (its resourceVersion: a Conflict means another
 * writer came first; the key is retried with the newer object). */
static int op_write_status(void *ctx, json_t *status, struct err *e)
{
    struct ctl_pass *ps = ctx;
    json_t *js = json_copy((json_t *)ps->raw);
    char *path = ctl__path("/apis/jobset.x-k8s.io/v1alpha2", "jobsets", ps->ns, ps->name,
                           "status");
    struct ctl_pstatus *p = calloc(1, sizeof(*p));
    int rc = -ENOMEM;
    if (!js || !path || !p || json_object_set(js, "status", status) < 0)
        goto out;
    const char *was = jx_str(jx_obj(ps->raw, "status"), "terminalState");
    const char *now = jx_str(status, "terminalState");
    *p = (struct ctl_pstatus){ps->c, strdup(ps->key), strdup(ps->ns), strdup(ps->name),
                              json_array(), !was && now, now && strcmp(now, "Failed") == 0};
    if (!p->key || !p->ns || !p->name || !p->events ||
        json_object_set_new(ps->c->status_inflight, ps->key, json_true()) < 0 ||
        kc_send(ps->c->kc, "PUT", path, js, NULL, status_written, p) < 0) {
        json_object_del(ps->c->status_inflight, ps->key);
        pstatus_free(p);
        p = NULL;
        goto out;
    }
    ps->pending = p;
    p = NULL;
    rc = 0;
out:
    if (rc < 0)
        err_set(e, rc, ERR_OOM_MSG);
    free(p);
    json_decref(js);
    free(path);
    return rc;
}


/* A core/v1 Event as client-go's EventRecorder writes it (tools/record: name
 * "<object>.<unix nanoseconds in hex>", source component "jobset"), sent without waiting. */
static void op_record_event(void *ctx, enum rec_event_type type, const char *reason,
                            const char *message)
{
    struct ctl_pass *ps = ctx;
    json_t *ev = ctl__event_new(ps->c, &ctl__kind_js, jx_obj(ps->raw, "metadata"),
                                type == REC_EVENT_WARNING ? "Warning" : "Normal", reason,
                                message);
    if (ev && ps->pending)
        json_array_append(ps->pending->events, ev);
    else
        ctl__event_send(ps->c, ev);
    json_decref(ev);
}

static int op_delete_jobset(void *ctx, struct err *e)
{
    struct ctl_pass *ps = ctx;
    char *path = ctl__path("/apis/jobset.x-k8s.io/v1alpha2", "jobsets", ps->ns, ps->name, NULL);
    json_t *opts = json_pack("{s:s,s:s,s:s}", "kind", "DeleteOptions", "apiVersion", "v1",
                             "propagationPolicy", "Foreground");
    int rc = path && opts ? kc_call(ps->c->kc, "DELETE", path, opts, NULL, NULL, e)
                          : err_oom(e);
    if (rc == 0)
        kc_log(KC_LOG_INFO, LOGGER, ps->ns, "%s: deleted (ttlSecondsAfterFinished)", ps->name);
    json_decref(opts);
    free(path);
    return rc == -ENOENT ? 0 : rc;
}

const struct rec_ops ctl__ops = {
    .delete_job = op_delete_job,
    .create_service = op_create_service,
    .create_pvc = op_create_pvc,
    .create_job = op_create_job,
    .update_job = op_update_job,
    .write_status = op_write_status,
    .record_event = op_record_event,
    .delete_jobset = op_delete_jobset,
    .delete_jobs = op_delete_jobs,
    .create_jobs = op_create_jobs,
};
