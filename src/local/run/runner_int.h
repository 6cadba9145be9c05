/* Private to the runner (local/run): its state, and the functions its files share, in one
 * section per file that defines them.  The sections go from the bottom of the room up: a file
 * calls only the files of the sections above its own (runner.c, the top, only exports the
 * public runner_ names of runner.h). */
#ifndef JX_RUNNER_INT_H
#define JX_RUNNER_INT_H

#include <jansson.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "local/image/img.h"
#include "local/jobctl/jobctl.h"
#include "local/run/runner.h"
#include "local/sup/sup.h"
#include "local/vol/volumes.h"
#include "obj/base/ktime.h"
#include "obj/base/sbuf.h"

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
    char *message;               /* what it said last when it failed (store_excerpt.h), owned;
                                  * NULL: not looked at */
    struct run_root *root;       /* --images: its root, made at each start (runner_images.c) */
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
    /* InPlaceRestart (runner_ipr.c): the runner plays the in-pod agent */
    long long ipr_attempt;       /* the pod's in-place restart attempt; -1: not in-place */
    bool ipr_held;               /* at the agent's barrier: no container started yet */
    bool ipr_restarting;         /* its containers are stopping for an in-place restart */
    int gpus[RUN_MAX_GPUS];
    int n_gpus;
    struct vol_pod *vol;         /* its volumes and namespace; NULL: none */
    char *vol_err;               /* why its volumes could not be made: its containers fail to
                                  * start with it; NULL: none */
    bool first_failure;          /* named as the first failed pod of a restart or of the end */
};

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
    json_t *jaxjob;              /* a JAXJob's run: the JAXJob with the status its controller
                                  * would write (api/kubeflow/jaxjob_status.h), kept in run.json */
    json_t *trainjob;            /* a TrainJob's run: the TrainJob with the status Trainer's
                                  * controller would write (api/kubeflow/trainjob_status.h), as
                                  * jaxjob */
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
    struct kt_steady clock;      /* every `now` of the run: a step of the wall clock moves no
                                  * deadline and no duration (obj/base/ktime.h) */
    bool restart_kill_noted;     /* said once that a restart waited for SIGKILL */
    bool idle_noted;             /* said why the run waits with nothing running */
    int state_errno;             /* first failure to write the run directory, 0 none */
    bool reserved;               /* reserve_fd holds the space of the final records */
    int reserve_fd;              /* RD_RESERVE, reserve_size bytes allocated (runner_state.c) */
    long long reserve_size;
    /* crash-loop backoff of gang restarts (runner.c) */
    long long attempt;           /* the newest restart attempt whose Jobs were created */
    int64_t attempt_started_ms;  /* when its first Job was (or may be) created */
    int quick_restarts;          /* consecutive attempts that lived < RUN_GANG_STABLE_MS */
    int64_t gang_hold_ms;        /* no Job of `attempt` is created before this */
    bool held;                   /* this pass held back a create */
    int64_t held_until_ms;       /* ... until then (a gang's or a Job's restart backoff) */
    struct run_job_backoff *job_backoff; /* crash-loop backoff of RestartJob restarts */
    size_t n_job_backoff;
    bool ipr;                    /* InPlaceRestart gate on and restartStrategy InPlaceRestart:
                                  * the runner is every pod's in-place restart agent */
    long long ipr_noted;         /* the last in-place restart attempt announced */
    char last_line[512];
    const char *nss_lib;         /* libnss_wrapper.so when installed (runner_hosts.c) */
    json_t *pod_history;         /* pods of Jobs already deleted (runner_pods.c) */
    struct vol_run vr;           /* what pods' volumes share; vr.run_dir absolute (owned) */
    struct vol_tmpl **vol_tmpl;  /* each replicated job's namespace (NULL: no volumeMounts) */
    json_t *failure;             /* the latest failure attributed (runner_attr.c); NULL: none */
    bool failure_final;          /* ... and it failed the JobSet */
    char *failure_event;         /* the message of the failure event already shown in this
                                  * pass: its twin (the condition's event) is not shown again */
    int signals;                 /* SIGINT/SIGTERM/SIGHUP received */
    struct img *imgs;            /* --images: every image of the run, resolved (runner_images.c) */
    size_t n_imgs;
    /* training progress (runner_status.c) */
    char status_dir[PATH_MAX];   /* <run dir>/trainer-status: the server's CA and token */
    char *status_url;            /* what KUBEFLOW_TRAINER_SERVER_URL says; NULL: no server */
    int status_in, status_out;   /* the server's stdin (ours to close) and stdout; -1: none */
    int status_pid;
    struct sbuf status_line;     /* what the server said past its last whole line */
    json_t *trainer_status;      /* the latest report accepted; NULL: none yet */
};

