/* jobctl: one reconcile step of the local Job controller (see jobctl.h). */
#include "local/jobctl/jobctl.h"

#include "local/jobctl/jobctl_int.h"
#include "obj/base/err.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sync {
    const struct jobctl_input *in;
    struct jobctl_spec spec;
    struct jobctl_config cfg;
    struct jobctl_result res;
    size_t cap;
    unsigned char *killed; /* per pod: killed by this call */
    int32_t started;
    bool per_index; /* Indexed with backoffLimitPerIndex */
};

/* What the pods say, recomputed from scratch on every call. */
struct census {
    int32_t active, ready, terminating, failed, succeeded;
    int64_t restarts;       /* in-place restarts of live pods, pending ones included */
    int32_t fails_since_ok; /* failures after the last success: pod backoff exponent */
    int64_t last_success_ms, last_failure_ms;
    bool fail_job; /* a failed pod matched a FailJob rule */
    char fail_msg[JOBCTL_MSG_MAX];
    int *done; /* Indexed: sorted distinct succeeded indexes */
    size_t ndone;
    struct jobctl__ixf *ixf; /* per_index: failures by index, sorted */
    size_t nixf;
    int *failed_ix; /* per_index: sorted failed indexes */
    size_t nfailed_ix;
};

/* Preference of a pod to be kept: running beats pending, ready beats not ready. */
struct ranked {
    size_t pos;
    int index;
    int rank;
    int64_t start_ms;
};

static bool is_live(const struct jobctl_pod *p)
{
    return p->phase == JOBCTL_PENDING || p->phase == JOBCTL_RUNNING;
}

static bool is_active(const struct sync *s, size_t i)
{
    const struct jobctl_pod *p = &s->in->pods[i];
    return is_live(p) && !p->terminating && !s->killed[i];
}

static bool valid_index(const struct sync *s, const struct jobctl_pod *p)
{
    return !s->spec.indexed || (p->index >= 0 && p->index < s->spec.completions);
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static int64_t add_sat(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b)
        return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b)
        return INT64_MIN;
    return a + b;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static size_t sort_unique(int *v, size_t n)
{
    size_t k = 0;
    qsort(v, n, sizeof(*v), cmp_int);
    for (size_t i = 0; i < n; i++)
        if (k == 0 || v[k - 1] != v[i])
            v[k++] = v[i];
    return k;
}

static void set_cond(struct jobctl_cond *c, enum jobctl_cond_status st, const char *reason,
                     const char *msg, int64_t now)
{
    if (c->status == st && strcmp(c->reason, reason) == 0 && strcmp(c->message, msg) == 0)
        return;
    c->status = st;
    (void)snprintf(c->reason, sizeof(c->reason), "%s", reason);
    (void)snprintf(c->message, sizeof(c->message), "%s", msg);
    c->time_ms = now;
}

/* ---- actions ---------------------------------------------------------------------------- */

static int push(struct sync *s, enum jobctl_act kind, int index, size_t pod,
                enum jobctl_kill_reason reason)
{
    if (s->res.nactions == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        struct jobctl_action *a = realloc(s->res.actions, cap * sizeof(*a));
        if (!a)
            return -ENOMEM;
        s->res.actions = a;
        s->cap = cap;
    }
    s->res.actions[s->res.nactions++] =
        (struct jobctl_action){.kind = kind, .index = index, .pod = pod, .reason = reason};
    return 0;
}

static int kill_pod(struct sync *s, size_t i, enum jobctl_kill_reason r)
{
    s->killed[i] = 1;
    return push(s, JOBCTL_KILL, s->in->pods[i].index, i, r);
}

static int kill_all_active(struct sync *s, enum jobctl_kill_reason r)
{
    for (size_t i = 0; i < s->in->npods; i++)
        if (is_active(s, i) && kill_pod(s, i, r) < 0)
            return -ENOMEM;
    return 0;
}

/* ---- census ----------------------------------------------------------------------------- */

