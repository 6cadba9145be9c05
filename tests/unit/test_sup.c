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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "local/sup.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_forward_and_log, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kill_group, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_found, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many, setup, teardown),
        cmocka_unit_test(test_watchdog),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
