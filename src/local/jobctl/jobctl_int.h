/* jobctl internals shared by jobctl*.c; not for other modules. */
#ifndef JX_JOBCTL_INT_H
#define JX_JOBCTL_INT_H

#include "local/jobctl/jobctl.h"

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <stdbool.h>

struct err;

enum jobctl__pfp {
    JOBCTL__PFP_NONE,
    JOBCTL__PFP_FAIL_JOB,
    JOBCTL__PFP_FAIL_INDEX,
    JOBCTL__PFP_IGNORE,
    JOBCTL__PFP_COUNT
};

/* Evaluates spec.podFailurePolicy against a failed pod: the first matching rule's action, or
 * NONE.  On FAIL_JOB, `msg` receives the Failed condition message. */
enum jobctl__pfp jobctl__pfp_match(const struct jobctl_spec *s, const struct jobctl_pod *p,
                                   char *msg, size_t msgsz);

/* base * 2^n, capped at max (n >= 0). */
int64_t jobctl__backoff(int64_t base, int64_t max, int n);

/* The exit code the kubelet reports: exit status, or 128 + signal for a signal death. */
int jobctl__exit_code(const struct jobctl_pod *p);

/* ---- index sets (jobctl_index.c) ------------------------------------------------------- */

/* Reads and checks spec.successPolicy into s->success_rules (after completions and the
 * completion mode are read), with the Job API's messages.  0 or -EINVAL. */
int jobctl__read_success(const json_t *spec, struct jobctl_spec *s, struct err *e);

/* The first successPolicy rule that `done` (sorted distinct succeeded indexes) meets: true with
 * "Matched rules at index N" in msg, or false. */
bool jobctl__success_match(const struct jobctl_spec *s, const int *done, size_t ndone, char *msg,
                           size_t msgsz);

/* The failures of one index, for backoffLimitPerIndex. */
struct jobctl__ixf {
    int index;
    int32_t counted; /* failures that count towards backoffLimitPerIndex */
    int32_t ignored; /* failures an Ignore rule kept out of the count */
    bool fail_index; /* a failure matched a FailIndex rule */
    int64_t last_ms; /* when the last failure ended */
};

/* Sorts one-failure records by index and merges those of an index; returns the new count. */
size_t jobctl__ixf_merge(struct jobctl__ixf *v, size_t n);

/* The merged record of `index`, or NULL. */
const struct jobctl__ixf *jobctl__ixf_find(const struct jobctl__ixf *v, size_t n, int index);

/* Writes the failed indexes of merged records (FailIndex, or more counted failures than
 * `limit`) to out (room for n), sorted; returns how many. */
size_t jobctl__ixf_failed(const struct jobctl__ixf *v, size_t n, int32_t limit, int *out);


#endif