/* A pod we told to die is no failure, unless it died with the failing Job. */
static bool died_with_job(const struct sync *s, const struct jobctl_pod *p)
{
    const struct jobctl_cond *f = &s->res.status.failed_cond;
    return f->status == JOBCTL_COND_TRUE && p->phase != JOBCTL_SUCCEEDED &&
           (is_live(p) || p->finish_ms >= f->time_ms);
}

static void census_failed(const struct sync *s, const struct jobctl_pod *p, struct census *c)
{
    char msg[JOBCTL_MSG_MAX];
    enum jobctl__pfp act = JOBCTL__PFP_NONE;
    if (p->terminating) {
        c->failed += died_with_job(s, p);
        return;
    }
    if (s->spec.pod_failure_rules)
        act = jobctl__pfp_match(&s->spec, p, msg, sizeof(msg));
    if (act == JOBCTL__PFP_FAIL_JOB && !c->fail_job) {
        c->fail_job = true;
        memcpy(c->fail_msg, msg, sizeof(msg));
    }
    c->failed += act != JOBCTL__PFP_IGNORE;
    if (s->per_index)
        c->ixf[c->nixf++] = (struct jobctl__ixf){p->index, act != JOBCTL__PFP_IGNORE,
                                                 act == JOBCTL__PFP_IGNORE,
                                                 act == JOBCTL__PFP_FAIL_INDEX, p->finish_ms};
    if (p->finish_ms > c->last_success_ms) {
        c->fails_since_ok++;
        c->last_failure_ms = c->last_failure_ms > p->finish_ms ? c->last_failure_ms : p->finish_ms;
    }
}

static void census_live(const struct sync *s, size_t i, struct census *c)
{
    const struct jobctl_pod *p = &s->in->pods[i];
    c->restarts += p->restart_count + (p->waiting ? 1 : 0);
    if (p->terminating || s->killed[i]) {
        c->terminating++;
        c->failed += valid_index(s, p) && died_with_job(s, p);
        return;
    }
    c->active++;
    c->ready += p->ready && !p->waiting;
}

static int64_t last_success(const struct sync *s)
{
    int64_t t = INT64_MIN;
    for (size_t i = 0; i < s->in->npods; i++) {
        const struct jobctl_pod *p = &s->in->pods[i];
        if (p->phase == JOBCTL_SUCCEEDED && valid_index(s, p) && p->finish_ms > t)
            t = p->finish_ms;
    }
    return t;
}

static void census_pod(const struct sync *s, size_t i, struct census *c)
{
    const struct jobctl_pod *p = &s->in->pods[i];
    if (is_live(p))
        census_live(s, i, c);
    else if (!valid_index(s, p))
        return;
    else if (p->phase == JOBCTL_FAILED)
        census_failed(s, p, c);
    else if (s->spec.indexed)
        c->done[c->ndone++] = p->index;
    else
        c->succeeded++;
}

static void census_release(struct census *c)
{
    free(c->done);
    free(c->ixf);
    free(c->failed_ix);
}

static int census_take(const struct sync *s, struct census *c)
{
    size_t n = s->in->npods ? s->in->npods : 1;
    memset(c, 0, sizeof(*c));
    c->last_success_ms = last_success(s);
    c->last_failure_ms = INT64_MIN;
    c->done = malloc(n * sizeof(int));
    if (s->per_index) {
        c->ixf = malloc(n * sizeof(*c->ixf));
        c->failed_ix = malloc(n * sizeof(int));
    }
    if (!c->done || (s->per_index && (!c->ixf || !c->failed_ix)))
        return -ENOMEM;
    for (size_t i = 0; i < s->in->npods; i++)
        census_pod(s, i, c);
    if (s->spec.indexed) {
        c->ndone = sort_unique(c->done, c->ndone);
        c->succeeded = (int32_t)c->ndone;
    }
    if (s->per_index) {
        c->nixf = jobctl__ixf_merge(c->ixf, c->nixf);
        c->nfailed_ix =
            jobctl__ixf_failed(c->ixf, c->nixf, s->spec.backoff_limit_per_index, c->failed_ix);
    }
    return 0;
}

