/* nsroot: the mount namespaces in which the processes of pods with volumes run.
 *
 * A pod template's namespace is built once, before the run starts, as bubblewrap builds its
 * sandbox (containers/bubblewrap, bubblewrap.c: main's two pivot_root calls and
 * setup_newroot's --bind, --dir, --file, --symlink and --tmpfs operations): in a child
 * process, new user (when not root) and mount namespaces, the user's own uid and gid mapped to
 * themselves; a tmpfs at /tmp holding "newroot" and "oldroot", pivot_root into it, then the
 * operations of a plan executed into /newroot with sources under /oldroot, /oldroot detached,
 * and /newroot made the root.  The child exits; the namespaces stay, held by two descriptors.
 * A pod's own tmpfs volumes are mounted into it later by a child that joins it (nsr_exec).
 *
 * A container then starts in a mount namespace of its own made from the template's (so that
 * it sees only its own volumeMounts, as on Kubernetes): its spawned child joins the
 * namespaces, unshares the mount namespace, clones every volume's tree (open_tree) before
 * attaching any (move_mount), so that a mount never hides the source of the next, and
 * execs.  Nothing runs between jaxset and the container's process: signals, process groups
 * and exit statuses are those of a pod without volumes. */
#ifndef JX_NSROOT_H
#define JX_NSROOT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "obj/base/err.h"

enum nsr_op_kind {
    NSR_OP_DIR,     /* mkdir path (an existing directory is fine) */
    NSR_OP_FILE,    /* an empty file at path (a mount point for a file) */
    NSR_OP_SYMLINK, /* symlink arg at path */
    NSR_OP_BIND,    /* recursive bind of the host's arg (read under /oldroot) at path */
    NSR_OP_TMPFS,   /* a tmpfs at path, mount data arg ("mode=0755,size=1024") */
    NSR_OP_UMOUNT,  /* detach what is mounted at path */
};

struct nsr_op {
    enum nsr_op_kind kind;
    char *path;    /* as the pod sees it (owned) */
    char *arg;     /* owned, or NULL */
    bool optional; /* a BIND of an entry listed when planning: gone since then is no error */
};

/* Operations in order.  Paths are given as the pod sees them. */
struct nsr_plan {
    struct nsr_op *ops;
    size_t n, cap;
};

/* What planning reads of this machine's files (nothing else is read, nothing is written):
 * the system calls themselves, or a stand-in (the fuzz target's file tree).  Each returns as
 * the call it stands for (-1 with errno set); list() gives the entries of a directory, "."
 * and ".." aside, in a new array of malloc'd names (0 or a negative errno). */
struct nsr_host {
    int (*lstat)(const char *path, struct stat *st);
    int (*stat)(const char *path, struct stat *st);
    ssize_t (*readlink)(const char *path, char *buf, size_t n);
    char *(*realpath)(const char *path);
    int (*list)(const char *dir, char ***names, size_t *n);
};

/* The view planning uses: this machine's by default. */
extern const struct nsr_host *nsr_host;

/* Appends an operation (path and arg copied).  0 or -ENOMEM. */
int nsr_plan_add(struct nsr_plan *p, enum nsr_op_kind kind, const char *path, const char *arg,
                 bool optional);
void nsr_plan_release(struct nsr_plan *p);
/* Appends the root's entries: each top-level entry of this machine's / bound at its place
 * (symbolic links copied).  0 or a negative errno. */
int nsr_plan_root(struct nsr_plan *p);
/* Appends a shadow of the host directory `dir`, which the new root has at `at` (dir itself,
 * or under NSR_HOST when dir lies in a larger shadowed directory): a tmpfs (of dir's mode)
 * over it holding its entries, so that a mount point can be made in it without touching the
 * host.  Up to NSR_SHADOW_BINDS entries are bound back at their place; a larger directory (a
 * busy /tmp) is bound once at NSR_HOST<at> and its entries are symbolic links into it, as
 * thousands of mounts would make every container's namespace slow to copy.  0 when bound, 1
 * when linked (the entries of dir are then at NSR_HOST<at>/<name>), or a negative errno. */
