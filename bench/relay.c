/* relay: the least a log-forwarding launcher can be, for bench_local's log floors.  Spawns
 * PROG with its stdout into a pipe and copies that pipe to its own stdout, optionally appending
 * every byte to LOGFILE as well (-l) and putting PREFIX before every line (-p), which is the
 * work `jaxset run` has to do per pod.  One read buffer, one output buffer, no event loop, no
 * colour, nothing else: any relay that touches every byte costs at least this much.
 *
 *   relay [-P] [-p PREFIX] [-l LOGFILE [-z] [-q]] PROG [ARGS...]
 *   relay [-P] -s PROG [ARGS...]
 *
 * -z: the log's copy goes by splice (pipe -> file, copied once, in the kernel), after tee has
 * put the same bytes into a second pipe, which is what is read and forwarded (jaxset's way,
 * src/local/sup/sup.c); -q: nothing is forwarded, only the log is written.
 * -s: PROG's pipe spliced into stdout (a pipe: the pages handed over, no byte copied, none
 * read into the relay's memory), no prefix, no log: the least any relay can do.
 * -P: the pipes as large as jaxset asks for them (PROG's 256 KiB, stdout's 1 MiB when it is a
 * pipe; src/local/sup/sup_spawn.c, sup_out.c): fewer hand-offs between the three processes.
 *
 * Exits with PROG's exit status (1 when it did not exit normally, 2 on a usage or I/O error).
 * Links nothing but libc. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "write_all.h"

#define RELAY_CHUNK (256 * 1024)
#define RELAY_LINE_MAX 4096 /* longest prefix */
#define RELAY_PIPE_IN (256 * 1024)   /* -P: PROG's pipe, as jaxset's SUP_PIPE_SIZE */
#define RELAY_PIPE_OUT (1024 * 1024) /* -P: stdout, as jaxset's SUP_OUT_PIPE */

extern char **environ;

static char in[RELAY_CHUNK];
static char out[RELAY_CHUNK + RELAY_LINE_MAX]; /* holds any prefix plus a whole chunk */

/* Writes in[0..n) to stdout with the prefix at every line start, through the out buffer
 * (flushed when full); *at_start carries across chunks. */
static int prefix_lines(const char *prefix, size_t plen, size_t n, int *at_start)
{
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        const char *nl = memchr(in + i, '\n', n - i);
        size_t len = nl ? (size_t)(nl - (in + i)) + 1 : n - i;
        if (o + plen + len > sizeof(out)) {
            if (write_all(1, out, o) < 0)
                return -1;
            o = 0;
        }
        if (*at_start) {
            memcpy(out + o, prefix, plen);
            o += plen;
        }
        memcpy(out + o, in + i, len);
        o += len;
        i += len;
        *at_start = nl != NULL;
    }
    return write_all(1, out, o);
}

static int relay(int rfd, int logfd, const char *prefix)
{
    size_t plen = prefix ? strlen(prefix) : 0;
    int at_start = 1;
    for (;;) {
        ssize_t n = read(rfd, in, sizeof(in));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -1 : 0;
        if (logfd >= 0 && write_all(logfd, in, (size_t)n) < 0)
            return -1;
        int rc = prefix ? prefix_lines(prefix, plen, (size_t)n, &at_start)
                        : write_all(1, in, (size_t)n);
        if (rc < 0)
            return -1;
    }
}

/* Moves n bytes waiting in rfd to logfd by splice; 0 or -1. */
static int splice_all(int rfd, int logfd, size_t n)
{
    while (n) {
        ssize_t m = splice(rfd, NULL, logfd, NULL, n, 0);
        if (m < 0 && errno == EINTR)
            continue;
        if (m <= 0)
            return -1;
        n -= (size_t)m;
    }
    return 0;
}

