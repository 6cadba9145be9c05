/* The runner's state on disk (the run directory) and on the terminal (live line, events,
 * summary). */
#include "local/runner_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/jaxjob_status.h"
#include "local/rundir.h"
#include "obj/fs.h"
#include "obj/jx.h"
#include "obj/ktime.h"
#include "obj/sbuf.h"

int64_t run__now(const struct run *r)
{
    return kt_steady_now(&r->clock);
}

int run__state_open(struct run *r, struct err *err)
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
    return 0;
}

/* Remembers the first failure to keep the run's state: reported once, and the run then does
 * not end as a silent success (runner.c). */
void run__state_failed(struct run *r, const char *what, int rc)
{
    if (r->state_errno)
        return;
    r->state_errno = rc;
    run__note(r, "cannot keep the run's %s in %s: %s; the run goes on, but its record is "
                 "incomplete",
              what, r->o->run_dir, strerror(-rc));
}

/* Writes `v` to dir/name atomically, 0600, never through a symbolic link. */
static void write_json(struct run *r, const char *name, const json_t *v)
{
    char path[PATH_MAX]; /* the run dir is at most RD_DIR_MAX (rundir.h) */
    char *text = json_dumps(v, JSON_INDENT(2));
    int rc = !text ? -ENOMEM
             : !*rd_file(path, sizeof(path), r->o->run_dir, name)
                 ? -ENAMETOOLONG
                 : fs_write_private(path, text, strlen(text));
    free(text);
    if (rc < 0)
        run__state_failed(r, name, rc);
}

/* A JAXJob's run: its status as the Training Operator's controller would write it from the
 * JobSet and Jobs (api/jaxjob_status.h; what the cluster controller ctl/ctl_jaxjob.c writes),
 * kept from one write to the next as a controller keeps it on the object; put in run.json as
 * "jaxjob". */
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

void run__state_write(struct run *r, const char *state, int exit_status)
{
    char started[KT_RFC3339_MAX], now[KT_RFC3339_MAX];
    json_t *jobs = json_array();
    char path[PATH_MAX]; /* the run dir is at most RD_DIR_MAX (rundir.h) */
    for (size_t i = 0; jobs && i < r->n_jobs; i++)
        json_array_append(jobs, r->jobs[i]->obj);
    kt_format(r->started_ms, started);
    kt_format(run__now(r), now);
    json_t *run = json_pack("{s:s,s:s,s:s,s:I,s:s,s:s,s:i}", "name", r->m->view.name,
                            "source", r->m->source, "state", state, "pid", (json_int_t)getpid(),
                            "startTime", started, "updateTime", now, "coordinatorPort",
                            r->coord_port);
    if (run && exit_status >= 0)
        jx_set_int(run, "exitStatus", exit_status);
    jaxjob_status(r, jobs, run);
    /* Pods and Jobs before the JobSet, run.json last: a reader that reads them in the
     * opposite order never sees a JobSet status newer than the pods and Jobs behind it. */
    int rc = *rd_file(path, sizeof(path), r->o->run_dir, RD_PODS) ? run__pods_write(r, path)
                                                                   : -ENAMETOOLONG;
    if (rc < 0)
        run__state_failed(r, RD_PODS, rc);
    if (jobs)
        write_json(r, RD_JOBS, jobs);
    write_json(r, RD_JOBSET, r->js);
    if (run)
        write_json(r, RD_RUN, run);
    json_decref(jobs);
    json_decref(run);
    r->status_dirty = false;
}

static void out(struct run *r, const char *s)
{
    size_t len = strlen(s);
    while (len) {
        ssize_t w = write(r->o->status_fd, s, len);
        if (w <= 0)
            return;
        s += w;
        len -= (size_t)w;
    }
}

/* Notes and events quote paths and messages as long as the user made them: sbuf. */
void run__note(struct run *r, const char *fmt, ...)
{
    struct sbuf msg = SBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&msg, fmt, ap);
    va_end(ap);
    run__live_clear(r);
    out(r, "jaxset: ");
    out(r, sb_failed(&msg) ? "(out of memory)" : sb_str(&msg));
    out(r, "\n");
    if (r->events) {
        fprintf(r->events, "Note %s\n", sb_str(&msg));
        if (fflush(r->events) != 0)
            run__state_failed(r, RD_EVENTS, -errno);
    }
    sb_free(&msg);
}

void run__event(struct run *r, const char *type, const char *reason, const char *msg)
{
    char ts[KT_RFC3339_MAX];
    kt_format(run__now(r), ts);
    if (r->events) {
        fprintf(r->events, "%s %s %s: %s\n", ts, type, reason, msg);
        if (fflush(r->events) != 0)
            run__state_failed(r, RD_EVENTS, -errno);
    }
    run__live_clear(r);
    struct sbuf line = SBUF_INIT;
    sb_printf(&line, "jaxset: %s %s: %s\n", type, reason, msg);
    out(r, sb_failed(&line) ? "jaxset: (out of memory)\n" : sb_str(&line));
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

/* The live line is one terminal line: it is cut at sizeof(last_line) - 1 bytes on purpose. */
void run__live(struct run *r, bool force)
{
    struct sbuf b = {.max = sizeof(r->last_line) - 1};
    if (!r->o->live)
        return;
    int64_t secs = (run__now(r) - r->started_ms) / 1000;
    sb_printf(&b, "[%lldm%02llds  %zu pods running] ", (long long)(secs / 60),
              (long long)(secs % 60), run__alive(r));
    status_text(r, &b);
    const char *line = sb_str(&b);
    if (force || strcmp(line, r->last_line) != 0) {
        memcpy(r->last_line, line, b.len + 1);
        out(r, "\r\033[K");
        out(r, line);
    }
    sb_free(&b);
}

void run__live_clear(struct run *r)
{
    if (r->o->live && r->last_line[0]) {
        out(r, "\r\033[K");
        r->last_line[0] = 0;
    }
}

void run__summary(struct run *r, int exit_status)
{
    struct sbuf line = SBUF_INIT;
    const char *what = exit_status == 0 ? "Completed" : exit_status == 1 ? "Failed"
                                                                          : "Interrupted";
    char failed[512]; /* "pod <name> (container <name> ...)": names are DNS labels */
    json_t *pods = exit_status == 1 ? run__pods_json(r) : NULL;
    if (pods && run__first_failed(pods, failed, sizeof(failed)))
        run__note(r, "the first pod to fail: %s", failed);
    json_decref(pods);
    uint64_t skipped = r->sup ? sup_skipped_bytes(r->sup) : 0;
    if (skipped)
        run__note(r, "%llu bytes of pod output were not forwarded: the output was not read "
                     "fast enough (the log files have every byte)",
                  (unsigned long long)skipped);
    sb_printf(&line, "jaxset: JobSet %s %s after %.1fs  ", r->m->view.name, what,
              (double)(run__now(r) - r->started_ms) / 1000.0);
    status_text(r, &line);
    sb_printf(&line, "\njaxset: run directory %s\n", r->o->run_dir);
    out(r, sb_failed(&line) ? "jaxset: (out of memory)\n" : sb_str(&line));
    sb_free(&line);
}
