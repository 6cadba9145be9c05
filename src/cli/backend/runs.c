/* runs: the runs kept on disk, as the CLI reads them. */
#include "cli/backend/runs.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "local/store/rundir.h"
#include "cli/backend/job_state.h"
#include "obj/tree/jx.h"
#include "obj/base/ktime.h"

#define RUN_EVENT_NAME_MAX (NAME_MAX + 24)

static json_t *load(const char *dir, const char *file)
{
    char path[PATH_MAX + 64];
    return json_load_file(rd_file(path, sizeof(path), dir, file), 0, NULL);
}

int runs_load(const char *name, struct runs_run *out)
{
    char dir[PATH_MAX];
    *out = (struct runs_run){0};
    if (rd_latest(name, dir, sizeof(dir)) < 0)
        return -ENOENT;
    return runs_load_dir(name, dir, out);
}

int runs_load_dir(const char *name, const char *dir, struct runs_run *out)
{
    *out = (struct runs_run){0};
    if (strlen(name) >= sizeof(out->name) || strlen(dir) >= sizeof(out->dir))
        return -ENOENT;
    snprintf(out->name, sizeof(out->name), "%s", name);
    snprintf(out->dir, sizeof(out->dir), "%s", dir);
    out->run = load(out->dir, RD_RUN);
    out->jobset = load(out->dir, RD_JOBSET);
    out->pods = load(out->dir, RD_PODS);
    out->jobs = load(out->dir, RD_JOBS);
    return 0;
}

void runs_free(struct runs_run *r)
{
    json_decref(r->run);
    json_decref(r->jobset);
    json_decref(r->pods);
    json_decref(r->jobs);
    *r = (struct runs_run){0};
}

/* Newest first: the later start, then the later directory (its name starts with the time). */
static int newest_first(const void *a, const void *b)
{
    const struct runs_run *x = a, *y = b;
    int64_t sx = runs_start_ms(x), sy = runs_start_ms(y);
    if (sx != sy)
        return sx > sy ? -1 : 1;
    const char *bx = strrchr(x->dir, '/'), *by = strrchr(y->dir, '/');
    int c = strcmp(by ? by : y->dir, bx ? bx : x->dir);
    return c ? c : strcmp(x->name, y->name);
}

struct found {
    struct runs_run *v;
    size_t n;
};

/* Adds run `r` (taken); -ENOMEM. */
static int add(struct found *f, struct runs_run *r)
{
    struct runs_run *nv = realloc(f->v, (f->n + 1) * sizeof(*nv));
    if (!nv) {
        runs_free(r);
        return -ENOMEM;
    }
    f->v = nv;
    f->v[f->n++] = *r;
    return 0;
}

/* The runs of `name` kept in `name_dir` (runs/<name>/) other than `latest`. */
static int add_earlier(struct found *f, const char *name, const char *name_dir,
                       const char *latest)
{
    DIR *d = opendir(name_dir);
    struct dirent *de;
    int rc = 0;
    while (rc == 0 && d && (de = readdir(d))) {
        char dir[PATH_MAX + NAME_MAX + 2], real[PATH_MAX];
        struct runs_run r;
        if (de->d_name[0] == '.' || !strcmp(de->d_name, RD_LATEST) ||
            snprintf(dir, sizeof(dir), "%s/%s", name_dir, de->d_name) >= (int)sizeof(dir) ||
            !realpath(dir, real) || !strcmp(real, latest) || runs_load_dir(name, real, &r) < 0)
            continue;
        rc = add(f, &r);
    }
    if (d)
        closedir(d);
    return rc;
}