/* -z: the log by splice; forwarded (unless quiet) from the copy tee made.  0 at EOF, or -1. */
static int relay_z(int rfd, int logfd, const char *prefix, int quiet)
{
    size_t plen = prefix ? strlen(prefix) : 0;
    int at_start = 1, t[2];
    if (!quiet && pipe2(t, O_CLOEXEC) < 0)
        return -1;
    if (!quiet)
        fcntl(t[1], F_SETPIPE_SZ, RELAY_CHUNK);
    for (;;) {
        ssize_t n = quiet ? splice(rfd, NULL, logfd, NULL, RELAY_CHUNK, 0)
                          : tee(rfd, t[1], RELAY_CHUNK, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -1 : 0;
        if (quiet)
            continue;
        if (splice_all(rfd, logfd, (size_t)n) < 0)
            return -1;
        for (size_t got = 0; got < (size_t)n;) {
            ssize_t r = read(t[0], in + got, (size_t)n - got);
            if (r <= 0)
                return -1;
            got += (size_t)r;
        }
        int rc = prefix ? prefix_lines(prefix, plen, (size_t)n, &at_start)
                        : write_all(1, in, (size_t)n);
        if (rc < 0)
            return -1;
    }
}

/* -s: everything PROG writes spliced from its pipe into stdout.  0 at EOF, or -1. */
static int relay_s(int rfd)
{
    for (;;) {
        ssize_t n = splice(rfd, NULL, 1, NULL, RELAY_CHUNK, SPLICE_F_MOVE);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -1 : 0;
    }
}

/* Spawns argv with its stdout into a new pipe p (-P: both pipes enlarged first, best effort,
 * as jaxset does).  Returns its pid, or -1. */
static pid_t start(char **argv, int p[2], int big)
{
    posix_spawn_file_actions_t fa;
    pid_t pid;
    if (pipe2(p, O_CLOEXEC) < 0)
        return -1;
    if (big) {
        fcntl(p[0], F_SETPIPE_SZ, RELAY_PIPE_IN);
        fcntl(1, F_SETPIPE_SZ, RELAY_PIPE_OUT);
    }
    if (posix_spawn_file_actions_init(&fa) || posix_spawn_file_actions_adddup2(&fa, p[1], 1) ||
        posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ)) {
        fprintf(stderr, "relay: cannot start %s\n", argv[0]);
        return -1;
    }
    posix_spawn_file_actions_destroy(&fa);
    close(p[1]);
    return pid;
}

static int usage(void)
{
    fprintf(stderr, "usage: relay [-P] [-p PREFIX] [-l LOGFILE [-z] [-q]] PROG [ARGS...]\n"
                    "       relay [-P] -s PROG [ARGS...]\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *prefix = NULL, *log = NULL;
    int opt, p[2], logfd = -1, st = 0, zero_copy = 0, quiet = 0, spl = 0, big = 0;
    while ((opt = getopt(argc, argv, "+p:l:zqsP")) != -1) {
        if (opt == 'p')
            prefix = optarg;
        else if (opt == 'l')
            log = optarg;
        else if (opt == 'z')
            zero_copy = 1;
        else if (opt == 'q')
            quiet = 1;
        else if (opt == 's')
            spl = 1;
        else if (opt == 'P')
            big = 1;
        else
            return usage();
    }
    if (optind >= argc || (prefix && strlen(prefix) > RELAY_LINE_MAX) ||
        ((zero_copy || quiet) && !log) || (quiet && !zero_copy) || (spl && (prefix || log)))
        return usage();
    /* no O_APPEND: splice refuses it; the file is new */
    if (log && (logfd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
        perror(log);
        return 2;
    }
    pid_t pid = start(argv + optind, p, big);
    if (pid < 0)
        return 2;
    int rc = spl         ? relay_s(p[0])
             : zero_copy ? relay_z(p[0], logfd, prefix, quiet)
                         : relay(p[0], logfd, prefix);
    close(p[0]);
    waitpid(pid, &st, 0);
    if (rc < 0)
        return 2;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
