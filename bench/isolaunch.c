/* isolaunch: the isolation floor for bench_local's launch section.  Like `launcher` it is a
 * libc-only program exec'd by the harness that starts N copies of PROG; unlike it, each copy
 * gets what `jaxset run` must give every container, whatever a launcher does besides, and
 * nothing more:
 *
 *   - a cgroup of its own, the child born in it (clone3 with CLONE_INTO_CGROUP, Linux 5.7),
 *     so that what the container leaves behind can be killed with it (cgroup.kill);
 *   - a process group of its own, and stdout and stderr into a pipe of its own;
 *   - the pods' host names: libnss_wrapper preloaded (where Debian's libnss-wrapper is
 *     installed) with NSS_WRAPPER_HOSTS naming a hosts file of the N names, written first;
 *   - with RUNDIR, what `jaxset run` must do for the run as a whole: nothing lost (the run's
 *     directory with logs/, events.log and the hosts file before the first spawn, its status
 *     written once all are spawned, by a temporary file and a rename) and no orphan (a
 *     watchdog forked first, holding a pipe where each child registers its process group
 *     before its exec, killing those groups when the pipe ends).
 *
 * The children are started as a fork, not suspending the launcher (no CLONE_VFORK), so that
 * their set-up and exec run beside the next spawn, as jaxset's do.  Where cgroup2 is not
 * mounted or not writable, the children go without (stderr says so), as they do under jaxset.
 *
 *   isolaunch N PROG [RUNDIR]
 *
 * SIGTERM kills the N groups, removes the cgroups, the hosts file and RUNDIR, and exits. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

#define ISO_MAX 4096

extern char **environ;

static const char *const nss_paths[] = {
    "/usr/lib/x86_64-linux-gnu/libnss_wrapper.so", "/usr/lib/aarch64-linux-gnu/libnss_wrapper.so",
    "/usr/lib64/libnss_wrapper.so", "/usr/lib/libnss_wrapper.so",
};

static struct {
    pid_t pid[ISO_MAX];
    int n;
    char cg[512];  /* this launcher's cgroup directory; "" when none */
    int cg_fd;     /* open on it; -1 when none */
    char hosts[600];
    const char *dir; /* RUNDIR; NULL when none */
    int events_fd;   /* RUNDIR/events.log */
    int wd_fd;       /* the watchdog's pipe, where each child registers its group */
    pid_t wd_pid;
} g = {.cg_fd = -1, .events_fd = -1, .wd_fd = -1, .wd_pid = -1};

/* RUNDIR/name into out (600 bytes). */
static char *in_dir(char *out, const char *name)
{
    snprintf(out, 600, "%s/%s", g.dir, name);
    return out;
}

/* The run's directory before the first spawn: itself, logs/ and events.log. */
static int run_dir_open(void)
{
    char path[600];
    static const char line[] = "isolaunch: started\n";
    if (mkdir(g.dir, 0700) < 0 || mkdir(in_dir(path, "logs"), 0700) < 0)
        return -1;
    g.events_fd = open(in_dir(path, "events.log"),
                       O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
    return g.events_fd < 0 || write(g.events_fd, line, sizeof(line) - 1) < 0 ? -1 : 0;
}

/* The status once every child is spawned: their pids, by a temporary file and a rename. */
static int status_write(void)
{
    char tmp[600], path[600];
    FILE *f = fopen(in_dir(tmp, "status.json.tmp"), "we");
    if (!f)
        return -1;
    fprintf(f, "{\"pods\": [");
    for (int i = 0; i < g.n; i++)
        fprintf(f, "%s{\"index\": %d, \"pid\": %d}", i ? ", " : "", i, (int)g.pid[i]);
    fprintf(f, "]}\n");
    return fclose(f) == 0 && rename(tmp, in_dir(path, "status.json")) == 0 ? 0 : -1;
}

static void run_dir_remove(void)
{
    char path[600];
    static const char *const files[] = {"events.log", "hosts", "status.json", "status.json.tmp"};
    if (g.events_fd >= 0)
        close(g.events_fd);
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
        unlink(in_dir(path, files[i]));
    rmdir(in_dir(path, "logs"));
    rmdir(g.dir);
}

/* The watchdog: a fork holding the read end of a pipe where each child writes its process
 * group before its exec; when the pipe ends (this launcher exited or was killed), it kills
 * every group registered. */
static int watchdog_start(void)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0 || (g.wd_pid = fork()) < 0)
        return -1;
    if (g.wd_pid == 0) {
        static pid_t groups[ISO_MAX];
        size_t n = 0;
        ssize_t got;
        close(p[1]);
        while (n < ISO_MAX &&
               (got = read(p[0], groups + n, (ISO_MAX - n) * sizeof(pid_t))) != 0)
            if (got > 0)
                n += (size_t)got / sizeof(pid_t);
            else if (errno != EINTR)
                break;
        for (size_t i = 0; i < n; i++)
            kill(-groups[i], SIGKILL);
        _exit(0);
    }
    close(p[0]);
    g.wd_fd = p[1];
    return 0;
}

