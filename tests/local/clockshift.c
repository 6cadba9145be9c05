/* A test-only LD_PRELOAD shim that steps the wall clock without touching the host's: it adds
 * the number of seconds written in the file $JAXSET_TEST_CLOCK_FILE (absent or empty: 0) to
 * CLOCK_REALTIME as clock_gettime, gettimeofday and time report it.  Every other clock is left
 * alone.  Built by tests/local/test_hostile.py with the system compiler, no sanitizer. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static long long offset_s(void)
{
    const char *path = getenv("JAXSET_TEST_CLOCK_FILE");
    char buf[32] = {0};
    int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    return n > 0 ? strtoll(buf, NULL, 10) : 0;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
    long rc = syscall(SYS_clock_gettime, id, ts);
    if (rc == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE))
        ts->tv_sec += offset_s();
    return (int)rc;
}

int gettimeofday(struct timeval *tv, void *tz)
{
    struct timespec ts;
    (void)tz;
    if (clock_gettime(CLOCK_REALTIME, &ts) < 0)
        return -1;
    if (tv) {
        tv->tv_sec = ts.tv_sec;
        tv->tv_usec = ts.tv_nsec / 1000;
    }
    return 0;
}

time_t time(time_t *out)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (out)
        *out = ts.tv_sec;
    return ts.tv_sec;
}
