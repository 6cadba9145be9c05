/* sup: see sup.h.  epoll over the containers' output pipes, a signalfd for SIGCHLD and up to
 * four watched fds; containers spawned by a clone sharing our memory (sup_spawn.c) whose child
 * sets itself up and execs while we go on (sup_clones.c).  A container whose clone is under way
 * ("pending": p->job.sp set) has a pid the kernel stored before its child ran, but its child
 * may not have its own process group yet: whatever needs its group or its process (a kill, a
 * stray scan, a new watchdog, the end) waits for its exec. */
#include "local/sup/sup.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "local/sup/sup_int.h"
#include "obj/base/fs.h"
#include "obj/base/ktime.h"

#define SUP_READ_CHUNK (256 * 1024)
#define SUP_LINE_MAX (64 * 1024)    /* a longer line is forwarded in pieces */
#define SUP_DRAIN_MS 2000           /* how long a pipe may outlive its main process */
#define SUP_WATCH_MAX 4
#define SUP_STRAY_ROUNDS 64         /* sup_free: strays killed and reaped, again while some came */

struct proc {
    uint64_t id;
    pid_t pid;
    int pipe_fd, log_fd;
    char *log_path; /* opened on the first output: a silent container costs no file */
    char *prefix;
    size_t prefix_len;
    char *partial; /* unterminated tail of the output, SUP_LINE_MAX bytes, allocated on the
                    * first unterminated line (most containers never need it) */
    size_t partial_len;
    struct sup__job job; /* job.sp: its spawn, until the clone is done and its outcome known */
    char *msg;           /* why it did not start (exited with status 127), or NULL */
    bool exited;
    bool in_cg;     /* in its own cgroup: cgroup.kill reaches whatever it left */
    bool no_splice; /* the log's file system refused splice: written as read */
    int status;
    int64_t drain_deadline_ms;
};

struct sup {
    int epfd, sigfd;
    int log_errno; /* first failure to write a log file, 0 none */
    sigset_t old_mask;
    struct sup__watchdog wd;
    struct sup__base base;
    struct sup__cg cg;
    struct proc **procs;
    size_t n, cap;
    uint64_t next_id;
    int watched[SUP_WATCH_MAX];
    size_t n_watched;
    char *rbuf; /* SUP_READ_CHUNK bytes read from a pipe at a time */
    int tee_r, tee_w; /* the tee pipe (splice_out); -1 until output is first forwarded */
    size_t tee_cap;   /* its capacity */
    struct sup__out out;
    bool out_polled;   /* out.fd is in the epoll set, waiting to be writable */
    bool outside;      /* some container was spawned outside a cgroup of its own */
    int old_subreaper; /* PR_GET_CHILD_SUBREAPER before sup_new */
    struct sup__clones clones; /* under way, oldest first */
    char **said;           /* the last exits' messages, freed by the next sup_poll */
    size_t n_said, cap_said;
    pid_t kept;            /* sup_keep's process while it is not reaped; 0: none */
};

static int epoll_add(int epfd, int fd, void *ptr)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = ptr};
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

int sup_new(struct sup **out, int out_fd, struct err *err)
{
    struct sup *s = calloc(1, sizeof(*s));
    sigset_t chld;
    int rc;
    if (!s)
        return err_oom(err);
    s->epfd = s->sigfd = s->tee_r = s->tee_w = -1;
    s->wd.fd = -1;
    s->base.devnull = -1;
    s->cg.dirfd = -1;
    s->old_subreaper = -1;
    if (!(s->rbuf = malloc(SUP_READ_CHUNK)) || sup__out_init(&s->out, out_fd) < 0) {
        rc = err_oom(err);
        goto fail;
    }
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &s->old_mask);
    s->epfd = epoll_create1(EPOLL_CLOEXEC);
    s->sigfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
    if (s->epfd < 0 || s->sigfd < 0) {
        rc = err_set(err, -errno, "epoll/signalfd: %s", strerror(errno));
        goto fail;
    }
    if ((rc = epoll_add(s->epfd, s->sigfd, &s->sigfd)) < 0) {
        err_set(err, rc, "epoll: %s", strerror(-rc));
        goto fail;
    }
    if ((rc = sup__base_open(&s->base)) < 0) {
        err_set(err, rc, "/dev/null: %s", strerror(-rc));
        goto fail;
    }
    if ((rc = sup__clones_init(&s->clones)) < 0) {
        err_set(err, rc, "the children's stacks: %s", strerror(-rc));
        goto fail;
    }
    /* what outlives a container's main process comes back to us (sup_tree.c) */
    prctl(PR_GET_CHILD_SUBREAPER, &s->old_subreaper);
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
        rc = err_set(err, -errno, "prctl(PR_SET_CHILD_SUBREAPER): %s", strerror(errno));
        goto fail;
    }
    sup__cg_open(&s->cg);
    s->wd.cg_path = s->cg.path;
    if ((rc = sup__watchdog_start(&s->wd)) < 0) {
        err_set(err, rc, "watchdog: %s", strerror(-rc));
        goto fail;
    }
    *out = s;
    return 0;