/* The cgroup2 directory of this process, under one of the usual mount points (unified or
 * hybrid); 0 or -1. */
static int own_cgroup(char *out, size_t n)
{
    static const char *const mounts[] = {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"};
    struct statfs sf;
    char line[512] = "";
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f) && strncmp(line, "0::", 3))
        line[0] = 0;
    fclose(f);
    line[strcspn(line, "\n")] = 0;
    for (size_t i = 0; i < 2 && !strncmp(line, "0::", 3); i++)
        if (statfs(mounts[i], &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC)
            return snprintf(out, n, "%s%s", mounts[i], strcmp(line + 3, "/") ? line + 3 : "") <
                           (int)n
                       ? 0
                       : -1;
    errno = ENOENT;
    return -1;
}

static void cg_open(void)
{
    char self[384];
    if (own_cgroup(self, sizeof(self)) < 0 ||
        snprintf(g.cg, sizeof(g.cg), "%s/isolaunch-%d", self, (int)getpid()) >=
            (int)sizeof(g.cg) ||
        mkdir(g.cg, 0700) < 0 || (g.cg_fd = open(g.cg, O_RDONLY | O_DIRECTORY)) < 0) {
        fprintf(stderr, "isolaunch: no cgroup of its own (%s): the children go without\n",
                strerror(errno));
        if (g.cg[0])
            rmdir(g.cg);
        g.cg[0] = 0;
    }
}

static int write_hosts(int n)
{
    if (g.dir)
        in_dir(g.hosts, "hosts");
    else
        snprintf(g.hosts, sizeof(g.hosts), "/tmp/isolaunch-%d.hosts", (int)getpid());
    FILE *f = fopen(g.hosts, "we");
    if (!f)
        return -1;
    for (int i = 0; i < n; i++)
        fprintf(f, "127.0.0.1 iso-w-0-%d iso-w-0-%d.iso iso-w-0-%d.iso.default.svc.cluster.local\n",
                i, i, i);
    return fclose(f);
}

/* environ, then LD_PRELOAD and NSS_WRAPPER_HOSTS where libnss_wrapper is installed, then
 * the JOB_COMPLETION_INDEX slot (filled per child). */
static char **child_env(char *slot)
{
    static char preload[160], hosts[sizeof(g.hosts) + 32];
    size_t n = 0, k;
    while (environ[n])
        n++;
    char **envp = calloc(n + 4, sizeof(*envp));
    if (!envp)
        return NULL;
    memcpy(envp, environ, n * sizeof(*envp));
    k = n;
    for (size_t i = 0; i < sizeof(nss_paths) / sizeof(nss_paths[0]); i++)
        if (access(nss_paths[i], R_OK) == 0) {
            snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", nss_paths[i]);
            snprintf(hosts, sizeof(hosts), "NSS_WRAPPER_HOSTS=%s", g.hosts);
            envp[k++] = preload;
            envp[k++] = hosts;
            break;
        }
    envp[k] = slot;
    return envp;
}

