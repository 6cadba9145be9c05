/* store_run: the runs kept on disk, read back (see store_run.h). */
#include "local/store/store_run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "local/store/rundir.h"
#include "obj/base/ktime.h"
#include "obj/tree/jx.h"

json_t *store_read(const char *dir, const char *file)
{
    char path[PATH_MAX + 64];
    return json_load_file(rd_file(path, sizeof(path), dir, file), 0, NULL);
}

bool store_wrote_jobset(const char *dir)
{
    char path[PATH_MAX + 64];
    struct stat st;
    return stat(rd_file(path, sizeof(path), dir, RD_JOBSET), &st) == 0;
}

int store_load(const char *name, struct store_run *out)
{
    char dir[PATH_MAX];
    *out = (struct store_run){0};
    if (rd_latest(name, dir, sizeof(dir)) < 0)
        return -ENOENT;
    return store_load_dir(name, dir, out);
}

int store_load_dir(const char *name, const char *dir, struct store_run *out)
{
    *out = (struct store_run){0};
    if (strlen(name) >= sizeof(out->name) || strlen(dir) >= sizeof(out->dir))
        return -ENOENT;
    snprintf(out->name, sizeof(out->name), "%s", name);
    snprintf(out->dir, sizeof(out->dir), "%s", dir);
    out->run = store_read(out->dir, RD_RUN);
    out->jobset = store_read(out->dir, RD_JOBSET);
    out->pods = store_read(out->dir, RD_PODS);
    out->jobs = store_read(out->dir, RD_JOBS);
    return 0;
}

void store_run_free(struct store_run *r)
{
    json_decref(r->run);
    json_decref(r->jobset);
    json_decref(r->pods);
    json_decref(r->jobs);
    *r = (struct store_run){0};
}

/* Newest first: the later start, then the later directory (its name starts with the time). */
static int newest_first(const void *a, const void *b)
{
    const struct store_run *x = a, *y = b;
    int64_t sx = store_start_ms(x), sy = store_start_ms(y);
    if (sx != sy)
        return sx > sy ? -1 : 1;
    int c = strcmp(store_run_id(y), store_run_id(x));
    return c ? c : strcmp(x->name, y->name);
}

struct found {
    struct store_run *v;
    size_t n;
};

/* Adds run `r` (taken); -ENOMEM. */
static int add(struct found *f, struct store_run *r)
{
    struct store_run *nv = realloc(f->v, (f->n + 1) * sizeof(*nv));
    if (!nv) {
        store_run_free(r);
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
        struct store_run r;
        if (de->d_name[0] == '.' || !strcmp(de->d_name, RD_LATEST) ||
            snprintf(dir, sizeof(dir), "%s/%s", name_dir, de->d_name) >= (int)sizeof(dir) ||
            !realpath(dir, real) || !strcmp(real, latest) || store_load_dir(name, real, &r) < 0)
            continue;
        rc = add(f, &r);
    }
    if (d)
        closedir(d);
    return rc;
}

