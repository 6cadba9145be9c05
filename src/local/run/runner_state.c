/* The runner's state on disk (the run directory) and on the terminal (live line, events,
 * summary). */
#include "local/run/runner_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/kubeflow/jaxjob_status.h"
#include "api/kubeflow/trainjob_status.h"
#include "local/store/rundir.h"
#include "local/store/store_state.h"
#include "obj/base/fs.h"
#include "obj/tree/jx.h"
#include "obj/base/ktime.h"
#include "obj/base/sbuf.h"

int64_t runner__now(const struct run *r)
{
    return kt_steady_now(&r->clock);
}

/* The final records must be written when the run ends, also after its pods filled the disk
 * (a run that says Running with its process gone is Lost): from before the first pod starts
 * until right before they are written, RD_RESERVE holds space allocated for them
 * (posix_fallocate: blocks, never a hole), twice what they took when last written (each is
 * written beside the old one, then renamed over it; the last ones are larger), and at least
 * RESERVE_MIN. */
#define RESERVE_MIN (64 * 1024)
#define RESERVE_PAGE 4096LL

static const char *const final_records[] = {RD_PODS, RD_JOBS, RD_JOBSET, RD_RUN};

static long long json_size(const json_t *v)
{
    return (long long)json_dumpb(v, NULL, 0, JSON_COMPACT);
}

/* Before anything was written: the JobSet and each Job (its template) three times their
 * compact size (indented, with a status), two pages a pod. */
static long long reserve_guess(const struct run *r)
{
    const struct js_view *v = &r->m->view;
    long long n = RESERVE_MIN + 3 * json_size(r->js);
    for (size_t i = 0; i < v->n_rj; i++)
        n += v->rj[i].replicas * (3 * json_size(v->rj[i].tmpl) + RESERVE_PAGE +
                                  v->rj[i].pods_per_job * 2 * RESERVE_PAGE);
    return n;
}

/* Twice what the records take now, each in whole pages. */
static long long reserve_measure(const struct run *r)
{
    long long n = RESERVE_MIN;
    char path[PATH_MAX]; /* the run dir is at most RD_DIR_MAX (rundir.h) */
    struct stat st;
    for (size_t i = 0; i < sizeof(final_records) / sizeof(final_records[0]); i++)
        if (stat(rd_file(path, sizeof(path), r->o->run_dir, final_records[i]), &st) == 0)
            n += 2 * (((long long)st.st_size + RESERVE_PAGE - 1) / RESERVE_PAGE * RESERVE_PAGE);
    return n;
}

/* The reserve made `want` bytes: grown (kept as it is when the disk has no more), or shrunk
 * once it is more than twice that.  0 or a negative errno. */
static int reserve_resize(struct run *r, long long want)
{
    int rc = 0;
    if (want > r->reserve_size && (rc = posix_fallocate(r->reserve_fd, 0, (off_t)want)) == 0)
        r->reserve_size = want;
    else if (want * 2 < r->reserve_size && ftruncate(r->reserve_fd, (off_t)want) == 0)
        r->reserve_size = want;
    return -rc;
}

static int reserve(struct run *r, struct err *err)
{
    char path[PATH_MAX]; /* the run dir is at most RD_DIR_MAX (rundir.h) */
    rd_file(path, sizeof(path), r->o->run_dir, RD_RESERVE);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return err_set(err, -errno, "%s: %s", path, strerror(errno));
    r->reserved = true;
    r->reserve_fd = fd;
    long long want = reserve_guess(r);
    int rc = reserve_resize(r, want);
    if (rc == -ENOSPC || rc == -EDQUOT)
        return err_set(err, rc, "%s: cannot reserve %lld bytes for the run's final records: %s",
                       path, want, strerror(-rc));
    return 0; /* EOPNOTSUPP...: a file system that allocates nothing ahead */
}

/* Gives the reserve back: its space is the final records'. */
static void reserve_release(struct run *r)
{
    char path[PATH_MAX]; /* the run dir is at most RD_DIR_MAX (rundir.h) */
    if (!r->reserved)
        return;
    close(r->reserve_fd);
    unlink(rd_file(path, sizeof(path), r->o->run_dir, RD_RESERVE));
    r->reserved = false;
}

