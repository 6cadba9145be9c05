/* Spawning one container: executable lookup in the container's PATH, then a clone sharing our
 * memory (the supervisor goes on meanwhile, sup_clones.c) whose child sets up a new process
 * group with default signal dispositions and an empty signal mask, a child subreaper (its
 * orphans stay below it), enters the pod's namespaces when it has volumes (local/ns/nsroot.h),
 * registers that group with the watchdog, and execs. */
#include "local/sup/sup_int.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <signal.h>
#include <sched.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
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
    int wd_fd;                         /* the watchdog's pipe, where the child registers */
    const struct nsr_enter *ns;        /* NULL: none */
    int *fds;                          /* scratch for nsr__enter */
    long failed;                       /* the mount nsr__enter failed on */
    volatile int err;                  /* errno of the step that failed, 0 when exec'd */
    volatile int step;                 /* which step failed (enum child_step) */
};

enum child_step { STEP_SETUP, STEP_NS, STEP_CWD, STEP_EXEC, STEP_LOOKUP };

/* The child makes system calls of its own, none through glibc: a child that runs beside us in
 * our memory (no CLONE_VFORK) must not write errno, which is our thread's; the result is the
 * kernel's, a negative errno on failure. */
#if defined(__x86_64__)
#define SUP_RAW_SYSCALLS 1
__attribute__((always_inline)) static inline long rsys(long n, long a, long b, long c, long d)
{
    long ret;
    register long r10 __asm__("r10") = d;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
                     : "rcx", "r11", "memory");
    return ret;
}
#elif defined(__aarch64__)
#define SUP_RAW_SYSCALLS 1
__attribute__((always_inline)) static inline long rsys(long n, long a, long b, long c, long d)
{
    register long x8 __asm__("x8") = n, x0 __asm__("x0") = a, x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c, x3 __asm__("x3") = d;
    __asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
    return x0;
}
#else /* only ever under CLONE_VFORK (clone_child): errno is the child's to write */
#define SUP_RAW_SYSCALLS 0
static long rsys(long n, long a, long b, long c, long d)
{
    long r = syscall(n, a, b, c, d);
    return r < 0 ? -errno : r;
}
#endif
#define SYS1(n, a) rsys(SYS_##n, (long)(a), 0, 0, 0)
#define SYS3(n, a, b, c) rsys(SYS_##n, (long)(a), (long)(b), (long)(c), 0)
#define SYS4(n, a, b, c, d) rsys(SYS_##n, (long)(a), (long)(b), (long)(c), (long)(d))

#if SUP_RAW_SYSCALLS
/* The kernel's struct sigaction on x86_64 and aarch64 (both have sa_restorer; glibc does not
 * define SA_RESTORER): only SIG_DFL and SIG_IGN are set, with no flags, nothing blocked and no
 * restorer. */
struct ksigaction {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)(void);
    uint64_t mask;
};

__attribute__((always_inline)) static inline long child_sigaction(int sig, void (*handler)(int))
{
    struct ksigaction sa = {.handler = handler};
    return SYS4(rt_sigaction, sig, &sa, NULL, sizeof(sa.mask));
}
#else /* under CLONE_VFORK: glibc's, which knows this machine's struct */
__attribute__((no_sanitize("address", "undefined"))) static long
child_sigaction(int sig, void (*handler)(int))
{
    struct sigaction sa = {.sa_handler = handler};
    return sigaction(sig, &sa, NULL) < 0 ? -errno : 0;
}
#endif

/* execvpe's search, along the container's PATH, inside its namespaces: returns the errno of
 * the failure. */
__attribute__((no_sanitize("address", "undefined"))) static long exec_lookup(struct child *c)
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
            long e = -SYS3(execve, c->buf, c->argv, c->envp);
            if (e == EACCES)
                denied = true;
            else if (e != ENOENT && e != ENOTDIR)
                return e;
        }
        dirs += len + (dirs[len] == ':');
    }
    c->step = denied ? STEP_EXEC : STEP_LOOKUP;
    return denied ? EACCES : ENOENT;
}