fail:
    sup_free(s);
    return rc;
}

static void proc_free(struct proc *p)
{
    if (!p)
        return;
    if (p->pipe_fd >= 0)
        close(p->pipe_fd);
    if (p->log_fd >= 0)
        close(p->log_fd);
    free(p->log_path);
    free(p->prefix);
    free(p->partial);
    free(p->msg);
    sup__spawn_free(p->job.sp);
    free(p);
}

/* A finished clone's outcome: a container that did not start is one that exited with status
 * 127 (its child, when it had one, reaped here unless the loop did), its message kept for its
 * exit. */
static void spawn_settle(struct sup *s, struct proc *p)
{
    struct err e = {{0}};
    bool in_cg = false;
    if (sup__spawn_result(p->job.sp, &in_cg, &e) < 0) {
        if (p->pid > 0 && !p->exited)
            waitpid(p->pid, NULL, 0);
        p->exited = true;
        p->status = 127 << 8; /* as waitpid() has it: exited, status 127 */
        p->drain_deadline_ms = kt_mono_ms();
        p->msg = strdup(e.msg); /* out of memory: an exit without its reason */
    } else {
        p->in_cg = in_cg;
        s->outside = s->outside || !in_cg;
    }
    sup__spawn_free(p->job.sp);
    p->job.sp = NULL;
}

/* Settles every finished clone. */
static void settle_spawns(struct sup *s)
{
    struct sup__job *j = sup__clones_take(&s->clones), *next;
    for (; j; j = next) {
        next = j->next;
        spawn_settle(s, (struct proc *)(void *)((char *)j - offsetof(struct proc, job)));
    }
}

/* Waits for every clone under way and settles them: each container has its pid or its exit. */
static void spawns_quiesce(struct sup *s)
{
    sup__clones_quiesce(&s->clones);
    settle_spawns(s);
}

/* Waits for the clone of one container. */
static void spawn_wait(struct sup *s, struct proc *p)
{
    if (!p->job.sp)
        return;
    sup__clones_wait(&s->clones, &p->job);
    spawn_settle(s, p);
}

static void said_free(struct sup *s)
{
    for (size_t i = 0; i < s->n_said; i++)
        free(s->said[i]);
    s->n_said = 0;
}

/* A container's message, kept until the next sup_poll for its exit (NULL without memory). */
static const char *said(struct sup *s, struct proc *p)
{
    char *msg = p->msg;
    p->msg = NULL;
    if (!msg)
        return NULL;
    if (s->n_said == s->cap_said) {
        size_t cap = s->cap_said ? s->cap_said * 2 : 8;
        char **grown = realloc(s->said, cap * sizeof(*grown));
        if (!grown) {
            free(msg);
            return NULL;
        }
        s->said = grown;
        s->cap_said = cap;
    }
    return s->said[s->n_said++] = msg;
}

void sup_set_output_hook(struct sup *s, void (*fn)(void *ctx), void *ctx)
{
    s->out.hook = fn;
    s->out.hook_ctx = ctx;
}

/* Kills what is left of ended containers: our children that are neither a running container's
 * main process nor the watchdog, with all they started.  Every pid reaped by the caller may
 * have left some (reparented to us before we were told of its end). */
static void kill_strays(struct sup *s)
{
    spawns_quiesce(s); /* a child being cloned is no stray */
    pid_t *known = malloc((s->n + 2) * sizeof(*known)), *strays = NULL;
    size_t n_known = 0;
    if (!known)
        return;
    known[n_known++] = s->wd.pid;
    if (s->kept > 0)
        known[n_known++] = s->kept;
    for (size_t i = 0; i < s->n; i++)
        if (!s->procs[i]->exited)
            known[n_known++] = s->procs[i]->pid;
    int n = sup__strays(known, n_known, &strays);
    if (n > 0)
        sup__kill_tree(strays, (size_t)n);
    free(strays);
    free(known);
}

