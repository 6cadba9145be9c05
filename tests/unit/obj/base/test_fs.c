/* fs: fs_write_all writes everything, retries a short write, and fails with a negative errno
 * (the sign both its callers, local/sup's logs and local/vol's volume files, test). */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "obj/base/fs.h"

static void test_write_all_file(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("fs");
    size_t len = 1 << 20;
    char *data = malloc(len), *back = malloc(len);
    assert_non_null(data);
    assert_non_null(back);
    for (size_t i = 0; i < len; i++)
        data[i] = (char)(i * 7);
    int fd = open(tu_path(dir, "f"), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(fs_write_all(fd, data, len), 0);
    assert_int_equal(fs_write_all(fd, data, 0), 0);
    assert_int_equal(pread(fd, back, len, 0), (ssize_t)len);
    assert_memory_equal(back, data, len);
    close(fd);
    free(data);
    free(back);
    tu_rmtree(dir);
    free(dir);
}

static void test_write_all_errors_negative(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(fs_write_all(-1, "x", 1), -EBADF);
    assert_int_equal(pipe(p), 0);
    close(p[0]);
    void (*old)(int) = signal(SIGPIPE, SIG_IGN);
    assert_int_equal(fs_write_all(p[1], "x", 1), -EPIPE);
    signal(SIGPIPE, old);
    close(p[1]);
}

/* A file size limit cuts a write short: the rest is written again, and the write that then
 * fails gives its errno, negative. */
static void test_write_all_short_write(void **state)
{
    (void)state;
    char *dir = tu_tmpdir("fs");
    char data[4096];
    struct rlimit old, lim;
    struct stat st;
    memset(data, 'a', sizeof(data));
    int fd = open(tu_path(dir, "f"), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    lim = old;
    lim.rlim_cur = 1000;
    void (*old_sig)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    int rc = fs_write_all(fd, data, sizeof(data));
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, old_sig);
    assert_int_equal(rc, -EFBIG);
    assert_int_equal(fstat(fd, &st), 0);
    assert_int_equal(st.st_size, 1000);
    close(fd);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_all_file),
        cmocka_unit_test(test_write_all_errors_negative),
        cmocka_unit_test(test_write_all_short_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
