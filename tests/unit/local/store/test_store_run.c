/* store_run: runs read back from a state home written here: loaded, listed newest first, their
 * state (Lost when the process is gone, Starting before run.json), liveness (the run's lock,
 * never a pid alone, where the run has one), signals only to the lock's holder, times (a
 * Lost run's end: its last record), events, the control file. */
#include "local/store/store_run.h"
#include "local/store/rundir.h"
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A pid no process has any more (a child, reaped). */
static pid_t dead_pid(void)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    assert_true(pid > 0);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    return pid;
}

static void run_json(const char *home, const char *rel, const char *state, long long pid,
                     const char *start)
{
    char text[512];
    snprintf(text, sizeof(text), "{\"state\": \"%s\", \"pid\": %lld, \"startTime\": \"%s\", "
                                 "\"updateTime\": \"%s\", \"exitStatus\": %d}",
             state, pid, start, start, strcmp(state, "Failed") ? 0 : 1);
    tu_write(home, rel, text);
}

/* runs/<name>/latest -> id */
static void latest(const char *home, const char *name, const char *id)
{
    char rel[128];
    snprintf(rel, sizeof(rel), "runs/%s/latest", name);
    assert_int_equal(symlink(id, tu_path(home, rel)), 0);
}

static char *home_with_runs(void)
{
    char *home = tu_tmpdir("store-run");
    setenv("JAXSET_HOME", home, 1);
    run_json(home, "runs/a/20260101T000000Z-1/run.json", "Completed", 1, "2026-01-01T00:00:00Z");
    run_json(home, "runs/a/20260102T000000Z-2/run.json", "Failed", 2, "2026-01-02T00:00:00Z");
    latest(home, "a", "20260102T000000Z-2");
    run_json(home, "runs/b/20260103T000000Z-3/run.json", "Running", getpid(),
             "2026-01-03T00:00:00Z");
    tu_write(home, "runs/b/20260103T000000Z-3/jobset.json", "{\"kind\": \"JobSet\"}");
    latest(home, "b", "20260103T000000Z-3");
    return home;
}

static void test_list(void **state)
{
    (void)state;
    char *home = home_with_runs();
    struct store_run *v;
    size_t n;
    assert_int_equal(store_list(false, &v, &n), 0);
    assert_int_equal(n, 2); /* the latest of each name, newest first */
    assert_string_equal(v[0].name, "b");
    assert_string_equal(store_run_id(&v[0]), "20260103T000000Z-3");
    assert_non_null(v[0].jobset);
    assert_null(v[0].pods);
    assert_string_equal(v[1].name, "a");
    assert_string_equal(store_run_id(&v[1]), "20260102T000000Z-2");
    for (size_t i = 0; i < n; i++)
        store_run_free(&v[i]);
    free(v);
    assert_int_equal(store_list(true, &v, &n), 0);
    assert_int_equal(n, 3); /* every run kept */
    assert_string_equal(store_run_id(&v[2]), "20260101T000000Z-1");
    assert_int_equal(store_start_ms(&v[2]), 1767225600000LL);
    for (size_t i = 0; i < n; i++)
        store_run_free(&v[i]);
    free(v);
    char *user = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    unsetenv("JAXSET_HOME");
    unsetenv("XDG_STATE_HOME");
    unsetenv("HOME");
    assert_int_equal(store_list(false, &v, &n), -ENOENT); /* no state home */
    assert_int_equal(n, 0);
    if (user)
        setenv("HOME", user, 1);
    free(user);
    tu_rmtree(home);
    free(home);
}

static void test_state(void **state)
{
    (void)state;
    char *home = home_with_runs();
    struct store_run r;
    assert_int_equal(store_load("nope", &r), -ENOENT);
    assert_int_equal(store_load("b", &r), 0);
    assert_int_equal(store_run_state(&r), STORE_RUNNING);
    assert_true(store_live(&r));
    assert_int_equal(store_live_pid(r.dir, r.run), getpid());
    assert_int_equal(store_end_ms(&r, 42), 42);
    store_run_free(&r);
    run_json(home, "runs/b/20260103T000000Z-3/run.json", "Running", dead_pid(),
             "2026-01-03T00:00:00Z");
    assert_int_equal(store_load("b", &r), 0);
    assert_int_equal(store_run_state(&r), STORE_LOST);
    assert_false(store_live(&r));
    assert_int_equal(store_dir_live_pid(r.dir), 0);
    store_run_free(&r);
    assert_int_equal(store_load("a", &r), 0);
    assert_int_equal(store_run_state(&r), STORE_FAILED);
    assert_int_equal(store_exit_status(&r), 1);
    assert_int_equal(store_end_ms(&r, 42), 1767312000000LL);
    assert_int_equal(store_live_pid(r.dir, r.run), 0); /* ended: no pid, whatever runs as 2 */
    store_run_free(&r);
    /* before run.json: Starting while the process in the directory's name lives */
    char rel[128], dir[PATH_MAX];
    snprintf(rel, sizeof(rel), "runs/c/20260104T000000Z-%ld/logs/x.log", (long)getpid());
    tu_write(home, rel, "");
    *strstr(rel, "/logs") = 0;
    snprintf(dir, sizeof(dir), "%s", tu_path(home, rel));
    assert_int_equal(store_load_dir("c", dir, &r), 0);
    assert_int_equal(store_run_state(&r), STORE_STARTING);
    store_run_free(&r);
    snprintf(rel, sizeof(rel), "runs/c/20260104T000000Z-%ld/run.json", (long)dead_pid());
    tu_write(home, rel, "{\"state\": \"Error\"}"); /* a name the table lacks */
    *strrchr(rel, '/') = 0;
    snprintf(dir, sizeof(dir), "%s", tu_path(home, rel));
    assert_int_equal(store_load_dir("c", dir, &r), 0);
    assert_int_equal(store_run_state(&r), STORE_UNKNOWN);
    store_run_free(&r);
    unsetenv("JAXSET_HOME");
    tu_rmtree(home);
    free(home);
}

