/* jaxset logs [-f] [--attempt N] NAME [POD]: the logs of a run's pods, finished or running.
 * POD is a pod name, a hostname (<jobset>-<rj>-<job>-<index>: every attempt, oldest first) or a
 * prefix of one; without POD every pod's log is printed.
 *
 * Each line is prefixed as the run printed it, "[<hostname>] " or "[<hostname>/<container>] "
 * for pods of several containers, unless a single log matches.  The run's pods.json says which
 * pod, container and restart attempt each log file belongs to: logs come grouped by restart
 * attempt, oldest first (within one, in the order of pods.json), under a line
 * "--- restart attempt N ---" when the run restarted; --attempt N prints one attempt only.  A
 * run without pods.json (an older jaxset) is printed by file name, oldest file first.
 *
 * -f follows the run as `kubectl logs -f` does: what is there first, then every new line of
 * every matching pod (pods created later, by restarts, included) until the run has ended or is
 * gone: its run.json says it ended, its process is gone (SIGKILL), or its run.json is missing
 * or unreadable once the run had written it.
 *
 * With a cluster configured and no --local, the pods of a job of the cluster instead, with
 * the options only a cluster's logs take (--process-id, --pod, --since...):
 * cmd_logs_cluster.c. */
#include "cli/cli.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/runs.h"
#include "cli/verbs.h"
#include "local/rundir.h"
#include "obj/jx.h"

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
    const char *pod;      /* NULL: every pod */
    long long attempt;    /* --attempt; -1: every attempt */
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
    char path[PATH_MAX + 16];
    json_t *p = json_load_file(rd_file(path, sizeof(path), l->dir, RD_PODS), 0, NULL);
    const json_t *e;
    size_t i;
    if (!p)
        return; /* keep what was read: a newer one is being renamed into place */
    json_decref(l->pods);
    l->pods = p;
    json_array_foreach (p, i, e)
        if (jx_int_or(e, "restartAttempt", 0) > 0 && l->attempt < 0)
            l->headers = true;
}

/* Fills f's prefix, attempt and order from the pod (and container) of pods.json whose log it
 * is; false when pods.json does not list it. */