/* The child, a fork in its cgroup: its group (registered with the watchdog), its pipe, the
 * default signal mask, exec. */
static void child(int out, char *prog, char **envp)
{
    sigset_t none;
    pid_t self = getpid();
    char *argv[] = {prog, NULL};
    sigemptyset(&none);
    setpgid(0, 0);
    if (g.wd_fd >= 0 && write(g.wd_fd, &self, sizeof(self)) != (ssize_t)sizeof(self))
        _exit(127);
    dup2(out, 1);
    dup2(out, 2);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execve(prog, argv, envp);
    _exit(127);
}

/* One child: its cgroup, its pipe (the read end kept open, never read), the clone. */
static pid_t spawn_one(int i, char *prog, char **envp)
{
    char name[32];
    int p[2], dir = -1;
    struct {
        uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
        uint64_t set_tid, set_tid_size, cgroup;
    } a = {.exit_signal = SIGCHLD};
    if (g.cg_fd >= 0) {
        snprintf(name, sizeof(name), "c%d", i);
        if (mkdirat(g.cg_fd, name, 0700) == 0)
            dir = openat(g.cg_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir < 0)
            return -1;
        a.flags = CLONE_INTO_CGROUP;
        a.cgroup = (uint64_t)dir;
    }
    if (pipe2(p, O_CLOEXEC) < 0)
        return -1;
    long pid = syscall(SYS_clone3, &a, sizeof(a));
    if (pid == 0)
        child(p[1], prog, envp);
    close(p[1]);
    if (dir >= 0)
        close(dir);
    return (pid_t)pid;
}

static void stop(void)
{
    char name[32];
    for (int i = 0; i < g.n; i++) /* the group, and the child in case it had not made it yet */
        kill(-g.pid[i], SIGKILL), kill(g.pid[i], SIGKILL);
    if (g.wd_fd >= 0)
        close(g.wd_fd); /* the watchdog ends */
    while ((g.n || g.wd_pid > 0) && wait(NULL) > 0)
        ;
    for (int i = 0; g.cg_fd >= 0 && i < g.n; i++) {
        snprintf(name, sizeof(name), "c%d", i);
        unlinkat(g.cg_fd, name, AT_REMOVEDIR);
    }
    if (g.cg[0])
        rmdir(g.cg);
    if (g.dir)
        run_dir_remove();
    else
        unlink(g.hosts);
}

int main(int argc, char **argv)
{
    char slot[48];
    int n = argc == 3 || argc == 4 ? atoi(argv[1]) : 0, sig;
    if (n < 1 || n > ISO_MAX) {
        fprintf(stderr, "usage: isolaunch N PROG [RUNDIR]   (1 <= N <= %d)\n", ISO_MAX);
        return 2;
    }
    g.dir = argc == 4 ? argv[3] : NULL;
    sigset_t term;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    sigprocmask(SIG_BLOCK, &term, NULL); /* taken by sigwait below; the children unblock it */
    if (g.dir && (run_dir_open() < 0 || watchdog_start() < 0)) {
        fprintf(stderr, "isolaunch: %s: %s\n", g.dir, strerror(errno));
        stop();
        return 1;
    }
    cg_open();
    char **envp = write_hosts(n) == 0 ? child_env(slot) : NULL;
    for (int i = 0; envp && i < n; i++) {
        snprintf(slot, sizeof(slot), "JOB_COMPLETION_INDEX=%d", i);
        if ((g.pid[g.n] = spawn_one(i, argv[2], envp)) < 0) {
            fprintf(stderr, "isolaunch: child %d: %s\n", i, strerror(errno));
            break;
        }
        g.n++;
    }
    if (g.dir && g.n == n && status_write() < 0)
        fprintf(stderr, "isolaunch: status: %s\n", strerror(errno));
    if (envp && g.n == n)
        sigwait(&term, &sig);
    stop();
    free(envp);
    return g.n == n ? 0 : 1;
}
