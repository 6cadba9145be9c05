/* logs_local: `logs` of a local run: the latest run of NAME, its pods' logs (local/store/
 * store_logs.h lists them), finished or running, selected by pod (a pod name, a hostname or a
 * prefix of one), JAX process id, replicated job, container and restart attempt (--previous:
 * each pod's restart attempt before its last), the last --tail lines of each, or only the logs
 * written since --since (a local log keeps no time per line: a log is taken whole when it was
 * written to since then).
 *
 * Each line is prefixed as the run printed it, "[<hostname>] " or "[<hostname>/<container>] "
 * for pods of several containers, unless a single log of a selection matches.  The run's
 * pods.json says which pod, container and restart attempt each log file belongs to: logs come
 * grouped by restart attempt, oldest first (within one, in the order of pods.json), under a
 * line "--- restart attempt N ---" when the run restarted.  A run without pods.json (an older
 * jaxset) is printed by file name, oldest file first.
 *
 * -f follows the run as `kubectl logs -f` does: what is there first, then every new line of
 * every matching pod (pods created later, by restarts, included) until the run has ended or is
 * gone: its run.json says it ended, its process is gone (SIGKILL), or its run.json is missing
 * or unreadable once the run had written it. */
#include "cli/util/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/backend/backend_int.h"
#include "cli/backend/runs.h"
#include "local/store/rundir.h"
#include "local/store/store_logs.h"
#include "local/store/store_run.h"
#include "obj/tree/jx.h"
#include "obj/base/ktime.h"

#define LOGS_POLL_MS 100

struct logfile {
    char name[NAME_MAX + 1];   /* the file's name without RD_LOG_SUFFIX */
    char prefix[NAME_MAX + 1]; /* hostname[/container], or the name when not in pods.json */
    long long attempt;         /* restart attempt; -1 when not in pods.json */
    size_t order;              /* position in pods.json, then of the container */
    struct timespec mtime;
    off_t off;     /* bytes already printed */
    off_t scanned; /* past off: bytes known to hold no newline (a line being written) */
};

struct logs {
    char dir[PATH_MAX], logs[PATH_MAX + 8];
    const struct backend_logs *a;
    const char *pod;      /* NULL: every pod */
    long long attempt;    /* --attempt; -1: every attempt */
    int64_t since_ms;     /* --since: logs written from then on; 0: every log */
    bool prefix;          /* decided on the first scan */
    bool headers;         /* the run restarted: a line before each attempt's logs */
    long long shown;      /* the attempt of the line printed last; -1: none yet */
    json_t *pods;         /* pods.json as last read; NULL when the run has none (yet) */
    bool seen_run;        /* run.json was read once */
    struct logfile *v;
    size_t n;
};

/* Reads pods.json again; decides whether headers are printed. */
static void reload_pods(struct logs *l)
{
    json_t *p = store_read(l->dir, RD_PODS);
    const json_t *e;
    size_t i;
    if (!p)
        return; /* keep what was read: a newer one is being renamed into place */
    json_decref(l->pods);
    l->pods = p;
    json_array_foreach (p, i, e)
        if (jx_int_or(e, "restartAttempt", 0) > 0 && l->attempt < 0 && !l->a->previous)
            l->headers = true;
}

/* Fills f's prefix, attempt and order from the pod (and container) of pods.json whose log it
 * is, *pod and *container with them; false when pods.json does not list it. */
static bool map_file(const struct logs *l, struct logfile *f, const json_t **pod,
                     const char **container)
{
    const json_t *p, *c;
    size_t i, k;
    json_array_foreach (l->pods, i, p) {
        const char *name = jx_str(p, "name"), *host = jx_str(p, "hostname");
        const json_t *cs = jx_arr(p, "containers");
        if (!name)
            continue;
        bool one = json_array_size(cs) == 1; /* the log of a pod, or of each container */
        json_array_foreach (cs, k, c) {
            const char *cn = jx_str(c, "name");
            if ((!one && !cn) || !store_log_is(f->name, name, one ? NULL : cn))
                continue;
            if (one)
                snprintf(f->prefix, sizeof(f->prefix), "%s", host ? host : name);
            else
                snprintf(f->prefix, sizeof(f->prefix), "%s/%s", host ? host : name, cn);
            f->attempt = jx_int_or(p, "restartAttempt", 0);
            f->order = i * 1024 + k;
            *pod = p;
            *container = cn;
            return true;
        }
    }
    return false;
}

/* Oldest attempt first; within one, pods.json's order; files it does not list last, oldest
 * first. */