static bool map_file(const struct logs *l, struct logfile *f)
{
    const json_t *p, *c;
    size_t i, k;
    json_array_foreach (l->pods, i, p) {
        const char *name = jx_str(p, "name"), *host = jx_str(p, "hostname");
        const json_t *cs = jx_arr(p, "containers");
        size_t len = name ? strlen(name) : 0;
        if (!name || strncmp(f->name, name, len) || (f->name[len] && f->name[len] != '.'))
            continue;
        bool one = json_array_size(cs) == 1; /* logs/<pod>.log, else <pod>.<container>.log */
        json_array_foreach (cs, k, c) {
            const char *cn = jx_str(c, "name");
            bool match = one ? !f->name[len]
                             : cn && f->name[len] == '.' && !strcmp(f->name + len + 1, cn);
            if (!match)
                continue;
            if (one)
                snprintf(f->prefix, sizeof(f->prefix), "%s", host ? host : name);
            else
                snprintf(f->prefix, sizeof(f->prefix), "%s/%s", host ? host : name, cn);
            f->attempt = jx_int_or(p, "restartAttempt", 0);
            f->order = i * 1024 + k;
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

/* A new log file `name` (without suffix): 1 when it is to be printed (f filled), 0 when it
 * does not match or is left for a later scan (pods.json does not list it yet). */
static int consider(struct logs *l, const char *name, bool ended, bool *reloaded,
                    struct logfile *f)
{
    char path[PATH_MAX + NAME_MAX + 16];
    struct stat st = {0};
    *f = (struct logfile){.attempt = -1};
    snprintf(f->name, sizeof(f->name), "%s", name);
    snprintf(f->prefix, sizeof(f->prefix), "%s", name);
    if (!map_file(l, f) && !*reloaded) {
        reload_pods(l); /* a pod started since pods.json was read */
        *reloaded = true;
        map_file(l, f);
    }
    if (f->attempt < 0 && !ended)
        return 0; /* pods.json will list it: print it then, under its right prefix */
    if (l->attempt >= 0 && f->attempt != l->attempt)
        return 0;
    snprintf(path, sizeof(path), "%s/%s" RD_LOG_SUFFIX, l->logs, name);
    stat(path, &st);
    f->mtime = st.st_mtim;
    return 1;
}

/* Adds the matching log files not seen yet, in printing order; returns -ENOMEM or 0. */
static int scan(struct logs *l, bool ended)
{
    DIR *d = opendir(l->logs);
    struct dirent *de;
    size_t first_new = l->n, sfx = strlen(RD_LOG_SUFFIX);
    bool reloaded = false;
    int rc = 0;
    while (d && (de = readdir(d))) {
        char name[NAME_MAX + 1];
        size_t len = strlen(de->d_name);
        struct logfile f;
        if (len <= sfx || strcmp(de->d_name + len - sfx, RD_LOG_SUFFIX) ||
            (l->pod && strncmp(de->d_name, l->pod, strlen(l->pod))))
            continue;
        snprintf(name, sizeof(name), "%.*s", (int)(len - sfx), de->d_name);
        if (known(l, name) || !consider(l, name, ended, &reloaded, &f))
            continue;
        struct logfile *nv = realloc(l->v, (l->n + 1) * sizeof(*nv));
        if (!nv) {
            rc = -ENOMEM;
            break;
        }
        l->v = nv;
        l->v[l->n++] = f;
    }
    if (d)
        closedir(d);
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
    snprintf(path, sizeof(path), "%s/%s" RD_LOG_SUFFIX, l->logs, f->name);
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
    char path[PATH_MAX + 16];
    json_t *j = json_load_file(rd_file(path, sizeof(path), l->dir, RD_RUN), 0, NULL);
    struct stat st;
    if (!j) {
        bool wrote = l->seen_run ||
                     stat(rd_file(path, sizeof(path), l->dir, RD_JOBSET), &st) == 0;
        if (!wrote && !runs_pid_gone(runs_dir_pid(l->dir)))
            return false; /* not written yet: the run is starting */
        fprintf(stderr, "jaxset logs: %s/" RD_RUN " is missing or unreadable: the run is gone\n",
                l->dir);
        return true;
    }
    l->seen_run = true;
    const char *state = jx_str(j, "state");
    long long pid = jx_int_or(j, "pid", 0);
    bool running = !state || !strcmp(state, "Running"), gone = running && runs_pid_gone(pid);
    if (gone)
        fprintf(stderr, "jaxset logs: the run's process (pid %lld) is gone: the run is Lost\n",
                pid);
    json_decref(j);
    return !running || gone;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* Prints everything there is; following, goes on until the run has ended. */
static int print_logs(struct logs *l, bool follow)
{
    for (bool decided = false;;) {
        bool ended = !follow || run_ended(l); /* before the drain: it then sees all */
        if (scan(l, ended) < 0) {
            fprintf(stderr, "jaxset logs: out of memory\n");
            return EXIT_INVALID;
        }
        if (!decided && (l->n || ended)) { /* on the first scan that finds a log */
            l->prefix = !l->pod || l->n != 1;
            decided = true;
        }
        if (ended && l->n == 0) {
            if (l->attempt >= 0)
                fprintf(stderr, "jaxset logs: no pod log of restart attempt %lld matches "
                                "\"%s\" in %s\n", l->attempt, l->pod ? l->pod : "*", l->logs);
            else
                fprintf(stderr, "jaxset logs: no pod log matches \"%s\" in %s\n",
                        l->pod ? l->pod : "*", l->logs);
            return EXIT_INVALID;
        }
        for (size_t i = 0; i < l->n; i++)
            drain(l, &l->v[i], ended);
        if (ended)
            return EXIT_OK;
        sleep_ms(LOGS_POLL_MS);
    }
}

enum { OPT_ATTEMPT = 256, OPT_PROCESS_ID, OPT_POD, OPT_RJ, OPT_SINCE, OPT_TAIL, OPT_PREFIX };

struct logs_args {
    struct logs_cluster_args k;
    long long attempt;
    const char *pos[2];
    int n_pos;
};

static int count(const char *opt, const char *arg, long long *out)
{
    char *end, msg[96];
    errno = 0;
    *out = strtoll(arg, &end, 10);
    if (*arg && !*end && !errno && *out >= 0)
        return EXIT_OK;
    snprintf(msg, sizeof(msg), "%s takes a number: 0, 1, ...", opt);
    return cli_usage_error("logs", msg);
}

/* The options of a cluster's logs (-1 when `code` is none of them). */
static int cluster_arg(struct logs_args *a, int code, const char *arg)
{
    long long ms;
    switch (code) {
    case OPT_PROCESS_ID: return count("--process-id", arg, &a->k.process_id);
    case OPT_TAIL: return count("--tail", arg, &a->k.tail);
    case OPT_POD: a->k.pod = arg; return EXIT_OK;
    case OPT_RJ: a->k.rj = arg; return EXIT_OK;
    case 'c': a->k.container = arg; return EXIT_OK;
    case OPT_PREFIX: a->k.prefix = true; return EXIT_OK;
    case OPT_SINCE:
        if ((ms = cli_duration_ms(arg)) < 0)
            return cli_usage_error("logs", "--since takes a duration such as 10s, 5m or 1h");
        a->k.since_s = (ms + 999) / 1000;
        return EXIT_OK;
    }
    return -1;
}

static int on_arg(void *ctx, int code, const char *arg)
{
    struct logs_args *a = ctx;
    int rc = cluster_opt(&a->k.c, code, arg);
    if (rc == -1)
        rc = cluster_arg(a, code, arg);
    if (rc != -1)
        return rc;
    if (code == 'f') {
        a->k.follow = true;
    } else if (code == OPT_ATTEMPT) {
        if ((rc = count("--attempt", arg, &a->attempt)) != EXIT_OK)
            return rc;
    } else if (code == CLI_OPERAND && a->n_pos < 2) {
        a->pos[a->n_pos++] = arg;
    } else {
        return cli_usage_error("logs", code == CLI_OPERAND ? "too many arguments"
                                                           : "unknown option");
    }
    return EXIT_OK;
}

/* On a cluster: NAME, and --pod for a second operand as `kubectl logs` has none. */
static int logs_on_cluster(struct logs_args *a)
{
    if (a->attempt >= 0)
        return cli_usage_error("logs", "--attempt is for local runs (on a cluster: --since, "
                                       "--process-id)");
    if (a->n_pos == 2 && a->k.pod)
        return cli_usage_error("logs", "POD and --pod both given");
    if (a->n_pos == 2)
        a->k.pod = a->pos[1];
    if ((a->k.process_id >= 0) + (a->k.pod != NULL) + (a->k.rj != NULL) > 1)
        return cli_usage_error("logs", "one of --process-id, --pod and --replicated-job");
    a->k.name = a->pos[0];
    return logs_cluster(&a->k);
}

int cmd_logs(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"follow", no_argument, NULL, 'f'}, {"attempt", required_argument, NULL, OPT_ATTEMPT},
        {"process-id", required_argument, NULL, OPT_PROCESS_ID},
        {"pod", required_argument, NULL, OPT_POD},
        {"replicated-job", required_argument, NULL, OPT_RJ},
        {"since", required_argument, NULL, OPT_SINCE},
        {"tail", required_argument, NULL, OPT_TAIL},
        {"prefix", no_argument, NULL, OPT_PREFIX},
        {"container", required_argument, NULL, 'c'},
        CLUSTER_LONGOPTS, CLUSTER_LOCAL_LONGOPT, {0}};
    struct logs l = {.attempt = -1, .shown = -1};
    struct logs_args a = {.attempt = -1, .k = {.c = cluster_new("logs"), .process_id = -1,
                                               .since_s = -1, .tail = -1}};
    bool cluster_only = false;
    int rc = cli_parse(argc, argv, "fc:" CLUSTER_SHORTOPTS, longopts, on_arg, &a);
    if (rc != EXIT_OK)
        return rc;
    if (a.n_pos == 0)
        return cli_usage_error("logs", "expected NAME");
    cluster_only = a.k.process_id >= 0 || a.k.pod || a.k.rj || a.k.container || a.k.prefix ||
                   a.k.since_s >= 0 || a.k.tail >= 0;
    if (cluster_wanted(&a.k.c))
        return logs_on_cluster(&a);
    if (cluster_only)
        return cli_usage_error("logs", "--process-id, --pod, --replicated-job, -c, --since, "
                                       "--tail and --prefix are for a cluster's logs");
    if (rd_latest(a.pos[0], l.dir, sizeof(l.dir)) < 0) {
        fprintf(stderr, "jaxset logs: no run of \"%s\" found\n", a.pos[0]);
        return EXIT_INVALID;
    }
    rd_file(l.logs, sizeof(l.logs), l.dir, RD_LOGS);
    l.pod = a.n_pos == 2 ? a.pos[1] : NULL;
    l.attempt = a.attempt;
    reload_pods(&l);
    if (!l.pods && l.attempt >= 0 && !a.k.follow) {
        fprintf(stderr, "jaxset logs: %s has no " RD_PODS " (a run of an older jaxset): its "
                        "logs cannot be told apart by restart attempt\n", l.dir);
        return EXIT_INVALID;
    }
    rc = print_logs(&l, a.k.follow);
    free(l.v);
    json_decref(l.pods);
    return rc;
}