int runner__state_open(struct run *r, struct err *err)
{
    char path[PATH_MAX]; /* the run dir is at most RD_DIR_MAX (rundir.h) */
    if (!*rd_file(path, sizeof(path), r->o->run_dir, RD_LOGS))
        return err_set(err, -ENAMETOOLONG, "%s: the run directory's path is too long",
                       r->o->run_dir);
    if (mkdir(path, 0700) < 0 && errno != EEXIST)
        return err_set(err, -errno, "%s: %s", path, strerror(errno));
    rd_file(path, sizeof(path), r->o->run_dir, RD_EVENTS);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
    r->events = fd >= 0 ? fdopen(fd, "a") : NULL;
    if (!r->events) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return err_set(err, -e, "%s: %s", path, strerror(e));
    }
    return reserve(r, err);
}

/* A record that could not be written: during the run the first failure is noted
 * (runner__state_failed); at the end, each final record, by name. */
static void record_failed(struct run *r, const char *name, int rc, bool final)
{
    if (!final) {
        runner__state_failed(r, name, rc);
        return;
    }
    if (!r->state_errno)
        r->state_errno = rc;
    runner__note(r, "cannot write the run's final %s in %s: %s; it keeps an earlier state of "
                    "the run%s", name, r->o->run_dir, strerror(-rc),
                 strcmp(name, RD_RUN) ? "" : ", not how it ended");
}

/* A final record the disk has no room for beside the old one (its reserve was taken from
 * it): rewritten in place, in the old one's blocks.  Not atomic, and only at the end. */
static int rewrite_in_place(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = fs_write_all(fd, text, strlen(text));
    if (close(fd) < 0 && rc == 0)
        rc = -errno;
    return rc;
}

/* Writes `v` to dir/name atomically, 0600, never through a symbolic link. */
static void write_json(struct run *r, const char *name, const json_t *v, bool final)
{
    char path[PATH_MAX]; /* the run dir is at most RD_DIR_MAX (rundir.h) */
    char *text = json_dumps(v, JSON_INDENT(2));
    int rc = !text ? -ENOMEM
             : !*rd_file(path, sizeof(path), r->o->run_dir, name)
                 ? -ENAMETOOLONG
                 : fs_write_private(path, text, strlen(text));
    if (final && (rc == -ENOSPC || rc == -EDQUOT) && rewrite_in_place(path, text) == 0)
        rc = 0;
    free(text);
    if (rc < 0)
        record_failed(r, name, rc, final);
}

/* A JAXJob's run: its status as the Training Operator's controller would write it from the
 * JobSet and Jobs (api/kubeflow/jaxjob_status.h; what the cluster controller ctl/ctl_jaxjob.c
 * writes), kept from one write to the next as a controller keeps it on the object; put in
 * run.json as "jaxjob". */
static void jaxjob_status(struct run *r, json_t *jobs, json_t *run)
{
    struct jjs_obs obs = {.jobset = r->js, .jobs = jobs};
    struct jjs_result res;
    if (!r->jaxjob || !run || jjs_compute(r->jaxjob, &obs, kt_now_ms(), &res) < 0)
        return;
    json_object_set(r->jaxjob, "status", res.status);
    json_object_set(run, "jaxjob", r->jaxjob);
    jjs_result_release(&res);
}

/* A TrainJob's run: its status as Trainer's controller would write it from the JobSet
 * (api/kubeflow/trainjob_status.h; what ctl/ctl_trainjob.c writes), kept as jaxjob_status keeps a
 * JAXJob's; put in run.json as "trainjob". */
static void trainjob_status(struct run *r, json_t *run)
{
    struct tjs_obs obs = {.jobset = r->js};
    struct tjs_result res;
    if (!r->trainjob || !run || tjs_compute(r->trainjob, &obs, kt_now_ms(), &res) < 0)
        return;
    json_object_set(r->trainjob, "status", res.status);
    json_object_set(run, "trainjob", r->trainjob);
    tjs_result_release(&res);
}

