/* sup: the process supervisor of the local runner.  Single-threaded and I/O only: it starts
 * containers, forwards their output, reports their exits and kills them; it takes no policy
 * decision (that is jobctl's and the reconcile core's job).
 *
 * A container is one process group: a spawn of argv with an explicit envp, in a new process
 * group, stdin from /dev/null, stdout and stderr into one pipe, every signal's disposition the
 * default and none blocked.  Output is appended raw to the container's log file (by splice,
 * copied once and in the kernel; tee gives the copy that is forwarded) and, when asked,
 * forwarded line by line to an output fd with a prefix ("[pod-host] "), never blocking: a
 * reader that does not keep up gets the lines that fit in a bounded buffer, then a marker line
 * saying how much was skipped.  When the main process exits, whatever is left of its group is
 * killed (as a container runtime does) and the exit is reported once the pipe is drained.
 *
 * No orphans: sup_new() forks a watchdog that outlives a SIGKILLed jaxset only long enough to
 * SIGKILL every process group still registered, and every process descended from its leader,
 * having noticed the end of its pipe.  Each spawned child registers its own group, between
 * setpgid and exec: a group is known to the watchdog before its program can run, so no moment
 * of a start leaves one uncovered.  A watchdog that dies is replaced at the next sup_poll or
 * sup_spawn, and told every running group.
 *
 * Nor does a process leave its container by leaving its group (setsid, a double fork): as in a
 * container's cgroup, everything a container started ends with its main process.  Each main
 * process is a child subreaper, so its orphans stay below it; the caller is made one too
 * (PR_SET_CHILD_SUBREAPER, restored by sup_free), so what outlives a main process comes back
 * to it, and is killed with all it started.  Hence every child of the calling process that is
 * neither a running container's main process nor the watchdog is taken for such a leftover.
 * Where a cgroup (v2) can be had below the caller's, each container also runs in its own
 * (<caller's cgroup>/jaxset-<pid>/c<id>), killed whole when its main process ends and removed by
 * sup_free, or by the watchdog (sup_cgroup.c); elsewhere the process trees do it alone.
 *
 * Not thread-safe; SIGCHLD is blocked in the calling thread while a sup exists. */
#ifndef JX_SUP_H
#define JX_SUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "local/ns/nsroot.h"
#include "obj/base/err.h"

struct sup;

struct sup_spec {
    const char *const *argv;  /* argv[0] without '/' is looked up in envp's PATH (else ours) */
    const char *const *envp;
    const char *cwd;          /* NULL: inherit */
    const char *log_path;     /* appended to, created 0600 on the first output (a silent
                               * container leaves no file); NULL: no log file */
    const char *prefix;       /* written before each forwarded line; NULL: not forwarded */
    const struct nsr_enter *ns; /* the pod's namespaces and the container's mounts, entered
                               * before the working directory is taken and argv[0] looked up
                               * (local/ns/nsroot.h); NULL: this machine's (borrowed until
                               * sup_spawn returns) */
};

struct sup_exit {
    uint64_t id;
    int status; /* as from waitpid(): WIFEXITED/WEXITSTATUS/WIFSIGNALED/WTERMSIG; for a spawn
                 * that failed after sup_spawn returned, an exit status of 127 */
    const char *msg; /* that spawn's failure ("workingDir /x: No such file or directory"),
                      * else NULL; valid until the next sup_poll */
};

/* Creates a supervisor writing forwarded output to `out_fd` (borrowed).  Returns 0 or a
 * negative errno with err set.  The signals a container's child sets back to their default are
 * the ones ignored or caught at this point, and SIGPIPE: set dispositions before sup_new. */
int sup_new(struct sup **out, int out_fd, struct err *err) __attribute__((warn_unused_result));

/* SIGKILLs every group still running and every leftover of a container, reaps them, stops the
 * watchdog and frees. NULL-safe. */
void sup_free(struct sup *s);

/* Starts a container; *out_id identifies it in exits and kills.  Fails (negative errno, err
 * set, nothing started) when the executable cannot be found or the spawn cannot be prepared;
 * the child sets itself up and execs while the caller goes on, and a child that cannot start
 * (a clone refused, its workingDir, its exec) is reported by sup_poll as an exit with status
 * 127 and its message.  Returns without waiting for the clone, unless spec->ns is set. */
int sup_spawn(struct sup *s, const struct sup_spec *spec, uint64_t *out_id, struct err *err)
    __attribute__((warn_unused_result));

/* Sends `sig` to the container's whole process group. 0, or -ESRCH when it is gone. */
int sup_kill(struct sup *s, uint64_t id, int sig);

/* Process-group id of a running container (its leader's pid), or -1. */
pid_t sup_pgid(struct sup *s, uint64_t id);

/* Number of containers not yet reported as exited. */
size_t sup_running(const struct sup *s);

/* A process the caller forked that is no container (a helper beside the pods: the run's status
 * server): never taken for a stray and killed, reaped here when it ends, as every child is.
 * sup_kept_alive: not reaped yet (its pid is still its own: the caller may signal it or
 * waitpid() it).  One at most; 0 or -EBUSY. */
int sup_keep(struct sup *s, pid_t pid);
bool sup_kept_alive(const struct sup *s);
/* The kept process was reaped by the caller itself. */
void sup_kept_reaped(struct sup *s);

/* Watches an extra readable fd (a signalfd, say): sup_poll() returns when it is readable and
 * sets *out_fd_ready.  At most 4. */
int sup_watch_fd(struct sup *s, int fd);

/* Waits up to timeout_ms (-1: forever) for something to happen, forwards output, and stores up
 * to `max` exits.  Returns the number of exits stored (0 on timeout), or a negative errno.
 * *out_fd_ready (may be NULL) is set to the watched fd that became readable, else -1. */
int sup_poll(struct sup *s, int timeout_ms, struct sup_exit *exits, size_t max,
             int *out_fd_ready);

/* Calls fn(ctx) before forwarded output is written, so that a caller drawing a status line on
 * the same terminal can clear it first. fn may be NULL. */
void sup_set_output_hook(struct sup *s, void (*fn)(void *ctx), void *ctx);

/* The errno of the first log file that could not be created or written (0: every log is
 * complete); that container's output still goes to out_fd. */
int sup_log_errno(const struct sup *s);

/* Bytes of output not forwarded because out_fd was not read fast enough (the log files have
 * them) so far. */
uint64_t sup_skipped_bytes(const struct sup *s);

/* Writes the last forwarded output, waiting at most a couple of seconds for a slow reader,
 * and stops forwarding.  Returns the bytes never forwarded over the whole run. */
uint64_t sup_finish_output(struct sup *s);


#endif
