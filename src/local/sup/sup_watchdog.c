/* The watchdog: a forked child (no exec) in its own session that holds the read end of a
 * pipe.  The supervisor writes "+pgid"/"-pgid" records; when the pipe ends — the supervisor
 * exited or was SIGKILLed — every registered process group is SIGKILLed with every process
 * descended from its leader (sup_tree.c: a setsid inside a container does not escape).  This
 * is what keeps "no orphan ever" true when jaxset itself dies without a chance to clean up.
 * A watchdog that dies first is replaced by the supervisor (sup.c), which registers its live
 * groups with the new one. */
#include "local/sup/sup_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

void sup__watchdog_flush(struct sup__watchdog *w)
{
    size_t off = 0;
    while (w->fd >= 0 && off < w->n_pending) {
        ssize_t n = write(w->fd, w->pending + off, w->n_pending - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    w->n_pending = 0;
}

static void send_rec(struct sup__watchdog *w, char op, pid_t pgid)
{
    struct sup__wd_rec r = {.op = op, .pgid = pgid};
    if (w->n_pending + sizeof(r) > sizeof(w->pending))
        sup__watchdog_flush(w);
    memcpy(w->pending + w->n_pending, &r, sizeof(r));
    w->n_pending += sizeof(r);
}

void sup__watchdog_forget(struct sup__watchdog *w, pid_t pgid)
{
    send_rec(w, '-', pgid);
}

void sup__watchdog_add(struct sup__watchdog *w, pid_t pgid)
{
    send_rec(w, '+', pgid);
}

static void detach_fds(int keep)
{
    int null = open("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3; fd++)
        if (null >= 0 && fd != keep)
            dup2(null, fd);
    if (null > 2 && null != keep)
        close(null);
    /* close everything else we inherited: output pipes held open would delay readers */
    syscall(SYS_close_range, keep + 1, ~0U, 0);
    for (int fd = 3; fd < keep; fd++)
        close(fd);
}

struct pgid_set {
    pid_t *v;
    size_t n, cap;
};

static void set_apply(struct pgid_set *s, const struct sup__wd_rec *r)
{
    if (r->op == '-') {
        for (size_t i = 0; i < s->n; i++)
            if (s->v[i] == r->pgid)
                s->v[i--] = s->v[--s->n];
        return;
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        pid_t *nv = realloc(s->v, cap * sizeof(*nv));
        if (!nv)
            return; /* out of memory: this group goes untracked */
        s->v = nv;
        s->cap = cap;
    }
    s->v[s->n++] = r->pgid;
}

/* Reads every record the pipe holds now; false once the pipe has ended. */
static bool drain(int rfd, struct pgid_set *set)
{
    struct sup__wd_rec buf[512];
    for (;;) {
        ssize_t got = read(rfd, buf, sizeof(buf));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0 && errno == EAGAIN)
            return true;
        if (got <= 0)
            return false;
        for (size_t i = 0; i < (size_t)got / sizeof(buf[0]); i++)
            set_apply(set, &buf[i]);
    }
}

/* Records are 8 bytes written whole (atomic on a pipe), so reads see whole records.  The
 * watchdog does not wake for each one: poll() with no events returns only when the pipe ends
 * (POLLHUP), and the records are read in bulk every WD_DRAIN_MS, which keeps the pipe from
 * filling up without taking CPU from a large start. */
#define WD_DRAIN_MS 200
#define WD_PIPE_SIZE (1024 * 1024)

static void __attribute__((noreturn)) watchdog_main(int rfd, const char *cg_path)
{
    static const int ignored[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU,
                                  SIGPIPE};
    for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
        signal(ignored[i], SIG_IGN);
    setsid();
    detach_fds(rfd);
    fcntl(rfd, F_SETFL, O_NONBLOCK);
    struct pgid_set set = {0};
    struct pollfd pfd = {.fd = rfd, .events = 0};
    for (;;) {
        int n = poll(&pfd, 1, WD_DRAIN_MS);
        if (!drain(rfd, &set) || (n > 0 && (pfd.revents & (POLLHUP | POLLERR))))
            break; /* end of the pipe: the supervisor is gone */
    }
    drain(rfd, &set);
    sup__kill_tree(set.v, set.n);
    if (cg_path && cg_path[0]) { /* everything in the run's cgroup, and the cgroup */
        struct sup__cg cg = {.dirfd = -1};
        snprintf(cg.path, sizeof(cg.path), "%s", cg_path);
        sup__cg_close(&cg);
    }
    _exit(0);
}

int sup__watchdog_start(struct sup__watchdog *w)
{
    int p[2];
    w->pid = -1;
    w->fd = -1;
    w->n_pending = 0;
    if (pipe2(p, O_CLOEXEC) < 0)
        return -errno;
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(p[0]);
        close(p[1]);
        return -e;
    }
    if (pid == 0) {
        close(p[1]);
        watchdog_main(p[0], w->cg_path);
    }
    close(p[0]);
    fcntl(p[1], F_SETPIPE_SZ, WD_PIPE_SIZE); /* records wait here between drains */
    w->pid = pid;
    w->fd = p[1];
    return 0;
}

void sup__watchdog_lost(struct sup__watchdog *w)
{
    if (w->fd >= 0)
        close(w->fd);
    w->fd = -1;
    w->pid = -1;
    w->n_pending = 0;
}

void sup__watchdog_stop(struct sup__watchdog *w)
{
    sup__watchdog_flush(w);
    if (w->fd >= 0)
        close(w->fd);
    w->fd = -1;
    if (w->pid > 0)
        waitpid(w->pid, NULL, 0);
    w->pid = -1;
}
