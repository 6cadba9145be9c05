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

/* store_keep of $JAXSET_KEEP_RUNS set to `value` (NULL: unset), its rc; *out into *keep. */
static int keep_of(const char *value, long *keep)
{
    if (value)
        setenv(STORE_KEEP_ENV, value, 1);
    else
        unsetenv(STORE_KEEP_ENV);
    return store_keep(keep);
}

static void test_keep(void **state)
{
    (void)state;
    static const char *const bad[] = {"-1", "abc", "1e3", "99999999999999999999", "2x", " 3",
                                      "+3", "3 ", "0x10", "1000001"};
    long keep = -1;
    assert_int_equal(keep_of(NULL, &keep), 0);
    assert_int_equal(keep, STORE_KEEP_DEFAULT);
    assert_int_equal(keep_of("3", &keep), 0);
    assert_int_equal(keep, 3);
    assert_int_equal(keep_of("0", &keep), 0);
    assert_int_equal(keep, 0);
    assert_int_equal(keep_of("", &keep), 0); /* set but empty: as unset */
    assert_int_equal(keep, STORE_KEEP_DEFAULT);
    assert_int_equal(keep_of("1000000", &keep), 0);
    assert_int_equal(keep, STORE_KEEP_MAX);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        keep = -1;
        assert_int_equal(keep_of(bad[i], &keep), -EINVAL);
        assert_int_equal(keep, STORE_KEEP_DEFAULT);
    }
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

/* A value of JAXSET_KEEP_RUNS that is no count: refused, nothing made, nothing pruned. */
static void test_begin_bad_keep(void **state)
{
    (void)state;
    char *home = tu_tmpdir("store-begin-keep");
    char dir[PATH_MAX], prev[PATH_MAX];
    setenv("JAXSET_HOME", home, 1);
    setenv(STORE_KEEP_ENV, "1e3", 1);
    tu_write(home, "runs/js/20200101T000000Z-1/run.json", "{\"state\": \"Completed\"}");
    tu_write(home, "runs/js/20200102T000000Z-2/run.json", "{\"state\": \"Completed\"}");
    assert_int_equal(store_begin("js", dir, sizeof(dir), prev, sizeof(prev)), -EINVAL);
    assert_true(exists(home, "runs/js/20200101T000000Z-1"));
    assert_false(exists(home, "runs/js/latest"));
    char **v;
    size_t n;
    assert_int_equal(store_dirs("js", &v, &n), -ENOENT); /* no latest: nothing begun */
    unsetenv(STORE_KEEP_ENV);
    unsetenv("JAXSET_HOME");
    tu_rmtree(home);
    free(home);
}

static bool has(char **v, size_t n, const char *path)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i], path))
            return true;
    return false;
}

/* A run kept elsewhere (--run-dir): a link in runs/<name>/ makes it the latest, listed and
 * found for delete (as the directory it points at); retention removes only the link; a
 * refused one leaves no link. */
static void test_begin_at(void **state)
{
    (void)state;
    char *home = tu_tmpdir("store-begin-at"), *away = tu_tmpdir("store-away");
    char link[PATH_MAX], prev[PATH_MAX], got[PATH_MAX], real[PATH_MAX], **v;
    struct store_run *runs;
    size_t n;
    setenv("JAXSET_HOME", home, 1);
    assert_non_null(realpath(away, real));
    tu_write(home, "runs/js/20200101T000000Z-1/run.json", "{\"state\": \"Completed\"}");
    assert_int_equal(symlink("20200101T000000Z-1", tu_path(home, "runs/js/latest")), 0);
    assert_int_equal(store_begin_at("js", away, link, sizeof(link), prev, sizeof(prev)), 0);
    assert_string_equal(prev, "20200101T000000Z-1");
    assert_int_equal(rd_latest("js", got, sizeof(got)), 0);
    assert_string_equal(got, real);
    tu_write(away, RD_RUN, "{\"state\": \"Completed\"}");
    assert_int_equal(store_list(true, &runs, &n), 0);
    assert_int_equal(n, 2); /* the latest (elsewhere) and the one before */
    assert_true(!strcmp(runs[0].dir, real) || !strcmp(runs[1].dir, real));
    for (size_t i = 0; i < n; i++)
        store_run_free(&runs[i]);
    free(runs);
    /* a newer run: the one elsewhere is still found, as its directory */
    tu_write(home, "runs/js/29990101T000000Z-9/run.json", "{\"state\": \"Completed\"}");
    assert_int_equal(unlink(tu_path(home, "runs/js/latest")), 0);
    assert_int_equal(symlink("29990101T000000Z-9", tu_path(home, "runs/js/latest")), 0);
    assert_int_equal(store_dirs("js", &v, &n), 0);
    assert_true(has(v, n, real));
    store_dirs_free(v, n);
    store_prune("js", 1); /* past the newest: the link goes, the directory stays */
    assert_false(exists(home, strstr(link, "runs/js/")));
    assert_true(exists(away, RD_RUN));
    assert_false(exists(home, "runs/js/20200101T000000Z-1"));
    /* refused before it started: its link gone, latest back */
    tu_rmtree(away);
    assert_int_equal(mkdir(away, 0700), 0);
    assert_int_equal(store_begin_at("js", away, link, sizeof(link), prev, sizeof(prev)), 0);
    store_abandon("js", link, prev);
    assert_false(exists(home, strstr(link, "runs/js/")));
    assert_true(exists(away, "."));
    assert_int_equal(rd_latest("js", got, sizeof(got)), 0);
    assert_non_null(strstr(got, "29990101T000000Z-9"));
    unsetenv("JAXSET_HOME");
    tu_rmtree(home);
    tu_rmtree(away);
    free(home);
    free(away);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keep),
        cmocka_unit_test(test_prune),
        cmocka_unit_test(test_dirs_and_remove),
        cmocka_unit_test(test_begin),
        cmocka_unit_test(test_begin_bad_keep),
        cmocka_unit_test(test_begin_at),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
