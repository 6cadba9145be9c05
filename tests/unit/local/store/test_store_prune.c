/* store_prune: a run begun (its directory, latest, retention) and abandoned; retention
 * (JAXSET_KEEP_RUNS; the newest kept by their names, never one still going), the run
 * directories of a name, and their removal. */
#include "local/store/store_prune.h"
#include "local/store/rundir.h"
#include "local/store/store_run.h"
#include "testutil.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool exists(const char *home, const char *rel)
{
    struct stat st;
    return lstat(tu_path(home, rel), &st) == 0;
}

static void test_keep(void **state)
{
    (void)state;
    unsetenv(STORE_KEEP_ENV);
    assert_int_equal(store_keep(), STORE_KEEP_DEFAULT);
    setenv(STORE_KEEP_ENV, "3", 1);
    assert_int_equal(store_keep(), 3);
    setenv(STORE_KEEP_ENV, "0", 1);
    assert_int_equal(store_keep(), 0);
    setenv(STORE_KEEP_ENV, "-1", 1);
    assert_int_equal(store_keep(), STORE_KEEP_DEFAULT);
    setenv(STORE_KEEP_ENV, "3x", 1);
    assert_int_equal(store_keep(), STORE_KEEP_DEFAULT);
    setenv(STORE_KEEP_ENV, "", 1);
    assert_int_equal(store_keep(), STORE_KEEP_DEFAULT);
    unsetenv(STORE_KEEP_ENV);
}

/* Five runs of js, the oldest still going (run.json: Running, this process). */
static char *home_of_five(void)
{
    char *home = tu_tmpdir("store-prune"), rel[128], text[128];
    setenv("JAXSET_HOME", home, 1);
    for (int i = 1; i <= 5; i++) {
        snprintf(rel, sizeof(rel), "runs/js/2026010%dT000000Z-%d/run.json", i, i);
        snprintf(text, sizeof(text), "{\"state\": \"%s\", \"pid\": %ld}",
                 i == 1 ? "Running" : "Completed", (long)getpid());
        tu_write(home, rel, text);
    }
    assert_int_equal(symlink("20260105T000000Z-5", tu_path(home, "runs/js/latest")), 0);
    return home;
}

static void test_prune(void **state)
{
    (void)state;
    char *home = home_of_five();
    store_prune("js", 0); /* 0: every run kept */
    assert_true(exists(home, "runs/js/20260102T000000Z-2"));
    store_prune("js", 2);
    assert_true(exists(home, "runs/js/20260105T000000Z-5"));
    assert_true(exists(home, "runs/js/20260104T000000Z-4"));
    assert_false(exists(home, "runs/js/20260103T000000Z-3"));
    assert_false(exists(home, "runs/js/20260102T000000Z-2"));
    assert_true(exists(home, "runs/js/20260101T000000Z-1")); /* going: never pruned */
    assert_true(exists(home, "runs/js/latest"));
    store_prune("none", 1); /* a name without runs */
    unsetenv("JAXSET_HOME");
    tu_rmtree(home);
    free(home);
}

static int removal_errors;
static void count_error(const char *path, int err)
{
    (void)path;
    (void)err;
    removal_errors++;
}

static void test_dirs_and_remove(void **state)
{
    (void)state;
    char *home = home_of_five(), **v;
    size_t n;
    assert_int_equal(store_dirs("nope", &v, &n), -ENOENT);
    assert_int_equal(n, 0);
    assert_int_equal(store_dirs("js", &v, &n), 0);
    assert_int_equal(n, 6); /* the latest first, then every run in runs/js/ */
    assert_non_null(strstr(v[0], "runs/js/20260105T000000Z-5"));
    for (size_t i = 1; i < n; i++)
        assert_null(strstr(v[i], "latest"));
    assert_int_equal(store_remove(v[1], count_error), 0);
    assert_int_equal(store_remove(v[1], count_error), 0); /* gone already */
    store_dirs_free(v, n);
    assert_int_equal(store_remove_name("js", count_error), 0);
    assert_false(exists(home, "runs/js"));
    assert_true(exists(home, "runs"));
    assert_int_equal(removal_errors, 0);
    unsetenv("JAXSET_HOME");
    tu_rmtree(home);
    free(home);
}

static void test_begin(void **state)
{
    (void)state;
    char *home = tu_tmpdir("store-begin");
    char dir[PATH_MAX], prev[PATH_MAX], got[PATH_MAX];
    struct stat st;
    setenv("JAXSET_HOME", home, 1);
    setenv("JAXSET_KEEP_RUNS", "1", 1);
    tu_write(home, "runs/js/20200101T000000Z-1/run.json", "{\"state\": \"Completed\"}");
    tu_write(home, "runs/js/20200102T000000Z-2/run.json", "{\"state\": \"Completed\"}");
    assert_int_equal(symlink("20200102T000000Z-2", tu_path(home, "runs/js/latest")), 0);
    assert_int_equal(store_begin("js", dir, sizeof(dir), prev, sizeof(prev)), 0);
    assert_string_equal(prev, "20200102T000000Z-2");
    assert_int_equal(rd_latest("js", got, sizeof(got)), 0);
    assert_string_equal(strrchr(got, '/'), strrchr(dir, '/'));
    /* retention: the new run is the one kept */
    assert_int_not_equal(stat(tu_path(home, "runs/js/20200101T000000Z-1"), &st), 0);
    assert_int_not_equal(stat(tu_path(home, "runs/js/20200102T000000Z-2"), &st), 0);
    store_abandon("js", dir, prev); /* empty: removed, latest back at prev (gone too) */
    assert_int_not_equal(stat(dir, &st), 0);
    assert_int_equal(rd_latest("js", got, sizeof(got)), -ENOENT);
    unsetenv("JAXSET_KEEP_RUNS");
    unsetenv("JAXSET_HOME");
    tu_rmtree(home);
    free(home);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keep),
        cmocka_unit_test(test_prune),
        cmocka_unit_test(test_dirs_and_remove),
        cmocka_unit_test(test_begin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
