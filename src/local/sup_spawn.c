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
 * know it (before Linux 5.3 or 5.7: ENOSYS, E2BIG) or it is not built for this machine.  Read
 * and written by every spawner thread: a stale true costs one more refused clone3. */
static _Atomic bool clone3_known = true;

/* One container's spawn, from the supervisor's thread to a spawner thread and back: the child's
 * arguments, copied (the caller's are freed once sup_spawn returns), and its outcome. */
struct sup__spawn {
    struct child c;
    int cg_dir;     /* the container's cgroup directory, closed after the clone; -1: none */
    int clone_err;  /* errno of a clone that failed */
};

/* Clones the child and waits (suspended by the kernel) until it has exec'd or failed: into the
 * container's cgroup by clone3 (sup_clone3.c); else, or when that was refused, by clone, the
 * child joining the cgroup itself through its cgroup.procs.  The kernel stores the child's pid
 * in *pid before the child runs (CLONE_PARENT_SETTID; kernel/fork.c, kernel_clone), so the
 * supervisor's thread knows the pid of any child it may reap.  Any thread; no allocation: the
 * child's stack is this thread's. */
static pid_t clone_child(struct sup__spawn *sp, char *stack, size_t size, pid_t *pid)
{
    struct child *c = &sp->c;
    c->cg_fd = -1;
    if (sp->cg_dir >= 0 && clone3_known) {
        pid_t got = sup__clone3(child_main, c, stack, size, sp->cg_dir, pid);
        c->in_cg = got >= 0;
        if (got >= 0 || errno == ENOMEM || errno == EAGAIN)
            return got;
        if (errno == ENOSYS || errno == E2BIG || errno == EINVAL)
            clone3_known = false;
    }
    int procs = sp->cg_dir >= 0 ? openat(sp->cg_dir, "cgroup.procs", O_WRONLY | O_CLOEXEC) : -1;
    c->cg_fd = procs;
    pid_t got = clone(child_main, stack + size,
                      CLONE_VM | CLONE_VFORK | CLONE_PARENT_SETTID | SIGCHLD, c, pid);
    int e = errno;
    if (procs >= 0)
        close(procs);
    errno = e;
    return got;
}