/* The end of the supervisor: every container gone, then every stray, reaped. */
static void kill_all(struct sup *s)
{
    spawns_quiesce(s);
    for (size_t i = 0; i < s->n; i++) {
        struct proc *p = s->procs[i];
        if (!p->exited) {
            kill(-p->pid, SIGKILL);
            waitpid(p->pid, NULL, 0);
            p->exited = true;
        }
        if (p->pid > 0)
            sup__watchdog_forget(&s->wd, p->pid);
    }
    for (int round = 0; round < SUP_STRAY_ROUNDS; round++) {
        pid_t pid, *strays = NULL;
        while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
            if (pid == s->wd.pid)
                sup__watchdog_lost(&s->wd);
        int n = sup__strays(&s->wd.pid, 1, &strays);
        if (n > 0)
            sup__kill_tree(strays, (size_t)n);
        for (int i = 0; i < n; i++)
            waitpid(strays[i], NULL, 0);
        free(strays);
        if (n <= 0)
            break;
    }
}

void sup_free(struct sup *s)
{
    if (!s)
        return;
    kill_all(s);
    sup__clones_free(&s->clones);
    sup__cg_close(&s->cg);
    for (size_t i = 0; i < s->n; i++)
        proc_free(s->procs[i]);
    said_free(s);
    sup_finish_output(s);
    sup__watchdog_stop(&s->wd);
    sup__base_close(&s->base);
    if (s->old_subreaper >= 0)
        prctl(PR_SET_CHILD_SUBREAPER, s->old_subreaper);
    if (s->sigfd >= 0)
        close(s->sigfd);
    if (s->epfd >= 0)
        close(s->epfd);
    if (s->tee_r >= 0) {
        close(s->tee_r);
        close(s->tee_w);
    }
    sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
    free(s->procs);
    free(s->said);
    free(s->rbuf);
    free(s);
}

static struct proc *find(const struct sup *s, uint64_t id)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->procs[i]->id == id)
            return s->procs[i];
    return NULL;
}

int sup_kill(struct sup *s, uint64_t id, int sig)
{
    struct proc *p = find(s, id);
    if (p)
        spawn_wait(s, p);
    if (!p || p->exited)
        return -ESRCH;
    return kill(-p->pid, sig) < 0 ? -errno : 0;
}

pid_t sup_pgid(struct sup *s, uint64_t id)
{
    struct proc *p = find(s, id);
    if (p)
        spawn_wait(s, p);
    return p && !p->exited ? p->pid : -1;
}

size_t sup_running(const struct sup *s)
{
    return s->n;
}

uint64_t sup_finish_output(struct sup *s)
{
    if (s->out_polled)
        epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->out.fd, NULL);
    s->out_polled = false;
    sup__out_release(&s->out);
    return s->out.skipped_total;
}

int sup_log_errno(const struct sup *s)
{
    return s->log_errno;
}

uint64_t sup_skipped_bytes(const struct sup *s)
{
    return s->out.skipped_total + s->out.skipped;
}


int sup_keep(struct sup *s, pid_t pid)
{
    if (s->kept > 0)
        return -EBUSY;
    s->kept = pid;
    return 0;
}

bool sup_kept_alive(const struct sup *s)
{
    return s && s->kept > 0;
}

void sup_kept_reaped(struct sup *s)
{
    if (s)
        s->kept = 0;
}

int sup_watch_fd(struct sup *s, int fd)
{
    if (s->n_watched == SUP_WATCH_MAX)
        return -ENOSPC;
    s->watched[s->n_watched] = fd;
    int rc = epoll_add(s->epfd, fd, &s->watched[s->n_watched]);
    if (rc == 0)
        s->n_watched++;
    return rc;
}

/* The watchdog was reaped: its pipe is closed once no child being cloned may still write to it. */
static void watchdog_lost(struct sup *s)
{
    spawns_quiesce(s);
    sup__watchdog_lost(&s->wd);
}

/* A watchdog that died (killed by someone) is replaced at once, and told every group still
 * running: jaxset killed later must still leave no container behind. */
static void watchdog_ensure(struct sup *s)
{
    int status;
    if (s->wd.pid > 0 && waitpid(s->wd.pid, &status, WNOHANG) == s->wd.pid)
        watchdog_lost(s);
    if (s->wd.pid > 0 || sup__watchdog_start(&s->wd) < 0)
        return; /* fork failed: tried again at the next poll */
    spawns_quiesce(s); /* every group has its pid */
    for (size_t i = 0; i < s->n; i++)
        if (!s->procs[i]->exited)
            sup__watchdog_add(&s->wd, s->procs[i]->pid);
    sup__watchdog_flush(&s->wd);
}