int nsr_plan_shadow(struct nsr_plan *p, const char *dir, const char *at);

#define NSR_SHADOW_BINDS 256
#define NSR_HOST "/.jaxset-host"

/* A pod's namespaces: -1 when none (the user namespace when jaxset runs as root). */
struct nsr_ns {
    int user_fd, mnt_fd;
};

#define NSR_NS_NONE ((struct nsr_ns){-1, -1})

/* Builds the namespaces of `plan` (a new root: every path under /newroot, BIND sources under
 * /oldroot).  0, or a negative errno with err saying which step failed and why (for the user:
 * "user namespaces are not allowed here..."); nothing is left open then. */
int nsr_build(const struct nsr_plan *plan, struct nsr_ns *out, struct err *err);
/* Executes `plan` in the namespaces `ns` (from a child that joins them).  0, or a negative
 * errno with err set. */
int nsr_exec(const struct nsr_ns *ns, const struct nsr_plan *plan, struct err *err);
void nsr_close(struct nsr_ns *ns);

/* Whether a container can enter `ns`: joins it, clones a tree read-only and attaches it, as
 * nsr__enter does.  0, or a negative errno with err saying why. */
int nsr_probe_enter(const struct nsr_ns *ns, struct err *err);

#define NSR_RDONLY 1u    /* read-only */
#define NSR_RECURSIVE 2u /* read-only applies to the mounts under it too (recursiveReadOnly) */

/* One volumeMount of a container: the host's src at dst, as the pod sees them. */
struct nsr_mount {
    const char *src, *dst;
    unsigned flags;
};

/* A path made in a container's image root before it is entered: this machine's `src` bound
 * (recursively) at `dst`, a host path under nsr_root.merged; `file`: a file, not a directory. */
struct nsr_bind {
    const char *src, *dst;
    bool file;
};

/* A container's own root from its image (`jaxset run --images`), as runc builds one: an
 * overlay of the image's unpacked root filesystem (`lower`, shared and never written) under a
 * writable layer of the container's own (`upper`, `work`), mounted at `merged` in the
 * container's private mount namespace (so it goes with the process: nothing stays mounted on
 * the host, whatever kills jaxset), this machine's /proc, /dev and /sys and the pod's hosts
 * file bound into it (`binds`), then made the root; the volumeMounts are attached in it, and
 * the process runs as uid:gid (groups: gid alone) with the pod's hostname. */
struct nsr_root {
    const char *hostname; /* the pod's, in a UTS namespace of its own */
    const char *merged;
    const char *opts; /* "lowerdir=...,upperdir=...,workdir=..." */
    const struct nsr_bind *binds;
    size_t n_binds;
    unsigned uid, gid;
};

/* What a container's process enters before it execs: the namespaces of its pod template
 * (ns), and with `root` an image root of its own made from there, then its volumeMounts. */
struct nsr_enter {
    struct nsr_ns ns;
    const struct nsr_mount *m; /* in order: a mount inside another comes after it */
    size_t n;
    const struct nsr_root *root; /* NULL: none */
};

/* nsr__enter's *failed while it builds an image root (not a volume's index). */
#define NSR_FAILED_ROOT (-2)

/* Descriptors a container's process may hold besides its trees' while it enters: nsr__enter
 * raises the soft limit of open files by e->n + NSR_FD_RESERVE, up to the hard limit. */
#define NSR_FD_RESERVE 64

/* In a spawned child, system calls only: joins e's namespaces (or builds its image root),
 * unshares the mount namespace and mounts (a read-only mount's source on this machine covered read-only too); `fds` is
 * scratch for e->n descriptors, the soft limit of open files raised while they are open.  0, or -1
 * with errno set and *failed the index of the mount that failed (-1 when joining failed). */
int nsr__enter(const struct nsr_enter *e, int *fds, long *failed);

#endif