void runner__state_write(struct run *r, const char *state, int exit_status)
{
    char started[KT_RFC3339_MAX], now[KT_RFC3339_MAX];
    json_t *jobs = json_array();
    char path[PATH_MAX]; /* the run dir is at most RD_DIR_MAX (rundir.h) */
    bool final = strcmp(state, store_state_name(STORE_RUNNING)) != 0;
    for (size_t i = 0; jobs && i < r->n_jobs; i++)
        json_array_append(jobs, r->jobs[i]->obj);
    kt_format(r->started_ms, started);
    kt_format(runner__now(r), now);
    json_t *run = json_pack("{s:s,s:s,s:s,s:I,s:s,s:s,s:i}", "name", r->m->view.name,
                            "source", r->m->source, "state", state, "pid", (json_int_t)getpid(),
                            "startTime", started, "updateTime", now, "coordinatorPort",
                            r->coord_port);
    if (run && exit_status >= 0)
        jx_set_int(run, "exitStatus", exit_status);
    jaxjob_status(r, jobs, run);
    trainjob_status(r, run);
    /* training progress (runner_status.c): the latest report, and where reports go */
    if (run && r->trainer_status)
        json_object_set(run, "trainerStatus", r->trainer_status);
    if (run && r->status_url)
        jx_set_new(run, "statusServer", json_pack("{s:s,s:s}", "url", r->status_url, "dir",
                                                  r->status_dir));
    /* the first failed pod of the latest failure (runner_attr.c); at the end, only of the one
     * that failed the JobSet */
    if (run && r->failure && (exit_status < 0 || r->failure_final))
        json_object_set(run, "failure", r->failure);
    /* Pods and Jobs before the JobSet, run.json last: a reader that reads them in the
     * opposite order never sees a JobSet status newer than the pods and Jobs behind it. */
    if (final)
        reserve_release(r);
    int rc = *rd_file(path, sizeof(path), r->o->run_dir, RD_PODS) ? runner__pods_write(r, path)
                                                                   : -ENAMETOOLONG;
    if (rc < 0)
        record_failed(r, RD_PODS, rc, final);
    if (jobs)
        write_json(r, RD_JOBS, jobs, final);
    write_json(r, RD_JOBSET, r->js, final);
    if (run)
        write_json(r, RD_RUN, run, final);
    json_decref(jobs);
    json_decref(run);
    if (r->reserved)
        reserve_resize(r, reserve_measure(r));
    r->status_dirty = false;
}

#define FIRST_FAILED "(first failed job: "

/* A failure event of the core names the first failed Job: the terminal line names its first
 * failed pod instead.  The condition's event and the action's event of one restart say the same:
 * the second is not shown (events.log keeps both, as a cluster's events). */
static void failure_event_line(struct run *r, const char *type, const char *reason,
                               const char *msg, const char *at, struct sbuf *line)
{
    char job[RUN_NAME_MAX];
    const char *name = at + strlen(FIRST_FAILED);
    size_t n = strcspn(name, ")");
    if (r->failure_event && !strcmp(r->failure_event, msg))
        return;
    free(r->failure_event);
    r->failure_event = strdup(msg);
    snprintf(job, sizeof(job), "%.*s", (int)(n < sizeof(job) ? n : sizeof(job) - 1), name);
    int len = (int)(at - msg);
    len -= len > 0 && msg[len - 1] == ' ';
    sb_printf(line, "jaxset: %s %s: %.*s: ", type, reason, len, msg);
    if (runner__attribute(r, job, line) < 0)
        sb_printf(line, "first failed job %s", job);
    sb_puts(line, "\n");
}

void runner__event(struct run *r, const char *type, const char *reason, const char *msg)
{
    char ts[KT_RFC3339_MAX];
    const char *at = strstr(msg, FIRST_FAILED);
    kt_format(runner__now(r), ts);
    if (r->events) {
        fprintf(r->events, "%s %s %s: %s\n", ts, type, reason, msg);
        if (fflush(r->events) != 0)
            runner__state_failed(r, RD_EVENTS, -errno);
    }
    struct sbuf line = SBUF_INIT;
    if (at)
        failure_event_line(r, type, reason, msg, at, &line);
    else
        sb_printf(&line, "jaxset: %s %s: %s\n", type, reason, msg);
    if (line.len || sb_failed(&line)) {
        runner__live_clear(r);
        runner__out(r, sb_failed(&line) ? "jaxset: (" ERR_OOM_MSG ")\n" : sb_str(&line));
    }
    sb_free(&line);
}

