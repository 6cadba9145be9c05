/* Private to the runner: its state and the functions its files share. */
#ifndef JX_RUNNER_INT_H
#define JX_RUNNER_INT_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "local/jobctl.h"
#include "local/runner.h"
#include "local/sup.h"
#include "local/volumes.h"

#define RUN_NAME_MAX 256
#define RUN_MAX_GPUS 64
#define RUN_WRITE_MS 200

/* One container of a pod: one process group while it runs. */
struct rcont {
    const json_t *spec;          /* the container in the Job's pod template (borrowed) */
    bool init;                   /* an initContainer: runs to completion before the others */
    bool sidecar;                /* an initContainer with restartPolicy Always: runs alongside */
    bool alive;
    bool done;                   /* ran and exited (code/sig valid) */
    uint64_t sup_id;
    int code, sig;
};

struct rpod {
    char name[RUN_NAME_MAX];     /* <job>-<index>-<random5> */
    char hostname[RUN_NAME_MAX]; /* <job>-<index> */
    struct jobctl_pod jp;        /* jp.name points at name */
    json_t *meta;                /* pod metadata (labels, annotations) */
    struct rcont *c;             /* initContainers then containers, in template order */
    size_t n_c;
    size_t next_init;            /* initContainers before this one have completed */
    int64_t kill_at_ms;          /* SIGKILL deadline after a SIGTERM; 0: none */
    int gpus[RUN_MAX_GPUS];
    int n_gpus;
    struct vol_pod *vol;         /* its volumes and namespace; NULL: none */
    char *vol_err;               /* why its volumes could not be made: its containers fail to
                                  * start with it; NULL: none */
};

/* A process runs for one of the pod's containers. */
bool run__pod_alive(const struct rpod *p);

struct rjob {
    char name[RUN_NAME_MAX];
    json_t *obj;                 /* the Job as created, with its status */
    size_t rj;                   /* replicated job index */
    long long index;             /* job index */
    struct jobctl_spec spec;
    struct jobctl_status st;
    struct rpod **pods;
    size_t n_pods;
    bool deleting;               /* foreground deletion: removed once no pod is alive */
    bool restart_teardown;       /* deleted because the JobSet restarted (a previous attempt) */
    int64_t wakeup_ms;
};

struct run {
    const struct manifest *m;
    const struct runner_opts *o;
    json_t *js;                  /* the JobSet with its live status */
    struct sup *sup;
    int sigfd;
    int signal;                  /* SIGINT/SIGTERM received, 0 none */
    struct rjob **jobs;
    size_t n_jobs;
    int coord_port;
    int64_t requeue_at_ms;
    bool gpu_used[RUN_MAX_GPUS];
    int n_gpus;
    FILE *events;
    uint64_t rng;
    bool status_dirty;
    int64_t next_write_ms;       /* state files are rewritten at most every RUN_WRITE_MS */
    int64_t started_ms;
    bool restart_kill_noted;     /* said once that a restart waited for SIGKILL */
    bool idle_noted;             /* said why the run waits with nothing running */
    int state_errno;             /* first failure to write the run directory, 0 none */
    /* crash-loop backoff of gang restarts (runner.c) */
    long long attempt;           /* the newest restart attempt whose Jobs were created */
    int64_t attempt_started_ms;  /* when its first Job was (or may be) created */
    int quick_restarts;          /* consecutive attempts that lived < RUN_GANG_STABLE_MS */
    int64_t gang_hold_ms;        /* no Job of `attempt` is created before this */
    bool held;                   /* this pass held back a create */
    char last_line[512];
    const char *nss_lib;         /* libnss_wrapper.so when installed (runner_hosts.c) */
    json_t *pod_history;         /* pods of Jobs already deleted (runner_pods.c) */
    struct vol_run vr;           /* what pods' volumes share; vr.run_dir absolute (owned) */
    struct vol_tmpl **vol_tmpl;  /* each replicated job's namespace (NULL: no volumeMounts) */
};


/* Pods (runner_pod.c). */
int run__job_sync(struct run *r, struct rjob *j, int64_t now, bool *changed, struct err *err);
void run__pod_exited(struct run *r, uint64_t sup_id, int status, int64_t now);
void run__kill_job(struct run *r, struct rjob *j, int64_t now);
void run__escalate_kills(struct run *r, int64_t now);
int64_t run__next_kill(const struct run *r);
size_t run__alive(const struct run *r);
void run__job_free(struct rjob *j);
/* Appends {name, value} to an env array. 0 or -ENOMEM. */
int run__env_add(json_t *extra, const char *name, const char *value);
/* nvidia.com/gpu a container asks for (limits, else requests), 0 when none. */
long long run__gpu_request(const json_t *container);

/* Pod hostnames resolving to 127.0.0.1 (runner_hosts.c). */
int run__hosts_setup(struct run *r, struct err *err);
/* Appends LD_PRELOAD (before the container's own) and NSS_WRAPPER_HOSTS (the run's hosts, merged
 * with the container's own hosts file when it sets one) to `extra`.  0, -ENOMEM, or -EINVAL
 * when the container's hosts file cannot be read. */
int run__hosts_env(const struct run *r, const json_t *container, json_t *extra);

/* What happened to each pod (runner_pods.c). */
json_t *run__pod_json(const struct run *r, const struct rjob *j, const struct rpod *p);
/* Keeps the pods of a Job about to be freed in the history.  0 or -ENOMEM. */
int run__pods_retire(struct run *r, const struct rjob *j);
/* Writes every pod of the run to `path` (0600, O_EXCL|O_NOFOLLOW temporary file, renamed),
 * streaming them one at a time.  0 or a negative errno. */
int run__pods_write(const struct run *r, const char *path);
/* Every pod of the run, retired ones first: a new array, NULL on OOM. */
json_t *run__pods_json(const struct run *r);
/* Describes the first failed pod of the last restart attempt into out; false when none
 * failed. */
bool run__first_failed(const json_t *pods, char *out, size_t n);

/* Volumes (runner_volumes.c): r->vr, the --pvc claims, and each replicated job's namespace,
 * before anything starts.  0 or a negative errno with err set. */
int run__volumes_setup(struct run *r, struct err *err);
/* Says, with --volumes=skip, which mounts are not made. */
void run__volumes_notes(struct run *r);
void run__volumes_release(struct run *r);

/* State on disk and on the terminal (runner_state.c). */
int run__state_open(struct run *r, struct err *err);
void run__state_write(struct run *r, const char *state, int exit_status);
void run__state_failed(struct run *r, const char *what, int rc);
void run__event(struct run *r, const char *type, const char *reason, const char *msg);
void run__live(struct run *r, bool force);
void run__live_clear(struct run *r);
void run__summary(struct run *r, int exit_status);
void run__note(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));


#endif
