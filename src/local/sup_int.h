/* Private to the supervisor: spawning and the watchdog. */
#ifndef JX_SUP_INT_H
#define JX_SUP_INT_H

#include <sys/types.h>

#include "local/sup.h"

struct sup__watchdog {
    pid_t pid;
    int fd; /* write end; its closing (also by the kernel when we die) is the signal */
    char pending[4096]; /* records not yet written: sent in one write per poll */
    size_t n_pending;
};

/* Forks the watchdog. 0 or a negative errno. */
int sup__watchdog_start(struct sup__watchdog *w);
/* Registers / unregisters a process group it must kill if we die.  Records are queued and
 * written by sup__watchdog_flush (the supervisor flushes before it blocks, so a group is
 * covered from the first wait after its spawn on; the queue flushes itself when full). */
void sup__watchdog_watch(struct sup__watchdog *w, pid_t pgid);
void sup__watchdog_forget(struct sup__watchdog *w, pid_t pgid);
void sup__watchdog_flush(struct sup__watchdog *w);
/* Closes the pipe and reaps the watchdog. NULL-safe, idempotent. */
void sup__watchdog_stop(struct sup__watchdog *w);

/* posix_spawn of one container in a new process group with output into a new pipe whose read
 * end (non-blocking, close-on-exec) is returned in *out_pipe.  Negative errno with err set;
 * nothing is left running then. */
int sup__spawn(const struct sup_spec *spec, pid_t *out_pid, int *out_pipe, struct err *err);

#endif