/* ---- failure ---------------------------------------------------------------------------- */

static bool past_backoff_limit(const struct sync *s, const struct census *c)
{
    if (c->failed > s->spec.backoff_limit)
        return true;
    if (s->spec.restart_policy != JOBCTL_RESTART_ON_FAILURE)
        return false;
    return s->spec.backoff_limit == 0 ? c->restarts > 0 : c->restarts >= s->spec.backoff_limit;
}

static bool past_deadline(const struct sync *s)
{
    const struct jobctl_status *st = &s->res.status;
    return s->spec.active_deadline_s >= 0 && st->has_start && !s->spec.suspend &&
           s->in->now_ms - st->start_ms >= s->spec.active_deadline_s * 1000;
}

/* backoffLimitPerIndex: the reason the failed indexes fail the Job now (message in *msg), or
 * NULL. */
static const char *failed_indexes_reason(const struct sync *s, const struct census *c,
                                         const char **msg)
{
    size_t n = c->nfailed_ix;
    if (!s->per_index || n == 0)
        return NULL;
    if (s->spec.max_failed_indexes >= 0 && n > (size_t)s->spec.max_failed_indexes) {
        *msg = "Job has exceeded the specified maximal number of failed indexes";
        return "MaxFailedIndexesExceeded";
    }
    if (n + c->ndone >= (size_t)s->spec.completions) {
        *msg = "Job has failed indexes";
        return "FailedIndexes";
    }
    return NULL;
}

/* Sets the Failed condition when the Job fails now; returns whether it did. */
static bool check_failure(struct sync *s, const struct census *c)
{
    struct jobctl_cond *f = &s->res.status.failed_cond;
    int64_t now = s->in->now_ms;
    const char *reason, *msg;
    if (c->fail_job)
        set_cond(f, JOBCTL_COND_TRUE, "PodFailurePolicy", c->fail_msg, now);
    else if (past_backoff_limit(s, c))
        set_cond(f, JOBCTL_COND_TRUE, "BackoffLimitExceeded",
                 "Job has reached the specified backoff limit", now);
    else if (past_deadline(s))
        set_cond(f, JOBCTL_COND_TRUE, "DeadlineExceeded",
                 "Job was active longer than specified deadline", now);
    else if ((reason = failed_indexes_reason(s, c, &msg)) != NULL)
        set_cond(f, JOBCTL_COND_TRUE, reason, msg, now);
    return f->status == JOBCTL_COND_TRUE;
}

/* successPolicy: sets SuccessCriteriaMet and Complete when a rule is met; returns whether. */
static bool check_success(struct sync *s, const struct census *c)
{
    struct jobctl_status *st = &s->res.status;
    int64_t now = s->in->now_ms;
    char msg[JOBCTL_MSG_MAX];
    if (!jobctl__success_match(&s->spec, c->done, c->ndone, msg, sizeof(msg)))
        return false;
    set_cond(&st->success_criteria, JOBCTL_COND_TRUE, "SuccessPolicy", msg, now);
    set_cond(&st->complete, JOBCTL_COND_TRUE, "SuccessPolicy", msg, now);
    st->has_completion = true;
    st->completion_ms = now;
    return true;
}

/* ---- pod management --------------------------------------------------------------------- */

static int cmp_keep_first(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->index != y->index)
        return (x->index > y->index) - (x->index < y->index);
    if (x->rank != y->rank)
        return y->rank - x->rank;
    return (x->start_ms > y->start_ms) - (x->start_ms < y->start_ms);
}

static int cmp_kill_first(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank - y->rank;
    return (y->start_ms > x->start_ms) - (y->start_ms < x->start_ms);
}

