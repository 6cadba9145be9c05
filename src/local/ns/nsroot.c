/* nsroot: building a pod's namespaces and entering them (see nsroot.h).  What runs in a
 * cloned child shares the parent's memory (CLONE_VM | CLONE_VFORK, as glibc's posix_spawn):
 * it makes system calls only, on what the parent prepared. */
#include "local/ns/nsroot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define NSR_CHILD __attribute__((no_sanitize("address", "undefined")))
#define NSR_STACK (32 * 1024)

enum step {
    B_UNSHARE,
    B_SETGROUPS,
    B_UIDMAP,
    B_GIDMAP,
    B_NSFD,
    B_PRIVATE,
    B_BASE,
    B_PIVOT,
    B_OP,
    B_OLDROOT,
    B_NEWROOT,
    B_JOIN,
};

struct builder {
    const struct nsr_plan *plan;
    const char *dst, *src;   /* prefixes of the ops' paths and BIND sources */
    const struct nsr_ns *join; /* nsr_exec: the namespaces to join; NULL: new ones */
    bool userns;
    char uid_map[64], gid_map[64];
    int user_fd, mnt_fd;
    volatile int err;
    volatile int step;
    volatile size_t op;
};

NSR_CHILD static int write_proc(const char *path, const char *s)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, s, strlen(s));
    int e = errno;
    close(fd);
    errno = e;
    return n < 0 ? -1 : 0;
}

/* New namespaces, the user's uid and gid mapped to themselves, and descriptors that keep them. */
NSR_CHILD static int make_namespaces(struct builder *b)
{
    b->step = B_UNSHARE;
    if (unshare(CLONE_NEWNS | (b->userns ? CLONE_NEWUSER : 0)) < 0)
        return -1;
    if (b->userns) {
        b->step = B_SETGROUPS;
        if (write_proc("/proc/self/setgroups", "deny") < 0 && errno != ENOENT)
            return -1;
        b->step = B_UIDMAP;
        if (write_proc("/proc/self/uid_map", b->uid_map) < 0)
            return -1;
        b->step = B_GIDMAP;
        if (write_proc("/proc/self/gid_map", b->gid_map) < 0)
            return -1;
    }
    b->step = B_NSFD;
    if (b->userns && (b->user_fd = open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    return (b->mnt_fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC)) < 0 ? -1 : 0;
}

/* bubblewrap's first step: nothing propagates back to the host, a tmpfs at /tmp becomes the
 * root with the host's root at /oldroot and an empty /newroot to fill. */
NSR_CHILD static int enter_base(struct builder *b)
{
    b->step = B_PRIVATE;
    if (mount(NULL, "/", NULL, MS_SLAVE | MS_REC, NULL) < 0)
        return -1;
    b->step = B_BASE;
    if (mount("tmpfs", "/tmp", "tmpfs", MS_NODEV | MS_NOSUID, "mode=0755") < 0 ||
        chdir("/tmp") < 0 || mkdir("newroot", 0755) < 0 ||
        mount("newroot", "newroot", NULL, MS_BIND | MS_REC, NULL) < 0 ||
        mkdir("oldroot", 0755) < 0)
        return -1;
    b->step = B_PIVOT;
    if (syscall(SYS_pivot_root, ".", "oldroot") < 0)
        return -1;
    return chdir("/");
}

/* prefix + path into buf (PATH_MAX + 16 bytes): false, errno ENAMETOOLONG, when too long. */
NSR_CHILD static bool cat(char *buf, const char *prefix, const char *path)
{
    size_t a = strlen(prefix), b = strlen(path);
    if (a + b >= PATH_MAX + 16) {
        errno = ENAMETOOLONG;
        return false;
    }
    memcpy(buf, prefix, a);
    memcpy(buf + a, path, b + 1);
    return true;
}

NSR_CHILD static int run_op(const struct builder *b, const struct nsr_op *o)
{
    char path[PATH_MAX + 16], src[PATH_MAX + 16];
    int fd;
    if (!cat(path, b->dst, o->path) || (o->kind == NSR_OP_BIND && !cat(src, b->src, o->arg)))
        return -1;
    switch (o->kind) {
    case NSR_OP_DIR:
        return mkdir(path, 0755) < 0 && errno != EEXIST ? -1 : 0;
    case NSR_OP_FILE:
        fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
        return fd < 0 ? -1 : close(fd);
    case NSR_OP_SYMLINK:
        return symlink(o->arg, path);
    case NSR_OP_BIND:
        if (mount(src, path, NULL, MS_BIND | MS_REC, NULL) == 0)
            return 0;
        return o->optional && (errno == ENOENT || errno == ENOTDIR) ? 0 : -1;
    case NSR_OP_TMPFS:
        return mount("tmpfs", path, "tmpfs", MS_NODEV | MS_NOSUID, o->arg);
    case NSR_OP_UMOUNT:
        return umount2(path, MNT_DETACH);
    }
    errno = EINVAL;
    return -1;
}

NSR_CHILD static int run_ops(struct builder *b)
{
    b->step = B_OP;
    for (b->op = 0; b->op < b->plan->n; b->op++)
        if (run_op(b, &b->plan->ops[b->op]) < 0)
            return -1;
    return 0;
}

/* The plan, then /newroot becomes the root and the host's old root goes. */
NSR_CHILD static int fill_root(struct builder *b)
{
    if (run_ops(b) < 0)
        return -1;
    b->step = B_OLDROOT;
    if (umount2("/oldroot", MNT_DETACH) < 0)
        return -1;
    b->step = B_NEWROOT;
    if (chdir("/newroot") < 0 || syscall(SYS_pivot_root, ".", ".") < 0 ||
        umount2(".", MNT_DETACH) < 0)
        return -1;
    return chdir("/");
}

NSR_CHILD static int join(struct builder *b)
{
    b->step = B_JOIN;
    if (b->join->user_fd >= 0 && setns(b->join->user_fd, CLONE_NEWUSER) < 0)
        return -1;
    return setns(b->join->mnt_fd, CLONE_NEWNS);
}

NSR_CHILD static int builder_main(void *arg)
{
    struct builder *b = arg;
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, NULL);
    if (b->join ? join(b) < 0 || run_ops(b) < 0
                : make_namespaces(b) < 0 || enter_base(b) < 0 || fill_root(b) < 0) {
        b->err = errno ? errno : EIO;
        _exit(1);
    }
    _exit(0);
}

