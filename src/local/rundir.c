/* rundir: the run directories of the local backend (see rundir.h). */
#include "local/rundir.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "obj/fs.h"

void rd_home(char *out, size_t n)
{
    const char *h = getenv("JAXSET_HOME"), *x = getenv("XDG_STATE_HOME");
    if (h && *h)
        snprintf(out, n, "%s", h);
    else if (x && *x)
        snprintf(out, n, "%s/jaxset", x);
    else
        snprintf(out, n, "%s/.local/state/jaxset", getenv("HOME") ? getenv("HOME") : "/tmp");
}

char *rd_file(char *out, size_t n, const char *dir, const char *name)
{
    snprintf(out, n, "%s/%s", dir, name);
    return out;
}

char *rd_log(char *out, size_t n, const char *dir, const char *pod, const char *container)
{
    if (container)
        snprintf(out, n, "%s/" RD_LOGS "/%s.%s" RD_LOG_SUFFIX, dir, pod, container);
    else
        snprintf(out, n, "%s/" RD_LOGS "/%s" RD_LOG_SUFFIX, dir, pod);
    return out;
}

int rd_new(const char *name, char *out, size_t n)
{
    char home[PATH_MAX], stamp[32];
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
    rd_home(home, sizeof(home));
    snprintf(out, n, "%s/" RD_RUNS "/%s/%s-%ld", home, name, stamp, (long)getpid());
    return fs_mkdir_p(out);
}

static void latest_path(const char *name, char *out, size_t n)
{
    char home[PATH_MAX];
    rd_home(home, sizeof(home));
    snprintf(out, n, "%s/" RD_RUNS "/%s/" RD_LATEST, home, name);
}

/* Atomically points `link` at `target` (a name in the same directory); "" removes it. */
static void set_link(const char *link, const char *target)
{
    char tmp[PATH_MAX + 80];
    if (!*target) {
        unlink(link);
        return;
    }
    snprintf(tmp, sizeof(tmp), "%s.%ld", link, (long)getpid());
    if (symlink(target, tmp) == 0 && rename(tmp, link) < 0)
        unlink(tmp);
}

void rd_mark_latest(const char *name, const char *dir, char *prev, size_t n)
{
    char link[PATH_MAX + 64];
    latest_path(name, link, sizeof(link));
    ssize_t len = readlink(link, prev, n ? n - 1 : 0);
    if (n)
        prev[len > 0 ? len : 0] = 0;
    const char *base = strrchr(dir, '/');
    set_link(link, base ? base + 1 : dir);
}

void rd_discard(const char *name, const char *dir, const char *prev)
{
    char link[PATH_MAX + 64];
    if (rmdir(dir) < 0)
        return; /* something was written there: it is a run to keep */
    latest_path(name, link, sizeof(link));
    set_link(link, prev);
    *strrchr(link, '/') = 0; /* runs/<name>, then runs: removed only when empty */
    if (rmdir(link) == 0 && strrchr(link, '/')) {
        *strrchr(link, '/') = 0;
        rmdir(link);
    }
}

int rd_latest(const char *name, char *out, size_t n)
{
    char link[PATH_MAX + 64];
    latest_path(name, link, sizeof(link));
    if (!realpath(link, out) || strlen(out) >= n)
        return -ENOENT;
    return 0;
}
