/* Whole process trees: what a container's cgroup gives a kubelet (every process of the pod,
 * whatever its session or group, ends with it), played with /proc.  A process that calls
 * setsid, or double-forks, leaves its group but not its ancestry: each container's main
 * process is a child subreaper (sup_spawn.c), so its orphans stay below it, and jaxset is one
 * too, so what outlives a main process comes back to jaxset as a child (a "stray").  Kubernetes
 * kills everything in the container's cgroup when its main process ends
 * (kubernetes/kubernetes pkg/kubelet/cm, the runtime's cgroup kill). */
#include "local/sup/sup_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Scans until one finds nothing new after the processes found were stopped. */
#define TREE_ROUNDS 64

struct pinfo {
    pid_t pid, ppid, pgrp;
};

struct ptab {
    struct pinfo *v;
    size_t n, cap;
};

struct pidv {
    pid_t *v;
    size_t n, cap;
};

static int pidv_push(struct pidv *s, pid_t pid)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 32;
        pid_t *nv = realloc(s->v, cap * sizeof(*nv));
        if (!nv)
            return -ENOMEM;
        s->v = nv;
        s->cap = cap;
    }
    s->v[s->n++] = pid;
    return 0;
}

static bool pids_have(const pid_t *v, size_t n, pid_t pid)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == pid)
            return true;
    return false;
}

/* A live process's parent and group from /proc/<pid>/stat; false for a zombie or one gone. */
static bool stat_read(pid_t pid, struct pinfo *pi)
{
    char path[32], buf[512];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = 0;
    const char *rp = strrchr(buf, ')'); /* the command name may hold ')' and spaces */
    char state;
    int ppid, pgrp;
    if (!rp || sscanf(rp + 1, " %c %d %d", &state, &ppid, &pgrp) != 3 || state == 'Z' ||
        state == 'X')
        return false;
    *pi = (struct pinfo){.pid = pid, .ppid = ppid, .pgrp = pgrp};
    return true;
}

/* Every live process of the machine.  0 or a negative errno. */
static int ptab_read(struct ptab *t)
{
    DIR *d = opendir("/proc");
    struct dirent *de;
    int rc = d ? 0 : -errno;
    t->n = 0;
    while (d && rc == 0 && (de = readdir(d))) {
        char *end;
        long pid = strtol(de->d_name, &end, 10);
        struct pinfo pi;
        if (*end || pid <= 0 || !stat_read((pid_t)pid, &pi))
            continue;
        if (t->n == t->cap) {
            size_t cap = t->cap ? t->cap * 2 : 256;
            struct pinfo *nv = realloc(t->v, cap * sizeof(*nv));
            if (!nv) {
                rc = -ENOMEM;
                break;
            }
            t->v = nv;
            t->cap = cap;
        }
        t->v[t->n++] = pi;
    }
    if (d)
        closedir(d);
    return rc;
}

/* Stops every process of t below a marked one, or in a group led by a root; true when one was
 * added.  A stopped process forks no more, so repeated scans end. */
static bool mark_below(const struct ptab *t, struct pidv *marked, const pid_t *roots,
                       size_t n_roots, pid_t self, pid_t own_pgrp)
{
    bool added = false, more = true;
    while (more) {
        more = false;
        for (size_t i = 0; i < t->n; i++) {
            const struct pinfo *p = &t->v[i];
            if (p->pid == self || pids_have(marked->v, marked->n, p->pid))
                continue;
            if (!pids_have(marked->v, marked->n, p->ppid) &&
                (p->pgrp == own_pgrp || !pids_have(roots, n_roots, p->pgrp)))
                continue;
            if (pidv_push(marked, p->pid) < 0)
                return added;
            kill(p->pid, SIGSTOP);
            added = more = true;
        }
    }
    return added;
}

int sup__kill_tree(const pid_t *roots, size_t n_roots)
{
    struct pidv marked = {0};
    struct ptab t = {0};
    pid_t self = getpid(), own_pgrp = getpgrp();
    int rc = 0;
    for (size_t i = 0; i < n_roots && rc == 0; i++) {
        if (roots[i] <= 0 || roots[i] == self)
            continue;
        kill(roots[i], SIGSTOP);
        rc = pidv_push(&marked, roots[i]);
    }
    for (int round = 0; rc == 0 && round < TREE_ROUNDS; round++) {
        if ((rc = ptab_read(&t)) < 0)
            break;
        if (!mark_below(&t, &marked, roots, n_roots, self, own_pgrp) && round > 0)
            break;
    }
    for (size_t i = 0; i < marked.n; i++)
        kill(marked.v[i], SIGKILL);
    for (size_t i = 0; i < n_roots; i++)
        if (roots[i] > 0 && roots[i] != own_pgrp)
            kill(-roots[i], SIGKILL);
    free(marked.v);
    free(t.v);
    return rc;
}

int sup__strays(const pid_t *known, size_t n_known, pid_t **out)
{
    struct ptab t = {0};
    struct pidv s = {0};
    pid_t self = getpid();
    int rc = ptab_read(&t);
    for (size_t i = 0; rc == 0 && i < t.n; i++)
        if (t.v[i].ppid == self && !pids_have(known, n_known, t.v[i].pid))
            rc = pidv_push(&s, t.v[i].pid);
    free(t.v);
    if (rc < 0) {
        free(s.v);
        return rc;
    }
    *out = s.v;
    return (int)s.n;
}
