/* The supervisor on real processes: output forwarding and logs, exit statuses, group kill,
 * spawn errors, and the watchdog killing a group when its supervisor dies. */
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "local/sup/sup.h"
#include "local/sup/sup_int.h"

static const char *const ENV[] = {"PATH=/usr/bin:/bin", NULL};

/* True while some non-zombie process is in group `pgid` (zombies wait for init to reap them,
 * which may take a while in a container). */
static bool group_alive(pid_t pgid)
{
    DIR *d = opendir("/proc");
    struct dirent *de;
    bool alive = false;
    while (d && !alive && (de = readdir(d))) {
        char path[300], buf[512];
        snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
        FILE *fp = fopen(path, "r");
        if (!fp)
            continue;
        size_t n = fread(buf, 1, sizeof(buf) - 1, fp);
        fclose(fp);
        buf[n] = 0;
        char *rp = strrchr(buf, ')');
        char state;
        int ppid, pgrp;
        if (rp && sscanf(rp + 1, " %c %d %d", &state, &ppid, &pgrp) == 3)
            alive = pgrp == pgid && state != 'Z';
    }
    if (d)
        closedir(d);
    return alive;
}

static bool wait_group_gone(pid_t pgid)
{
    time_t end = time(NULL) + 10;
    while (group_alive(pgid) && time(NULL) < end)
        usleep(10000);
    return !group_alive(pgid);
}

/* A process's state and parent from /proc/<pid>/stat; false when it is gone. */
static bool proc_stat(pid_t pid, char *state, int *ppid)
{
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return false;
    size_t n = fread(buf, 1, sizeof(buf) - 1, fp);
    fclose(fp);
    buf[n] = 0;
    char *rp = strrchr(buf, ')');
    return rp && sscanf(rp + 1, " %c %d", state, ppid) == 2;
}

/* True while pid runs (a zombie has ended). */
static bool pid_alive(pid_t pid)
{
    char state;
    int ppid;
    return proc_stat(pid, &state, &ppid) && state != 'Z';
}

/* Polls s (when not NULL) until pid has ended, at most 10 s. */
static bool wait_pid_gone(struct sup *s, pid_t pid)
{
    time_t end = time(NULL) + 10;
    while (pid_alive(pid) && time(NULL) < end) {
        struct sup_exit ex[4];
        if (s)
            assert_true(sup_poll(s, 10, ex, 4, NULL) >= 0);
        else
            usleep(10000);
    }
    return !pid_alive(pid);
}

/* The pid a container wrote into `path`, waiting for it at most 10 s; the file is removed. */
static pid_t read_pid_file(const char *path)
{
    time_t end = time(NULL) + 10;
    long pid = 0;
    while (pid <= 0 && time(NULL) < end) {
        FILE *fp = fopen(path, "r");
        if (!fp || fscanf(fp, "%ld", &pid) != 1)
            usleep(10000);
        if (fp)
            fclose(fp);
    }
    unlink(path);
    return (pid_t)pid;
}

/* A live child of `parent` other than `other`, or 0. */
static pid_t child_other_than(pid_t parent, pid_t other)
{
    DIR *d = opendir("/proc");
    struct dirent *de;
    pid_t found = 0;
    while (d && !found && (de = readdir(d))) {
        char state;
        int ppid;
        pid_t pid = (pid_t)atoi(de->d_name);
        if (pid > 0 && pid != other && proc_stat(pid, &state, &ppid) && ppid == parent &&
            state != 'Z')
            found = pid;
    }
    if (d)
        closedir(d);
    return found;
}

struct fixture {
    int out[2];
    struct sup *s;
    char dir[64];
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    struct err e;
    assert_int_equal(pipe2(f->out, O_NONBLOCK), 0);
    assert_int_equal(sup_new(&f->s, f->out[1], &e), 0);
    snprintf(f->dir, sizeof(f->dir), "/tmp/jaxset-sup-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    sup_free(f->s);
    close(f->out[0]);
    close(f->out[1]);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "%s/c.log", f->dir);
    unlink(cmd);
    rmdir(f->dir);
    free(f);
    return 0;
}

