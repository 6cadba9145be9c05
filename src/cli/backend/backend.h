/* backend: where the job verbs (get, describe, logs, wait, delete) read and act, behind one
 * table of operations, as git's transport vtable (git transport.h, struct transport_vtable):
 * the runs this machine keeps (backend_local.c, over the runs local/store/store_run.h reads)
 * or a cluster (backend_cluster.c, over kube/client).  Each verb parses its arguments once,
 * picks a backend with backend_open, and prints what the backend returns through one code
 * path, so a command line means the same in both places and prints the same shapes.
 *
 * Both backends speak Kubernetes objects: a local run is its JobSet (annotated with the run's
 * state and directory, BACKEND_ANN_*), its Pods (cli/backend/pods.h), its Jobs, and for a JAXJob's
 * run the JAXJob with the status its controller would write. */
#ifndef JX_CLI_BACKEND_H
#define JX_CLI_BACKEND_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "cli/backend/cluster.h"
#include "cli/util/table.h"

/* Annotations a local run's JobSet carries: its state (cli/backend/runs.h runs_state),
 * directory and run id (the directory's name, <UTC time>-<pid>); while it runs, the pid of the
 * process running it (local/store/store_run.h store_live_pid); once a pod failed, the first
 * failed pod of the run's last failure (run.json's "failure", docs/local.md) as compact JSON;
 * once the training reported its progress, the latest report (run.json's "trainerStatus",
 * local/run/runner_status.c) as compact JSON, so that a JobSet's `get -w` sees it change. */
#define BACKEND_ANN_RUN_STATE "jaxset.dev/run-state"
#define BACKEND_ANN_RUN_DIR "jaxset.dev/run-dir"
#define BACKEND_ANN_RUN_ID "jaxset.dev/run-id"
#define BACKEND_ANN_RUN_PID "jaxset.dev/run-pid"
#define BACKEND_ANN_RUN_FAILURE "jaxset.dev/run-failure"
#define BACKEND_ANN_RUN_PROGRESS "jaxset.dev/run-progress"

/* What `logs` asks for, the same in both places. */
struct backend_logs {
    const struct kc_res *k;
    const char *name;
    long long process_id;             /* --process-id, -1: any */
    long long attempt;                /* --attempt, -1: every restart attempt */
    const char *pod, *rj, *container; /* --pod (name, hostname or a prefix), --replicated-job,
                                       * -c; NULL: any */
    bool follow, prefix, previous;    /* -f, --prefix, --previous */
    long long since_s, tail;          /* --since (seconds), --tail; -1: unset */
};

/* How `delete` deletes. */
struct backend_delete {
    const char *cascade; /* Background, Foreground or Orphan (cluster) */
    bool force;          /* local: stop a run still going first */
};

struct backend;
struct store_run;

#define BACKEND_COLUMNS_MAX 16

struct backend_ops {
    /* Readies the backend (connects); EXIT_OK or an exit status after printing why. */
    int (*open)(struct backend *b);
    void (*close)(struct backend *b);
    /* One object of kind k (*out a new reference), or an exit status after printing
     * "jaxset CMD: ..." (EXIT_INVALID when there is no such object). */
    int (*get)(struct backend *b, const struct kc_res *k, const char *name, json_t **out);
    /* The objects of kind k (with the labels of `selector`, kubectl's -l, when not NULL), as a
     * list answer: {"items": [...], "metadata": {"resourceVersion": ...}} (*out a new
     * reference), or an exit status after printing why. */
    int (*list)(struct backend *b, const struct kc_res *k, const char *selector,
                json_t **out);
    /* Calls fn(arg, type, obj) for every change after version `rv` (of list or get) of the
     * objects of kind k (the one `name` when not NULL; those of `selector` otherwise), type
     * ADDED, MODIFIED or DELETED, until fn returns nonzero (returned), the monotonic time
     * deadline_ms passes (0: none) or, locally, no run watched is going any more (0).  A
     * negative errno after printing why. */
    int (*watch)(struct backend *b, const struct kc_res *k, const char *name,
                 const char *selector, const char *rv, int64_t deadline_ms,
                 kc_cli_event_fn fn, void *arg);
    /* Deletes one job; prints "<kind> "NAME" deleted".  An exit status. */
    int (*remove)(struct backend *b, const struct kc_res *k, const char *name,
                  const struct backend_delete *o);
    /* Prints the logs `a` selects (following them with a->follow).  An exit status. */
    int (*logs)(struct backend *b, const struct backend_logs *a);
    /* Prints the job as `kubectl describe` shows an object.  An exit status. */
    int (*describe)(struct backend *b, const struct kc_res *k, const char *name);
    /* `get`'s table of jobs: its header into out (BACKEND_COLUMNS_MAX at most; how many),
     * and one row. */
    size_t (*columns)(const struct backend *b, bool wide, const char **out);
    void (*row)(struct backend *b, const struct kc_res *k, const json_t *obj, bool wide,
                struct table *t);
};

struct backend {
    const struct backend_ops *ops;
    struct cluster *c;  /* the command's flags (its name, --local, the cluster's) */
    bool all_runs;      /* local: every run kept, not only the latest of each name */
    bool all_ns;        /* cluster: -A */
    bool quiet;         /* get: no message for an object not found */
    struct store_run *runs; /* local: the runs its last read loaded, which its rows show */
    size_t n_runs;
};

extern const struct backend_ops backend_local_ops, backend_cluster_ops;

/* Picks the backend for c (cli/backend/cluster.h cluster_wanted: the cluster unless --local or none
 * is configured) and opens it.  EXIT_OK, or an exit status after printing why (then nothing
 * is to be closed). */
int backend_open(struct backend *b, struct cluster *c);
void backend_close(struct backend *b);

/* Whether the backend is the cluster. */
bool backend_is_cluster(const struct backend *b);

#endif
