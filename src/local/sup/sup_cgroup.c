/* A cgroup (v2) per container where one can be had, as a kubelet gives each container one
 * (kubernetes/kubernetes pkg/kubelet/cm): the run's cgroup is made below jaxset's own,
 * "jaxset-<pid>", and each container's below it, "c<id>"; a container's processes, whatever
 * their session, group or parent, are killed together through cgroup.kill (Linux 5.14).  Where
 * cgroup2 is not mounted, or jaxset's cgroup is not writable (a container without a delegated
 * cgroup, an unprivileged user), there is none and the process trees of sup_tree.c do the
 * work alone; they do it in any case, so a cgroup only makes the kill surer. */
#include "local/sup/sup_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#define CG_DRAIN_MS 2000 /* how long sup__cg_close waits for the killed to leave */

/* Where cgroup2 is mounted, where systemd and container runtimes mount it: /sys/fs/cgroup
 * (unified) or /sys/fs/cgroup/unified (hybrid), each one statfs (a few us; the mountinfo scan
 * below took 60-115 us of every start). */
static bool cg2_usual(char *out, size_t n)
{
    static const char *const usual[] = {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"};
    struct statfs sf;
    for (size_t i = 0; i < sizeof(usual) / sizeof(usual[0]); i++)
        if (statfs(usual[i], &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC)
            return snprintf(out, n, "%s", usual[i]) < (int)n;
    return false;
}

/* Where cgroup2 is mounted: a usual place, else the first such mount of
 * /proc/self/mountinfo. */
static bool cg2_mount(char *out, size_t n)
{
    if (cg2_usual(out, n))
        return true;
    FILE *fp = fopen("/proc/self/mountinfo", "re");
    char line[4096];
    bool found = false;
    while (fp && !found && fgets(line, sizeof(line), fp)) {
        char mnt[2048];
        const char *sep = strstr(line, " - ");
        if (sep && !strncmp(sep + 3, "cgroup2 ", 8) &&
            sscanf(line, "%*s %*s %*s %*s %2047s", mnt) == 1)
            found = snprintf(out, n, "%s", mnt) < (int)n;
    }
    if (fp)
        fclose(fp);
    return found;
}

/* Our cgroup2 path ("0::/x/y" in /proc/self/cgroup). */
static bool cg2_self(char *out, size_t n)
{
    FILE *fp = fopen("/proc/self/cgroup", "re");
    char line[4096];
    bool found = false;
    while (fp && !found && fgets(line, sizeof(line), fp)) {
        if (strncmp(line, "0::", 3))
            continue;
        line[strcspn(line, "\n")] = 0;
        found = snprintf(out, n, "%s", line + 3) < (int)n;
    }
    if (fp)
        fclose(fp);
    return found;
}

void sup__cg_open(struct sup__cg *cg)
{
    char mnt[2048], self[2048];
    cg->dirfd = -1;
    cg->path[0] = 0;
    if (!cg2_mount(mnt, sizeof(mnt)) || !cg2_self(self, sizeof(self)) ||
        snprintf(cg->path, sizeof(cg->path), "%s%s/jaxset-%d", mnt,
                 strcmp(self, "/") ? self : "", (int)getpid()) >= (int)sizeof(cg->path) ||
        mkdir(cg->path, 0700) < 0) {
        cg->path[0] = 0;
        return;
    }
    cg->dirfd = open(cg->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (cg->dirfd < 0) {
        rmdir(cg->path);
        cg->path[0] = 0;
    }
}

int sup__cg_container(struct sup__cg *cg, uint64_t id)
{
    char name[64];
    if (cg->dirfd < 0)
        return -1;
    snprintf(name, sizeof(name), "c%llu", (unsigned long long)id);
    if (mkdirat(cg->dirfd, name, 0700) < 0 && errno != EEXIST)
        return -1;
    return openat(cg->dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* Kills every process of the cgroup `dir` (relative to the run's, "." for the run's own). */
static void cg_kill(const struct sup__cg *cg, const char *dir)
{
    char name[96];
    snprintf(name, sizeof(name), "%s/cgroup.kill", dir);
    int fd = openat(cg->dirfd, name, O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t w = write(fd, "1", 1);
        close(fd);
        if (w == 1)
            return;
    }
    snprintf(name, sizeof(name), "%s/cgroup.procs", dir); /* before Linux 5.14 */
    fd = openat(cg->dirfd, name, O_RDONLY | O_CLOEXEC);
    FILE *fp = fd >= 0 ? fdopen(fd, "r") : NULL;
    long pid;
    while (fp && fscanf(fp, "%ld", &pid) == 1)
        if (pid > 0 && pid != getpid())
            kill((pid_t)pid, SIGKILL);
    if (fp)
        fclose(fp);
    else if (fd >= 0)
        close(fd);
}

void sup__cg_kill(struct sup__cg *cg, uint64_t id)
{
    char name[64];
    if (cg->dirfd < 0)
        return;
    snprintf(name, sizeof(name), "c%llu", (unsigned long long)id);
    cg_kill(cg, name);
}

void sup__cg_remove(struct sup__cg *cg, uint64_t id)
{
    char name[64];
    if (cg->dirfd < 0)
        return;
    snprintf(name, sizeof(name), "c%llu", (unsigned long long)id);
    unlinkat(cg->dirfd, name, AT_REMOVEDIR); /* EBUSY while the killed leave: sup__cg_close */
}

/* Removes every container's cgroup left, then the run's; false while one is busy. */
static bool cg_rmdirs(struct sup__cg *cg)
{
    int fd = openat(cg->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    struct dirent *de;
    bool done = true;
    while (d && (de = readdir(d)))
        if (de->d_type == DT_DIR && de->d_name[0] == 'c' &&
            unlinkat(cg->dirfd, de->d_name, AT_REMOVEDIR) < 0 && errno != ENOENT)
            done = false;
    if (d)
        closedir(d);
    else if (fd >= 0)
        close(fd);
    return done && (rmdir(cg->path) == 0 || errno == ENOENT);
}

void sup__cg_close(struct sup__cg *cg)
{
    if (cg->dirfd < 0 && cg->path[0])
        cg->dirfd = open(cg->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (cg->dirfd < 0)
        return;
    cg_kill(cg, ".");
    struct timespec pause = {0, 10 * 1000 * 1000};
    for (int waited = 0; !cg_rmdirs(cg) && waited < CG_DRAIN_MS; waited += 10)
        nanosleep(&pause, NULL);
    close(cg->dirfd);
    cg->dirfd = -1;
}