/* Polls until `want` exits arrived or 10 s passed. */
static size_t wait_exits(struct sup *s, struct sup_exit *ex, size_t want)
{
    size_t got = 0;
    time_t end = time(NULL) + 10;
    while (got < want && time(NULL) < end) {
        int n = sup_poll(s, 100, ex + got, want - got, NULL);
        assert_true(n >= 0);
        got += (size_t)n;
    }
    return got;
}

static void test_forward_and_log(void **state)
{
    struct fixture *f = *state;
    char log[128], buf[4096] = {0};
    snprintf(log, sizeof(log), "%s/c.log", f->dir);
    const char *argv[] = {"sh", "-c", "echo one; printf 'two\\nthr'; echo ee >&2; exit 3", NULL};
    struct sup_spec spec = {.argv = argv, .envp = ENV, .log_path = log, .prefix = "[p0] "};
    uint64_t id;
    struct err e;
    assert_int_equal(sup_spawn(f->s, &spec, &id, &e), 0);
    struct sup_exit ex[1];
    assert_int_equal(wait_exits(f->s, ex, 1), 1);
    assert_true(ex[0].id == id);
    assert_true(WIFEXITED(ex[0].status));
    assert_int_equal(WEXITSTATUS(ex[0].status), 3);
    ssize_t n = read(f->out[0], buf, sizeof(buf) - 1);
    assert_true(n > 0);
    assert_string_equal(buf, "[p0] one\n[p0] two\n[p0] three\n");
    int fd = open(log, O_RDONLY);
    memset(buf, 0, sizeof(buf));
    assert_true(read(fd, buf, sizeof(buf) - 1) > 0);
    close(fd);
    assert_string_equal(buf, "one\ntwo\nthree\n");
    assert_int_equal(sup_running(f->s), 0);
}

/* Reads what is forwarded while waiting for one exit; returns the bytes (malloc'ed). */
static char *drain_until_exit(struct fixture *f, size_t *len)
{
    size_t cap = 8 << 20, n = 0;
    char *out = malloc(cap);
    struct sup_exit ex[1];
    time_t end = time(NULL) + 30;
    int got = 0;
    assert_non_null(out);
    while (!got && time(NULL) < end) {
        got = sup_poll(f->s, 20, ex, 1, NULL);
        assert_true(got >= 0);
        ssize_t r;
        while (n < cap && (r = read(f->out[0], out + n, cap - n)) > 0)
            n += (size_t)r;
    }
    assert_int_equal(got, 1);
    assert_true(WIFEXITED(ex[0].status) && WEXITSTATUS(ex[0].status) == 0);
    *len = n;
    return out;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    char *buf = malloc(8 << 20);
    assert_non_null(buf);
    *len = fread(buf, 1, 8 << 20, fp);
    fclose(fp);
    return buf;
}

/* 300,000 lines (2 MB, many tee/splice rounds, lines split across them): the log gets every
 * byte after what it held already (appended, though splice takes no O_APPEND file), the
 * output every line with its prefix; without a prefix (nothing forwarded), the log alone. */