static int reserve(struct sup *s)
{
    if (s->n < s->cap)
        return 0;
    size_t cap = s->cap ? s->cap * 2 : 16;
    struct proc **np = realloc(s->procs, cap * sizeof(*np));
    if (!np)
        return -ENOMEM;
    s->procs = np;
    s->cap = cap;
    return 0;
}

static int proc_init(struct proc *p, const struct sup_spec *spec, struct err *err)
{
    p->pipe_fd = p->log_fd = -1;
    if (spec->prefix) {
        p->prefix = strdup(spec->prefix);
        if (!p->prefix)
            return err_oom(err);
        p->prefix_len = strlen(p->prefix);
    }
    if (spec->log_path && !(p->log_path = strdup(spec->log_path)))
        return err_oom(err);
    return 0;
}

/* Everything that can fail at once is done here; the child is cloned and set up while we go
 * on, and a child that does not start is reported as an exit with status 127 (spawn_settle). */
int sup_spawn(struct sup *s, const struct sup_spec *spec, uint64_t *out_id, struct err *err)
{
    struct proc *p = calloc(1, sizeof(*p));
    uint64_t id = s->next_id + 1;
    int rc;
    if (!p)
        return err_oom(err);
    if ((rc = proc_init(p, spec, err)) < 0)
        goto fail;
    if ((rc = reserve(s)) < 0) {
        err_set(err, rc, ERR_OOM_MSG);
        goto fail;
    }
    watchdog_ensure(s);
    rc = sup__spawn_new(spec, &s->base, &s->wd, sup__cg_container(&s->cg, id), &p->job.sp,
                        &p->pipe_fd, err);
    if (rc == 0 && (rc = epoll_add(s->epfd, p->pipe_fd, p)) < 0)
        err_set(err, rc, "epoll: %s", strerror(-rc));
    if (rc < 0) {
        sup__cg_remove(&s->cg, id);
        goto fail;
    }
    sup__watchdog_flush(&s->wd); /* a queued "-pgid" must not follow the child's "+pgid" */
    p->id = s->next_id = id;
    p->job.pid = &p->pid;
    s->procs[s->n++] = p;
    sup__clones_submit(&s->clones, &p->job);
    if (spec->ns) /* borrowed until we return */
        spawn_wait(s, p);
    settle_spawns(s); /* what the finished ones hold is freed */
    *out_id = id;
    return 0;
fail:
    proc_free(p);
    return rc;
}

static void forward_partial(struct sup *s, struct proc *p)
{
    if (p->partial_len)
        sup__out_line(&s->out, p->prefix, p->prefix_len, p->partial, p->partial_len);
    p->partial_len = 0;
}

/* Splits a chunk into lines: completes the pending partial line, forwards whole lines
 * straight from the chunk, keeps the unterminated tail. */
static void forward_chunk(struct sup *s, struct proc *p, const char *buf, size_t len)
{
    while (len) {
        const char *nl = memchr(buf, '\n', len);
        size_t take = nl ? (size_t)(nl - buf) : len;
        if ((p->partial_len || !nl) && !p->partial && !(p->partial = malloc(SUP_LINE_MAX))) {
            sup__out_line(&s->out, p->prefix, p->prefix_len, buf, take); /* no memory: split the line */
            buf += take + (nl ? 1 : 0);
            len -= take + (nl ? 1 : 0);
            continue;
        }
        if (p->partial_len || !nl) {
            size_t room = SUP_LINE_MAX - p->partial_len;
            size_t n = take < room ? take : room;
            memcpy(p->partial + p->partial_len, buf, n);
            p->partial_len += n;
            if (nl || p->partial_len == SUP_LINE_MAX)
                forward_partial(s, p);
            buf += n;
            len -= n;
            if (nl && n == take) {
                buf++;
                len--;
            }
            continue;
        }
        sup__out_line(&s->out, p->prefix, p->prefix_len, buf, take);
        buf += take + 1;
        len -= take + 1;
    }
}

/* A log that cannot be kept is counted, never silent: the runner reports it. */
static void log_failed(struct sup *s, struct proc *p, int e)
{
    if (!s->log_errno)
        s->log_errno = e;
    free(p->log_path);
    p->log_path = NULL;
    if (p->log_fd >= 0)
        close(p->log_fd);
    p->log_fd = -1;
}

