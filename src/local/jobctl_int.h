/* jobctl internals shared by jobctl*.c; not for other modules. */
#ifndef JX_JOBCTL_INT_H
#define JX_JOBCTL_INT_H

#include "local/jobctl.h"

#include <stddef.h>
#include <stdint.h>

enum jobctl__pfp { JOBCTL__PFP_NONE, JOBCTL__PFP_FAIL_JOB, JOBCTL__PFP_IGNORE, JOBCTL__PFP_COUNT };

/* Evaluates spec.podFailurePolicy against a failed pod: the first matching rule's action, or
 * NONE.  On FAIL_JOB, `msg` receives the Failed condition message. */
enum jobctl__pfp jobctl__pfp_match(const struct jobctl_spec *s, const struct jobctl_pod *p,
                                   char *msg, size_t msgsz);

/* base * 2^n, capped at max (n >= 0). */
int64_t jobctl__backoff(int64_t base, int64_t max, int n);

/* The exit code the kubelet reports: exit status, or 128 + signal for a signal death. */
int jobctl__exit_code(const struct jobctl_pod *p);

#endif