static void test_large_output_logged_and_forwarded(void **state)
{
    struct fixture *f = *state;
    char log[128];
    snprintf(log, sizeof(log), "%s/c.log", f->dir);
    FILE *fp = fopen(log, "w");
    assert_non_null(fp);
    fputs("before\n", fp);
    fclose(fp);
    const char *argv[] = {"seq", "1", "300000", NULL};
    for (int fwd = 1; fwd >= 0; fwd--) {
        struct sup_spec spec = {.argv = argv, .envp = ENV, .log_path = log,
                                .prefix = fwd ? "[p] " : NULL};
        uint64_t id;
        struct err e;
        size_t olen, llen;
        assert_int_equal(sup_spawn(f->s, &spec, &id, &e), 0);
        char *out = drain_until_exit(f, &olen);
        char *got = read_file(log, &llen);
        size_t at = 0, lat = strlen("before\n") + (fwd ? 0 : 1988895);
        assert_memory_equal(got, "before\n", 7);
        for (int i = 1; i <= 300000; i++) {
            char line[32];
            int n = snprintf(line, sizeof(line), "%d\n", i);
            assert_true(lat + (size_t)n <= llen);
            assert_memory_equal(got + lat, line, (size_t)n);
            lat += (size_t)n;
            if (fwd) {
                assert_true(at + 4 + (size_t)n <= olen);
                assert_memory_equal(out + at, "[p] ", 4);
                assert_memory_equal(out + at + 4, line, (size_t)n);
                at += 4 + (size_t)n;
            }
        }
        assert_int_equal(lat, llen);
        assert_int_equal(at, olen);
        free(out);
        free(got);
    }
}

static void test_kill_group(void **state)
{
    struct fixture *f = *state;
    /* the shell's child sleeps in the same group: both must die */
    const char *argv[] = {"sh", "-c", "sleep 30 & sleep 30; echo never", NULL};
    struct sup_spec spec = {.argv = argv, .envp = ENV};
    uint64_t id;
    struct err e;
    assert_int_equal(sup_spawn(f->s, &spec, &id, &e), 0);
    pid_t pgid = sup_pgid(f->s, id);
    assert_true(pgid > 0);
    assert_int_equal(sup_kill(f->s, id, SIGTERM), 0);
    struct sup_exit ex[1];
    assert_int_equal(wait_exits(f->s, ex, 1), 1);
    assert_true(WIFSIGNALED(ex[0].status));
    assert_int_equal(WTERMSIG(ex[0].status), SIGTERM);
    assert_true(wait_group_gone(pgid));
    assert_int_equal(sup_kill(f->s, id, SIGTERM), -ESRCH);
}

static void test_not_found(void **state)
{
    struct fixture *f = *state;
    const char *argv[] = {"no-such-program-jaxset", NULL};
    struct sup_spec spec = {.argv = argv, .envp = ENV};
    uint64_t id;
    struct err e = {{0}};
    assert_int_equal(sup_spawn(f->s, &spec, &id, &e), -ENOENT);
    assert_non_null(strstr(e.msg, "executable file not found"));
    assert_int_equal(sup_running(f->s), 0);
}

static void test_many(void **state)
{
    struct fixture *f = *state;
    enum { N = 64 };
    const char *argv[] = {"true", NULL};
    struct sup_spec spec = {.argv = argv, .envp = ENV};
    struct err e;
    for (int i = 0; i < N; i++) {
        uint64_t id;
        assert_int_equal(sup_spawn(f->s, &spec, &id, &e), 0);
    }
    struct sup_exit ex[N];
    assert_int_equal(wait_exits(f->s, ex, N), N);
    for (int i = 0; i < N; i++)
        assert_true(WIFEXITED(ex[i].status) && WEXITSTATUS(ex[i].status) == 0);
}

/* Many spawns at once, more than SUP_CLONES_MAX children setting up together: each runs, and each
 * exit comes back with its own id and status. */
static void test_many_at_once_each_its_exit(void **state)
{
    struct fixture *f = *state;
    enum { N = 96 };
    uint64_t ids[N];
    char code[N][8];
    struct err e;
    for (int i = 0; i < N; i++) {
        snprintf(code[i], sizeof(code[i]), "exit %d", i % 7);
        const char *argv[] = {"sh", "-c", code[i], NULL};
        struct sup_spec spec = {.argv = argv, .envp = ENV};
        assert_int_equal(sup_spawn(f->s, &spec, &ids[i], &e), 0);
    }
    assert_int_equal(sup_running(f->s), N);
    struct sup_exit ex[N];
    assert_int_equal(wait_exits(f->s, ex, N), N);
    for (int k = 0; k < N; k++) {
        int i = 0;
        while (i < N && ids[i] != ex[k].id)
            i++;
        assert_true(i < N);
        ids[i] = 0; /* each id once */
        assert_true(WIFEXITED(ex[k].status));
        assert_int_equal(WEXITSTATUS(ex[k].status), i % 7);
        assert_null(ex[k].msg);
    }
    assert_int_equal(sup_running(f->s), 0);
    assert_int_equal(waitpid(-1, NULL, WNOHANG), 0); /* the watchdog only */
}