static void close_pipe(struct sup *s, struct proc *p)
{
    epoll_ctl(s->epfd, EPOLL_CTL_DEL, p->pipe_fd, NULL);
    close(p->pipe_fd);
    p->pipe_fd = -1;
    if (p->prefix)
        forward_partial(s, p);
}

/* Opens the log on the container's first output (a silent container leaves no file).  Without
 * O_APPEND, which splice refuses: the file is written at its end, by its one writer. */
static bool log_open(struct sup *s, struct proc *p)
{
    if (p->log_fd < 0 && p->log_path) {
        p->log_fd = open(p->log_path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (p->log_fd < 0 || lseek(p->log_fd, 0, SEEK_END) < 0) /* cannot keep this log: */
            log_failed(s, p, errno); /* stop trying, forwarding goes on */
    }
    return p->log_fd >= 0;
}

/* The pipe that tee fills with a copy of a container's output for forwarding; false when none
 * can be had (then output is read as before). */
static bool tee_pipe(struct sup *s)
{
    int t[2];
    if (s->tee_r >= 0)
        return true;
    if (pipe2(t, O_CLOEXEC | O_NONBLOCK) < 0)
        return false;
    fcntl(t[1], F_SETPIPE_SZ, SUP_READ_CHUNK);
    int cap = fcntl(t[1], F_GETPIPE_SZ);
    s->tee_r = t[0];
    s->tee_w = t[1];
    s->tee_cap = cap > 0 ? (size_t)cap : 4096;
    return true;
}

/* Reads exactly n bytes that are waiting in pipe fd into buf; false when they are not there. */
static bool read_waiting(int fd, char *buf, size_t n)
{
    while (n) {
        ssize_t r = read(fd, buf, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        buf += r;
        n -= (size_t)r;
    }
    return true;
}

/* Output bound for the log file goes there by splice, unchanged and copied once, in the
 * kernel; when it is forwarded too, tee first puts a copy of the same bytes into the tee pipe
 * (the pages shared, not copied), and only that copy is read here, to be prefixed.  Returns
 * false when nothing was moved (then the caller reads the output). */
static bool splice_out(struct sup *s, struct proc *p, char *buf, size_t avail)
{
    bool fwd = p->prefix && s->out.fd >= 0 && tee_pipe(s);
    size_t n = avail < SUP_READ_CHUNK ? avail : SUP_READ_CHUNK;
    if (fwd) {
        ssize_t t = tee(p->pipe_fd, s->tee_w, n < s->tee_cap ? n : s->tee_cap, SPLICE_F_NONBLOCK);
        if (t <= 0)
            return false;
        n = (size_t)t;
    }
    size_t moved = 0;
    while (moved < n && p->log_fd >= 0 && !p->no_splice) {
        ssize_t m = splice(p->pipe_fd, NULL, p->log_fd, NULL, n - moved, SPLICE_F_NONBLOCK);
        if (m < 0 && errno == EINTR)
            continue;
        if (m < 0 && errno == EINVAL && moved == 0) /* this file system takes no splice */
            p->no_splice = true;
        else if (m <= 0)
            log_failed(s, p, m < 0 ? errno : EIO);
        else
            moved += (size_t)m;
    }
    /* what the log did not take by splice: read, and written when it can be */
    if (moved < n && read_waiting(p->pipe_fd, buf, n - moved) && p->log_fd >= 0) {
        int we = fs_write_all(p->log_fd, buf, n - moved);
        if (we < 0) /* a full disk, a deleted run directory... */
            log_failed(s, p, -we);
    }
    if (fwd && read_waiting(s->tee_r, buf, n))
        forward_chunk(s, p, buf, n);
    return true;
}

static void on_readable(struct sup *s, struct proc *p, char *buf)
{
    int avail = 0;
    if (ioctl(p->pipe_fd, FIONREAD, &avail) == 0 && avail > 0 && log_open(s, p) &&
        !p->no_splice && splice_out(s, p, buf, (size_t)avail))
        return;
    ssize_t r = read(p->pipe_fd, buf, SUP_READ_CHUNK);
    if (r < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (r <= 0) {
        close_pipe(s, p);
        return;
    }
    int we = log_open(s, p) ? fs_write_all(p->log_fd, buf, (size_t)r) : 0;
    if (we < 0)
        log_failed(s, p, -we);
    if (p->prefix)
        forward_chunk(s, p, buf, (size_t)r);
}

static void on_sigchld(struct sup *s)
{
    struct signalfd_siginfo si;
    while (read(s->sigfd, &si, sizeof(si)) == sizeof(si))
        ;
    int status;
    pid_t pid;
    bool scan = false;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        bool known = pid == s->wd.pid || pid == s->kept;
        if (pid == s->kept)
            s->kept = 0;
        if (known)
            watchdog_lost(s); /* replaced by watchdog_ensure */
        for (size_t i = 0; i < s->n; i++) {
            struct proc *p = s->procs[i];
            if (p->pid != pid || p->exited)
                continue;
            known = true;
            scan = scan || !p->in_cg;
            p->exited = true;
            p->status = status;
            p->drain_deadline_ms = kt_mono_ms() + SUP_DRAIN_MS;
            kill(-pid, SIGKILL); /* the container ends with its main process */
            sup__cg_kill(&s->cg, p->id);
        }
        scan = scan || (!known && s->outside);
    }
    /* cgroup.kill took what a container in its cgroup left; a container outside one may have
     * left strays, and so may a stray reaped (its children come to us) */
    if (scan)
        kill_strays(s);
}


/* Moves finished containers (exited and drained, or past the drain deadline) to `exits`. */
static size_t collect(struct sup *s, struct sup_exit *exits, size_t max)
{
    size_t got = 0;
    int64_t now = kt_mono_ms();
    for (size_t i = 0; i < s->n && got < max;) {
        struct proc *p = s->procs[i];
        if (!p->exited || p->job.sp || (p->pipe_fd >= 0 && now < p->drain_deadline_ms)) {
            i++;
            continue;
        }
        if (p->pipe_fd >= 0)
            close_pipe(s, p);
        exits[got++] = (struct sup_exit){.id = p->id, .status = p->status, .msg = said(s, p)};
        sup__cg_remove(&s->cg, p->id);
        if (p->pid > 0)
            sup__watchdog_forget(&s->wd, p->pid);
        proc_free(p);
        s->procs[i] = s->procs[--s->n];
    }
    return got;
}

static int next_timeout(const struct sup *s, int timeout_ms)
{
    int64_t now = kt_mono_ms();
    for (size_t i = 0; i < s->n; i++) {
        const struct proc *p = s->procs[i];
        if (!p->exited)
            continue;
        int64_t left = p->drain_deadline_ms - now;
        left = left < 0 ? 0 : left;
        if (timeout_ms < 0 || left < timeout_ms)
            timeout_ms = (int)left;
    }
    return timeout_ms;
}

/* Writes forwarded output; while the reader lags, the output fd waits in the epoll set for
 * room (EPOLLOUT), so supervision never blocks on it. */
static void out_service(struct sup *s)
{
    bool wait = sup__out_flush(&s->out) > 0;
    if (wait == s->out_polled)
        return;
    struct epoll_event ev = {.events = EPOLLOUT, .data.ptr = &s->out};
    if (epoll_ctl(s->epfd, wait ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, s->out.fd, &ev) == 0)
        s->out_polled = wait;
}

static bool is_watched(const struct sup *s, const void *ptr, int *out_fd)
{
    for (size_t i = 0; i < s->n_watched; i++) {
        if (ptr == &s->watched[i]) {
            *out_fd = s->watched[i];
            return true;
        }
    }
    return false;
}

int sup_poll(struct sup *s, int timeout_ms, struct sup_exit *exits, size_t max,
             int *out_fd_ready)
{
    struct epoll_event evs[64];
    int ready = -1;
    said_free(s); /* the last poll's exits are the caller's no more */
    settle_spawns(s);
    size_t got = collect(s, exits, max);
    watchdog_ensure(s);
    sup__watchdog_flush(&s->wd); /* every group spawned so far is covered before we block */
    int n = got ? 0 : epoll_wait(s->epfd, evs, 64, next_timeout(s, timeout_ms));
    if (n < 0 && errno != EINTR)
        return -errno;
    for (int i = 0; i < n; i++) {
        void *ptr = evs[i].data.ptr;
        if (ptr == &s->sigfd)
            on_sigchld(s);
        else if (ptr == &s->out)
            continue; /* writable again: out_service below */
        else if (!is_watched(s, ptr, &ready))
            on_readable(s, ptr, s->rbuf);
    }
    out_service(s);
    settle_spawns(s); /* a child reaped above that never exec'd: its exit has its message */
    got += collect(s, exits + got, max - got);
    if (out_fd_ready)
        *out_fd_ready = ready;
    return (int)got;
}
