/* rundir: the state home, the paths in a run directory, a run directory's life (new, latest,
 * discard) and the reading of its name. */
#include "local/store/rundir.h"
#include "testutil.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_home(void **state)
{
    (void)state;
    char out[PATH_MAX];
    setenv("JAXSET_HOME", "/x/home", 1);
    setenv("XDG_STATE_HOME", "/x/state", 1);
    rd_home(out, sizeof(out));
    assert_string_equal(out, "/x/home");
    setenv("JAXSET_HOME", "", 1);
    rd_home(out, sizeof(out));
    assert_string_equal(out, "/x/state/jaxset");
    unsetenv("JAXSET_HOME");
    unsetenv("XDG_STATE_HOME");
    setenv("HOME", "/x/user", 1);
    rd_home(out, sizeof(out));
    assert_string_equal(out, "/x/user/.local/state/jaxset");
}

static void test_paths(void **state)
{
    (void)state;
    char out[PATH_MAX];
    assert_string_equal(rd_file(out, sizeof(out), "/r", RD_RUN), "/r/run.json");
    assert_string_equal(rd_log(out, sizeof(out), "/r", "js-w-0-0-abcde", NULL),
                        "/r/logs/js-w-0-0-abcde.log");
    assert_string_equal(rd_log(out, sizeof(out), "/r", "p", "sidecar"), "/r/logs/p.sidecar.log");
}

static void test_life(void **state)
{
    (void)state;
    char home[] = "/tmp/jaxset-test-rundir-XXXXXX", dir[PATH_MAX], got[PATH_MAX], real[PATH_MAX];
    char prev[PATH_MAX], runs[PATH_MAX + 8];
    struct stat st;
    assert_non_null(mkdtemp(home));
    setenv("JAXSET_HOME", home, 1);
    assert_int_equal(rd_latest("js", got, sizeof(got)), -ENOENT);
    assert_int_equal(rd_new("js", dir, sizeof(dir)), 0);
    assert_int_equal(stat(dir, &st), 0);
    rd_mark_latest("js", dir, prev, sizeof(prev));
    assert_string_equal(prev, "");
    assert_int_equal(rd_latest("js", got, sizeof(got)), 0);
    assert_non_null(realpath(dir, real));
    assert_string_equal(got, real);
    rd_discard("js", dir, prev); /* empty: removed, with runs/js and runs */
    assert_int_not_equal(stat(dir, &st), 0);
    assert_int_equal(rd_latest("js", got, sizeof(got)), -ENOENT);
    assert_int_not_equal(stat(rd_file(runs, sizeof(runs), home, RD_RUNS), &st), 0);
    unsetenv("JAXSET_HOME");
    assert_int_equal(rmdir(home), 0);
}

/* A run kept elsewhere (--run-dir): a link in runs/<name>/ named as rd_new names a directory,
 * to its absolute path; latest through it finds the directory; discarded, the link goes. */
static void test_link(void **state)
{
    (void)state;
    char home[] = "/tmp/jaxset-test-rundir-XXXXXX", away[] = "/tmp/jaxset-test-away-XXXXXX";
    char link[PATH_MAX], got[PATH_MAX], real[PATH_MAX], prev[PATH_MAX];
    struct stat st;
    assert_non_null(mkdtemp(home));
    assert_non_null(mkdtemp(away));
    assert_non_null(realpath(away, real));
    setenv("JAXSET_HOME", home, 1);
    assert_int_equal(rd_link_new("js", "/nonexistent/dir", link, sizeof(link)), -ENOENT);
    assert_int_equal(rd_link_new("js", away, link, sizeof(link)), 0);
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(store_dir_pid(link), getpid()); /* named as rd_new names a directory */
    ssize_t len = readlink(link, got, sizeof(got) - 1);
    assert_true(len > 0);
    got[len] = 0;
    assert_string_equal(got, real);
    rd_mark_latest("js", link, prev, sizeof(prev));
    assert_int_equal(rd_latest("js", got, sizeof(got)), 0);
    assert_string_equal(got, real);
    rd_discard("js", link, prev); /* the link goes, the directory stays */
    assert_int_not_equal(lstat(link, &st), 0);
    assert_int_equal(stat(away, &st), 0);
    assert_int_equal(rd_latest("js", got, sizeof(got)), -ENOENT);
    unsetenv("JAXSET_HOME");
    assert_int_equal(rmdir(away), 0);
    assert_int_equal(rmdir(home), 0);
}

/* The one reading of a run directory's name: <UTC time>-<pid>, as rd_new makes it. */
static void test_dir_pid(void **state)
{
    (void)state;
    char home[] = "/tmp/jaxset-test-rundir-XXXXXX", dir[PATH_MAX];
    assert_int_equal(store_dir_pid("/x/runs/a/20261123T210420Z-21268"), 21268);
    assert_int_equal(store_dir_pid("20261123T210420Z-7"), 7);
    assert_int_equal(store_dir_pid("/x/my-run-dir"), 0);
    assert_int_equal(store_dir_pid("/x/dir-"), 0);
    assert_int_equal(store_dir_pid("/x/dir"), 0);
    assert_int_equal(store_dir_pid("/x/dir-123"), 0);            /* a --run-dir */
    assert_int_equal(store_dir_pid("/x/20261123T210420Z-"), 0);
    assert_int_equal(store_dir_pid("/x/20261123T210420Z-0"), 0);
    assert_int_equal(store_dir_pid("/x/20261123T210420Z-12x"), 0);
    assert_int_equal(store_dir_pid("/x/20261123T210420Z-99999999999"), 0);
    assert_int_equal(store_dir_pid("/x/2026112XT210420Z-5"), 0);
    assert_non_null(mkdtemp(home));
    setenv("JAXSET_HOME", home, 1);
    assert_int_equal(rd_new("js", dir, sizeof(dir)), 0); /* what rd_new makes reads back */
    assert_int_equal(store_dir_pid(dir), getpid());
    rd_discard("js", dir, "");
    unsetenv("JAXSET_HOME");
    assert_int_equal(rmdir(home), 0);
}

static void test_dirs(void **state)
{
    (void)state;
    char out[PATH_MAX];
    setenv("JAXSET_HOME", "/x/home", 1);
    assert_int_equal(store_runs_dir(out, sizeof(out)), 0);
    assert_string_equal(out, "/x/home/runs");
    assert_int_equal(store_name_dir("js", out, sizeof(out)), 0);
    assert_string_equal(out, "/x/home/runs/js");
    assert_int_equal(store_name_dir("js", out, 12), -ENAMETOOLONG);
    unsetenv("JAXSET_HOME");
    unsetenv("XDG_STATE_HOME");
    unsetenv("HOME");
    assert_int_equal(store_runs_dir(out, sizeof(out)), -ENOENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_home),
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_life),
        cmocka_unit_test(test_link),
        cmocka_unit_test(test_dir_pid),
        cmocka_unit_test(test_dirs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