/* The restarts of the feature gates: of single Jobs (RestartJob) and in place. */
static void gated_restarts_text(const json_t *st, struct sbuf *b)
{
    long long jobs = 0, in_place = jx_int_or(st, "currentInPlaceRestartAttempt", 0);
    size_t i, k;
    const json_t *e, *v;
    json_array_foreach (jx_arr(st, "replicatedJobsStatus"), i, e)
        json_array_foreach (jx_arr(e, "jobRestarts"), k, v)
            jobs += json_is_integer(v) ? json_integer_value(v) : 0;
    if (jobs)
        sb_printf(b, "  job restarts %lld", jobs);
    if (in_place > 0)
        sb_printf(b, "  in-place restarts %lld", in_place);
}

/* "workers: 4/4/0/0  restarts 0  (ready/active/succeeded/failed)" from the status. */
static void status_text(const struct run *r, struct sbuf *b)
{
    const json_t *st = jx_obj(r->js, "status");
    const json_t *rjs = jx_arr(st, "replicatedJobsStatus");
    for (size_t i = 0; i < json_array_size(rjs); i++) {
        const json_t *e = json_array_get(rjs, i);
        sb_printf(b, "%s%s: %lld/%lld/%lld/%lld", i ? "  " : "", jx_str(e, "name"),
                  jx_int_or(e, "ready", 0), jx_int_or(e, "active", 0),
                  jx_int_or(e, "succeeded", 0), jx_int_or(e, "failed", 0));
    }
    sb_printf(b, "  restarts %lld", jx_int_or(st, "restarts", 0));
    gated_restarts_text(st, b);
    sb_printf(b, "  (ready/active/succeeded/failed)");
}

/* "8s", "1m08s", "2h01m08s": the elapsed time of the live line. */
void runner__elapsed_text(int64_t ms, struct sbuf *b)
{
    long long t = ms / 1000, h = t / 3600, m = t / 60 % 60, sec = t % 60;
    if (h)
        sb_printf(b, "%lldh%02lldm%02llds", h, m, sec);
    else if (m)
        sb_printf(b, "%lldm%02llds", m, sec);
    else
        sb_printf(b, "%llds", sec);
}

/* The pods of the current attempt: running, terminating (in their grace period: stopped by a
 * restart, a deletion, an interrupt, or ended with processes left), and done (succeeded). */
static void pod_counts(const struct run *r, size_t *running, size_t *stopping, size_t *done)
{
    *running = *stopping = *done = 0;
    for (size_t k = 0; k < r->n_jobs; k++) {
        const struct rjob *j = r->jobs[k];
        for (size_t i = 0; i < j->n_pods; i++) {
            const struct rpod *p = j->pods[i];
            bool ended = p->jp.phase == JOBCTL_SUCCEEDED || p->jp.phase == JOBCTL_FAILED;
            if (runner__pod_alive(p) &&
                (j->deleting || p->jp.terminating || ended || p->ipr_restarting))
                (*stopping)++;
            else if (runner__pod_alive(p))
                (*running)++;
            else if (!j->deleting && p->jp.phase == JOBCTL_SUCCEEDED)
                (*done)++;
        }
    }
}

long long runner__total_pods(const struct js_view *v)
{
    long long n = 0;
    for (size_t i = 0; i < v->n_rj; i++)
        n += v->rj[i].replicas * v->rj[i].pods_per_job;
    return n;
}

/* "jaxset: 1m08s  pods 3 running, 1 terminating, 0 done of 4  restarts 1" */
/* The training's last report (runner_status.c): "  45% eta 1m00s loss=0.23 acc=0.98", at most
 * LIVE_METRICS metrics. */