/* Children that cannot start among many that do: each is an exit with status 127 and its
 * reason, the others run as usual. */
static void test_failing_spawns_among_many(void **state)
{
    struct fixture *f = *state;
    enum { N = 40 };
    uint64_t ids[N];
    struct err e;
    for (int i = 0; i < N; i++) {
        const char *ok[] = {"true", NULL}, *noexec[] = {"/etc/passwd", NULL};
        struct sup_spec spec = {.argv = i == 13 ? noexec : ok, .envp = ENV,
                                .cwd = i == 7 ? "/nonexistent-jaxset-dir" : NULL};
        assert_int_equal(sup_spawn(f->s, &spec, &ids[i], &e), 0);
    }
    int failed = 0;
    time_t end = time(NULL) + 10;
    for (int got = 0; got < N && time(NULL) < end;) {
        struct sup_exit ex[1];
        int n = sup_poll(f->s, 100, ex, 1, NULL); /* ex[0].msg: valid until the next poll */
        assert_true(n >= 0);
        if (!n)
            continue;
        got++;
        assert_true(WIFEXITED(ex[0].status));
        if (ex[0].id == ids[7] || ex[0].id == ids[13]) {
            failed++;
            assert_int_equal(WEXITSTATUS(ex[0].status), 127);
            assert_non_null(ex[0].msg);
            const char *want = ex[0].id == ids[7]
                                   ? "workingDir /nonexistent-jaxset-dir: No such file or directory"
                                   : "/etc/passwd: Permission denied";
            assert_string_equal(ex[0].msg, want);
        } else {
            assert_int_equal(WEXITSTATUS(ex[0].status), 0);
            assert_null(ex[0].msg);
        }
    }
    assert_int_equal(failed, 2);
    assert_int_equal(sup_running(f->s), 0);
}

/* Killed right after their spawn, clones likely still under way: every one reports the kill
 * (none lost, none left running). */
static void test_kill_while_spawning(void **state)
{
    struct fixture *f = *state;
    enum { N = 32 };
    const char *argv[] = {"sleep", "30", NULL};
    struct sup_spec spec = {.argv = argv, .envp = ENV};
    struct err e;
    for (int i = 0; i < N; i++) {
        uint64_t id;
        assert_int_equal(sup_spawn(f->s, &spec, &id, &e), 0);
        assert_int_equal(sup_kill(f->s, id, SIGKILL), 0);
    }
    struct sup_exit ex[N];
    assert_int_equal(wait_exits(f->s, ex, N), N);
    for (int i = 0; i < N; i++)
        assert_true(WIFSIGNALED(ex[i].status) && WTERMSIG(ex[i].status) == SIGKILL);
    assert_int_equal(waitpid(-1, NULL, WNOHANG), 0); /* the watchdog only */
}

/* A supervisor freed while its clones are under way leaves no child behind. */
static void test_free_while_spawning(void **state)
{
    (void)state;
    enum { N = 32 };
    struct sup *s;
    struct err e;
    int out = open("/dev/null", O_WRONLY | O_CLOEXEC);
    assert_true(out >= 0);
    assert_int_equal(sup_new(&s, out, &e), 0);
    const char *argv[] = {"sleep", "30", NULL};
    struct sup_spec spec = {.argv = argv, .envp = ENV};
    for (int i = 0; i < N; i++) {
        uint64_t id;
        assert_int_equal(sup_spawn(s, &spec, &id, &e), 0);
    }
    sup_free(s);
    errno = 0;
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1); /* every child reaped, the watchdog too */
    assert_int_equal(errno, ECHILD);
    close(out);
}