static int by_attempt(const void *a, const void *b)
{
    const struct logfile *x = a, *y = b;
    if ((x->attempt < 0) != (y->attempt < 0))
        return x->attempt < 0 ? 1 : -1;
    if (x->attempt != y->attempt)
        return x->attempt < y->attempt ? -1 : 1;
    if (x->attempt >= 0 && x->order != y->order)
        return x->order < y->order ? -1 : 1;
    if (x->mtime.tv_sec != y->mtime.tv_sec)
        return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
    return strcmp(x->name, y->name);
}

static bool known(const struct logs *l, const char *name)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->v[i].name, name))
            return true;
    return false;
}

/* The restart attempt before the last of the pods of hostname `host`; -1 when none. */
static long long previous_attempt(const struct logs *l, const char *host)
{
    long long last = -1, prev = -1;
    const json_t *p;
    size_t i;
    json_array_foreach (l->pods, i, p)
        if (host && jx_str(p, "hostname") && !strcmp(jx_str(p, "hostname"), host) &&
            jx_int_or(p, "restartAttempt", 0) > last)
            last = jx_int_or(p, "restartAttempt", 0);
    json_array_foreach (l->pods, i, p) {
        long long at = jx_int_or(p, "restartAttempt", 0);
        if (host && jx_str(p, "hostname") && !strcmp(jx_str(p, "hostname"), host) &&
            at < last && at > prev)
            prev = at;
    }
    return prev;
}

static bool str_is(const char *s, const char *want)
{
    return !want || (s && !strcmp(s, want));
}

/* Whether the log of container `cn` of pods.json entry `p` (NULL: not listed) is selected by
 * --process-id, --replicated-job, -c, --attempt and --previous. */
static bool selected(const struct logs *l, const struct logfile *f, const json_t *p,
                     const char *cn)
{
    const struct backend_logs *a = l->a;
    if (!p)
        return a->process_id < 0 && !a->rj && !a->container && !a->previous;
    if (a->process_id >= 0 && jx_int_or(p, "jaxProcessId", -1) != a->process_id)
        return false;
    if (!str_is(jx_str(p, "replicatedJob"), a->rj) || !str_is(cn, a->container))
        return false;
    if (a->previous && f->attempt != previous_attempt(l, jx_str(p, "hostname")))
        return false;
    return l->attempt < 0 || f->attempt == l->attempt;
}

/* Where the last n lines of a file of `size` bytes begin (a last line without its newline
 * counts). */
static off_t tail_from(int fd, off_t size, long long n)
{
    char buf[4096];
    off_t pos = size;
    long long seen = 0;
    if (n <= 0)
        return size;
    while (pos > 0) {
        size_t len = pos >= (off_t)sizeof(buf) ? sizeof(buf) : (size_t)pos;
        pos -= (off_t)len;
        ssize_t got;
        while ((got = pread(fd, buf, len, pos)) < 0 && errno == EINTR)
            ;
        if (got != (ssize_t)len)
            return 0;
        for (size_t i = len; i-- > 0;)
            if (buf[i] == '\n' && pos + (off_t)i != size - 1 && ++seen == n)
                return pos + (off_t)i + 1;
    }
    return 0;
}

/* A new log file `name` (without suffix): 1 when it is to be printed (f filled), 0 when it
 * does not match or is left for a later scan (pods.json does not list it yet). */
static int consider(struct logs *l, const char *name, bool ended, bool *reloaded,
                    struct logfile *f)
{
    char path[PATH_MAX + NAME_MAX + 16];
    struct stat st = {0};
    const json_t *pod = NULL;
    const char *cn = NULL;
    *f = (struct logfile){.attempt = -1};
    snprintf(f->name, sizeof(f->name), "%s", name);
    snprintf(f->prefix, sizeof(f->prefix), "%s", name);
    if (!map_file(l, f, &pod, &cn) && !*reloaded) {
        reload_pods(l); /* a pod started since pods.json was read */
        *reloaded = true;
        map_file(l, f, &pod, &cn);
    }
    if (f->attempt < 0 && !ended)
        return 0; /* pods.json will list it: print it then, under its right prefix */
    if (!selected(l, f, pod, cn))
        return 0;
    rd_log(path, sizeof(path), l->dir, name, NULL);
    if (stat(path, &st) == 0 && l->since_ms &&
        st.st_mtim.tv_sec * 1000LL + st.st_mtim.tv_nsec / 1000000 < l->since_ms)
        return 0;
    f->mtime = st.st_mtim;
    if (l->a->tail >= 0) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        f->off = fd >= 0 ? tail_from(fd, st.st_size, l->a->tail) : 0;
        if (fd >= 0)
            close(fd);
    }
    return 1;
}