#define LIVE_METRICS 3
static void progress_text(const json_t *ts, struct sbuf *b)
{
    long long pct = jx_int_or(ts, "progressPercentage", -1);
    long long eta = jx_int_or(ts, "estimatedRemainingSeconds", -1);
    const json_t *m;
    size_t i;
    if (!ts)
        return;
    if (pct >= 0)
        sb_printf(b, "  %lld%%", pct);
    if (eta >= 0) {
        sb_puts(b, " eta ");
        runner__elapsed_text(eta * 1000, b);
    }
    json_array_foreach (jx_arr(ts, "metrics"), i, m) {
        if (i == LIVE_METRICS)
            break;
        sb_printf(b, " %s=%s", jx_str(m, "name"), jx_str(m, "value"));
    }
}

static void live_text(const struct run *r, struct sbuf *b)
{
    size_t running, stopping, done;
    const json_t *st = jx_obj(r->js, "status");
    pod_counts(r, &running, &stopping, &done);
    sb_puts(b, "jaxset: ");
    runner__elapsed_text(runner__now(r) - r->started_ms, b);
    sb_printf(b, "  pods %zu running, %zu terminating, %zu done of %lld  restarts %lld", running,
              stopping, done, runner__total_pods(&r->m->view), jx_int_or(st, "restarts", 0));
    gated_restarts_text(st, b);
    progress_text(r->trainer_status, b);
    if (r->signals == 1)
        sb_puts(b, "  stopping (interrupt again to kill)");
    else if (r->signals > 1)
        sb_puts(b, "  killing");
}

/* The live line is one terminal line: it is cut at sizeof(last_line) - 1 bytes on purpose. */
void runner__live(struct run *r, bool force)
{
    struct sbuf b = {.max = sizeof(r->last_line) - 1};
    if (!r->o->live)
        return;
    live_text(r, &b);
    const char *line = sb_str(&b);
    if (force || strcmp(line, r->last_line) != 0) {
        memcpy(r->last_line, line, b.len + 1);
        runner__out(r, "\r\033[K");
        runner__out(r, line);
    }
    sb_free(&b);
}

void runner__summary(struct run *r, int exit_status)
{
    struct sbuf line = SBUF_INIT;
    const char *what = store_state_name(store_state_of_exit(exit_status));
    char failed[512]; /* "pod <name> (container <name> ...)": names are DNS labels */
    json_t *pods = exit_status == 1 ? runner__pods_json(r) : NULL;
    bool final = exit_status == 1 && r->failure_final;
    const json_t *f = final && jx_str(r->failure, "pod") ? r->failure : NULL;
    if (f && jx_str(f, "signal"))
        snprintf(failed, sizeof(failed), "pod %s (container %s killed by SIG%s)",
                 jx_str(f, "pod"), jx_str(f, "container"), jx_str(f, "signal"));
    else if (f)
        snprintf(failed, sizeof(failed), "pod %s (container %s exited with code %lld)",
                 jx_str(f, "pod"), jx_str(f, "container"), jx_int_or(f, "exitCode", 0));
    if (final && !f) /* a Job failed with no failed pod */
        runner__note(r, "the first failure: job %s failed: %s: %s", jx_str(r->failure, "job"),
                     jx_str(r->failure, "reason"), jx_str(r->failure, "message"));
    else if (f || (pods && runner__first_failed(pods, failed, sizeof(failed))))
        runner__note(r, "the first pod to fail: %s", failed);
    json_decref(pods);
    if (f)
        runner__failure_block(r, &line);
    uint64_t skipped = r->sup ? sup_skipped_bytes(r->sup) : 0;
    if (skipped)
        runner__note(r, "%llu bytes of pod output were not forwarded: the output was not read "
                        "fast enough (the log files have every byte)",
                     (unsigned long long)skipped);
    sb_printf(&line, "jaxset: JobSet %s %s after %.1fs  ", r->m->view.name, what,
              (double)(runner__now(r) - r->started_ms) / 1000.0);
    status_text(r, &line);
    sb_printf(&line, "\njaxset: run directory %s\n", r->o->run_dir);
    runner__out(r, sb_failed(&line) ? "jaxset: (" ERR_OOM_MSG ")\n" : sb_str(&line));
    sb_free(&line);
}