/* A child process runs a supervisor with a long sleeper, then gets SIGKILLed: the watchdog
 * must kill the sleeper's group. */
static void test_watchdog(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t child = fork();
    if (child == 0) {
        struct sup *s;
        struct err e;
        const char *argv[] = {"sleep", "60", NULL};
        struct sup_spec spec = {.argv = argv, .envp = ENV};
        uint64_t id;
        if (sup_new(&s, 1, &e) < 0 || sup_spawn(s, &spec, &id, &e) < 0)
            _exit(1);
        struct sup_exit ex[1];
        if (sup_poll(s, 0, ex, 1, NULL) < 0) /* the watchdog learns of groups before a wait */
            _exit(1);
        pid_t pg = sup_pgid(s, id);
        if (write(p[1], &pg, sizeof(pg)) != sizeof(pg))
            _exit(1);
        pause();
        _exit(0);
    }
    close(p[1]);
    pid_t pgid = 0;
    assert_int_equal(read(p[0], &pgid, sizeof(pgid)), sizeof(pgid));
    close(p[0]);
    assert_true(group_alive(pgid));
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    assert_true(wait_group_gone(pgid));
}

/* A process that leaves the container's group and session (setsid) ends with the container's
 * main process all the same, as in a container's cgroup. */
static void test_setsid_child_ends_with_its_container(void **state)
{
    struct fixture *f = *state;
    char cmd[256], path[128];
    snprintf(path, sizeof(path), "%s/pid", f->dir);
    snprintf(cmd, sizeof(cmd), "setsid sleep 60 & echo $! > %s", path);
    const char *argv[] = {"sh", "-c", cmd, NULL};
    struct sup_spec spec = {.argv = argv, .envp = ENV};
    uint64_t id;
    struct err e;
    assert_int_equal(sup_spawn(f->s, &spec, &id, &e), 0);
    struct sup_exit ex[1];
    assert_int_equal(wait_exits(f->s, ex, 1), 1);
    pid_t pid = read_pid_file(path);
    assert_true(pid > 0);
    assert_true(wait_pid_gone(f->s, pid));
}

/* The same when the container is killed while its main process and the daemon run. */
static void test_setsid_child_ends_with_its_killed_container(void **state)
{
    struct fixture *f = *state;
    char cmd[256], path[128];
    snprintf(path, sizeof(path), "%s/pid", f->dir);
    snprintf(cmd, sizeof(cmd), "setsid sleep 60 & echo $! > %s; exec sleep 60", path);
    const char *argv[] = {"sh", "-c", cmd, NULL};
    struct sup_spec spec = {.argv = argv, .envp = ENV};
    uint64_t id;
    struct err e;
    assert_int_equal(sup_spawn(f->s, &spec, &id, &e), 0);
    pid_t pid = read_pid_file(path);
    assert_true(pid > 0 && pid_alive(pid));
    assert_int_equal(sup_kill(f->s, id, SIGKILL), 0);
    struct sup_exit ex[1];
    assert_int_equal(wait_exits(f->s, ex, 1), 1);
    assert_true(wait_pid_gone(f->s, pid));
}

/* A helper the caller forked and kept (sup_keep: the run's status server) is no stray: it lives
 * through containers ending and their strays being killed, and is reaped by the supervisor
 * when it ends (sup_kept_alive then false: its pid is no longer its own). */