/* Why a step failed, for the user. */
static const char *why(const struct builder *b)
{
    int e = b->err;
    if (b->step == B_UNSHARE && b->userns && e == EPERM)
        return "user namespaces are not allowed here (sysctl kernel.unprivileged_userns_clone=0 "
               "or kernel.apparmor_restrict_unprivileged_userns=1, or the seccomp profile of "
               "a container jaxset runs in)";
    if (b->step == B_UNSHARE && b->userns && (e == ENOSPC || e == EUSERS))
        return "the limit of user namespaces is reached (sysctl user.max_user_namespaces)";
    if (b->step == B_UNSHARE && e == EINVAL)
        return "this kernel has no user or mount namespaces";
    if (b->step == B_UNSHARE && e == EPERM)
        return "jaxset runs as root without CAP_SYS_ADMIN";
    if (e == EPERM || e == EACCES)
        return "refused by the kernel's policy (a seccomp filter or security module)";
    return "";
}

static const char *step_name(const struct builder *b)
{
    static const char *const names[] = {
        [B_UNSHARE] = "unshare", [B_SETGROUPS] = "/proc/self/setgroups",
        [B_UIDMAP] = "/proc/self/uid_map", [B_GIDMAP] = "/proc/self/gid_map",
        [B_NSFD] = "/proc/self/ns", [B_PRIVATE] = "making / private",
        [B_BASE] = "a tmpfs at /tmp", [B_PIVOT] = "pivot_root",
        [B_OP] = "", [B_OLDROOT] = "detaching the old root", [B_NEWROOT] = "pivot_root",
        [B_JOIN] = "joining the namespaces",
    };
    return names[b->step];
}