struct scanning {
    struct logs *l;
    bool ended, reloaded;
};

/* Adds log `name` when it matches and was not seen yet; -ENOMEM or 0. */
static int scan_one(void *arg, const char *name)
{
    struct scanning *sc = arg;
    struct logs *l = sc->l;
    struct logfile f;
    if (known(l, name) || !consider(l, name, sc->ended, &sc->reloaded, &f))
        return 0;
    struct logfile *nv = realloc(l->v, (l->n + 1) * sizeof(*nv));
    if (!nv)
        return -ENOMEM;
    l->v = nv;
    l->v[l->n++] = f;
    return 0;
}

/* Adds the matching log files not seen yet, in printing order; returns -ENOMEM or 0. */
static int scan(struct logs *l, bool ended)
{
    struct scanning sc = {.l = l, .ended = ended};
    size_t first_new = l->n;
    int rc = store_logs_each(l->dir, l->pod, scan_one, &sc);
    if (l->n > first_new)
        qsort(l->v + first_new, l->n - first_new, sizeof(*l->v), by_attempt);
    return rc;
}

/* Bytes of a log file read at once: lines are streamed through this window, never held
 * whole (a pod may print a line of hundreds of megabytes). */
#define LOGS_CHUNK (64 * 1024)

/* A window on one log file: buf holds its bytes [at, at + len). */
struct window {
    int fd;
    char *buf;
    off_t at;
    size_t len;
};

static ssize_t read_at(int fd, char *buf, size_t n, off_t off)
{
    ssize_t got;
    while ((got = pread(fd, buf, n, off)) < 0 && errno == EINTR)
        ;
    return got;
}

/* Fills the window from `off`. */
static int window_fill(struct window *w, off_t off)
{
    ssize_t got = read_at(w->fd, w->buf, LOGS_CHUNK, off);
    w->at = off;
    w->len = got > 0 ? (size_t)got : 0;
    return got < 0 ? -1 : 0;
}

/* Where the line that goes on at `off` ends (past its '\n', or at the end of the file, *whole
 * false then); reads ahead through the window, which it leaves at the line's last chunk.  -1
 * on error. */
static off_t line_end(struct window *w, off_t off, bool *whole)
{
    for (;;) {
        if (off < w->at || off >= w->at + (off_t)w->len) {
            if (window_fill(w, off) < 0)
                return -1;
            if (w->len == 0) {
                *whole = false;
                return off;
            }
        }
        const char *from = w->buf + (off - w->at);
        const char *nl = memchr(from, '\n', w->len - (size_t)(off - w->at));
        if (nl) {
            *whole = true;
            return w->at + (nl - w->buf) + 1;
        }
        off = w->at + (off_t)w->len;
    }
}

/* Writes the file's bytes [from, to) to stdout, through the window. */
static int copy_out(struct window *w, off_t from, off_t to)
{
    while (from < to) {
        if ((from < w->at || from >= w->at + (off_t)w->len) &&
            (window_fill(w, from) < 0 || w->len == 0))
            return -1;
        size_t n = (size_t)(w->at + (off_t)w->len - from);
        if ((off_t)n > to - from)
            n = (size_t)(to - from);
        fwrite(w->buf + (from - w->at), 1, n, stdout);
        from += (off_t)n;
    }
    return 0;
}

static void line_start(struct logs *l, const struct logfile *f)
{
    if (l->headers && f->attempt >= 0 && f->attempt != l->shown)
        printf("--- restart attempt %lld ---\n", f->attempt);
    l->shown = f->attempt;
    if (l->prefix)
        printf("[%s] ", f->prefix);
}

/* Prints the whole lines of one log from its offset on; with `all` the unterminated tail too
 * (the run has ended: nothing will complete it). */
static void drain(struct logs *l, struct logfile *f, bool all)
{
    char path[PATH_MAX + NAME_MAX + 16];
    rd_log(path, sizeof(path), l->dir, f->name, NULL);
    struct window w = {.fd = open(path, O_RDONLY | O_CLOEXEC), .buf = malloc(LOGS_CHUNK)};
    bool whole = false;
    off_t end;
    if (w.fd < 0 || !w.buf)
        goto out;
    while ((end = line_end(&w, f->scanned > f->off ? f->scanned : f->off, &whole)) > f->off) {
        f->scanned = whole ? 0 : end; /* -f: the next look starts where this one ended */
        if (!whole && !all)
            break;
        line_start(l, f);
        int rc = copy_out(&w, f->off, end);
        if (!whole || rc < 0) /* a file cut short while printed: the line still ends */
            putchar('\n');
        if (rc < 0)
            break;
        f->off = end;
    }
out:
    free(w.buf);
    if (w.fd >= 0)
        close(w.fd);
    fflush(stdout);
}