/* The child's setup: 0 or the negative errno of the step that failed (c->step). */
__attribute__((no_sanitize("address", "undefined"))) static long child_setup(struct child *c)
{
    uint64_t none = 0; /* the kernel's sigset_t */
    long rc;
    for (int sig = 1; sig < NSIG; sig++) /* SIGPIPE: a dead watchdog fails the spawn below */
        if (sigismember(&c->base->reset, sig) == 1)
            child_sigaction(sig, sig == SIGPIPE ? SIG_IGN : SIG_DFL);
    c->step = STEP_SETUP;
    /* the container's orphans stay below its main process, as below a container's PID 1
     * (sup_tree.c); kept across execve */
    if ((rc = SYS3(setpgid, 0, 0, 0)) < 0 || (rc = SYS3(dup3, c->base->devnull, 0, 0)) < 0 ||
        (rc = SYS3(dup3, c->out_fd, 1, 0)) < 0 || (rc = SYS3(dup3, c->out_fd, 2, 0)) < 0 ||
        (rc = SYS3(prctl, PR_SET_CHILD_SUBREAPER, 1, 0)) < 0)
        return rc;
    if (c->cg_fd >= 0) /* refused: the process trees alone */
        c->in_cg = SYS3(write, c->cg_fd, "0", 1) == 1;
    c->step = STEP_NS;
    if (c->ns && nsr__enter(c->ns, c->fds, &c->failed) < 0) /* only under CLONE_VFORK */
        return -errno;
    c->step = STEP_CWD;
    if (c->cwd && (rc = SYS1(chdir, c->cwd)) < 0 &&
        (!c->cwd_ours || (rc = SYS1(chdir, "/")) < 0))
        return rc;
    c->step = STEP_SETUP;
    struct sup__wd_rec r = {.op = '+', .pgid = (int32_t)SYS1(getpid, 0)};
    if ((rc = SYS3(write, c->wd_fd, &r, sizeof(r))) != (long)sizeof(r))
        return rc < 0 ? rc : -EPIPE;
    if ((rc = child_sigaction(SIGPIPE, SIG_DFL)) < 0 ||
        (rc = SYS4(rt_sigprocmask, SIG_SETMASK, &none, NULL, sizeof(none))) < 0)
        return rc;
    return 0;
}

/* Runs in the child, on a stack of its own in our memory: a new process group, signal
 * dispositions reset and nothing blocked, stdin from /dev/null, stdout and stderr into the
 * pipe, the working directory; then it tells the watchdog its group, and only then runs the
 * container's program.  So a group is known to the watchdog before its program can run,
 * whenever jaxset is killed.  Only the dispositions that are not the default are set
 * (c->base->reset): execve sets caught signals back to SIG_DFL but keeps ignored ones, and a
 * handler must not run in a child that shares our memory once it unblocks signals; the others
 * are SIG_DFL already.  Its failure is left in c->err and c->step, read once the kernel has
 * cleared the spawn's word (or once the suspended caller runs again). */
__attribute__((no_sanitize("address", "undefined"))) static int child_main(void *arg)
{
    struct child *c = arg;
    long rc = child_setup(c);
    if (rc == 0) {
        c->step = STEP_EXEC;
        rc = c->path ? SYS3(execve, c->path, c->argv, c->envp) : -exec_lookup(c);
    }
    c->err = rc < 0 ? (int)-rc : EIO;
    return 127;
}

/* Whether clone3 may put a child into its cgroup here: no longer tried once the kernel did not
 * know it (before Linux 5.3 or 5.7: ENOSYS, E2BIG) or it is not built for this machine. */
static bool clone3_known = true;

/* One container's spawn: the child's arguments, copied (the caller's are freed once sup_spawn
 * returns), its stack, and its outcome. */
struct sup__spawn {
    struct child c;
    int cg_dir;     /* the container's cgroup directory, closed after the clone; -1: none */
    int clone_err;  /* errno of a clone that failed */
    int busy;       /* 1 while the child may still use what is here; the kernel clears it */
    char *stack;    /* SUP_CHILD_STACK bytes, lent by sup_clones.c */
    bool out_closed; /* c.out_fd, ours, is closed: c is the child's to read until it execs */
};