static int build_error(const struct builder *b, struct err *err)
{
    const char *w = why(b);
    if (b->step == B_OP) {
        const struct nsr_op *o = &b->plan->ops[b->op];
        static const char *const what[] = {"mkdir", "creating", "symlink", "bind mount of",
                                           "tmpfs at", "unmounting"};
        const char *shown = o->kind == NSR_OP_BIND ? o->arg : o->path;
        return err_set(err, -b->err, "%s %s: %s%s%s", what[o->kind], shown, strerror(b->err),
                       *w ? ": " : "", w);
    }
    return err_set(err, -b->err, "%s%s: %s%s%s", step_name(b),
                   b->step == B_UNSHARE ? (b->userns ? "(CLONE_NEWUSER|CLONE_NEWNS)"
                                                     : "(CLONE_NEWNS)")
                                        : "",
                   strerror(b->err), *w ? ": " : "", w);
}

/* Runs the builder in a child and waits for it. */
static int run_builder(struct builder *b, struct nsr_ns *out, struct err *err)
{
    char stack[NSR_STACK] __attribute__((aligned(16)));
    int status = 0;
    /* CLONE_FILES: the descriptors the child opens to keep the namespaces are ours */
    pid_t pid = clone(builder_main, stack + sizeof(stack),
                      CLONE_VM | CLONE_VFORK | CLONE_FILES | SIGCHLD, b);
    if (pid < 0)
        return err_set(err, -errno, "clone: %s", strerror(errno));
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    struct nsr_ns ns = {b->user_fd, b->mnt_fd};
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        nsr_close(&ns);
        if (!b->err)
            return err_set(err, -EIO, "the namespace builder was killed");
        return build_error(b, err);
    }
    if (out)
        *out = ns;
    return 0;
}

int nsr_build(const struct nsr_plan *plan, struct nsr_ns *out, struct err *err)
{
    struct builder b = {.plan = plan, .dst = "/newroot", .src = "/oldroot",
                        .userns = geteuid() != 0, .user_fd = -1, .mnt_fd = -1};
    snprintf(b.uid_map, sizeof(b.uid_map), "%u %u 1", (unsigned)geteuid(), (unsigned)geteuid());
    snprintf(b.gid_map, sizeof(b.gid_map), "%u %u 1", (unsigned)getegid(), (unsigned)getegid());
    return run_builder(&b, out, err);
}

int nsr_exec(const struct nsr_ns *ns, const struct nsr_plan *plan, struct err *err)
{
    struct builder b = {.plan = plan, .dst = "", .src = "", .join = ns, .user_fd = -1,
                        .mnt_fd = -1};
    return run_builder(&b, NULL, err);
}

void nsr_close(struct nsr_ns *ns)
{
    if (!ns)
        return;
    if (ns->user_fd >= 0)
        close(ns->user_fd);
    if (ns->mnt_fd >= 0)
        close(ns->mnt_fd);
    *ns = NSR_NS_NONE;
}

/* A read-only volume is read-only wherever the container finds it: its source on this
 * machine (a claim's <run dir>/volumes/<claim>, a hostPath, a pod's ConfigMap files), which
 * the container's root shows too, is covered by a read-only clone of itself.  "/" is left
 * as it is (a read-only hostPath "/" would make the container's whole root read-only). */
NSR_CHILD static int cover_source(const struct nsr_mount *m)
{
    const char *s = m->src, *d = m->dst;
    while (*s && *s == *d)
        s++, d++;
    if (!(m->flags & NSR_RDONLY) || (!*s && !*d) || !m->src[1])
        return 0;
    int fd = open_tree(AT_FDCWD, m->src, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
    struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY};
    unsigned rec = m->flags & NSR_RECURSIVE ? AT_RECURSIVE : 0;
    int rc = fd < 0 ? -1 : mount_setattr(fd, "", AT_EMPTY_PATH | rec, &ro, sizeof(ro));
    if (rc == 0)
        rc = move_mount(fd, "", AT_FDCWD, m->src, MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_SYMLINKS);
    if (fd >= 0) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return rc;
}