/* The active pods, ranked; caller frees. */
static struct ranked *rank_active(const struct sync *s, size_t *out_n)
{
    struct ranked *r = malloc((s->in->npods ? s->in->npods : 1) * sizeof(*r));
    size_t n = 0;
    if (!r)
        return NULL;
    for (size_t i = 0; i < s->in->npods; i++) {
        const struct jobctl_pod *p = &s->in->pods[i];
        if (!is_active(s, i))
            continue;
        r[n++] = (struct ranked){
            i, p->index, (p->phase == JOBCTL_RUNNING) * 2 + (p->ready && !p->waiting), p->start_ms};
    }
    *out_n = n;
    return r;
}

/* Indexed: kills pods with an index out of range and all but the best pod of an index. */
static int kill_bad_indexes(struct sync *s, int32_t *killed)
{
    size_t n;
    int rc = 0;
    struct ranked *r = rank_active(s, &n);
    if (!r)
        return -ENOMEM;
    qsort(r, n, sizeof(*r), cmp_keep_first);
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (!valid_index(s, &s->in->pods[r[i].pos]))
            rc = kill_pod(s, r[i].pos, JOBCTL_KILL_INVALID_INDEX);
        else if (i > 0 && r[i - 1].index == r[i].index)
            rc = kill_pod(s, r[i].pos, JOBCTL_KILL_DUPLICATE_INDEX);
        else
            continue;
        (*killed)++;
    }
    free(r);
    return rc;
}

static int kill_excess(struct sync *s, int32_t count)
{
    size_t n;
    int rc = 0;
    struct ranked *r = rank_active(s, &n);
    if (!r)
        return -ENOMEM;
    qsort(r, n, sizeof(*r), cmp_kill_first);
    for (size_t i = 0; i < n && i < (size_t)count && rc == 0; i++)
        rc = kill_pod(s, r[i].pos, JOBCTL_KILL_EXCESS);
    free(r);
    return rc;
}

static int32_t want_active(const struct sync *s, const struct census *c, int32_t active)
{
    int32_t par = s->spec.parallelism;
    if (s->spec.completions < 0)
        return c->succeeded > 0 ? active : par;
    int32_t left = s->spec.completions - c->succeeded;
    return left < 0 ? 0 : left < par ? left : par;
}

/* Kubelet crash-loop backoff for every waiting container. */
static int restart_due(struct sync *s, int64_t *wake)
{
    const struct jobctl_config *cfg = &s->cfg;
    if (s->spec.restart_policy != JOBCTL_RESTART_ON_FAILURE)
        return 0;
    for (size_t i = 0; i < s->in->npods; i++) {
        const struct jobctl_pod *p = &s->in->pods[i];
        if (!is_active(s, i) || !p->waiting)
            continue;
        bool fresh =
            p->finish_ms - p->start_ms >= add_sat(cfg->restart_max_ms, cfg->restart_max_ms);
        int64_t due =
            add_sat(p->finish_ms, jobctl__backoff(cfg->restart_base_ms, cfg->restart_max_ms,
                                                  fresh ? 0 : p->restart_count));
        if (s->in->now_ms < due)
            *wake = min64(*wake, due);
        else if (push(s, JOBCTL_RESTART, p->index, i, 0) < 0)
            return -ENOMEM;
    }
    return 0;
}

/* Indexes not to start: succeeded, failed or active ones, sorted; caller frees. */
static int *taken_indexes(const struct sync *s, const struct census *c, size_t *out_n)
{
    size_t n = c->ndone;
    int *taken = malloc((c->ndone + c->nfailed_ix + s->in->npods + 1) * sizeof(int));
    if (!taken)
        return NULL;
    if (c->ndone)
        memcpy(taken, c->done, c->ndone * sizeof(int));
    if (c->nfailed_ix)
        memcpy(taken + n, c->failed_ix, c->nfailed_ix * sizeof(int));
    n += c->nfailed_ix;
    for (size_t i = 0; i < s->in->npods; i++)
        if (is_active(s, i) && valid_index(s, &s->in->pods[i]))
            taken[n++] = s->in->pods[i].index;
    *out_n = sort_unique(taken, n);
    return taken;
}

