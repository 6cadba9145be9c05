/* Forwarded output: one buffer of prefixed lines written to the output fd without ever
 * blocking the supervisor.  The fd is a private non-blocking description of the caller's
 * (reopened through /proc/self/fd, so the shell's terminal or pipe keeps its own flags); while
 * the reader does not keep up, lines wait in the buffer up to SUP_OUT_CAP; when it is full, the
 * supervisor waits up to SUP_OUT_WAIT_MS at a time for the reader to take some (a slow reader
 * gets everything, at its own pace), and once the reader has taken nothing for that long it is
 * stalled: lines that do not fit are dropped and counted (the log files keep every byte) until
 * it reads again.  When the buffer has
 * drained, a marker line says how much was skipped. */
#include "local/sup/sup_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "obj/base/ktime.h"

/* forwarded bytes buffered before a write (every poll flushes what it queued, so this only
 * batches a busy pod's output): about one write per 256 KiB chunk read, which measured 88 % of
 * bench/relay's prefixing relay against 80 % at 128 KiB (bench/README.md, log) */
#define SUP_OUT_FLUSH (256 * 1024)
#define SUP_OUT_CAP (4 * 1024 * 1024)   /* bytes held for a reader that does not keep up */
#define SUP_OUT_PIPE (1024 * 1024)      /* size asked for an output pipe */
#define SUP_OUT_FINAL_MS 2000           /* how long the last flush waits for a slow reader */
#define SUP_OUT_WAIT_MS 50              /* a full buffer waits this long for a reader's progress */

/* A non-blocking fd for `fd` that does not change the caller's file description: regular
 * files never block and are used as they are. */
static int private_fd(int fd, bool *owned)
{
    struct stat st;
    char path[32]; /* "/proc/self/fd/" and an int */
    *owned = false;
    if (fd < 0 || fstat(fd, &st) < 0 || S_ISREG(st.st_mode))
        return fd;
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    int pfd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (pfd < 0)
        return errno == ENXIO ? -1 : fd; /* ENXIO: a pipe nobody reads any more */
    *owned = true;
    return pfd;
}

int sup__out_init(struct sup__out *o, int fd)
{
    memset(o, 0, sizeof(*o));
    o->fd = private_fd(fd, &o->owned);
    o->cap = SUP_OUT_CAP;
    if (!(o->buf = malloc(o->cap))) /* pages are touched only as far as they are used */
        return -ENOMEM;
    if (o->fd >= 0)
        fcntl(o->fd, F_SETPIPE_SZ, SUP_OUT_PIPE); /* when it is a pipe: fewer wake-ups */
    return 0;
}

/* Queues the line saying how much was skipped, once the lines before the gap are out. */
static void note_skipped(struct sup__out *o)
{
    char line[160]; /* fixed text and one integer */
    int n = snprintf(line, sizeof(line),
                     "[jaxset] %llu bytes of pod output skipped here: the output was not read "
                     "fast enough (the log files have every byte)\n",
                     (unsigned long long)o->skipped);
    o->skipped_total += o->skipped;
    o->skipped = 0;
    memcpy(o->buf, line, (size_t)n);
    o->len = (size_t)n;
}

int sup__out_flush(struct sup__out *o)
{
    if (o->fd < 0) { /* the reader went away: nothing is forwarded any more */
        o->off = o->len = 0;
        return 0;
    }
    if (o->len > o->off && o->hook)
        o->hook(o->hook_ctx);
    while (o->off < o->len) {
        ssize_t w = write(o->fd, o->buf + o->off, o->len - o->off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN)
            break;
        if (w <= 0) { /* EPIPE and the like: forwarding ends, the logs go on */
            o->fd = -1;
            o->off = o->len = 0;
            return 0;
        }
        o->off += (size_t)w;
        o->forwarded += (size_t)w;
        o->stalled = false; /* the reader reads */
    }
    o->blocked = o->off < o->len;
    if (!o->blocked) {
        o->off = o->len = 0;
        if (o->skipped)
            note_skipped(o);
    }
    return o->blocked;
}

/* Room for `need` more bytes, moving what waits to the front when that makes room. */
static bool room(struct sup__out *o, size_t need)
{
    if (o->len + need <= o->cap)
        return true;
    if (o->off == 0 || o->len - o->off + need > o->cap)
        return false;
    memmove(o->buf, o->buf + o->off, o->len - o->off);
    o->len -= o->off;
    o->off = 0;
    return true;
}

void sup__out_line(struct sup__out *o, const char *a, size_t alen, const char *b, size_t blen)
{
    size_t need = alen + blen + 1;
    if (o->fd < 0)
        return;
    if (o->len + need > o->cap && !o->blocked)
        sup__out_flush(o);
    while (!o->skipped && !room(o, need) && !o->stalled && o->fd >= 0) {
        struct pollfd p = {.fd = o->fd, .events = POLLOUT};
        if (poll(&p, 1, SUP_OUT_WAIT_MS) > 0)
            sup__out_flush(o); /* progress, or the reader went away */
        else
            o->stalled = true; /* nothing taken in SUP_OUT_WAIT_MS: drop until it reads */
    }
    if (o->skipped || !room(o, need)) { /* keep the order: no line after a gap */
        o->skipped += need;
        return;
    }
    memcpy(o->buf + o->len, a, alen);
    memcpy(o->buf + o->len + alen, b, blen);
    o->len += alen + blen;
    o->buf[o->len++] = '\n';
    if (o->len - o->off >= SUP_OUT_FLUSH && !o->blocked)
        sup__out_flush(o);
}

void sup__out_release(struct sup__out *o)
{
    int64_t end = kt_mono_ms() + SUP_OUT_FINAL_MS;
    while (o->fd >= 0 && (o->len > o->off || o->skipped) && kt_mono_ms() < end) {
        struct pollfd p = {.fd = o->fd, .events = POLLOUT};
        if (sup__out_flush(o) > 0)
            poll(&p, 1, (int)(end - kt_mono_ms()));
    }
    uint64_t total = o->skipped_total + o->skipped + (o->len - o->off); /* never taken */
    if (o->owned && o->fd >= 0)
        close(o->fd);
    free(o->buf);
    memset(o, 0, sizeof(*o));
    o->fd = -1;
    o->skipped_total = total;
}