/* Clones the child into the container's cgroup by clone3 (sup_clone3.c); else, or when that
 * was refused, by clone, the child joining the cgroup itself through its cgroup.procs.  The
 * kernel stores the child's pid in *pid before the child runs (CLONE_PARENT_SETTID;
 * kernel/fork.c, kernel_clone), so the supervisor knows the pid of any child it may reap.
 * Without namespaces to enter (nsr__enter is glibc's code, which writes errno), the call
 * returns at once and the kernel clears sp->busy when the child has exec'd or exited
 * (CLONE_CHILD_CLEARTID); else the caller is suspended until then (CLONE_VFORK). */
static pid_t clone_child(struct sup__spawn *sp, pid_t *pid)
{
    struct child *c = &sp->c;
    int *clear = SUP_RAW_SYSCALLS && !c->ns ? &sp->busy : NULL;
    c->cg_fd = -1;
    sp->busy = clear != NULL;
    if (sp->cg_dir >= 0 && clone3_known) {
        c->in_cg = true; /* set before: c is the child's to read once it runs */
        pid_t got = sup__clone3(child_main, c, sp->stack, SUP_CHILD_STACK, sp->cg_dir, pid,
                                clear);
        if (got < 0)
            c->in_cg = false;
        if (got >= 0 || errno == ENOMEM || errno == EAGAIN)
            return got;
        if (errno == ENOSYS || errno == E2BIG || errno == EINVAL)
            clone3_known = false;
    }
    int procs = sp->cg_dir >= 0 ? openat(sp->cg_dir, "cgroup.procs", O_WRONLY | O_CLOEXEC) : -1;
    c->cg_fd = procs;
    int flags = CLONE_VM | CLONE_PARENT_SETTID | SIGCHLD |
                (clear ? CLONE_CHILD_CLEARTID : CLONE_VFORK);
    pid_t got = clone(child_main, sp->stack + SUP_CHILD_STACK, flags, c, pid, NULL, clear);
    int e = errno;
    if (procs >= 0) /* the child has a copy of its own */
        close(procs);
    errno = e;
    return got;
}

void sup__spawn_clone(struct sup__spawn *sp, pid_t *pid, char *stack)
{
    sp->stack = stack;
    pid_t got = clone_child(sp, pid);
    sp->clone_err = got < 0 ? (errno ? errno : EAGAIN) : 0;
    if (got < 0)
        sp->busy = 0;
    close(sp->c.out_fd); /* the child has a copy of its own, and may still read c */
    sp->out_closed = true;
    if (sp->cg_dir >= 0)
        close(sp->cg_dir);
    sp->cg_dir = -1;
}

bool sup__spawn_done(const struct sup__spawn *sp)
{
    return __atomic_load_n(&sp->busy, __ATOMIC_ACQUIRE) == 0;
}

/* The kernel wakes a shared futex on the word (kernel/fork.c, mm_release), as for a thread's
 * end: a private wait would not be woken. */
void sup__spawn_join(struct sup__spawn *sp)
{
    int v;
    while ((v = __atomic_load_n(&sp->busy, __ATOMIC_ACQUIRE)) != 0)
        syscall(SYS_futex, &sp->busy, FUTEX_WAIT, v, NULL, NULL, 0);
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
        rc = err_oom(err);
        goto fail;
    }
    if (pipe2(p, O_CLOEXEC) < 0) {
        rc = err_set(err, -errno, "pipe: %s", strerror(errno));
        goto fail;
    }
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    fcntl(p[0], F_SETPIPE_SZ, SUP_PIPE_SIZE); /* fewer wake-ups for chatty containers; best effort */
    sp->c.base = base;
    sp->c.wd_fd = wd->fd;
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
    if (c->step == STEP_NS && c->failed == NSR_FAILED_ROOT)
        return err_set(err, -rc, "the container's image root (overlay, pivot_root, user): %s",
                       strerror(rc));
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
    sup__spawn_join(sp); /* the child may still read what is here */
    if (sp->c.out_fd >= 0 && !sp->out_closed)
        close(sp->c.out_fd);
    if (sp->cg_dir >= 0)
        close(sp->cg_dir);
    free(sp->c.fds);
    free(sp);
}