/* The run has ended (run.json says so), or is gone: its process is dead, or run.json is missing
 * or unreadable though the run had written it (or the process that made the directory is
 * gone).  Says why on stderr when it is gone. */
static bool run_ended(struct logs *l)
{
    struct store_run r = {.run = store_read(l->dir, RD_RUN)};
    snprintf(r.dir, sizeof(r.dir), "%s", l->dir);
    if (!r.run) {
        bool wrote = l->seen_run || store_wrote_jobset(l->dir);
        if (!wrote && store_live_pid(l->dir, NULL))
            return false; /* not written yet: the run is starting */
        fprintf(stderr, "jaxset logs: %s/" RD_RUN " is missing or unreadable: the run is gone\n",
                l->dir);
        return true;
    }
    l->seen_run = true;
    enum store_state st = store_run_state(&r);
    if (st == STORE_LOST)
        fprintf(stderr, "jaxset logs: the run's process (pid %lld) is gone: the run is %s\n",
                jx_int_or(r.run, "pid", 0), store_state_name(st));
    json_decref(r.run);
    return st != STORE_RUNNING;
}

/* Prints everything there is; following, goes on until the run has ended. */
static int print_logs(struct logs *l, bool follow)
{
    for (bool decided = false;;) {
        bool ended = !follow || run_ended(l); /* before the drain: it then sees all */
        if (scan(l, ended) < 0) {
            fprintf(stderr, "jaxset logs: " ERR_OOM_MSG "\n");
            return EXIT_INVALID;
        }
        if (!decided && (l->n || ended)) { /* on the first scan that finds a log */
            const struct backend_logs *a = l->a;
            bool some = a->pod || a->process_id >= 0 || a->rj || a->container;
            l->prefix = a->prefix || !some || l->n != 1;
            decided = true;
        }
        if (ended && l->n == 0) {
            if (l->attempt >= 0)
                fprintf(stderr, "jaxset logs: no pod log of restart attempt %lld matches "
                                "\"%s\" in %s\n", l->attempt, l->pod ? l->pod : "*", l->logs);
            else if (l->a->process_id >= 0 || l->a->rj || l->a->container)
                fprintf(stderr, "jaxset logs: no pod log matches the --process-id, "
                                "--replicated-job or -c given in %s\n", l->logs);
            else if (l->a->previous)
                fprintf(stderr, "jaxset logs: no pod matching \"%s\" has a previous restart "
                                "attempt in %s\n", l->pod ? l->pod : "*", l->logs);
            else
                fprintf(stderr, "jaxset logs: no pod log matches \"%s\" in %s\n",
                        l->pod ? l->pod : "*", l->logs);
            return EXIT_INVALID;
        }
        for (size_t i = 0; i < l->n; i++)
            drain(l, &l->v[i], ended);
        if (ended)
            return EXIT_OK;
        kt_sleep_ms(LOGS_POLL_MS);
    }
}

int logs_local(struct backend *b, const struct backend_logs *a)
{
    struct logs l = {.a = a, .attempt = a->attempt, .shown = -1, .pod = a->pod};
    int rc;
    if (a->k->family == JOB_KIND_OTHER || rd_latest(a->name, l.dir, sizeof(l.dir)) < 0)
        return runs_not_found(b, "no run of \"%s\" found", a->name);
    rd_file(l.logs, sizeof(l.logs), l.dir, RD_LOGS);
    if (a->since_s >= 0)
        l.since_ms = kt_now_ms() - a->since_s * 1000;
    reload_pods(&l);
    if (!l.pods && (l.attempt >= 0 || a->previous || a->process_id >= 0 || a->rj ||
                    a->container) && !a->follow) {
        fprintf(stderr, "jaxset logs: %s has no " RD_PODS " (a run of an older jaxset): its "
                        "logs cannot be told apart by restart attempt, process or "
                        "container\n", l.dir);
        return EXIT_INVALID;
    }
    rc = print_logs(&l, a->follow);
    free(l.v);
    json_decref(l.pods);
    return rc;
}