int runs_list(bool all, struct runs_run **out, size_t *n)
{
    char home[PATH_MAX], runs[PATH_MAX + 8];
    struct found f = {0};
    int rc = 0;
    if ((rc = rd_home(home, sizeof(home))) < 0) {
        fprintf(stderr, "jaxset: %s\n", rd_home_error(rc));
        return rc;
    }
    DIR *d = opendir(rd_file(runs, sizeof(runs), home, RD_RUNS));
    struct dirent *de;
    while (rc == 0 && d && (de = readdir(d))) {
        struct runs_run r;
        char name_dir[PATH_MAX + 8], latest[PATH_MAX] = "";
        if (de->d_name[0] == '.')
            continue;
        if (runs_load(de->d_name, &r) == 0) {
            snprintf(latest, sizeof(latest), "%s", r.dir);
            rc = add(&f, &r);
        }
        if (rc == 0 && all)
            rc = add_earlier(&f, de->d_name, rd_file(name_dir, sizeof(name_dir), runs,
                                                     de->d_name), latest);
    }
    if (d)
        closedir(d);
    if (f.n)
        qsort(f.v, f.n, sizeof(*f.v), newest_first);
    *out = f.v;
    *n = f.n;
    return rc;
}

const char *runs_id(const struct runs_run *r)
{
    const char *base = strrchr(r->dir, '/');
    return base ? base + 1 : r->dir;
}

pid_t runs_dir_pid(const char *dir)
{
    const char *base = strrchr(dir, '/'), *dash;
    base = base ? base + 1 : dir;
    if (!(dash = strrchr(base, '-')) || !dash[1])
        return 0;
    char *end;
    long pid = strtol(dash + 1, &end, 10);
    return *end || pid <= 0 || pid > INT_MAX ? 0 : (pid_t)pid;
}

/* A zombie (exited, not yet reaped by its parent) is gone too: state 'Z' in /proc/PID/stat,
 * after the command name in parentheses. */
static bool zombie(long long pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/%lld/stat", pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = 0;
    const char *close = strrchr(buf, ')');
    return close && close[1] == ' ' && close[2] == 'Z';
}

bool runs_pid_gone(long long pid)
{
    return pid <= 0 || pid > INT_MAX || (kill((pid_t)pid, 0) < 0 && errno == ESRCH) ||
           zombie(pid);
}

/* A live run: what its JobSet's status says (api/job_state: Suspended, Restarting...), as for
 * a JobSet on a cluster; Running before it has one. */
static const char *live_state(const struct runs_run *r)
{
    struct job_state v;
    if (!r->jobset || job_state_read(JOB_KIND_JOBSET, r->jobset, &v) < 0)
        return "Running";
    const char *st = v.state;
    job_state_release(&v);
    return !strcmp(st, "Pending") || !strcmp(st, "Created") ? "Running" : st;
}

const char *runs_state(const struct runs_run *r)
{
    static const char *const known[] = {"Completed", "Failed", "Interrupted"};
    const char *st = jx_str(r->run, "state");
    if (!r->run)
        return runs_live(r) ? "Starting" : "Unknown";
    if (st && !strcmp(st, "Running"))
        return runs_live(r) ? live_state(r) : "Lost";
    for (size_t i = 0; st && i < sizeof(known) / sizeof(known[0]); i++)
        if (!strcmp(st, known[i]))
            return known[i];
    return "Unknown";
}

static int64_t time_of(const json_t *o, const char *key)
{
    int64_t ms;
    return kt_parse(jx_str(o, key), &ms) == 0 ? ms : 0;
}

int64_t runs_start_ms(const struct runs_run *r)
{
    return time_of(r->run, "startTime");
}

long long runs_live_pid(const json_t *run, const char *dir)
{
    const char *st = jx_str(run, "state");
    long long pid = !run ? runs_dir_pid(dir)
                         : st && !strcmp(st, "Running") ? jx_int_or(run, "pid", 0) : 0;
    return runs_pid_gone(pid) ? 0 : pid;
}

bool runs_live(const struct runs_run *r)
{
    return runs_live_pid(r->run, r->dir) > 0;
}

int64_t runs_end_ms(const struct runs_run *r, int64_t now)
{
    if (runs_live(r))
        return now;
    return time_of(r->run, "updateTime");
}