/* backoffLimitPerIndex: when the index may have its next pod, after its own pod backoff. */
static int64_t index_due(const struct sync *s, const struct census *c, int idx)
{
    const struct jobctl__ixf *f = s->per_index ? jobctl__ixf_find(c->ixf, c->nixf, idx) : NULL;
    if (!f)
        return INT64_MIN;
    return add_sat(f->last_ms, jobctl__backoff(s->cfg.pod_base_ms, s->cfg.pod_max_ms,
                                               f->counted + f->ignored - 1));
}

/* The lowest `diff` pending indexes; per index, those still in backoff wait. */
static int start_indexed(struct sync *s, const struct census *c, int32_t diff, int64_t *wake)
{
    size_t n, k = 0;
    int32_t picked = 0;
    int *taken = taken_indexes(s, c, &n);
    if (!taken)
        return -ENOMEM;
    for (int idx = 0; idx < s->spec.completions && picked < diff; idx++) {
        while (k < n && taken[k] < idx)
            k++;
        if (k < n && taken[k] == idx)
            continue;
        picked++;
        int64_t due = index_due(s, c, idx);
        if (s->in->now_ms < due) {
            *wake = min64(*wake, due);
        } else if (push(s, JOBCTL_START, idx, 0, 0) < 0) {
            free(taken);
            return -ENOMEM;
        } else {
            s->started++;
        }
    }
    free(taken);
    return 0;
}

static int start_pods(struct sync *s, const struct census *c, int32_t diff, int64_t *wake)
{
    const struct jobctl_config *cfg = &s->cfg;
    if (!s->per_index && c->fails_since_ok > 0) {
        int64_t ready_at =
            add_sat(c->last_failure_ms,
                    jobctl__backoff(cfg->pod_base_ms, cfg->pod_max_ms, c->fails_since_ok - 1));
        if (s->in->now_ms < ready_at) {
            *wake = min64(*wake, ready_at);
            return 0;
        }
    }
    if (diff > JOBCTL_MAX_STARTS)
        diff = JOBCTL_MAX_STARTS;
    if (s->spec.indexed)
        return start_indexed(s, c, diff, wake);
    for (; s->started < diff; s->started++)
        if (push(s, JOBCTL_START, -1, 0, 0) < 0)
            return -ENOMEM;
    return 0;
}

static int manage(struct sync *s, const struct census *c, int64_t *wake)
{
    int32_t killed = 0;
    int rc = s->spec.indexed ? kill_bad_indexes(s, &killed) : 0;
    int32_t active = c->active - killed;
    int32_t want = want_active(s, c, active);
    if (rc == 0 && active > want) {
        rc = kill_excess(s, active - want);
        killed += active - want;
    }
    if (rc == 0)
        rc = restart_due(s, wake);
    /* a step that removes pods creates none (as the Job controller does) */
    if (rc == 0 && killed == 0 && want > active)
        rc = start_pods(s, c, want - active, wake);
    return rc;
}

/* ---- the step --------------------------------------------------------------------------- */

static enum jobctl_kill_reason finished_reason(const struct jobctl_status *st)
{
    return st->failed_cond.status == JOBCTL_COND_TRUE ? JOBCTL_KILL_JOB_FAILED
                                                      : JOBCTL_KILL_JOB_COMPLETE;
}

