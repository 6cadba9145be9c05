/* Spawning one container: executable lookup in the container's PATH, then a vfork-style clone
 * whose child sets up a new process group with default signal dispositions and an empty signal
 * mask, a child subreaper (its orphans stay below it), enters the pod's namespaces when it has
 * volumes (local/nsroot.h), registers that group with the watchdog, and execs. */
#include "local/sup_int.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <signal.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define SUP_PATH_MAX 4096
#define SUP_PIPE_SIZE (256 * 1024)

static const char *env_path(const char *const *envp)
{
    for (; envp && *envp; envp++)
        if (!strncmp(*envp, "PATH=", 5))
            return *envp + 5;
    const char *p = getenv("PATH");
    return p ? p : "/usr/local/bin:/usr/bin:/bin";
}

/* Resolves argv[0] as a shell would: as given when it contains '/', else along PATH. */
static int resolve(const struct sup_spec *spec, char *out, size_t n, struct err *err)
{
    const char *name = spec->argv[0];
    if (!name || !*name)
        return err_set(err, -ENOENT, "empty command");
    if (strchr(name, '/')) {
        if (snprintf(out, n, "%s", name) >= (int)n)
            return err_set(err, -ENAMETOOLONG, "%s: file name too long", name);
        return 0;
    }
    const char *dirs = env_path(spec->envp);
    while (*dirs) {
        size_t len = strcspn(dirs, ":");
        /* a candidate longer than n (PATH_MAX) could not be executed: skip it */
        if (snprintf(out, n, "%.*s%s%s", (int)len, dirs, len ? "/" : "", name) < (int)n &&
            access(out, X_OK) == 0)
            return 0;
        dirs += len + (dirs[len] == ':');
    }
    return err_set(err, -ENOENT, "%s: executable file not found in $PATH", name);
}

/* What the child needs, all prepared before the clone: it only makes system calls. */
struct child {
    const char *path;                  /* the executable; NULL: look argv[0] up in `dirs` */
    const char *dirs;                  /* the container's PATH */
    char *buf;                         /* SUP_PATH_MAX bytes for the lookup */
    char *const *argv, *const *envp;
    const char *cwd;
    bool cwd_ours;                     /* cwd is jaxset's: "/" when the pod's mounts hide it */
    const struct sup__base *base;      /* stdin, and the signals to set back to SIG_DFL */
    int out_fd;                        /* the output pipe's write end */
    int cg_fd;                         /* the container's cgroup.procs to join, -1: none */
    volatile bool in_cg;               /* the child is in the container's cgroup */
    const struct sup__watchdog *wd;
    const struct nsr_enter *ns;        /* NULL: none */
    int *fds;                          /* scratch for nsr__enter */
    long failed;                       /* the mount nsr__enter failed on */
    volatile int err;                  /* errno of the step that failed, 0 when exec'd */
    volatile int step;                 /* which step failed (enum child_step) */
};

enum child_step { STEP_SETUP, STEP_NS, STEP_CWD, STEP_EXEC, STEP_LOOKUP };

/* execvpe's search, along the container's PATH, inside its namespaces: returns on failure. */
__attribute__((no_sanitize("address", "undefined"))) static void exec_lookup(struct child *c)
{
    const char *name = c->argv[0], *dirs = c->dirs;
    size_t nl = strlen(name);
    bool denied = false;
    while (*dirs) {
        size_t len = strcspn(dirs, ":");
        if (len + 1 + nl < SUP_PATH_MAX) {
            size_t o = len;
            memcpy(c->buf, dirs, len);
            if (len)
                c->buf[o++] = '/';
            memcpy(c->buf + o, name, nl + 1);
            execve(c->buf, c->argv, c->envp);
            if (errno == EACCES)
                denied = true;
            else if (errno != ENOENT && errno != ENOTDIR)
                return;
        }
        dirs += len + (dirs[len] == ':');
    }
    c->step = denied ? STEP_EXEC : STEP_LOOKUP;
    errno = denied ? EACCES : ENOENT;
}

