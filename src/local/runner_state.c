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

#include "obj/fs.h"
#include "obj/jx.h"

int run__state_open(struct run *r, struct err *err)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/logs", r->o->run_dir);
    int rc = fs_mkdir_p(path);
    if (rc < 0)
        return err_set(err, rc, "%s: %s", path, strerror(-rc));
    snprintf(path, sizeof(path), "%s/events.log", r->o->run_dir);
    r->events = fopen(path, "ae");
    if (!r->events)
        return err_set(err, -errno, "%s: %s", path, strerror(errno));
    return 0;
}

/* Writes `v` to dir/name atomically (temporary file + rename). */
static void write_json(const char *dir, const char *name, const json_t *v)
{
    char path[1024], tmp[1100];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    if (json_dump_file(v, tmp, JSON_INDENT(2)) == 0)
        rename(tmp, path);
}

void run__state_write(struct run *r, const char *state, int exit_status)
{
    char started[32], now[32];
    json_t *jobs = json_array(), *pods = run__pods_json(r);
    for (size_t i = 0; jobs && i < r->n_jobs; i++)
        json_array_append(jobs, r->jobs[i]->obj);
    jobctl_rfc3339(r->started_ms, started);
    jobctl_rfc3339(run__now_ms(), now);
    json_t *run = json_pack("{s:s,s:s,s:s,s:I,s:s,s:s,s:i}", "name", r->m->view.name,
                            "source", r->m->source, "state", state, "pid", (json_int_t)getpid(),
                            "startTime", started, "updateTime", now, "coordinatorPort",
                            r->coord_port);
    if (run && exit_status >= 0)
        jx_set_int(run, "exitStatus", exit_status);
    /* Pods and Jobs before the JobSet, run.json last: a reader that reads them in the
     * opposite order never sees a JobSet status newer than the pods and Jobs behind it. */
    if (pods)
        write_json(r->o->run_dir, "pods.json", pods);
    if (jobs)
        write_json(r->o->run_dir, "jobs.json", jobs);
    write_json(r->o->run_dir, "jobset.json", r->js);
    if (run)
        write_json(r->o->run_dir, "run.json", run);
    json_decref(jobs);
    json_decref(pods);
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

void run__note(struct run *r, const char *fmt, ...)
{
    char msg[1024], line[1100];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    run__live_clear(r);
    snprintf(line, sizeof(line), "jaxset: %s\n", msg);
    out(r, line);
    if (r->events) {
        fprintf(r->events, "Note %s\n", msg);
        fflush(r->events);
    }
}

void run__event(struct run *r, const char *type, const char *reason, const char *msg)
{
    char ts[32], line[1024];
    jobctl_rfc3339(run__now_ms(), ts);
    if (r->events) {
        fprintf(r->events, "%s %s %s: %s\n", ts, type, reason, msg);
        fflush(r->events);
    }
    run__live_clear(r);
    snprintf(line, sizeof(line), "jaxset: %s %s: %s\n", type, reason, msg);
    out(r, line);
}

/* "workers: 4 ready, 4 active, 0 succeeded, 0 failed | restarts 0" from the status. */
static void status_text(const struct run *r, char *buf, size_t n)
{
    const json_t *st = jx_obj(r->js, "status");
    const json_t *rjs = jx_arr(st, "replicatedJobsStatus");
    size_t off = 0;
    for (size_t i = 0; i < json_array_size(rjs) && off < n; i++) {
        const json_t *e = json_array_get(rjs, i);
        off += (size_t)snprintf(buf + off, n - off, "%s%s: %lld/%lld/%lld/%lld", i ? "  " : "",
                                jx_str(e, "name"), jx_int_or(e, "ready", 0),
                                jx_int_or(e, "active", 0), jx_int_or(e, "succeeded", 0),
                                jx_int_or(e, "failed", 0));
    }
    if (off < n)
        snprintf(buf + off, n - off, "  restarts %lld  (ready/active/succeeded/failed)",
                 jx_int_or(st, "restarts", 0));
}

void run__live(struct run *r, bool force)
{
    char line[512];
    if (!r->o->live)
        return;
    size_t off = (size_t)snprintf(line, sizeof(line), "[%zu pods running] ", run__alive(r));
    status_text(r, line + off, sizeof(line) - off);
    if (!force && !strcmp(line, r->last_line))
        return;
    snprintf(r->last_line, sizeof(r->last_line), "%s", line);
    out(r, "\r\033[K");
    out(r, line);
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
    char line[1024], st[512];
    const char *what = exit_status == 0 ? "Completed" : exit_status == 1 ? "Failed"
                                                                          : "Interrupted";
    status_text(r, st, sizeof(st));
    uint64_t skipped = r->sup ? sup_skipped_bytes(r->sup) : 0;
    if (skipped)
        run__note(r, "%llu bytes of pod output were not forwarded: the output was not read "
                     "fast enough (the log files have every byte)",
                  (unsigned long long)skipped);
    snprintf(line, sizeof(line), "jaxset: JobSet %s %s after %.1fs  %s\njaxset: run directory %s\n",
             r->m->view.name, what, (double)(run__now_ms() - r->started_ms) / 1000.0, st,
             r->o->run_dir);
    out(r, line);
}