void sup__spawn_clone(struct sup__spawn *sp, pid_t *pid)
{
    char stack[SUP_CHILD_STACK] __attribute__((aligned(16)));
    pid_t got = clone_child(sp, stack, sizeof(stack), pid);
    sp->clone_err = got < 0 ? (errno ? errno : EAGAIN) : 0;
    close(sp->c.out_fd);
    sp->c.out_fd = -1;
    if (sp->cg_dir >= 0)
        close(sp->cg_dir);
    sp->cg_dir = -1;
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

/* Where the child starts: the executable resolved here into path, or (inside namespaces, where
 * the container's files may differ from ours) looked up by the child (*lookup); with no
 * working directory and namespaces to enter (they start it at their root), ours into cwd. */
static int child_where(const struct sup_spec *spec, char *path, char *cwd, bool *lookup,
                       struct err *err)
{
    if (!spec->ns)
        return resolve(spec, path, SUP_PATH_MAX, err);
    if (!spec->argv[0] || !*spec->argv[0])
        return err_set(err, -ENOENT, "empty command");
    if (!strchr(spec->argv[0], '/'))
        *lookup = true;
    else if (snprintf(path, SUP_PATH_MAX, "%s", spec->argv[0]) >= SUP_PATH_MAX)
        return err_set(err, -ENAMETOOLONG, "%s: file name too long", spec->argv[0]);
    if (!spec->cwd && !getcwd(cwd, SUP_PATH_MAX))
        cwd[0] = 0;
    return 0;
}

/* Bytes a copy of the NULL-terminated vector v takes (its pointers and strings); *n its length. */
static size_t strv_size(const char *const *v, size_t *n)
{
    size_t bytes = 0;
    for (*n = 0; v && v[*n]; (*n)++)
        bytes += strlen(v[*n]) + 1;
    return bytes + (*n + 1) * sizeof(char *);
}

static char *str_copy(const char *v, char **str)
{
    size_t len = strlen(v) + 1;
    char *out = memcpy(*str, v, len);
    *str += len;
    return out;
}

/* Copies v (n strings): its pointers at *ptrs, its strings at *str, both advanced. */
static char *const *strv_copy(const char *const *v, size_t n, char ***ptrs, char **str)
{
    char **out = *ptrs;
    for (size_t i = 0; i < n; i++)
        out[i] = str_copy(v[i], str);
    out[n] = NULL;
    *ptrs += n + 1;
    return v ? out : NULL;
}

/* One block: the spawn, argv's and envp's pointers, then every string the child reads. */
static struct sup__spawn *spawn_alloc(const struct sup_spec *spec, const char *path,
                                      const char *cwd, bool lookup)
{
    size_t na, ne, bytes = sizeof(struct sup__spawn) + strv_size(spec->argv, &na) +
                           strv_size(spec->envp, &ne) + (cwd ? strlen(cwd) + 1 : 0) +
                           (lookup ? SUP_PATH_MAX : strlen(path) + 1);
    struct sup__spawn *sp = calloc(1, bytes);
    if (!sp)
        return NULL;
    char **ptrs = (char **)(sp + 1), *str = (char *)(ptrs + na + 1 + ne + 1);
    struct child *c = &sp->c;
    c->argv = strv_copy(spec->argv, na, &ptrs, &str);
    c->envp = strv_copy(spec->envp, ne, &ptrs, &str);
    c->cwd = cwd ? str_copy(cwd, &str) : NULL;
    c->cwd_ours = cwd && !spec->cwd;
    if (lookup) {
        c->dirs = env_path((const char *const *)c->envp);
        c->buf = str;
    } else {
        c->path = str_copy(path, &str);
    }
    sp->cg_dir = c->out_fd = c->cg_fd = -1;
    return sp;
}

int sup__spawn_new(const struct sup_spec *spec, const struct sup__base *base,
                   const struct sup__watchdog *wd, int cg_dir, struct sup__spawn **out,
                   int *out_pipe, struct err *err)
{
    char path[SUP_PATH_MAX], cwd[SUP_PATH_MAX] = "";
    bool lookup = false;
    struct sup__spawn *sp = NULL;
    int p[2], rc = child_where(spec, path, cwd, &lookup, err);
    if (rc < 0)
        goto fail;
    sp = spawn_alloc(spec, path, spec->cwd ? spec->cwd : *cwd ? cwd : NULL, lookup);
    if (!sp || (spec->ns && !(sp->c.fds = calloc(spec->ns->n ? spec->ns->n : 1, sizeof(int))))) {
        rc = err_set(err, -ENOMEM, "out of memory");
        goto fail;
    }
    if (pipe2(p, O_CLOEXEC) < 0) {
        rc = err_set(err, -errno, "pipe: %s", strerror(errno));
        goto fail;
    }
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    fcntl(p[0], F_SETPIPE_SZ, SUP_PIPE_SIZE); /* fewer wake-ups for chatty containers; best effort */
    sp->c.base = base;
    sp->c.wd = wd;
    sp->c.ns = spec->ns;
    sp->c.out_fd = p[1];
    sp->cg_dir = cg_dir;
    *out_pipe = p[0];
    *out = sp;
    return 0;
fail:
    sup__spawn_free(sp);
    if (cg_dir >= 0)
        close(cg_dir);
    return rc;
}

int sup__spawn_result(const struct sup__spawn *sp, bool *in_cg, struct err *err)
{
    const struct child *c = &sp->c;
    int rc = sp->clone_err ? sp->clone_err : c->err;
    *in_cg = c->in_cg;
    if (!rc)
        return 0;
    if (c->step == STEP_NS && c->failed < 0)
        return err_set(err, -rc, "joining the pod's namespaces: %s", strerror(rc));
    if (c->step == STEP_NS)
        return err_set(err, -rc, "volume mount at %s: %s", c->ns->m[c->failed].dst,
                       strerror(rc));
    if (c->step == STEP_CWD)
        return err_set(err, -rc, "workingDir %s: %s", c->cwd, strerror(rc));
    if (c->step == STEP_LOOKUP)
        return err_set(err, -rc, "%s: executable file not found in $PATH", c->argv[0]);
    return err_set(err, -rc, "%s: %s", c->argv[0], strerror(rc));
}

void sup__spawn_free(struct sup__spawn *sp)
{
    if (!sp)
        return;
    if (sp->c.out_fd >= 0)
        close(sp->c.out_fd);
    if (sp->cg_dir >= 0)
        close(sp->cg_dir);
    free(sp->c.fds);
    free(sp);
}