/* One Job's restarts by the RestartJob actions, for their crash-loop backoff. */
struct run_job_backoff {
    char name[RUN_NAME_MAX];
    long long attempt;   /* the newest job-restart-attempt created */
    int64_t started_ms;  /* when it was (or may be) created */
    int quick;           /* consecutive attempts that lived < RUN_GANG_STABLE_MS */
    int64_t hold_ms;     /* not created before this */
};

/* ---- runner_note.c: notes on the terminal and in events.log ---------------------------------- */

/* Writes s to the terminal (status_fd); what cannot be written is dropped. */
void runner__out(struct run *r, const char *s);
/* Clears the live line, when there is one, before other output. */
void runner__live_clear(struct run *r);
/* Remembers the first failure (a negative errno) to write `what` of the run directory and notes
 * it; later ones are not noted. */
void runner__state_failed(struct run *r, const char *what, int rc);
void runner__note(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- runner_pods.c: what happened to each pod ------------------------------------------------ */

json_t *runner__pod_json(const struct run *r, const struct rjob *j, const struct rpod *p);
/* Keeps the pods of a Job about to be freed in the history.  0 or -ENOMEM. */
int runner__pods_retire(struct run *r, const struct rjob *j);
/* Writes every pod of the run to `path` (0600, O_EXCL|O_NOFOLLOW temporary file, renamed),
 * streaming them one at a time.  0 or a negative errno. */
int runner__pods_write(const struct run *r, const char *path);
/* Every pod of the run, retired ones first: a new array, NULL on OOM. */
json_t *runner__pods_json(const struct run *r);
/* Describes the first failed pod of the last restart attempt into out; false when none
 * failed. */
bool runner__first_failed(const json_t *pods, char *out, size_t n);
/* The first failed pod of the latest attempt among `pods` (of Job `job` only, unless NULL);
 * NULL when none failed. */
const json_t *runner__pick_failed(const json_t *pods, const char *job);

/* ---- runner_attr.c: failure attribution ------------------------------------------------------ */

/* runner__attribute: the core reported a failure of Job `job` (its event's "first failed job"):
 * its first failed pod is named (pods.json, run.json's "failure", r->failure) and described in
 * one line into `line`.  runner__failure_block: the attributed failure as a table for the run's
 * summary.  -ENOMEM or 0. */
int runner__attribute(struct run *r, const char *job, struct sbuf *line);
void runner__failure_block(const struct run *r, struct sbuf *b);
/* What container c of pod p said last, on one line (runner__excerpt_line); NULL: nothing. */
char *runner__container_said(const struct run *r, const struct rpod *p, const struct rcont *c);

/* ---- runner_agent.c: upstream's in-place restart agent containers ---------------------------- */

/* Gives every container of pod_spec that is upstream's in-place restart agent (no command;
 * named, or an image, in-place-restart-agent) the command that does its part locally.  0 or
 * -ENOMEM. */
int runner__agent_commands(json_t *pod_spec);
/* Container c as runner__agent_commands leaves it: a new reference (c itself when it is no
 * agent), NULL on OOM. */
json_t *runner__agent_container(const json_t *c);
/* Whether `image` is upstream's agent image (its repository ends in /in-place-restart-agent):
 * jaxset plays it, with --images too (it is never looked up). */
bool runner__agent_image(const char *image);

/* ---- runner_signal.c: signals to pods and their grace ---------------------------------------- */

/* A process runs for one of the pod's containers. */
bool runner__pod_alive(const struct rpod *p);
/* The pods of the run with a process running. */
size_t runner__alive(const struct run *r);
void runner__signal_pod(struct run *r, struct rpod *p, int sig);
/* Grace of a pod stopped for a restart: --restart-grace, else the JobSet's annotation, else
 * --grace, else the pod's own. */
int runner__restart_grace_ms(const struct run *r, const struct rjob *j);
/* Grace of a pod of Job j stopped now: the restart grace when a restart deletes j (and one is
 * set), else --grace, else the pod's own. */
int runner__grace_ms(const struct run *r, const struct rjob *j);
/* SIGKILL to the pods whose grace has run out. */
void runner__escalate_kills(struct run *r, int64_t now);
/* The earliest SIGKILL deadline of a pod still running, INT64_MAX when none. */
int64_t runner__next_kill(const struct run *r);

/* ---- runner_state.c: state on disk and on the terminal --------------------------------------- */

/* The run's clock: wall-clock times that advance monotonically (r->clock). */
int64_t runner__now(const struct run *r);
/* Opens events.log and reserves the disk space of the final records (RD_RESERVE), before the
 * first pod starts: refused (-ENOSPC) when the disk has not even that. */
int runner__state_open(struct run *r, struct err *err);
/* Writes pods.json, jobs.json, jobset.json and run.json (state: store_state.h's name).  Any
 * state but Running is the final one: the reserve is given back right before, and each record
 * that still cannot be written is said on the terminal. */
void runner__state_write(struct run *r, const char *state, int exit_status);
void runner__event(struct run *r, const char *type, const char *reason, const char *msg);
void runner__live(struct run *r, bool force);
/* "8s", "1m08s", "2h01m08s": an elapsed time as the live line shows it. */
void runner__elapsed_text(int64_t ms, struct sbuf *b);
void runner__summary(struct run *r, int exit_status);
/* Pods with a hostname of their own: what the hosts file lists, the live line counts and the
 * most that may run (runner_check). */
long long runner__total_pods(const struct js_view *v);

/* ---- runner_restart.c: the crash-loop backoff of restarts ------------------------------------ */

/* The crash-loop backoff of restarts (runner.c, runner_restart.c): from the second consecutive
 * attempt that lived less than RUN_GANG_STABLE_MS on, the next waits base, 2 x base, ... */
#define RUN_GANG_STABLE_MS 10000
#define RUN_GANG_BACKOFF_MAX_MS 10000
/* A new attempt begins at `now`: *quick counts it when the attempt before lived less than
 * RUN_GANG_STABLE_MS (else restarts from 0); *started_ms and *hold_ms become when it may start;
 * the delay that is. */
int64_t runner__backoff_begin(const struct run *r, int *quick, int64_t *started_ms,
                              int64_t *hold_ms, int64_t now);
/* RestartJob gate.  runner__job_outdated: Job j was deleted because the RestartJob actions
 * restart it (its job-restart-attempt is below its count).  runner__job_restart_hold: when a Job
 * about to be created is a RestartJob restart of it, the time before which its crash-loop
 * backoff holds it back (0: create now).  -ENOMEM as a negative. */
bool runner__job_outdated(const struct run *r, const struct rjob *j);
int64_t runner__job_restart_hold(struct run *r, const json_t *job, int64_t now);

/* ---- runner_volumes.c: the runner's side of volumes ------------------------------------------ */

/* r->vr, the --pvc claims, and each replicated job's namespace, before anything starts.  0 or
 * a negative errno with err set. */
int runner__volumes_setup(struct run *r, struct err *err);
/* Says, with --volumes=skip, which mounts are not made. */
void runner__volumes_notes(struct run *r);
void runner__volumes_release(struct run *r);

/* ---- runner_hosts.c: pod hostnames resolving to 127.0.0.1 ------------------------------------ */

int runner__hosts_setup(struct run *r, struct err *err);
/* Appends LD_PRELOAD (before the container's own) and NSS_WRAPPER_HOSTS (the run's hosts, merged
 * with the container's own hosts file when it sets one) to `extra`.  0, -ENOMEM, or -EINVAL
 * when the container's hosts file cannot be read. */
int runner__hosts_env(const struct run *r, const json_t *container, json_t *extra);

/* ---- runner_status.c: training progress, Trainer's status server ---------------------------- */

/* Starts the run's status server when it has one (a TrainJob's, or a JobSet's or JAXJob's
 * annotated jaxset.dev/trainer-status: "true"), after sup_new: r->status_url once it listens.
 * 0 (also when there is none), or a negative errno with err set. */
int runner__status_start(struct run *r, struct err *err);
/* Whether container c of replicated job rj reports to it (r->status_url set). */
bool runner__status_for(const struct run *r, size_t rj, const struct rcont *c);
/* Appends the three KUBEFLOW_TRAINER_SERVER_* variables.  0 or -ENOMEM. */
int runner__status_env(const struct run *r, json_t *extra);
/* Reads what the server said (r->status_out readable): each report kept, status_dirty set.
 * 0, or -EPIPE once it has ended. */
int runner__status_read(struct run *r);
/* Stops it (closes its stdin, waits a little, then kills it); the last report stays. */
void runner__status_stop(struct run *r);

/* ---- runner_images.c: containers in their images (--images) ------------------------------ */

struct run_root;
/* Resolves every image of the run (local/image/img.h) before anything starts or is written
 * in the run directory.  0, or a negative errno with err naming the container's field path. */
int runner__images_setup(struct run *r, struct err *err);
/* <run dir>/hosts.image, the containers' /etc/hosts (after runner__hosts_setup). */
int runner__images_hosts(const struct run *r, struct err *err);
void runner__images_free(struct run *r);
const struct img *runner__image(const struct run *r, const char *ref);
/* Container c's root for a start: a fresh layer over its image, the pod's hosts, its user;
 * `vol` its volumeMounts (NULL: none), and with `status` the status server's directory read-only
 * at TJS_REPORT_MOUNT (runner_status.c).  0, or a negative errno with err set. */
int runner__root_new(const struct run *r, const struct rpod *p, const struct rcont *c,
                     const json_t *pod_spec, const struct nsr_enter *vol, bool status,
                     struct run_root **out, struct err *err);
/* What its process enters (borrowed from rr). */
const struct nsr_enter *runner__root_enter(const struct run_root *rr);
void runner__root_free(struct run_root *rr);

/* ---- runner_ipr.c: InPlaceRestart, the pods' side -------------------------------------------- */

/* All no-ops unless r->ipr.  runner__ipr_pod_init: a new pod's attempt
 * (currentInPlaceRestartAttempt + 1, or 0) in its annotation, held at the barrier.
 * runner__ipr_exited: container c of p exited; true when the agent took it (a failure restarts the
 * pod in place; the end of such a restart holds it at the barrier again).
 * runner__ipr_restart_begin: stops every container of p for an in-place restart (the restart grace
 * applies).  runner__ipr_status_attempt: the JobSet status's integer `key`, -1 when unset.
 * runner__ipr_pods: the v1 Pods the core reads (NULL on OOM). */
bool runner__ipr_active(const struct manifest *m);
void runner__ipr_pod_init(struct run *r, struct rpod *p);
bool runner__ipr_exited(struct run *r, struct rjob *j, struct rpod *p, const struct rcont *c,
                        int64_t now);
void runner__ipr_restart_begin(struct run *r, struct rjob *j, struct rpod *p, int64_t now);
long long runner__ipr_status_attempt(const struct run *r, const char *key);
json_t *runner__ipr_pods(const struct run *r);

/* ---- runner_pod.c: pods, jobctl decisions executed on the supervisor ------------------------- */

/* Starts what the pod may run next (initContainers in order, then the containers). */
void runner__pod_advance(struct run *r, struct rjob *j, struct rpod *p, int64_t now);
int runner__job_sync(struct run *r, struct rjob *j, int64_t now, bool *changed, struct err *err);
/* A container's exit; why: it did not start, why (sup_exit.msg). */
void runner__pod_exited(struct run *r, uint64_t sup_id, int status, const char *why, int64_t now);
void runner__kill_job(struct run *r, struct rjob *j, int64_t now);
void runner__job_free(struct rjob *j);
/* Appends {name, value} to an env array. 0 or -ENOMEM. */
int runner__env_add(json_t *extra, const char *name, const char *value);
/* nvidia.com/gpu a container asks for (limits, else requests), 0 when none (or when not a
 * positive quantity), LLONG_MAX when past 64 bits. */
long long runner__gpu_request(const json_t *container);

/* ---- runner_ipr_agents.c: InPlaceRestart, the agents' side ----------------------------------- */

/* Every agent reads the JobSet status: pods at or below previousInPlaceRestartAttempt restart
 * in place, held pods at currentInPlaceRestartAttempt start; true when one did.  A no-op
 * unless r->ipr. */
bool runner__ipr_agents(struct run *r, int64_t now);

#endif