/* "<a><ua>", followed by "<b><ub>" unless b is 0. */
static void units(char out[RUNS_HUMAN_MAX], long long a, const char *ua, long long b,
                  const char *ub)
{
    int n = snprintf(out, RUNS_HUMAN_MAX, "%lld%s", a, ua);
    if (b && n > 0 && n < RUNS_HUMAN_MAX)
        snprintf(out + n, RUNS_HUMAN_MAX - (size_t)n, "%lld%s", b, ub);
}

char *runs_human(int64_t ms, char out[RUNS_HUMAN_MAX])
{
    long long s = ms / 1000, m = s / 60, h = m / 60, d = h / 24;
    if (s < -1)
        snprintf(out, RUNS_HUMAN_MAX, "<invalid>");
    else if (s < 0)
        units(out, 0, "s", 0, "");
    else if (s < 120)
        units(out, s, "s", 0, "");
    else if (m < 10)
        units(out, m, "m", s % 60, "s");
    else if (m < 180)
        units(out, m, "m", 0, "");
    else if (h < 8)
        units(out, h, "h", m % 60, "m");
    else if (h < 48)
        units(out, h, "h", 0, "");
    else if (h < 24 * 8)
        units(out, d, "d", h % 24, "h");
    else if (h < 24 * 365 * 2)
        units(out, d, "d", 0, "");
    else if (h < 24 * 365 * 8)
        units(out, d / 365, "y", d % 365, "d");
    else
        units(out, d / 365, "y", 0, "");
    return out;
}

char *runs_age(const char *ts, int64_t now, char out[RUNS_HUMAN_MAX])
{
    int64_t ms;
    if (kt_parse(ts, &ms) < 0)
        snprintf(out, RUNS_HUMAN_MAX, "-");
    else
        runs_human(now - ms, out);
    return out;
}

/* One line of events.log ("<time> <type> <reason>: <message>", or "Note <message>") as an
 * Event of the JobSet `js` in namespace `ns`; NULL when it is neither (or on OOM). */
static json_t *event_of(char *line, size_t i, const char *js, const char *ns, bool notes)
{
    char ts[64] = "", type[32] = "", reason[128] = "", name[RUN_EVENT_NAME_MAX];
    int off = 0;
    line[strcspn(line, "\n")] = 0;
    if (!strncmp(line, "Note ", 5))
        return notes ? json_pack("{s:s, s:s}", "type", "Note", "message", line + 5) : NULL;
    if (sscanf(line, "%63s %31s %127[^:]: %n", ts, type, reason, &off) != 3 || !off)
        return NULL;
    snprintf(name, sizeof(name), "%s.%zu", js, i);
    return json_pack("{s:s, s:s, s:{s:s, s:s, s:s}, s:{s:s, s:s, s:s, s:s}, s:s, s:s, s:s, "
                     "s:s, s:s, s:i, s:{s:s}}",
                     "apiVersion", "v1", "kind", "Event", "metadata", "name", name, "namespace",
                     ns, "creationTimestamp", ts, "involvedObject", "apiVersion",
                     "jobset.x-k8s.io/v1alpha2", "kind", "JobSet", "name", js, "namespace", ns,
                     "type", type, "reason", reason, "message", line + off, "firstTimestamp", ts,
                     "lastTimestamp", ts, "count", 1, "source", "component", "jaxset");
}

json_t *runs_events(const struct runs_run *r, bool notes)
{
    char path[PATH_MAX + 16];
    const json_t *meta = jx_obj(r->jobset, "metadata");
    const char *ns = jx_str(meta, "namespace") ? jx_str(meta, "namespace") : "default";
    FILE *in = fopen(rd_file(path, sizeof(path), r->dir, RD_EVENTS), "re");
    json_t *out = json_array(), *e;
    char *line = NULL;
    size_t cap = 0;
    for (size_t i = 0; out && in && getline(&line, &cap, in) > 0; i++)
        if ((e = event_of(line, i, r->name, ns, notes)) && json_array_append_new(out, e) < 0) {
            json_decref(out);
            out = NULL;
        }
    free(line);
    if (in)
        fclose(in);
    return out;
}