/* Room for every tree's descriptor at once: the soft limit of open files raised by n and a
 * reserve (up to the hard one, which vol_tmpl_new checks before the run starts) while they
 * are open; *old is the limit to restore. */
NSR_CHILD static int fds_room(size_t n, struct rlimit *old)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, old) < 0)
        return -1;
    r = *old;
    if (r.rlim_cur == RLIM_INFINITY || n == 0)
        return 0;
    r.rlim_cur += n + NSR_FD_RESERVE; /* every descriptor open now lies below the old one */
    if (r.rlim_max != RLIM_INFINITY && r.rlim_cur > r.rlim_max)
        r.rlim_cur = r.rlim_max;
    return r.rlim_cur == old->rlim_cur ? 0 : setrlimit(RLIMIT_NOFILE, &r);
}

/* The image root's mounts (nsr_root): the overlay at merged, the binds into it; from the pod
 * template's namespace when it has one (its pods' tmpfs volumes are mounted there). */
NSR_CHILD static int root_mount(const struct nsr_ns *ns, const struct nsr_root *r)
{
    if (ns->mnt_fd >= 0 && setns(ns->mnt_fd, CLONE_NEWNS) < 0)
        return -1;
    if (unshare(CLONE_NEWNS | CLONE_NEWUTS) < 0 ||
        sethostname(r->hostname, strlen(r->hostname)) < 0 ||
        mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
        mount("overlay", r->merged, "overlay", 0, r->opts) < 0)
        return -1;
    for (size_t i = 0; i < r->n_binds; i++) {
        const struct nsr_bind *b = &r->binds[i];
        int fd = b->file ? open(b->dst, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644) : -1;
        if (b->file && fd < 0)
            return -1;
        if (fd >= 0)
            close(fd);
        if (!b->file && mkdir(b->dst, 0755) < 0 && errno != EEXIST)
            return -1;
        if (mount(b->src, b->dst, NULL, MS_BIND | MS_REC, NULL) < 0)
            return -1;
    }
    return 0;
}

/* The image root made the root: pivot_root(".", ".") in it and the old root detached. */
NSR_CHILD static int root_pivot(const struct nsr_root *r)
{
    if (chdir(r->merged) < 0 || syscall(SYS_pivot_root, ".", ".") < 0 ||
        umount2(".", MNT_DETACH) < 0 || chdir("/") < 0)
        return -1;
    return 0;
}

/* A volume's mount point in the image root (whose layer is the container's own): the
 * directories of `dst` made, and dst itself, a file when the tree at fd is one. */
