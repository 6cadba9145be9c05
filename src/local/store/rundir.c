/* rundir: the run directories of the local backend (see rundir.h). */
#include "local/store/rundir.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "obj/base/fs.h"
#include "obj/base/sbuf.h"

int rd_home(char *out, size_t n)
{
    const char *h = getenv("JAXSET_HOME"), *x = getenv("XDG_STATE_HOME"), *u = getenv("HOME");
    int len;
    if (h && *h)
        len = snprintf(out, n, "%s", h);
    else if (x && *x)
        len = snprintf(out, n, "%s/jaxset", x);
    else if (u && *u)
        len = snprintf(out, n, "%s/.local/state/jaxset", u);
    else
        return -ENOENT; /* never a shared place such as /tmp: runs hold env and logs */
    return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

const char *rd_home_error(int rc)
{
    return rc == -ENOENT ? "neither JAXSET_HOME, XDG_STATE_HOME nor HOME is set, and runs are "
                           "never kept in a shared place: set JAXSET_HOME or use --run-dir"
                         : "the state directory's path is too long";
}

char *rd_file(char *out, size_t n, const char *dir, const char *name)
{
    int len = snprintf(out, n, "%s/%s", dir, name);
    if (len < 0 || (size_t)len >= n)
        out[0] = '\0'; /* no path at all rather than another file's */
    return out;
}

char *rd_log(char *out, size_t n, const char *dir, const char *pod, const char *container)
{
    int len;
    if (container)
        len = snprintf(out, n, "%s/" RD_LOGS "/%s.%s" RD_LOG_SUFFIX, dir, pod, container);
    else
        len = snprintf(out, n, "%s/" RD_LOGS "/%s" RD_LOG_SUFFIX, dir, pod);
    if (len < 0 || (size_t)len >= n)
        out[0] = '\0'; /* no path at all rather than another pod's log */
    return out;
}

char *store_claim_dir(const char *dir, const char *claim)
{
    return sb_fmt("%s/" RD_VOLUMES "/%s", dir, claim);
}

char *store_pod_volumes(const char *dir, const char *pod)
{
    return pod ? sb_fmt("%s/" RD_POD_VOLUMES "/%s", dir, pod) : sb_fmt("%s/" RD_POD_VOLUMES, dir);
}

int rd_dir_check(const char *dir)
{
    if (!*dir)
        return -EINVAL;
    return strlen(dir) > RD_DIR_MAX ? -ENAMETOOLONG : 0;
}

/* The parents are made only when the directory cannot be (ENOENT): where they exist, one
 * mkdir instead of one per component. */
int rd_claim(const char *dir)
{
    int rc = rd_dir_check(dir);
    if (rc < 0 || (rc = fs_dir_new_or_empty(dir, 0700)) != -ENOENT)
        return rc;
    char parent[PATH_MAX];
    snprintf(parent, sizeof(parent), "%s", dir);
    char *slash = strrchr(parent, '/');
    if (!slash || slash == parent)
        return rc;
    *slash = 0;
    rc = fs_mkdir_p(parent, 0755);
    return rc ? rc : fs_dir_new_or_empty(dir, 0700);
}

/* A run directory's name: the UTC time it was made, "-", the pid of the jaxset that made it.
 * By name is by age: the time comes first, of a fixed width. */
#define RD_STAMP "%Y%m%dT%H%M%SZ"
#define RD_STAMP_LEN 16 /* 20261123T210420Z */

/* A new entry's path, runs/<name>/<UTC time>-<pid>, into out and its parent made: 0 or a
 * negative errno. */
static int new_entry(const char *name, char *out, size_t n)
{
    char stamp[32], parent[PATH_MAX];
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    strftime(stamp, sizeof(stamp), RD_STAMP, &tm);
    int rc = store_name_dir(name, parent, sizeof(parent));
    if (rc < 0)
        return rc;
    int dlen = snprintf(out, n, "%s/%s-%ld", parent, stamp, (long)getpid());
    if (dlen < 0 || (size_t)dlen >= n || (size_t)dlen > RD_DIR_MAX)
        return -ENAMETOOLONG;
    return fs_mkdir_p(parent, 0700);
}

int rd_new(const char *name, char *out, size_t n)
{
    int rc = new_entry(name, out, n);
    if (rc < 0)
        return rc;
    return mkdir(out, 0700) < 0 ? -errno : 0; /* a new directory, never an existing one */
}

int rd_link_new(const char *name, const char *dir, char *out, size_t n)
{
    char real[PATH_MAX];
    int rc = realpath(dir, real) ? new_entry(name, out, n) : -errno;
    if (rc < 0)
        return rc;
    return symlink(real, out) < 0 ? -errno : 0; /* a new entry, never an existing one */
}

int store_runs_dir(char *out, size_t n)
{
    char home[PATH_MAX];
    int rc = rd_home(home, sizeof(home));
    if (rc < 0)
        return rc;
    int len = snprintf(out, n, "%s/" RD_RUNS, home);
    return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

int store_name_dir(const char *name, char *out, size_t n)
{
    char runs[PATH_MAX];
    int rc = store_runs_dir(runs, sizeof(runs));
    if (rc < 0)
        return rc;
    int len = snprintf(out, n, "%s/%s", runs, name);
    return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

static int latest_path(const char *name, char *out, size_t n)
{
    char dir[PATH_MAX];
    int rc = store_name_dir(name, dir, sizeof(dir));
    if (rc < 0)
        return rc;
    int len = snprintf(out, n, "%s/" RD_LATEST, dir);
    return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

/* Whether s[0..RD_STAMP_LEN) is a time as RD_STAMP writes it: 8 digits, T, 6 digits, Z. */
static bool is_stamp(const char *s)
{
    for (size_t i = 0; i < RD_STAMP_LEN; i++) {
        char want = i == 8 ? 'T' : i == RD_STAMP_LEN - 1 ? 'Z' : '0';
        if (want == '0' ? (s[i] < '0' || s[i] > '9') : s[i] != want)
            return false;
    }
    return true;
}

pid_t store_dir_pid(const char *dir)
{
    const char *base = strrchr(dir, '/');
    base = base ? base + 1 : dir;
    if (strlen(base) <= RD_STAMP_LEN + 1 || !is_stamp(base) || base[RD_STAMP_LEN] != '-')
        return 0;
    const char *digits = base + RD_STAMP_LEN + 1;
    char *end;
    long pid = strtol(digits, &end, 10);
    return *end || *digits < '1' || *digits > '9' || pid > INT_MAX ? 0 : (pid_t)pid;
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
    if (n)
        prev[0] = 0;
    if (latest_path(name, link, sizeof(link)) < 0)
        return;
    ssize_t len = readlink(link, prev, n ? n - 1 : 0);
    if (n)
        prev[len > 0 ? len : 0] = 0;
    const char *base = strrchr(dir, '/');
    set_link(link, base ? base + 1 : dir);
}

void rd_discard(const char *name, const char *dir, const char *prev)
{
    char link[PATH_MAX + 64];
    struct stat st;
    bool is_link = lstat(dir, &st) == 0 && S_ISLNK(st.st_mode); /* rd_link_new's */
    if ((is_link ? unlink(dir) : rmdir(dir)) < 0 || latest_path(name, link, sizeof(link)) < 0)
        return; /* something was written there: it is a run to keep */
    set_link(link, prev);
    *strrchr(link, '/') = 0; /* runs/<name>, then runs: removed only when empty */
    if (rmdir(link) == 0 && strrchr(link, '/')) {
        *strrchr(link, '/') = 0;
        rmdir(link);
    }
}

int rd_latest(const char *name, char *out, size_t n)
{
    char link[PATH_MAX + 64], real[PATH_MAX];
    if (latest_path(name, link, sizeof(link)) < 0 || !realpath(link, real) ||
        snprintf(out, n, "%s", real) >= (int)n)
        return -ENOENT;
    return 0;
}
