/* runs: the runs kept on disk, as the CLI reads them. */
#include "cli/runs.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "local/rundir.h"
#include "api/job_state.h"
#include "obj/jx.h"
#include "obj/ktime.h"

static json_t *load(const char *dir, const char *file)
{
    char path[PATH_MAX + 64];
    return json_load_file(rd_file(path, sizeof(path), dir, file), 0, NULL);
}

int runs_load(const char *name, struct runs_run *out)
{
    *out = (struct runs_run){0};
    if (strlen(name) >= sizeof(out->name) || rd_latest(name, out->dir, sizeof(out->dir)) < 0)
        return -ENOENT;
    snprintf(out->name, sizeof(out->name), "%s", name);
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

int runs_list(struct runs_run **out, size_t *n)
{
    char home[PATH_MAX], runs[PATH_MAX + 8];
    struct runs_run *v = NULL;
    size_t len = 0;
    int rc = 0;
    if ((rc = rd_home(home, sizeof(home))) < 0) {
        fprintf(stderr, "jaxset: %s\n", rd_home_error(rc));
        return rc;
    }
    DIR *d = opendir(rd_file(runs, sizeof(runs), home, RD_RUNS));
    struct dirent *de;
    while (d && (de = readdir(d))) {
        struct runs_run r;
        if (de->d_name[0] == '.' || runs_load(de->d_name, &r) < 0)
            continue;
        struct runs_run *nv = realloc(v, (len + 1) * sizeof(*v));
        if (!nv) {
            runs_free(&r);
            rc = -ENOMEM;
            break;
        }
        v = nv;
        v[len++] = r;
    }
    if (d)
        closedir(d);
    if (len)
        qsort(v, len, sizeof(*v), newest_first);
    *out = v;
    *n = len;
    return rc;
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

bool runs_live(const struct runs_run *r)
{
    const char *st = jx_str(r->run, "state");
    if (!r->run)
        return !runs_pid_gone(runs_dir_pid(r->dir));
    return st && !strcmp(st, "Running") && !runs_pid_gone(jx_int_or(r->run, "pid", 0));
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