int store_list(bool all, struct store_run **out, size_t *n)
{
    char runs[PATH_MAX];
    struct found f = {0};
    int rc = store_runs_dir(runs, sizeof(runs));
    *out = NULL;
    *n = 0;
    if (rc < 0)
        return rc;
    DIR *d = opendir(runs);
    struct dirent *de;
    while (rc == 0 && d && (de = readdir(d))) {
        struct store_run r;
        char name_dir[PATH_MAX + NAME_MAX + 2], latest[PATH_MAX] = "";
        if (de->d_name[0] == '.')
            continue;
        if (store_load(de->d_name, &r) == 0) {
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

const char *store_run_id(const struct store_run *r)
{
    const char *base = strrchr(r->dir, '/');
    return base ? base + 1 : r->dir;
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

/* Whether process `pid` is gone (no such process, or a zombie; one of another user still
 * counts). */
static bool pid_gone(long long pid)
{
    return pid <= 0 || pid > INT_MAX || (kill((pid_t)pid, 0) < 0 && errno == ESRCH) ||
           zombie(pid);
}

/* The lock this process holds on the run it runs (store_lock_take): fd -1 when none.  A forked
 * child inherits this, not the lock: pid says whose it is. */
static struct {
    int fd;
    pid_t pid;
    dev_t dev;
    ino_t ino;
} held = {.fd = -1};

int store_lock_take(const char *dir)
{
    char path[PATH_MAX + 64];
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET}; /* the whole file */
    struct stat st;
    if (held.fd >= 0 && held.pid == getpid())
        return -EBUSY;
    /* Locked under a name of its own, then renamed: a reader never finds the lock file
     * unlocked while the run goes (a record lock belongs to the inode, which rename keeps). */
    char tmp[PATH_MAX + 80];
    rd_file(path, sizeof(path), dir, RD_LOCK);
    snprintf(tmp, sizeof(tmp), "%s.new", path);
    int fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -errno;
    if (fcntl(fd, F_SETLK, &fl) < 0 || fstat(fd, &st) < 0) {
        int e = errno;
        close(fd);
        unlink(tmp);
        if (e != ENOLCK && e != EINVAL && e != EOPNOTSUPP)
            return e == EACCES ? -EAGAIN : -e;
        return 0; /* no record locks here: known by its pid, as an older jaxset's run */
    }
    if (rename(tmp, path) < 0) {
        int e = errno;
        close(fd);
        unlink(tmp);
        return -e;
    }
    held.fd = fd;
    held.pid = getpid();
    held.dev = st.st_dev;
    held.ino = st.st_ino;
    return 0;
}

void store_lock_release(void)
{
    if (held.fd >= 0)
        close(held.fd);
    held.fd = -1;
}

/* Who holds the lock of the run kept in `dir`: its pid (this process's for its own run,
 * without opening the file: closing it would release the lock), 0 when nobody does, -1 when
 * the directory has no lock file one can read (a run of an older jaxset) or the holder's pid
 * is not known here (another pid namespace). */
static long long lock_holder(const char *dir)
{
    char path[PATH_MAX + 64];
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    struct stat st;
    if (stat(rd_file(path, sizeof(path), dir, RD_LOCK), &st) < 0)
        return -1;
    if (held.fd >= 0 && held.pid == getpid() && st.st_dev == held.dev && st.st_ino == held.ino)
        return getpid();
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -1;
    long long pid = fcntl(fd, F_GETLK, &fl) < 0 ? -1
                    : fl.l_type == F_UNLCK   ? 0
                    : fl.l_pid > 0           ? fl.l_pid
                                             : -1;
    close(fd);
    return pid;
}

long long store_live_pid(const char *dir, const json_t *run)
{
    enum store_state st;
    if (run && (store_state_parse(jx_str(run, "state"), &st) < 0 || st != STORE_RUNNING))
        return 0;
    long long holder = lock_holder(dir);
    if (holder >= 0)
        return holder;
    long long pid = !run ? store_dir_pid(dir) : jx_int_or(run, "pid", 0);
    return pid_gone(pid) ? 0 : pid;
}

long long store_dir_live_pid(const char *dir)
{
    json_t *run = store_read(dir, RD_RUN);
    long long pid = store_live_pid(dir, run);
    json_decref(run);
    return pid;
}

bool store_live(const struct store_run *r)
{
    return store_live_pid(r->dir, r->run) > 0;
}

int store_control(const char *dir, bool suspend)
{
    char path[PATH_MAX + 64], tmp[PATH_MAX + 80];
    rd_file(path, sizeof(path), dir, RD_CONTROL);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    json_t *ctl = json_pack("{s:b}", "suspend", suspend);
    int rc = ctl ? 0 : -ENOMEM;
    errno = 0;
    if (rc == 0 && (json_dump_file(ctl, tmp, 0) < 0 || rename(tmp, path) < 0))
        rc = errno ? -errno : -EIO;
    json_decref(ctl);
    return rc;
}

/* Whether process `pid` has the file `want` open (/proc/PID/fd): the lock's holder has, for its
 * whole life; a process that only took its pid has not (nor one a file system's F_GETLK names
 * on another machine). */
static bool has_open(pid_t pid, const struct stat *want)
{
    char path[64];
    struct stat st;
    struct dirent *de;
    bool found = false;
    snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
    DIR *d = opendir(path);
    while (!found && d && (de = readdir(d)))
        found = de->d_name[0] != '.' && fstatat(dirfd(d), de->d_name, &st, 0) == 0 &&
                st.st_dev == want->st_dev && st.st_ino == want->st_ino;
    if (d)
        closedir(d);
    return found;
}

/* The process running the run in `dir`, to signal: its pid into *pid and, where the run has
 * a lock, a pidfd of it into *pidfd (-1 otherwise, or on a kernel without pidfds), opened
 * before that process is found holding the lock's file open and the lock held by its pid
 * still: the pidfd is then of the holder, and a process that takes the pid after it never
 * gets the signal.  0 or -ESRCH (not going). */
static int open_run(const char *dir, pid_t *pid, int *pidfd)
{
    char path[PATH_MAX + 64];
    struct stat lock;
    long long p = store_dir_live_pid(dir);
    *pidfd = -1;
    if (p <= 0 || p > INT_MAX)
        return -ESRCH;
    *pid = (pid_t)p;
    if (lock_holder(dir) < 0 || stat(rd_file(path, sizeof(path), dir, RD_LOCK), &lock) < 0)
        return 0; /* a run of an older jaxset: by its pid, as it was */
    *pidfd = (int)syscall(SYS_pidfd_open, *pid, 0);
    if ((*pidfd >= 0 || errno == ENOSYS) && has_open(*pid, &lock) &&
        store_dir_live_pid(dir) == p)
        return 0;
    if (*pidfd >= 0)
        close(*pidfd);
    *pidfd = -1;
    return -ESRCH;
}

static int send_signal(pid_t pid, int pidfd, int sig)
{
    long rc = pidfd >= 0 ? syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0) : kill(pid, sig);
    return rc < 0 ? -errno : 0;
}

int store_signal(const char *dir, int sig)
{
    pid_t pid;
    int fd, rc = open_run(dir, &pid, &fd);
    if (rc == 0)
        rc = send_signal(pid, fd, sig);
    if (fd >= 0)
        close(fd);
    return rc;
}

/* Whether the process signalled is gone: its pidfd readable (it exited), else pid_gone. */
static bool gone(pid_t pid, int pidfd)
{
    struct pollfd p = {.fd = pidfd, .events = POLLIN};
    return pidfd >= 0 ? poll(&p, 1, 0) > 0 : pid_gone(pid);
}

int store_stop(const char *dir, int64_t timeout_ms)
{
    const struct timespec tick = {0, 50 * 1000 * 1000};
    int64_t end = kt_mono_ms() + timeout_ms;
    pid_t pid;
    int fd, rc = open_run(dir, &pid, &fd);
    if (rc == 0)
        rc = send_signal(pid, fd, SIGTERM);
    while (rc == 0 && !gone(pid, fd) && kt_mono_ms() < end)
        nanosleep(&tick, NULL);
    if (rc == 0 && !gone(pid, fd))
        rc = -ETIMEDOUT;
    if (fd >= 0)
        close(fd);
    return rc;
}

/* A run read as Running whose lock nobody holds: Lost, unless it recorded its end (and then let
 * its lock go) after its run.json was read; then the state it recorded. */
static enum store_state ended_since(const char *dir)
{
    json_t *now = store_read(dir, RD_RUN);
    enum store_state st;
    bool ended = now && store_state_parse(jx_str(now, "state"), &st) == 0 &&
                 store_state_recorded(st) && st != STORE_RUNNING;
    json_decref(now);
    return ended ? st : STORE_LOST;
}

enum store_state store_run_state(const struct store_run *r)
{
    enum store_state st;
    if (!r->run)
        return store_live(r) ? STORE_STARTING : STORE_UNKNOWN;
    if (store_state_parse(jx_str(r->run, "state"), &st) < 0 || !store_state_recorded(st))
        return STORE_UNKNOWN;
    if (st == STORE_RUNNING && !store_live(r))
        return ended_since(r->dir);
    return st;
}

static int64_t time_of(const json_t *o, const char *key)
{
    int64_t ms;
    return kt_parse(jx_str(o, key), &ms) == 0 ? ms : 0;
}

int64_t store_start_ms(const struct store_run *r)
{
    return time_of(r->run, "startTime");
}

static int64_t mtime_ms(const struct stat *st)
{
    return (int64_t)st->st_mtim.tv_sec * 1000 + st->st_mtim.tv_nsec / 1000000;
}

/* When the run in `dir` last recorded something: the newest change of its events.log and of
 * its pods' logs (0: none).  run.json is rewritten only when the JobSet changes: a run killed
 * while its pods ran steadily would seem to have ended where it started. */
static int64_t last_record_ms(const char *dir)
{
    char path[PATH_MAX + 64];
    struct stat st;
    int64_t last = stat(rd_file(path, sizeof(path), dir, RD_EVENTS), &st) == 0 ? mtime_ms(&st)
                                                                              : 0;
    DIR *d = opendir(rd_file(path, sizeof(path), dir, RD_LOGS));
    struct dirent *de;
    while (d && (de = readdir(d)))
        if (de->d_name[0] != '.' && fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            mtime_ms(&st) > last)
            last = mtime_ms(&st);
    if (d)
        closedir(d);
    return last;
}

int64_t store_end_ms(const struct store_run *r, int64_t now)
{
    enum store_state st = store_run_state(r);
    if (st == STORE_RUNNING || st == STORE_STARTING)
        return now;
    int64_t end = time_of(r->run, "updateTime"), last = st == STORE_LOST ? last_record_ms(r->dir)
                                                                         : 0;
    return last > end ? last : end;
}

long long store_exit_status(const struct store_run *r)
{
    return jx_int_or(r->run, "exitStatus", -1);
}

/* One line of events.log, "<time> <type> <reason>: <message>" (local/run/runner_state.c), or
 * "Note <message>"; NULL when it is neither (or on OOM). */
static json_t *event_of(char *line, size_t i, bool notes)
{
    char ts[64] = "", type[32] = "", reason[128] = "";
    int off = 0;
    line[strcspn(line, "\n")] = 0;
    if (!strncmp(line, "Note ", 5))
        return notes ? json_pack("{s:I, s:s, s:s}", "line", (json_int_t)i, "type", "Note",
                                 "message", line + 5)
                     : NULL;
    if (sscanf(line, "%63s %31s %127[^:]: %n", ts, type, reason, &off) != 3 || !off)
        return NULL;
    return json_pack("{s:I, s:s, s:s, s:s, s:s}", "line", (json_int_t)i, "time", ts, "type",
                     type, "reason", reason, "message", line + off);
}

json_t *store_events(const char *dir, bool notes)
{
    char path[PATH_MAX + 16];
    FILE *in = fopen(rd_file(path, sizeof(path), dir, RD_EVENTS), "re");
    json_t *out = json_array(), *e;
    char *line = NULL;
    size_t cap = 0;
    for (size_t i = 0; out && in && getline(&line, &cap, in) > 0; i++)
        if ((e = event_of(line, i, notes)) && json_array_append_new(out, e) < 0) {
            json_decref(out);
            out = NULL;
        }
    free(line);
    if (in)
        fclose(in);
    return out;
}
