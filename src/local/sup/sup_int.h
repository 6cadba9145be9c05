/* Private to the supervisor: spawning and the watchdog. */
#ifndef JX_SUP_INT_H
#define JX_SUP_INT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "local/sup/sup.h"

/* The run's cgroup (sup_cgroup.c). */
struct sup__cg {
    int dirfd;       /* -1: no cgroup to be had here */
    char path[4096]; /* "" when none */
};

/* Makes the run's cgroup when cgroup2 is mounted and jaxset's own is writable; else none. */
void sup__cg_open(struct sup__cg *cg);
/* Makes container `id`'s cgroup: returns its directory open (close-on-exec) for a spawned
 * child to be cloned into or to join, or -1 (none). */
int sup__cg_container(struct sup__cg *cg, uint64_t id);
/* SIGKILLs every process of container `id`'s cgroup. */
void sup__cg_kill(struct sup__cg *cg, uint64_t id);
/* Removes container `id`'s cgroup when it is empty (else sup__cg_close does). */
void sup__cg_remove(struct sup__cg *cg, uint64_t id);
/* Kills everything in the run's cgroup, waits a couple of seconds at most for it to empty,
 * removes it.  Opens it again from cg->path when cg->dirfd is closed (the watchdog). */
void sup__cg_close(struct sup__cg *cg);

struct sup__watchdog {
    const char *cg_path; /* the run's cgroup, killed when the pipe ends; "" or NULL: none */
    pid_t pid;
    int fd; /* write end; its closing (also by the kernel when we die) is the signal */
    char pending[4096]; /* records not yet written: sent in one write per poll */
    size_t n_pending;
};

/* Forwarded output (sup_out.c): prefixed lines for one output fd, written without blocking. */
struct sup__out {
    int fd;            /* private non-blocking description of the caller's fd; -1: gone */
    bool owned;        /* fd was opened here */
    bool blocked;      /* the last write stopped short: wait for the fd to be writable */
    bool stalled;      /* the reader took nothing for SUP_OUT_WAIT_MS: drop, don't wait */
    char *buf;
    size_t off, len, cap;  /* buf[off..len) waits to be written */
    uint64_t forwarded;     /* bytes written */
    uint64_t skipped;       /* bytes dropped since the last marker line */
    uint64_t skipped_total; /* bytes dropped, over the whole run */
    void (*hook)(void *ctx);
    void *hook_ctx;
};

int sup__out_init(struct sup__out *o, int fd);
/* Appends the line a + b + "\n" (dropped and counted when the buffer is full). */
void sup__out_line(struct sup__out *o, const char *a, size_t alen, const char *b, size_t blen);
/* Writes what it can; returns 1 when output is still waiting for the fd to be writable. */
int sup__out_flush(struct sup__out *o);
/* Flushes for at most a couple of seconds, closes what it opened, frees; skipped_total stays
 * (what the reader never took).  Idempotent. */
void sup__out_release(struct sup__out *o);

/* Forks the watchdog. 0 or a negative errno. */
int sup__watchdog_start(struct sup__watchdog *w);
/* One record of the watchdog's pipe, written whole (atomic on a pipe): a spawned child writes
 * its own {'+', pid} between setpgid and exec, the supervisor queues the others. */
struct sup__wd_rec {
    int32_t op; /* '+' or '-' */
    int32_t pgid;
};
/* Unregisters a process group that ended.  Records are queued and written by
 * sup__watchdog_flush (before the supervisor blocks, before every spawn, and when the queue is
 * full). */
void sup__watchdog_forget(struct sup__watchdog *w, pid_t pgid);
void sup__watchdog_flush(struct sup__watchdog *w);
/* Closes the pipe and reaps the watchdog. NULL-safe, idempotent. */
void sup__watchdog_stop(struct sup__watchdog *w);
/* The watchdog died (it was reaped): its pipe is closed and what was queued dropped, so that
 * sup__watchdog_start can replace it; the caller registers the live groups again with
 * sup__watchdog_add. */
void sup__watchdog_lost(struct sup__watchdog *w);
/* Queues "+pgid" for a group the supervisor already runs. */
void sup__watchdog_add(struct sup__watchdog *w, pid_t pgid);

/* Process trees (sup_tree.c).  sup__kill_tree SIGKILLs every process descended from roots[] or
 * in a group one of them leads, the roots included, stopping each one found (SIGSTOP) until a
 * scan of /proc finds no new one; never the caller nor its group.  0 or a negative errno (what
 * was found is killed all the same).  sup__strays stores in *out (malloc'ed) the live children
 * of the caller not in known[]: with the caller a child subreaper, what is left of containers
 * whose main process ended.  Returns their number or a negative errno. */