NSR_CHILD static int root_mount_point(const char *dst, int fd)
{
    char p[PATH_MAX];
    size_t n = strlen(dst);
    struct stat st;
    if (n >= sizeof(p) || fstat(fd, &st) < 0)
        return -1;
    memcpy(p, dst, n + 1);
    for (size_t i = 1; i < n; i++) {
        if (p[i] != '/')
            continue;
        p[i] = '\0';
        if (mkdir(p, 0755) < 0 && errno != EEXIST)
            return -1;
        p[i] = '/';
    }
    if (!S_ISDIR(st.st_mode)) {
        int f = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (f < 0)
            return -1;
        close(f);
        return 0;
    }
    return mkdir(p, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

/* Who the process runs as: raw system calls, which change this task alone (glibc's setuid
 * would signal every thread of the process this child shares memory with). */
NSR_CHILD static int root_user(const struct nsr_root *r)
{
    gid_t g = r->gid;
    if (syscall(SYS_setgroups, 1, &g) < 0 || syscall(SYS_setresgid, r->gid, r->gid, r->gid) < 0 ||
        syscall(SYS_setresuid, r->uid, r->uid, r->uid) < 0)
        return -1;
    return 0;
}

NSR_CHILD static int enter_root(const struct nsr_enter *e, int *fds, long *failed)
{
    struct rlimit old;
    *failed = NSR_FAILED_ROOT;
    if (root_mount(&e->ns, e->root) < 0 || fds_room(e->n, &old) < 0)
        return -1;
    for (size_t i = 0; i < e->n; i++) { /* the volumes' trees, from this machine's root */
        *failed = (long)i;
        fds[i] = open_tree(AT_FDCWD, e->m[i].src,
                           OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
        struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY};
        unsigned rec = e->m[i].flags & NSR_RECURSIVE ? AT_RECURSIVE : 0;
        if (fds[i] < 0 || ((e->m[i].flags & NSR_RDONLY) &&
                           mount_setattr(fds[i], "", AT_EMPTY_PATH | rec, &ro, sizeof(ro)) < 0))
            return -1;
    }
    *failed = NSR_FAILED_ROOT;
    if (root_pivot(e->root) < 0)
        return -1;
    for (size_t i = 0; i < e->n; i++) {
        *failed = (long)i;
        if (root_mount_point(e->m[i].dst, fds[i]) < 0 ||
            move_mount(fds[i], "", AT_FDCWD, e->m[i].dst, MOVE_MOUNT_F_EMPTY_PATH) < 0)
            return -1;
    }
    *failed = NSR_FAILED_ROOT;
    if (root_user(e->root) < 0)
        return -1;
    return setrlimit(RLIMIT_NOFILE, &old);
}

NSR_CHILD int nsr__enter(const struct nsr_enter *e, int *fds, long *failed)
{
    struct rlimit old;
    *failed = -1;
    if (e->root)
        return enter_root(e, fds, failed);
    if (e->ns.user_fd >= 0 && setns(e->ns.user_fd, CLONE_NEWUSER) < 0)
        return -1;
    if (setns(e->ns.mnt_fd, CLONE_NEWNS) < 0 || unshare(CLONE_NEWNS) < 0 ||
        fds_room(e->n, &old) < 0)
        return -1;
    for (size_t i = 0; i < e->n; i++) { /* every tree first: a mount hides nothing yet */
        *failed = (long)i;
        fds[i] = open_tree(AT_FDCWD, e->m[i].src,
                           OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
        if (fds[i] < 0)
            return -1;
        struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY};
        unsigned rec = e->m[i].flags & NSR_RECURSIVE ? AT_RECURSIVE : 0;
        if ((e->m[i].flags & NSR_RDONLY) &&
            mount_setattr(fds[i], "", AT_EMPTY_PATH | rec, &ro, sizeof(ro)) < 0)
            return -1;
    }
    for (size_t i = 0; i < e->n; i++) {
        *failed = (long)i;
        if (cover_source(&e->m[i]) < 0)
            return -1;
    }
    for (size_t i = 0; i < e->n; i++) {
        *failed = (long)i;
        if (move_mount(fds[i], "", AT_FDCWD, e->m[i].dst,
                       MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_SYMLINKS) < 0)
            return -1;
    }
    return setrlimit(RLIMIT_NOFILE, &old); /* the trees' descriptors close on exec */
}

struct probe {
    const struct nsr_enter *e;
    int fds[1];
    long failed;
    volatile int err;
};

NSR_CHILD static int probe_main(void *arg)
{
    struct probe *p = arg;
    if (nsr__enter(p->e, p->fds, &p->failed) < 0) {
        p->err = errno ? errno : EIO;
        _exit(1);
    }
    _exit(0);
}

int nsr_probe_enter(const struct nsr_ns *ns, struct err *err)
{
    struct nsr_mount m = {"/", "/", NSR_RDONLY};
    struct nsr_enter e = {*ns, &m, 1, NULL};
    struct probe p = {.e = &e};
    char stack[NSR_STACK] __attribute__((aligned(16)));
    int status = 0;
    pid_t pid = clone(probe_main, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD, &p);
    if (pid < 0)
        return err_set(err, -errno, "clone: %s", strerror(errno));
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    int e2 = p.err ? p.err : EIO;
    if (p.failed < 0)
        return err_set(err, -e2, "joining the namespaces: %s", strerror(e2));
    return err_set(err, -e2, "a read-only mount (open_tree, mount_setattr, move_mount): %s%s",
                   strerror(e2), e2 == ENOSYS ? " (Linux 5.12 or later is needed)" : "");
}