static void test_events(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("store-events");
    json_t *v = store_events(dir, true);
    assert_int_equal(json_array_size(v), 0); /* no events.log */
    json_decref(v);
    tu_write(dir, RD_EVENTS, "2026-01-01T00:00:00Z Normal Started: pod a: started\n"
                             "Note the run restarts\n"
                             "garbage\n"
                             "2026-01-01T00:00:01Z Warning BackoffLimitExceeded: too many\n");
    v = store_events(dir, false);
    json_t *want = tu_qjson("[{'line': 0, 'time': '2026-01-01T00:00:00Z', 'type': 'Normal',"
                            "  'reason': 'Started', 'message': 'pod a: started'},"
                            " {'line': 3, 'time': '2026-01-01T00:00:01Z', 'type': 'Warning',"
                            "  'reason': 'BackoffLimitExceeded', 'message': 'too many'}]");
    assert_true(json_equal(v, want));
    json_decref(v);
    json_decref(want);
    v = store_events(dir, true);
    assert_int_equal(json_array_size(v), 3);
    want = tu_qjson("{'line': 1, 'type': 'Note', 'message': 'the run restarts'}");
    assert_true(json_equal(json_array_get(v, 1), want));
    json_decref(v);
    json_decref(want);
    tu_rmtree(dir);
    free(dir);
}

static void test_control(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("store-control");
    assert_int_equal(store_control(dir, true), 0);
    json_t *ctl = store_read(dir, RD_CONTROL), *want = tu_qjson("{'suspend': true}");
    assert_true(json_equal(ctl, want));
    json_decref(ctl);
    json_decref(want);
    assert_false(store_wrote_jobset(dir));
    assert_int_not_equal(store_control("/nonexistent/dir", false), 0);
    tu_rmtree(dir);
    free(dir);
}

/* A run directory whose run.json says Running with pid `pid`. */
static char *running_dir(const char *name, long long pid)
{
    char *dir = tu_tmpdir(name);
    run_json(dir, RD_RUN, "Running", pid, "2026-01-03T00:00:00Z");
    return dir;
}

static int usr1_seen;
static void on_usr1(int sig)
{
    (void)sig;
    usr1_seen++;
}

/* The run's lock held here: this process runs it, whatever pid run.json names, and the store's
 * own readers leave the lock held (a child finds it held by this process). */
static void test_lock_own(void **state)
{
    (void)state;
    char *dir = running_dir("store-lock-own", dead_pid());
    json_t *run = store_read(dir, RD_RUN);
    assert_int_equal(store_lock_take(dir), 0);
    assert_int_equal(store_lock_take(dir), -EBUSY); /* one run a process */
    assert_int_equal(store_live_pid(dir, run), getpid());
    assert_int_equal(store_dir_live_pid(dir), getpid());
    pid_t child = fork();
    if (child == 0)
        _exit(store_dir_live_pid(dir) == getppid() ? 0 : 1);
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    store_lock_release();
    assert_int_equal(store_dir_live_pid(dir), 0); /* released: not going */
    json_decref(run);
    tu_rmtree(dir);
    free(dir);
}

/* A lock file nobody holds: the run is not going though run.json names a live process (this
 * one, as a pid reused by a stranger), which gets no signal from store_signal or store_stop. */