int sup__kill_tree(const pid_t *roots, size_t n_roots);
int sup__strays(const pid_t *known, size_t n_known, pid_t **out);

/* What every spawned child is given the same, taken once by sup_new (sup_spawn.c). */
struct sup__base {
    int devnull;    /* /dev/null, read-only and close-on-exec: every child's stdin; -1: none */
    sigset_t reset; /* the signals a child sets back to SIG_DFL: SIGPIPE, and every one whose
                     * disposition was not SIG_DFL when sup__base_open ran */
};

/* Opens /dev/null and notes which dispositions are not the default.  0 or a negative errno. */
int sup__base_open(struct sup__base *b);
void sup__base_close(struct sup__base *b);

/* One container's spawn (sup_spawn.c), in three steps.  sup__spawn_new, on the supervisor's
 * thread, does what can fail at once: resolves the executable (outside namespaces), copies what
 * the child needs (argv, envp, working directory: the caller's may be freed once it returns;
 * spec->ns stays borrowed until the clone is done), makes the output pipe, whose read end
 * (non-blocking, close-on-exec) it returns in *out_pipe, and takes cg_dir (the container's
 * cgroup directory, -1: none).  Negative errno with err set, nothing started.
 * sup__spawn_clone (from sup_clones.c, on a stack it lends) clones the child: a new process
 * group, in the cgroup (a refusal is not an error), registered with the watchdog before its
 * program runs; the kernel stores its pid in *pid before it runs.  sup__spawn_result, once the
 * child has exec'd or exited (sup__spawn_done): 0, or the negative errno of a child that did
 * not start, err saying why (the child, when there was one, has exited with status 127, not
 * yet reaped). */
struct sup__spawn;
int sup__spawn_new(const struct sup_spec *spec, const struct sup__base *base,
                   const struct sup__watchdog *wd, int cg_dir, struct sup__spawn **out,
                   int *out_pipe, struct err *err);
void sup__spawn_clone(struct sup__spawn *sp, pid_t *pid, char *stack);
bool sup__spawn_done(const struct sup__spawn *sp);
void sup__spawn_join(struct sup__spawn *sp);
int sup__spawn_result(const struct sup__spawn *sp, bool *in_cg, struct err *err);
void sup__spawn_free(struct sup__spawn *sp); /* NULL-safe */

/* The clones under way (sup_clones.c), in the order they were made.  sup__spawn_clone starts
 * the child on the stack given and returns at once where it can (sup__spawn_done says when the
 * child has exec'd or exited, sup__spawn_join waits for it); inside namespaces it returns once
 * the child has. */
#define SUP_CLONES_MAX 8            /* children setting up at once, at most (<= 32) */
#define SUP_CHILD_STACK (32 * 1024) /* each one's stack */

struct sup__job {
    struct sup__job *next;
    struct sup__spawn *sp;
    pid_t *pid; /* where the kernel stores the child's pid */
    int slot;   /* its stack */
};

struct sup__clones {
    struct sup__job *head, **tail;
    char *stacks; /* SUP_CLONES_MAX stacks */
};

/* Maps the stacks: 0 or a negative errno. */
int sup__clones_init(struct sup__clones *q);
/* Waits for the children under way and unmaps the stacks.  Idempotent. */
void sup__clones_free(struct sup__clones *q);
/* Clones j's child, first waiting for the oldest child when every stack is taken. */
void sup__clones_submit(struct sup__clones *q, struct sup__job *j);
/* The clones whose child has exec'd or exited since the last call (linked by next). */
struct sup__job *sup__clones_take(struct sup__clones *q);
/* Waits for the clone of j and takes it off the list (sup__clones_take will not return it). */
void sup__clones_wait(struct sup__clones *q, struct sup__job *j);
/* Waits until every child under way has exec'd or exited (sup__clones_take returns them). */
void sup__clones_quiesce(struct sup__clones *q);

/* clone3(CLONE_VM | CLONE_INTO_CGROUP | CLONE_PARENT_SETTID) of fn(arg) on the child's stack
 * [stack, stack + stack_size), into the cgroup whose directory is cg_dirfd (sup_clone3.c), the
 * child's pid stored in *parent_tid before it runs; with clear_tid, the kernel clears that word
 * when the child has exec'd or exited (CLONE_CHILD_CLEARTID) and the call returns at once, else
 * the caller is suspended until then (CLONE_VFORK).  The child's pid, or -1 with errno (ENOSYS
 * where it is not built for this machine). */
pid_t sup__clone3(int (*fn)(void *), void *arg, void *stack, size_t stack_size, int cg_dirfd,
                  pid_t *parent_tid, int *clear_tid);

#endif
