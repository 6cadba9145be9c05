/* Spawning one container: executable lookup in the container's PATH, then a vfork-style clone
 * whose child sets up a new process group with default signal dispositions and an empty signal
 * mask, registers that group with the watchdog, and execs. */
#include "local/sup_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    const char *path;
    char *const *argv, *const *envp;
    const char *cwd;
    int out_fd;                        /* the output pipe's write end */
    const struct sup__watchdog *wd;
    volatile int err;                  /* errno of the step that failed, 0 when exec'd */
    volatile int step;                 /* which step failed (enum child_step) */
};

enum child_step { STEP_SETUP, STEP_CWD, STEP_EXEC };

/* Runs in the child, on a stack lent by the suspended parent (CLONE_VM | CLONE_VFORK, as
 * glibc's posix_spawn): a new process group, signal dispositions reset and nothing blocked,
 * stdin from /dev/null, stdout and stderr into the pipe, the working directory; then it tells
 * the watchdog its group, and only then runs the container's program.  So a group is known to
 * the watchdog before its program can run, whenever jaxset is killed. */
__attribute__((no_sanitize("address", "undefined"))) static int child_main(void *arg)
{
    struct child *c = arg;
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigset_t none;
    sigemptyset(&none);
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            sigaction(sig, &dfl, NULL);
    int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    c->step = STEP_SETUP;
    if (setpgid(0, 0) < 0 || in < 0 || dup2(in, 0) < 0 || dup2(c->out_fd, 1) < 0 ||
        dup2(c->out_fd, 2) < 0)
        goto fail;
    c->step = STEP_CWD;
    if (c->cwd && chdir(c->cwd) < 0)
        goto fail;
    c->step = STEP_SETUP;
    if (sup__watchdog_register_self(c->wd) < 0 || sigprocmask(SIG_SETMASK, &none, NULL) < 0)
        goto fail;
    c->step = STEP_EXEC;
    execve(c->path, c->argv, c->envp);
fail:
    c->err = errno ? errno : EIO;
    _exit(127);
}

#define SUP_CHILD_STACK (32 * 1024)

/* Clones the child and waits (suspended by the kernel) until it has exec'd or failed. */
static pid_t clone_child(struct child *c)
{
    char stack[SUP_CHILD_STACK] __attribute__((aligned(16)));
    return clone(child_main, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD, c);
}

int sup__spawn(const struct sup_spec *spec, struct sup__watchdog *wd, pid_t *out_pid,
               int *out_pipe, struct err *err)
{
    char path[SUP_PATH_MAX];
    int p[2], rc = resolve(spec, path, sizeof(path), err);
    if (rc < 0)
        return rc;
    if (pipe2(p, O_CLOEXEC) < 0)
        return err_set(err, -errno, "pipe: %s", strerror(errno));
    sup__watchdog_flush(wd); /* a queued "-pgid" must not follow the child's "+pgid" */
    struct child c = {.path = path, .argv = (char *const *)spec->argv,
                      .envp = (char *const *)spec->envp, .cwd = spec->cwd, .out_fd = p[1],
                      .wd = wd};
    pid_t pid = clone_child(&c);
    rc = pid < 0 ? errno : c.err;
    close(p[1]);
    if (rc) {
        close(p[0]);
        if (pid > 0) {
            waitpid(pid, NULL, 0);
            sup__watchdog_forget(wd, pid);
        }
        if (c.step == STEP_CWD)
            return err_set(err, -rc, "workingDir %s: %s", spec->cwd, strerror(rc));
        return err_set(err, -rc, "%s: %s", spec->argv[0], strerror(rc));
    }
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    fcntl(p[0], F_SETPIPE_SZ, SUP_PIPE_SIZE); /* fewer wake-ups for chatty containers; best effort */
    *out_pid = pid;
    *out_pipe = p[0];
    return 0;
}