static void test_kept_helper_is_no_stray(void **state)
{
    struct fixture *f = *state;
    pid_t kept = fork();
    if (kept == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        pause();
        _exit(0);
    }
    assert_true(kept > 0);
    assert_int_equal(sup_keep(f->s, kept), 0);
    assert_int_equal(sup_keep(f->s, kept), -EBUSY);
    char cmd[256], path[128];
    snprintf(path, sizeof(path), "%s/pid", f->dir);
    snprintf(cmd, sizeof(cmd), "setsid sleep 60 & echo $! > %s", path);
    const char *argv[] = {"sh", "-c", cmd, NULL};
    struct sup_spec spec = {.argv = argv, .envp = ENV};
    uint64_t id;
    struct err e;
    assert_int_equal(sup_spawn(f->s, &spec, &id, &e), 0);
    struct sup_exit ex[1];
    assert_int_equal(wait_exits(f->s, ex, 1), 1);
    assert_true(wait_pid_gone(f->s, read_pid_file(path))); /* the container's stray went */
    assert_true(pid_alive(kept) && sup_kept_alive(f->s));
    kill(kept, SIGTERM);
    time_t end = time(NULL) + 10;
    while (sup_kept_alive(f->s) && time(NULL) < end)
        assert_true(sup_poll(f->s, 10, ex, 1, NULL) >= 0);
    assert_false(sup_kept_alive(f->s));
    assert_int_equal(waitpid(kept, NULL, WNOHANG), -1); /* reaped already */
}

/* A supervisor in a child process runs `cmd`; returns the child, its container's group in
 * *pgid.  With poll, the child keeps polling (it notices a dead watchdog), else it waits. */
static pid_t supervised_child(const char *cmd, bool poll, pid_t *pgid)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t child = fork();
    if (child == 0) {
        struct sup *s;
        struct err e;
        const char *argv[] = {"sh", "-c", cmd, NULL};
        struct sup_spec spec = {.argv = argv, .envp = ENV};
        uint64_t id;
        struct sup_exit ex[1];
        if (sup_new(&s, 1, &e) < 0 || sup_spawn(s, &spec, &id, &e) < 0 ||
            sup_poll(s, 0, ex, 1, NULL) < 0)
            _exit(1);
        pid_t pg = sup_pgid(s, id);
        if (write(p[1], &pg, sizeof(pg)) != sizeof(pg))
            _exit(1);
        while (poll && sup_poll(s, 100, ex, 1, NULL) >= 0)
            ;
        pause();
        _exit(0);
    }
    close(p[1]);
    assert_int_equal(read(p[0], pgid, sizeof(*pgid)), sizeof(*pgid));
    close(p[0]);
    return child;
}

/* The watchdog of a SIGKILLed supervisor kills a container's setsid child too. */
static void test_watchdog_kills_setsid_descendants(void **state)
{
    (void)state;
    char dir[] = "/tmp/jaxset-sup-XXXXXX", cmd[256], path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/pid", dir);
    snprintf(cmd, sizeof(cmd), "setsid sleep 60 & echo $! > %s; exec sleep 60", path);
    pid_t pgid, child = supervised_child(cmd, false, &pgid);
    pid_t pid = read_pid_file(path);
    rmdir(dir);
    assert_true(pid > 0 && pid_alive(pid));
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    assert_true(wait_group_gone(pgid));
    assert_true(wait_pid_gone(NULL, pid));
}

/* A watchdog killed by someone is replaced: the supervisor SIGKILLed afterwards still leaves
 * no container behind. */
static void test_killed_watchdog_is_replaced(void **state)
{
    (void)state;
    pid_t pgid, child = supervised_child("exec sleep 60", true, &pgid), wd = 0, wd2 = 0;
    time_t end = time(NULL) + 10;
    while (!(wd = child_other_than(child, pgid)) && time(NULL) < end)
        usleep(10000);
    assert_true(wd > 0);
    kill(wd, SIGKILL);
    while ((!(wd2 = child_other_than(child, pgid)) || wd2 == wd) && time(NULL) < end)
        usleep(10000);
    assert_true(wd2 > 0 && wd2 != wd);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    assert_true(wait_group_gone(pgid));
}

/* Whether a cgroup can be made below ours: cgroup2 mounted at /sys/fs/cgroup or
 * /sys/fs/cgroup/unified and our cgroup writable. */