static void test_lock_dead_pid_reused(void **state)
{
    (void)state;
    char *dir = running_dir("store-lock-dead", getpid());
    struct store_run r;
    tu_write(dir, RD_LOCK, "");
    assert_int_equal(store_dir_live_pid(dir), 0);
    assert_int_equal(store_load_dir("js", dir, &r), 0);
    assert_int_equal(store_run_state(&r), STORE_LOST);
    store_run_free(&r);
    void (*was)(int) = signal(SIGUSR1, on_usr1);
    usr1_seen = 0;
    assert_int_equal(store_signal(dir, SIGUSR1), -ESRCH);
    assert_int_equal(store_stop(dir, 1000), -ESRCH);
    assert_int_equal(usr1_seen, 0);
    signal(SIGUSR1, was);
    unlink(tu_path(dir, RD_LOCK)); /* no lock file: an older jaxset's run, by its pid */
    assert_int_equal(store_dir_live_pid(dir), getpid());
    tu_rmtree(dir);
    free(dir);
}

/* A run read as Running that then recorded its end and let its lock go before the lock was
 * asked about: the state it recorded, not Lost (the race of a reader with a run's end). */
static void test_ended_after_read(void **state)
{
    (void)state;
    char *dir = running_dir("store-ended", getpid());
    struct store_run r;
    assert_int_equal(store_lock_take(dir), 0);
    assert_int_equal(store_load_dir("js", dir, &r), 0); /* read while it runs */
    run_json(dir, RD_RUN, "Completed", getpid(), "2026-01-03T00:00:00Z");
    store_lock_release();
    assert_int_equal(store_run_state(&r), STORE_COMPLETED);
    store_run_free(&r);
    run_json(dir, RD_RUN, "Running", getpid(), "2026-01-03T00:00:00Z"); /* died: no end */
    assert_int_equal(store_load_dir("js", dir, &r), 0);
    assert_int_equal(store_run_state(&r), STORE_LOST);
    store_run_free(&r);
    tu_rmtree(dir);
    free(dir);
}

/* A child holds the run's lock: it runs the run (Starting before run.json, then Running, even
 * with another pid in run.json), gets the signals, and once it is gone the run is not going. */
static void test_lock_held_by_child(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("store-lock-child"), byte = 0;
    int ready[2];
    struct store_run r;
    assert_int_equal(pipe(ready), 0);
    pid_t child = fork();
    if (child == 0) {
        signal(SIGTERM, SIG_DFL);
        if (store_lock_take(dir) == 0 && write(ready[1], "x", 1) == 1)
            pause();
        _exit(1);
    }
    close(ready[1]); /* the child failing to lock ends the read */
    assert_int_equal(read(ready[0], &byte, 1), 1);
    assert_int_equal(store_live_pid(dir, NULL), child);
    assert_int_equal(store_load_dir("js", dir, &r), 0);
    assert_int_equal(store_run_state(&r), STORE_STARTING);
    store_run_free(&r);
    run_json(dir, RD_RUN, "Running", getpid(), "2026-01-03T00:00:00Z");
    assert_int_equal(store_dir_live_pid(dir), child);
    assert_int_equal(store_stop(dir, 10000), 0); /* SIGTERM to the holder, until it is gone */
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    assert_int_equal(store_dir_live_pid(dir), 0);
    close(ready[0]);
    tu_rmtree(dir);
    free(dir);
}

static void set_mtime(const char *path, time_t t)
{
    struct timespec ts[2] = {{t, 0}, {t, 0}};
    assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

/* A Lost run ended with the last thing it recorded (events.log, a pod's log), not with its
 * last run.json (written when it started). */
static void test_lost_duration(void **state)
{
    (void)state;
    char *dir = running_dir("store-lost-end", dead_pid());
    struct store_run r;
    const time_t start = 1767398400; /* 2026-01-03T00:00:00Z */
    assert_int_equal(store_load_dir("js", dir, &r), 0);
    assert_int_equal(store_end_ms(&r, 42), start * 1000LL); /* nothing but run.json */
    store_run_free(&r);
    tu_write(dir, RD_EVENTS, "Note up\n");
    set_mtime(tu_path(dir, RD_EVENTS), start + 5);
    tu_write(dir, "logs/js-w-0-0.log", "hi\n");
    set_mtime(tu_path(dir, "logs/js-w-0-0.log"), start + 7);
    tu_write(dir, RD_LOCK, "");
    assert_int_equal(store_load_dir("js", dir, &r), 0);
    assert_int_equal(store_run_state(&r), STORE_LOST);
    assert_int_equal(store_end_ms(&r, 42), (start + 7) * 1000LL);
    store_run_free(&r);
    run_json(dir, RD_RUN, "Completed", 1, "2026-01-03T00:00:00Z"); /* its end recorded */
    assert_int_equal(store_load_dir("js", dir, &r), 0);
    assert_int_equal(store_end_ms(&r, 42), start * 1000LL);
    store_run_free(&r);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list),    cmocka_unit_test(test_state),
        cmocka_unit_test(test_events),  cmocka_unit_test(test_control),
        cmocka_unit_test(test_lock_own), cmocka_unit_test(test_lock_dead_pid_reused),
        cmocka_unit_test(test_lock_held_by_child), cmocka_unit_test(test_lost_duration),
        cmocka_unit_test(test_ended_after_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
