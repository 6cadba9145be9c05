/* kc_cfg (kubeconfig): running an exec credential plugin (client-go
 * plugin/pkg/client/auth/exec/exec.go refreshCredsLocked and wrapCmdRunErrorLocked).  Unlike
 * kubectl, which passes the plugin's stderr through to the terminal, a controller has none: stderr
 * is captured and its first lines quoted when the plugin fails.  The plugin runs in its own
 * process group with stdin /dev/null, no descriptor of ours but stdout and stderr, default signal
 * dispositions, and a time limit after which the group is killed. */
#include "kube/config/kc_cfg_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "obj/base/ktime.h"
#include "obj/base/sbuf.h"

/* Most output read from the plugin; more is an error. */
#define OUT_MAX (1u << 20)
/* Most stderr kept for messages, and the lines quoted. */
#define ERR_KEEP 4096
#define ERR_LINES 3

struct obuf {
    char *s;
    size_t len, cap, max;
    bool over; /* more than max arrived */
};

/* Appends, growing by copy and wiping the old copy (stdout holds the credential). */
static int ob_add(struct obuf *b, const char *p, size_t n)
{
    if (b->len + n > b->max) {
        b->over = true;
        n = b->max - b->len;
    }
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *s = malloc(cap);
        if (!s)
            return -ENOMEM;
        if (b->s)
            memcpy(s, b->s, b->len);
        kc_cfg__wipe_free(b->s, b->cap);
        b->s = s;
        b->cap = cap;
    }
    memcpy(b->s + b->len, p, n);
    b->len += n;
    b->s[b->len] = '\0';
    return 0;
}

/* Reads stdout and stderr until both end or the deadline passes (-ETIMEDOUT). */
static int collect(int fo, int fe, int64_t deadline, struct obuf *out, struct obuf *errb)
{
    struct pollfd p[2] = {{.fd = fo, .events = POLLIN}, {.fd = fe, .events = POLLIN}};
    char chunk[8192];
    int rc = 0;
    while (rc == 0 && (p[0].fd >= 0 || p[1].fd >= 0)) {
        int64_t left = deadline - kt_mono_ms();
        if (left <= 0)
            return -ETIMEDOUT;
        int n = poll(p, 2, (int)(left > 1000 ? 1000 : left));
        if (n < 0 && errno != EINTR)
            return -errno;
        for (int i = 0; i < 2 && n > 0; i++) {
            if (p[i].fd < 0 || !p[i].revents)
                continue;
            ssize_t got = read(p[i].fd, chunk, sizeof(chunk));
            if (got < 0 && (errno == EINTR || errno == EAGAIN))
                continue;
            if (got <= 0)
                p[i].fd = -1;
            else
                rc = ob_add(i ? errb : out, chunk, (size_t)got);
        }
    }
    explicit_bzero(chunk, sizeof(chunk));
    return rc;
}

/* The first lines of stderr, for a message: "; stderr: a | b | c", or "". */
static char *stderr_lines(const struct obuf *b)
{
    struct sbuf m = SBUF_INIT;
    int lines = 0;
    const char *p = b->s ? b->s : "";
    sb_puts(&m, "");
    while (*p && lines < ERR_LINES) {
        size_t n = strcspn(p, "\n");
        size_t a = 0;
        while (a < n && (p[a] == ' ' || p[a] == '\t' || p[a] == '\r'))
            a++;
        while (n > a && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
            n--;
        if (n > a)
            sb_printf(&m, "%s%.*s", lines++ ? " | " : "; stderr: ", (int)(n - a), p + a);
        p += strcspn(p, "\n");
        p += *p == '\n';
    }
    if (*p || b->over)
        sb_puts(&m, " ...");
    return sb_detach(&m);
}

/* Spawns the plugin; its pid, or a negative errno. */
static pid_t spawn(const struct kc_cfg__exec *x, char *const envp[], int fo, int fe)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t none, all;
    pid_t pid = -1;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fo, 1);
    posix_spawn_file_actions_adddup2(&fa, fe, 2);
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &all);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
                                      POSIX_SPAWN_SETPGROUP);
    int rc = strchr(x->argv[0], '/') ? posix_spawn(&pid, x->argv[0], &fa, &at, x->argv, envp)
                                     : posix_spawnp(&pid, x->argv[0], &fa, &at, x->argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    return rc ? -rc : pid;
}

/* The message of a spawn that failed: not found names the install hint (one line). */
static int spawn_err(const struct kc_cfg__exec *x, int rc, struct err *e)
{
    if (rc != -ENOENT)
        return err_set(e, rc, "cannot run it: %s", strerror(-rc));
    char *hint = x->install_hint ? strdup(x->install_hint) : NULL;
    for (char *p = hint; p && *p; p++)
        if (*p == '\n' || *p == '\r' || *p == '\t')
            *p = ' ';
    err_set(e, rc, "executable not found%s%s", hint ? ": " : "", hint ? hint : "");
    free(hint);
    return rc;
}

/* Waits for the plugin and turns its end into 0 or a message. */
static int reap(pid_t pid, bool timed_out, int timeout_ms, const struct obuf *errb,
                struct err *e)
{
    int st = 0;
    if (timed_out)
        kill(-pid, SIGKILL);
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    char *lines = stderr_lines(errb);
    const char *l = lines ? lines : "";
    int rc = 0;
    if (timed_out)
        rc = err_set(e, -ETIMEDOUT, "timed out after %d ms and was killed%s", timeout_ms, l);
    else if (WIFEXITED(st) && WEXITSTATUS(st))
        rc = err_set(e, -EIO, "failed with exit code %d%s", WEXITSTATUS(st), l);
    else if (WIFSIGNALED(st))
        rc = err_set(e, -EIO, "killed by signal %d%s", WTERMSIG(st), l);
    free(lines);
    return rc;
}

int kc_cfg__exec_run(const struct kc_cfg__exec *x, char *const envp[], char **out, size_t *len,
                   struct err *e)
{
    int po[2] = {-1, -1}, pe[2] = {-1, -1}, rc = 0;
    struct obuf ob = {.max = OUT_MAX}, eb = {.max = ERR_KEEP};
    if (pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0) {
        rc = err_set(e, -errno, "pipe: %s", strerror(errno));
        goto out;
    }
    pid_t pid = spawn(x, envp, po[1], pe[1]);
    close(po[1]);
    close(pe[1]);
    po[1] = pe[1] = -1;
    if (pid < 0) {
        rc = spawn_err(x, pid, e);
        goto out;
    }
    int got = collect(po[0], pe[0], kt_mono_ms() + x->timeout_ms, &ob, &eb);
    rc = reap(pid, got == -ETIMEDOUT, x->timeout_ms, &eb, e);
    if (rc == 0 && got < 0)
        rc = err_set(e, got, "reading its output: %s", strerror(-got));
    if (rc == 0 && ob.over)
        rc = err_set(e, -EFBIG, "its output is larger than %u bytes", OUT_MAX);
out:
    for (int i = 0; i < 2; i++) {
        if (po[i] >= 0)
            close(po[i]);
        if (pe[i] >= 0)
            close(pe[i]);
    }
    free(eb.s);
    if (rc < 0) {
        kc_cfg__wipe_free(ob.s, ob.cap);
        return rc;
    }
    *out = ob.s ? ob.s : strdup("");
    *len = ob.len;
    return *out ? 0 : err_oom(e);
}