static bool cgroup_available(void)
{
    char self[1024] = "", line[1100], dir[2200];
    FILE *fp = fopen("/proc/self/cgroup", "r");
    while (fp && fgets(line, sizeof(line), fp))
        if (!strncmp(line, "0::", 3))
            snprintf(self, sizeof(self), "%.*s", (int)strcspn(line + 3, "\n"), line + 3);
    if (fp)
        fclose(fp);
    static const char *const mnts[] = {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"};
    for (size_t i = 0; self[0] && i < 2; i++) {
        snprintf(dir, sizeof(dir), "%s%s/cgroup.procs", mnts[i], strcmp(self, "/") ? self : "");
        if (access(dir, F_OK) < 0)
            continue;
        snprintf(dir, sizeof(dir), "%s%s/jaxset-probe-%d", mnts[i],
                 strcmp(self, "/") ? self : "", (int)getpid());
        if (mkdir(dir, 0700) == 0) {
            rmdir(dir);
            return true;
        }
    }
    return false;
}

/* Runs argv as a container of s, waits for its exit and reads what it wrote (out_fd: the
 * read end of s's output) into buf, NUL-terminated; returns its id. */
static uint64_t run_read(struct sup *s, int out_fd, const char **argv, char *buf, size_t n)
{
    struct sup_spec spec = {.argv = argv, .envp = ENV, .prefix = ""};
    uint64_t id;
    struct err e;
    assert_int_equal(sup_spawn(s, &spec, &id, &e), 0);
    struct sup_exit ex[1];
    assert_int_equal(wait_exits(s, ex, 1), 1);
    memset(buf, 0, n);
    assert_true(read(out_fd, buf, n - 1) > 0);
    return id;
}

/* Where a cgroup can be had, each container runs in its own, below the run's. */
static void test_container_runs_in_its_own_cgroup(void **state)
{
    struct fixture *f = *state;
    if (!cgroup_available())
        skip();
    const char *argv[] = {"grep", "^0::", "/proc/self/cgroup", NULL};
    char buf[4096], want[64];
    uint64_t id = run_read(f->s, f->out[0], argv, buf, sizeof(buf));
    snprintf(want, sizeof(want), "/jaxset-%d/c%llu\n", (int)getpid(), (unsigned long long)id);
    assert_non_null(strstr(buf, want));
}

static void on_usr2(int sig)
{
    (void)sig;
}

/* Whatever the supervisor's process ignores, catches or blocks, a container starts with every
 * signal's disposition the default and none blocked (sup_spawn.c resets only what is not). */
static void test_container_signals_default(void **state)
{
    (void)state;
    struct sigaction ign = {.sa_handler = SIG_IGN}, catch = {.sa_handler = on_usr2}, old[3];
    sigset_t usr1, old_mask;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    assert_int_equal(sigaction(SIGHUP, &ign, &old[0]), 0);
    assert_int_equal(sigaction(SIGQUIT, &ign, &old[1]), 0);
    assert_int_equal(sigaction(SIGUSR2, &catch, &old[2]), 0);
    assert_int_equal(sigprocmask(SIG_BLOCK, &usr1, &old_mask), 0);
    int out[2];
    struct sup *s;
    struct err e;
    assert_int_equal(pipe2(out, O_NONBLOCK), 0);
    assert_int_equal(sup_new(&s, out[1], &e), 0);
    const char *argv[] = {"grep", "^Sig[BI]", "/proc/self/status", NULL};
    char buf[4096];
    run_read(s, out[0], argv, buf, sizeof(buf));
    sup_free(s);
    close(out[0]);
    close(out[1]);
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    sigaction(SIGHUP, &old[0], NULL);
    sigaction(SIGQUIT, &old[1], NULL);
    sigaction(SIGUSR2, &old[2], NULL);
    assert_non_null(strstr(buf, "SigBlk:\t0000000000000000\n"));
    assert_non_null(strstr(buf, "SigIgn:\t0000000000000000\n"));
}

/* "Cpus_allowed_list:\t..." of /proc/self/status, the line only. */
static void own_cpus(char *out, size_t n)
{
    FILE *fp = fopen("/proc/self/status", "re");
    char line[512];
    out[0] = 0;
    while (fp && fgets(line, sizeof(line), fp))
        if (!strncmp(line, "Cpus_allowed_list:", 18))
            snprintf(out, n, "%s", line);
    if (fp)
        fclose(fp);
}

/* A container runs with the affinity of the supervisor's process, and the supervisor's own
 * affinity is as it was. */
static void test_container_cpus_are_ours(void **state)
{
    struct fixture *f = *state;
    char mine[512], after[512], buf[4096];
    own_cpus(mine, sizeof(mine));
    const char *argv[] = {"grep", "^Cpus_allowed_list:", "/proc/self/status", NULL};
    run_read(f->s, f->out[0], argv, buf, sizeof(buf));
    own_cpus(after, sizeof(after));
    assert_true(mine[0] != 0);
    assert_string_equal(buf, mine);
    assert_string_equal(after, mine);
}

/* What a child of sup__clone3 saw: its /proc/self/cgroup, read on its own stack. */
struct clone3_probe {
    char cgroup[512];
    ssize_t n;
};

__attribute__((no_sanitize("address", "undefined"))) static int clone3_child(void *arg)
{
    struct clone3_probe *p = arg;
    int fd = open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC);
    p->n = fd >= 0 ? read(fd, p->cgroup, sizeof(p->cgroup) - 1) : -1;
    return 7;
}