/* Runs in the child, on a stack lent by the suspended parent (CLONE_VM | CLONE_VFORK, as
 * glibc's posix_spawn): a new process group, signal dispositions reset and nothing blocked,
 * stdin from /dev/null, stdout and stderr into the pipe, the working directory; then it tells
 * the watchdog its group, and only then runs the container's program.  So a group is known to
 * the watchdog before its program can run, whenever jaxset is killed.  Only the dispositions
 * that are not the default are set (c->base->reset): execve sets caught signals back to
 * SIG_DFL but keeps ignored ones, and a handler must not run in a child that shares our
 * memory once it unblocks signals; the others are SIG_DFL already. */
__attribute__((no_sanitize("address", "undefined"))) static int child_main(void *arg)
{
    struct child *c = arg;
    struct sigaction dfl = {.sa_handler = SIG_DFL}, ign = {.sa_handler = SIG_IGN};
    sigset_t none;
    sigemptyset(&none);
    for (int sig = 1; sig < NSIG; sig++) /* SIGPIPE: a dead watchdog fails the spawn below */
        if (sigismember(&c->base->reset, sig) == 1)
            sigaction(sig, sig == SIGPIPE ? &ign : &dfl, NULL);
    c->step = STEP_SETUP;
    /* the container's orphans stay below its main process, as below a container's PID 1
     * (sup_tree.c); kept across execve */
    if (setpgid(0, 0) < 0 || dup2(c->base->devnull, 0) < 0 || dup2(c->out_fd, 1) < 0 ||
        dup2(c->out_fd, 2) < 0 || prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
        goto fail;
    if (c->cg_fd >= 0) /* refused: the process trees alone */
        c->in_cg = write(c->cg_fd, "0", 1) == 1;
    c->step = STEP_NS;
    if (c->ns && nsr__enter(c->ns, c->fds, &c->failed) < 0)
        goto fail;
    c->step = STEP_CWD;
    if (c->cwd && chdir(c->cwd) < 0 && (!c->cwd_ours || chdir("/") < 0))
        goto fail;
    c->step = STEP_SETUP;
    if (sup__watchdog_register_self(c->wd) < 0 || sigaction(SIGPIPE, &dfl, NULL) < 0 ||
        sigprocmask(SIG_SETMASK, &none, NULL) < 0)
        goto fail;
    c->step = STEP_EXEC;
    if (c->path)
        execve(c->path, c->argv, c->envp);
    else
        exec_lookup(c);
fail:
    c->err = errno ? errno : EIO;
    _exit(127);
}

#define SUP_CHILD_STACK (32 * 1024)

/* Whether clone3 may put a child into its cgroup here: no longer tried once the kernel did not
 * know it (before Linux 5.3 or 5.7: ENOSYS, E2BIG) or it is not built for this machine. */
static bool clone3_known = true;

/* Clones the child and waits (suspended by the kernel) until it has exec'd or failed: into the
 * container's cgroup `cg_dir` by clone3 (sup_clone3.c); else, or when that was refused, by
 * clone, the child joining the cgroup itself through its cgroup.procs. */
static pid_t clone_child(struct child *c, int cg_dir)
{
    char stack[SUP_CHILD_STACK] __attribute__((aligned(16)));
    c->cg_fd = -1;
    if (cg_dir >= 0 && clone3_known) {
        pid_t pid = sup__clone3(child_main, c, stack, sizeof(stack), cg_dir);
        c->in_cg = pid >= 0;
        if (pid >= 0 || errno == ENOMEM || errno == EAGAIN)
            return pid;
        clone3_known = errno != ENOSYS && errno != E2BIG && errno != EINVAL;
    }
    int procs = cg_dir >= 0 ? openat(cg_dir, "cgroup.procs", O_WRONLY | O_CLOEXEC) : -1;
    c->cg_fd = procs;
    pid_t pid = clone(child_main, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD, c);
    int e = errno;
    if (procs >= 0)
        close(procs);
    errno = e;
    return pid;
}

/* What the child is given: the executable resolved here, or (inside namespaces, where the
 * container's files may differ from ours) looked up by the child; its working directory, ours
 * when it has none and enters namespaces (they start it at their root). */
static int child_prepare(const struct sup_spec *spec, struct child *c, char *path, char *cwd,
                         struct err *err)
{
    c->argv = (char *const *)spec->argv;
    c->envp = (char *const *)spec->envp;
    c->cwd = spec->cwd;
    c->ns = spec->ns;
    c->path = path;
    if (!spec->ns)
        return resolve(spec, path, SUP_PATH_MAX, err);
    if (!spec->argv[0] || !*spec->argv[0])
        return err_set(err, -ENOENT, "empty command");
    if (!strchr(spec->argv[0], '/')) {
        c->path = NULL;
        c->dirs = env_path(spec->envp);
        c->buf = path;
    } else if (snprintf(path, SUP_PATH_MAX, "%s", spec->argv[0]) >= SUP_PATH_MAX) {
        return err_set(err, -ENAMETOOLONG, "%s: file name too long", spec->argv[0]);
    }
    if (!c->cwd && getcwd(cwd, SUP_PATH_MAX)) {
        c->cwd = cwd;
        c->cwd_ours = true;
    }
    c->fds = calloc(spec->ns->n ? spec->ns->n : 1, sizeof(*c->fds));
    return c->fds ? 0 : err_set(err, -ENOMEM, "out of memory");
}

static int child_error(const struct sup_spec *spec, const struct child *c, int rc,
                       struct err *err)
{
    if (c->step == STEP_NS && c->failed < 0)
        return err_set(err, -rc, "joining the pod's namespaces: %s", strerror(rc));
    if (c->step == STEP_NS)
        return err_set(err, -rc, "volume mount at %s: %s", spec->ns->m[c->failed].dst,
                       strerror(rc));
    if (c->step == STEP_CWD)
        return err_set(err, -rc, "workingDir %s: %s", c->cwd, strerror(rc));
    if (c->step == STEP_LOOKUP)
        return err_set(err, -rc, "%s: executable file not found in $PATH", spec->argv[0]);
    return err_set(err, -rc, "%s: %s", spec->argv[0], strerror(rc));
}

int sup__base_open(struct sup__base *b)
{
    struct sigaction sa;
    sigemptyset(&b->reset);
    sigaddset(&b->reset, SIGPIPE); /* the child ignores it until the watchdog knows it */
    for (int sig = 1; sig < NSIG; sig++) /* glibc's own (32, 33) are refused: not ours to set */
        if (sig != SIGKILL && sig != SIGSTOP && sigaction(sig, NULL, &sa) == 0 &&
            sa.sa_handler != SIG_DFL)
            sigaddset(&b->reset, sig);
    b->devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    return b->devnull < 0 ? -errno : 0;
}

void sup__base_close(struct sup__base *b)
{
    if (b->devnull >= 0)
        close(b->devnull);
    b->devnull = -1;
}

int sup__spawn(const struct sup_spec *spec, const struct sup__base *base, struct sup__watchdog *wd,
               int cg_dir, pid_t *out_pid, int *out_pipe, bool *in_cg, struct err *err)
{
    char path[SUP_PATH_MAX], cwd[SUP_PATH_MAX];
    struct child c = {.base = base, .wd = wd, .cg_fd = -1};
    int p[2], rc = child_prepare(spec, &c, path, cwd, err);
    if (rc < 0)
        goto out;
    if (pipe2(p, O_CLOEXEC) < 0) {
        rc = err_set(err, -errno, "pipe: %s", strerror(errno));
        goto out;
    }
    sup__watchdog_flush(wd); /* a queued "-pgid" must not follow the child's "+pgid" */
    c.out_fd = p[1];
    pid_t pid = clone_child(&c, cg_dir);
    rc = pid < 0 ? errno : c.err;
    close(p[1]);
    if (rc) {
        close(p[0]);
        if (pid > 0) {
            waitpid(pid, NULL, 0);
            sup__watchdog_forget(wd, pid);
        }
        rc = child_error(spec, &c, rc, err);
        goto out;
    }
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    fcntl(p[0], F_SETPIPE_SZ, SUP_PIPE_SIZE); /* fewer wake-ups for chatty containers; best effort */
    *out_pid = pid;
    *out_pipe = p[0];
    *in_cg = c.in_cg;
out:
    free(c.fds);
    return rc;
}