static int decide(struct sync *s, const struct census *c)
{
    struct jobctl_status *st = &s->res.status;
    int64_t now = s->in->now_ms, wake = JOBCTL_NO_WAKEUP;
    int rc;
    if (jobctl_status_finished(st))
        return kill_all_active(s, finished_reason(st));
    /* startTime runs only while the Job is not suspended; a resume starts it anew */
    if (s->spec.suspend)
        st->has_start = false;
    else if (!st->has_start || st->suspended.status == JOBCTL_COND_TRUE) {
        st->has_start = true;
        st->start_ms = now;
    }
    if (check_failure(s, c))
        return kill_all_active(s, JOBCTL_KILL_JOB_FAILED);
    if (check_success(s, c))
        return kill_all_active(s, JOBCTL_KILL_JOB_COMPLETE);
    rc = s->spec.suspend ? kill_all_active(s, JOBCTL_KILL_SUSPENDED) : manage(s, c, &wake);
    if (!s->spec.suspend && s->spec.active_deadline_s >= 0)
        wake = min64(wake, add_sat(st->start_ms, s->spec.active_deadline_s * 1000));
    s->res.next_wakeup_ms = wake;
    return rc;
}

/* Counters from the final census; Complete or Suspended conditions for a running Job. */
static int conclude(struct sync *s, const struct census *c, bool was_finished)
{
    struct jobctl_status *st = &s->res.status;
    int64_t now = s->in->now_ms;
    int32_t active = c->active + s->started;
    st->active = active;
    st->ready = c->ready;
    st->terminating = c->terminating;
    st->failed = c->failed;
    st->succeeded = c->succeeded;
    if (s->spec.indexed && jobctl_indexes_format(c->done, c->ndone, &st->completed_indexes) < 0)
        return -ENOMEM;
    if (s->per_index && jobctl_indexes_format(c->failed_ix, c->nfailed_ix, &st->failed_indexes) < 0)
        return -ENOMEM;
    if (was_finished || jobctl_status_finished(st))
        return 0;
    bool enough = s->spec.completions < 0 ? c->succeeded > 0 : c->succeeded >= s->spec.completions;
    if (enough && active == 0) {
        set_cond(&st->complete, JOBCTL_COND_TRUE, "CompletionsReached",
                 "Reached expected number of succeeded pods", now);
        st->has_completion = true;
        st->completion_ms = now;
        s->res.next_wakeup_ms = JOBCTL_NO_WAKEUP;
    } else if (s->spec.suspend) {
        set_cond(&st->suspended, JOBCTL_COND_TRUE, "JobSuspended", "Job suspended", now);
    } else if (st->suspended.status != JOBCTL_COND_ABSENT) {
        set_cond(&st->suspended, JOBCTL_COND_FALSE, "JobResumed", "Job resumed", now);
    }
    return 0;
}

static int setup(struct sync *s, struct err *e)
{
    static const struct jobctl_config defaults = JOBCTL_CONFIG_DEFAULT;
    const struct jobctl_input *in = s->in;
    int rc = jobctl_spec_parse(in->job, &s->spec, e);
    if (rc < 0)
        return rc;
    s->cfg = in->cfg ? *in->cfg : defaults;
    if (in->status)
        s->res.status = *in->status;
    s->res.status.completed_indexes = NULL;
    s->res.status.failed_indexes = NULL;
    s->res.next_wakeup_ms = JOBCTL_NO_WAKEUP;
    s->per_index = s->spec.indexed && s->spec.backoff_limit_per_index >= 0;
    s->killed = calloc(in->npods ? in->npods : 1, 1);
    return s->killed ? 0 : -ENOMEM;
}

int jobctl_sync(const struct jobctl_input *in, struct jobctl_result *out, struct err *e)
{
    struct sync s = {.in = in};
    struct census before = {0}, after = {0};
    bool was_finished = jobctl_status_finished(in->status);
    int rc = setup(&s, e);
    if (rc == 0)
        rc = census_take(&s, &before);
    if (rc == 0)
        rc = decide(&s, &before);
    if (rc == 0)
        rc = census_take(&s, &after);
    if (rc == 0)
        rc = conclude(&s, &after, was_finished);
    census_release(&before);
    census_release(&after);
    free(s.killed);
    if (rc < 0) {
        if (rc == -ENOMEM)
            err_set(e, rc, ERR_OOM_MSG);
        jobctl_result_release(&s.res);
        return rc;
    }
    *out = s.res;
    return 0;
}