/* clone3 runs fn in the child, sharing our memory, exits with its result, and the child was
 * born in the cgroup given; a directory that is no cgroup is refused with no child. */
static void test_clone3_into_cgroup(void **state)
{
    (void)state;
    if (!cgroup_available())
        skip();
    struct sup__cg cg;
    sup__cg_open(&cg);
    assert_true(cg.dirfd >= 0);
    int dir = sup__cg_container(&cg, 5), other = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    static char stack[32 * 1024] __attribute__((aligned(16)));
    struct clone3_probe probe = {.n = 0};
    assert_true(dir >= 0 && other >= 0);
    pid_t settid = 0;
    pid_t pid = sup__clone3(clone3_child, &probe, stack, sizeof(stack), dir, &settid, NULL);
    if (pid < 0 && errno == ENOSYS)
        skip(); /* not built for this machine: the spawn joins the old way */
    assert_true(pid > 0);
    assert_int_equal(settid, pid); /* stored by the kernel before the child ran */
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 7);
    assert_true(probe.n > 0);
    char want[64];
    snprintf(want, sizeof(want), "0::/jaxset-%d/c5\n", (int)getpid());
    assert_non_null(strstr(probe.cgroup, want));
    probe.n = 0;
    errno = 0;
    assert_int_equal(
        sup__clone3(clone3_child, &probe, stack, sizeof(stack), other, &settid, NULL), -1);
    assert_int_not_equal(errno, 0);
    assert_int_equal(probe.n, 0);
    close(other);
    close(dir);
    sup__cg_close(&cg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_forward_and_log, setup, teardown),
        cmocka_unit_test_setup_teardown(test_large_output_logged_and_forwarded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kill_group, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_found, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_at_once_each_its_exit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failing_spawns_among_many, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kill_while_spawning, setup, teardown),
        cmocka_unit_test(test_free_while_spawning),
        cmocka_unit_test(test_watchdog),
        cmocka_unit_test_setup_teardown(test_setsid_child_ends_with_its_container, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_setsid_child_ends_with_its_killed_container, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_kept_helper_is_no_stray, setup, teardown),
        cmocka_unit_test(test_watchdog_kills_setsid_descendants),
        cmocka_unit_test(test_killed_watchdog_is_replaced),
        cmocka_unit_test_setup_teardown(test_container_runs_in_its_own_cgroup, setup, teardown),
        cmocka_unit_test(test_clone3_into_cgroup),
        cmocka_unit_test(test_container_signals_default),
        cmocka_unit_test_setup_teardown(test_container_cpus_are_ours, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
