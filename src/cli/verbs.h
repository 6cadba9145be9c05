/* verbs: the cluster halves of the verbs that act on local runs too (get, describe, logs),
 * called by their cmd_*.c after parsing when cluster_wanted() says so. */
#ifndef JX_CLI_VERBS_H
#define JX_CLI_VERBS_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/cluster.h"

struct get_args {
    struct cluster c;
    const char *name, *fmt; /* operand ([KIND/]NAME, or KIND with --all); -o */
    const char *selector;   /* -l/--selector: a label selector of the list (and watch) */
    bool all, watch, all_ns; /* --all, -w, -A/--all-namespaces */
};
int get_cluster(struct get_args *a); /* cmd_get_cluster.c */

/* describe on a cluster: `arg` is [KIND/]NAME (cmd_describe_cluster.c). */
int describe_cluster(struct cluster *c, const char *arg);

/* logs on a cluster (cmd_logs_cluster.c). */
struct logs_cluster_args {
    struct cluster c;
    const char *name;               /* [KIND/]NAME */
    long long process_id;           /* --process-id, -1: any */
    const char *pod, *rj, *container; /* --pod (name or hostname), --replicated-job, -c */
    bool follow, prefix;
    long long since_s, tail;        /* --since (seconds), --tail; -1: unset */
};
int logs_cluster(struct logs_cluster_args *a);

/* What `wait --for` waits for: a terminal state, or a condition with a status. */
struct wait_for {
    const char *state;     /* "Completed" or "Failed", or NULL */
    char cond[128];        /* condition=TYPE: TYPE ("" when state is set) */
    char status[16];       /* condition=TYPE=STATUS: STATUS, default "True" */
};

/* Parses --for's value; EXIT_OK or a usage error of `cmd`. */
int wait_for_parse(const char *cmd, const char *arg, struct wait_for *out);

/* Waits (with a watch) for job `name` of kind `k` until `f` holds (EXIT_OK, prints
 * "<kind>/<name> condition met" unless quiet), until it reached the other terminal state
 * (EXIT_JOB_FAILED), or until the monotonic time `deadline_ms` (0: none; EXIT_TIMEOUT).
 * Other errors as cluster_fail. */
int wait_cluster_job(struct cluster *c, const struct kc_res *k, const char *name,
                     const struct wait_for *f, int64_t deadline_ms, bool quiet);

/* submit: the training runtimes the TrainJobs of `files` name and no file holds, read from the
 * cluster (connecting `c` when needed) and written to a temporary file, *tmp (malloc'd; NULL
 * when there is none), to be loaded with the files but not sent.  EXIT_OK, or an exit status
 * after printing why (submit_rt.c). */
int submit_runtimes(struct cluster *c, const char *const *files, size_t n, char **tmp);

#endif
