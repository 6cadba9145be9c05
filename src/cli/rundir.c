#include "cli/rundir.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void rundir_home(char *out, size_t n)
{
    const char *h = getenv("JAXSET_HOME"), *x = getenv("XDG_STATE_HOME");
    if (h && *h)
        snprintf(out, n, "%s", h);
    else if (x && *x)
        snprintf(out, n, "%s/jaxset", x);
    else
        snprintf(out, n, "%s/.local/state/jaxset", getenv("HOME") ? getenv("HOME") : "/tmp");
}

void rundir_new(const char *name, char *out, size_t n)
{
    char home[PATH_MAX], stamp[32];
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
    rundir_home(home, sizeof(home));
    snprintf(out, n, "%s/runs/%s/%s-%ld", home, name, stamp, (long)getpid());
}

void rundir_mark_latest(const char *name, const char *dir)
{
    char home[PATH_MAX], link[PATH_MAX + 64], tmp[PATH_MAX + 80];
    rundir_home(home, sizeof(home));
    snprintf(link, sizeof(link), "%s/runs/%s/latest", home, name);
    snprintf(tmp, sizeof(tmp), "%s.%ld", link, (long)getpid());
    const char *base = strrchr(dir, '/');
    if (symlink(base ? base + 1 : dir, tmp) == 0 && rename(tmp, link) < 0)
        unlink(tmp);
}

int rundir_latest(const char *name, char *out, size_t n)
{
    char home[PATH_MAX], link[PATH_MAX + 64];
    rundir_home(home, sizeof(home));
    snprintf(link, sizeof(link), "%s/runs/%s/latest", home, name);
    if (!realpath(link, out) || strlen(out) >= n)
        return -ENOENT;
    return 0;
}
