/* verbs: what the verbs share beyond the backends' operations: waiting for a job (backend.c:
 * `wait`, and `submit --wait`) and the runtimes `submit` reads from the cluster
 * (submit_rt.c). */
#ifndef JX_CLI_VERBS_H
#define JX_CLI_VERBS_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/backend/cluster.h"

/* What `wait --for` waits for: a terminal state, or a condition with a status. */
struct backend_wait_for {
    const char *state;     /* "Completed" or "Failed", or NULL */
    char cond[128];        /* condition=TYPE: TYPE ("" when state is set) */
    char status[16];       /* condition=TYPE=STATUS: STATUS, default "True" */
};

/* Parses --for's value; EXIT_OK or a usage error of `cmd`. */
int backend_wait_for_parse(const char *cmd, const char *arg, struct backend_wait_for *out);

struct backend;

/* Waits (with the backend's watch) for job `name` of kind `k` until `f` holds (EXIT_OK, prints
 * "<kind>/<name> condition met" unless quiet), until it reached the other terminal state
 * (EXIT_JOB_FAILED), or until the monotonic time `deadline_ms` (0: none; EXIT_TIMEOUT).
 * Other errors as the backend's get. */
int backend_wait_job(struct backend *b, const struct kc_res *k, const char *name,
                     const struct backend_wait_for *f, int64_t deadline_ms, bool quiet);

/* backend_wait_job on the cluster `c`, connected. */
int backend_wait_cluster_job(struct cluster *c, const struct kc_res *k, const char *name,
                             const struct backend_wait_for *f, int64_t deadline_ms,
                             bool quiet);

/* submit: the training runtimes the TrainJobs of `files` name and no file holds, read from the
 * cluster (connecting `c` when needed) and written to a temporary file, *tmp (malloc'd; NULL
 * when there is none), to be loaded with the files but not sent.  EXIT_OK, or an exit status
 * after printing why (submit_rt.c). */
int submit_runtimes(struct cluster *c, const char *const *files, size_t n, char **tmp);

#endif
