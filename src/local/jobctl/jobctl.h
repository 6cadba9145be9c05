/* jobctl: the local batch/v1 Job controller, as a pure function.
 *
 * It plays Kubernetes' Job controller plus the kubelet's restart logic for one Job on one
 * machine: given the Job (JSON, as the JobSet controller constructs it), the Job status from the
 * previous call, every pod this Job has started, and `now`, it returns pod actions (start a pod
 * for an index, restart a container in place, kill a pod), the new batch/v1 status and the time
 * it needs calling again.  No I/O, no clock, no globals; only the supervisor touches processes.
 *
 * Contract with the caller (the local runner):
 *  - `pods` lists every pod started for this Job incarnation, terminal ones included; records
 *    are never dropped while the Job lives (status counters are recomputed from them, so a
 *    dropped record would drop a count).  A pod that was told to die keeps `terminating` set
 *    after its process has gone.
 *  - Call again after executing the actions, whenever a pod changes, and at next_wakeup_ms.
 *
 * Behaviour (Kubernetes semantics unless stated):
 *  - Indexed: starts the lowest missing indexes (not succeeded, failed or active) up to
 *    parallelism (capped by completions - succeeded); NonIndexed: starts pods up to
 *    parallelism until completions succeeded; with completions unset, stops starting after the
 *    first success and completes when nothing is active.  Pods with an index outside
 *    [0, completions) or a second active pod for one index are killed.  Excess pods are
 *    killed (pending, not-ready, newest first); a call that kills excess starts nothing.  At
 *    most JOBCTL_MAX_STARTS starts per call (Kubernetes: 500 per sync).
 *  - restartPolicy OnFailure: a container that exited non-zero (pod `waiting`) is restarted in
 *    place after the kubelet's crash-loop backoff restart_base * 2^restart_count, capped at
 *    restart_max (10 s, 20 s, ... 5 min; the base is configurable so the local runner can use
 *    e.g. 100 ms).  When the container had run at least 2 * restart_max, the delay falls back
 *    to the base (the kubelet forgets old crashes).
 *  - backoffLimit (default 6; 2^31-1 with backoffLimitPerIndex): failed when the failed pods
 *    exceed it, or (OnFailure) when the container restarts of active pods reach it (> 0 when
 *    the limit is 0), exactly as Kubernetes counts them.  A container waiting for its restart
 *    counts as restarted already, so the Job fails at the same crash Kubernetes fails it,
 *    without the pointless last restart.
 *  - restartPolicy Never: a failed pod is replaced by a new pod for the same index after the Job
 *    controller's pod backoff pod_base * 2^(failures since the last success - 1), capped at
 *    pod_max (10 s ... 6 min); with backoffLimitPerIndex, 2^(failures of the index, ignored
 *    ones included, - 1) from the index's last failure, so one index's backoff holds back no
 *    other.
 *  - podFailurePolicy (requires restartPolicy Never, as Kubernetes validates): rules in order,
 *    first match wins; onExitCodes {containerName?, operator In|NotIn, values} over the pod's
 *    non-zero exit code (128 + signal for a signal death); onPodConditions matches
 *    DisruptionTarget=True only (pod.disruption_target).  FailJob fails the Job with reason
 *    PodFailurePolicy; Ignore keeps the failure out of status.failed and backoffLimit (the
 *    replacement still waits for the pod backoff, as in Kubernetes);
 *    Count is the default; FailIndex fails the pod's index (it requires backoffLimitPerIndex).
 *  - backoffLimitPerIndex (Indexed): failures are counted per index, Ignore'd ones left out; an
 *    index with more than the limit, or with a FailIndex match, is failed: listed in
 *    status.failedIndexes ("1,3-5"), never started again, while the other indexes go on.  More
 *    failed indexes than maxFailedIndexes fail the Job at once (MaxFailedIndexesExceeded); once
 *    every index has succeeded or failed, some failed, the Job fails with FailedIndexes.
 *  - successPolicy (Indexed): rules in order; a rule is met when every index of its
 *    succeededIndexes succeeded, or succeededCount of them did (succeededCount alone: of all
 *    indexes).  The first met rule sets SuccessCriteriaMet and Complete (reason SuccessPolicy,
 *    "Matched rules at index N") and kills the remaining pods, which are not counted as failed.
 *  - The Job ends for the first of, in Kubernetes' order: a FailJob rule, backoffLimit, the
 *    deadline, maxFailedIndexes, failed indexes, a successPolicy rule, completions.
 *  - activeDeadlineSeconds from status.startTime: past it, everything is killed and the Job
 *    fails with DeadlineExceeded.  startTime is cleared while the Job is suspended (as JobSet
 *    and Kueue clear it) and set to now on resume, so the deadline counts active time only.
 *  - suspend: kills every active pod, sets Suspended=True (JobSuspended); resuming sets it False
 *    (JobResumed).
 *  - status.active counts the pods this call asks to start (as the Job controller does);
 *    ready counts active pods that are ready and not waiting for a restart.
 *  - Finishing: Complete (reason CompletionsReached or SuccessPolicy) sets completionTime;
 *    Failed (reasons BackoffLimitExceeded, DeadlineExceeded, PodFailurePolicy,
 *    MaxFailedIndexesExceeded, FailedIndexes) kills every active pod and counts them as failed.
 *    The terminal condition is set at once, with the pods still terminating (no FailureTarget
 *    interim condition; SuccessCriteriaMet only for a successPolicy, beside Complete).  A
 *    finished Job only re-kills pods left running.
 *  - Deviations: pods killed for suspension or excess are not counted as failures and are not
 *    judged by the podFailurePolicy nor counted against their index (Kubernetes counts deleted
 *    pods as failed); pods are single-container.
 *
 * Ownership: inputs are borrowed for the call; a result owns its actions and its status (free
 * with jobctl_result_release).  Nothing in a result points into the inputs.  All functions are
 * reentrant. */
#ifndef JX_JOBCTL_H
#define JX_JOBCTL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct err;

#define JOBCTL_NO_WAKEUP INT64_MAX
#define JOBCTL_MAX_STARTS 500
#define JOBCTL_REASON_MAX 64
#define JOBCTL_MSG_MAX 512

enum jobctl_restart_policy { JOBCTL_RESTART_ON_FAILURE, JOBCTL_RESTART_NEVER };

/* The fields of a child Job the controller reads.  Strings and the rule array are borrowed from
 * the Job JSON. */
struct jobctl_spec {
    const char *ns;        /* metadata.namespace, "default" when absent */
    const char *container; /* spec.template.spec.containers[0].name, or "" */
    bool indexed;          /* completionMode Indexed */
    bool suspend;
    int32_t parallelism;       /* default 1 */
    int32_t completions;       /* -1 when unset (NonIndexed only) */
    int32_t backoff_limit;     /* default 6 */
    int64_t active_deadline_s; /* -1 when unset */
    enum jobctl_restart_policy restart_policy;
    const json_t *pod_failure_rules; /* spec.podFailurePolicy.rules or NULL */
    int32_t backoff_limit_per_index; /* -1 when unset */
    int32_t max_failed_indexes;      /* -1 when unset */
    const json_t *success_rules;     /* spec.successPolicy.rules (Indexed only) or NULL */
};

/* Reads and checks the Job: 0, or -EINVAL with a Kubernetes-style message ("spec.parallelism:
 * Invalid value: -1: must be greater than or equal to 0") for values the Job API rejects
 * (podFailurePolicy and successPolicy rules included).  `out` is written only on success. */
__attribute__((warn_unused_result)) int jobctl_spec_parse(const json_t *job,
                                                          struct jobctl_spec *out, struct err *e);

/* Backoff timings.  Defaults: JOBCTL_CONFIG_DEFAULT (the kubelet's and the Job controller's). */
struct jobctl_config {
    int64_t restart_base_ms; /* in-place restart (OnFailure) backoff base: 10 s */
    int64_t restart_max_ms;  /* ... and cap: 5 min */
    int64_t pod_base_ms;     /* replacement pod (Never) backoff base: 10 s */
    int64_t pod_max_ms;      /* ... and cap: 6 min */
};

#define JOBCTL_CONFIG_DEFAULT                                                                      \
    {                                                                                              \
        10000, 300000, 10000, 360000                                                               \
    }

enum jobctl_phase { JOBCTL_PENDING, JOBCTL_RUNNING, JOBCTL_SUCCEEDED, JOBCTL_FAILED };

/* One observed pod (one container).  Exit fields describe the last time the container ended
 * and are meaningful for phases Succeeded/Failed and for a `waiting` pod. */
struct jobctl_pod {
    const char *name;      /* for messages; borrowed */
    const char *container; /* NULL: the template's first container */
    int index;             /* completion index; -1 for NonIndexed */
    enum jobctl_phase phase;
    bool ready;
    bool waiting;           /* phase Running, container exited non-zero, restart pending */
    bool terminating;       /* a kill was issued (stays set after the process is gone) */
    bool disruption_target; /* pod condition DisruptionTarget=True */
    int restart_count;      /* in-place restarts so far */
    int exit_code;          /* exit status of the last run */
    int signal;             /* signal that ended the last run, 0 when it exited */
    int64_t start_ms;       /* when the current container run started */
    int64_t finish_ms;      /* when the last run ended */
};

/* The kubelet's part, for the supervisor to call when it reaps or restarts a process.
 * jobctl_pod_exited records the exit and sets the phase: Succeeded on exit 0; Failed on a
 * non-zero exit with restartPolicy Never or when the pod is terminating; otherwise (OnFailure)
 * the pod stays Running and becomes `waiting`.  jobctl_pod_restarted counts a restart. */
void jobctl_pod_exited(struct jobctl_pod *p, enum jobctl_restart_policy rp, int exit_code, int sig,
                       int64_t now_ms);
void jobctl_pod_restarted(struct jobctl_pod *p, int64_t now_ms);

enum jobctl_cond_status { JOBCTL_COND_ABSENT, JOBCTL_COND_TRUE, JOBCTL_COND_FALSE };

struct jobctl_cond {
    enum jobctl_cond_status status;
    char reason[JOBCTL_REASON_MAX];
    char message[JOBCTL_MSG_MAX];
    int64_t time_ms; /* lastTransitionTime (and lastProbeTime) */
};

/* batch/v1 JobStatus.  A zeroed struct is the status of a new Job. */
struct jobctl_status {
    int32_t active, ready, succeeded, failed, terminating;
    char *completed_indexes; /* owned; "1,3-5,7"; NULL for NonIndexed */
    char *failed_indexes;    /* owned; same format; NULL unless backoffLimitPerIndex applies */
    bool has_start, has_completion;
    int64_t start_ms, completion_ms;
    struct jobctl_cond complete, failed_cond, suspended, success_criteria;
};

/* Frees what the status owns and zeroes it.  NULL-safe. */
void jobctl_status_release(struct jobctl_status *st);

/* The status as a batch/v1 JSON object (zero counters and empty strings omitted, ready and
 * terminating always present, failedIndexes present, even empty, whenever set; conditions in
 * order of transition, SuccessCriteriaMet before Complete).  0 or -ENOMEM; *out_json is a new
 * reference on success. */
__attribute__((warn_unused_result)) int jobctl_status_to_json(const struct jobctl_status *st,
                                                              json_t **out_json);

/* True when the status has Complete=True or Failed=True. */
bool jobctl_status_finished(const struct jobctl_status *st);

enum jobctl_act { JOBCTL_START, JOBCTL_RESTART, JOBCTL_KILL };

enum jobctl_kill_reason {
    JOBCTL_KILL_SUSPENDED,       /* spec.suspend */
    JOBCTL_KILL_JOB_FAILED,      /* the Job failed (see status.failed_cond) */
    JOBCTL_KILL_JOB_COMPLETE,    /* the Job completed while the pod still ran */
    JOBCTL_KILL_EXCESS,          /* more active pods than wanted */
    JOBCTL_KILL_DUPLICATE_INDEX, /* another active pod holds the same index */
    JOBCTL_KILL_INVALID_INDEX,   /* index outside [0, completions) */
};

/* "Suspended", "JobFailed", "JobComplete", "TooManyPods", "DuplicateIndex", "InvalidIndex". */
const char *jobctl_kill_reason_str(enum jobctl_kill_reason r);

struct jobctl_action {
    enum jobctl_act kind;
    int index;                      /* START: index to run (-1 NonIndexed); else the pod's */
    size_t pod;                     /* RESTART/KILL: position in the input pods array */
    enum jobctl_kill_reason reason; /* KILL only */
};

struct jobctl_input {
    const json_t *job;                  /* batch/v1 Job; borrowed */
    const struct jobctl_status *status; /* previous status; NULL for a new Job */
    const struct jobctl_pod *pods;
    size_t npods;
    int64_t now_ms;                  /* Unix epoch milliseconds */
    const struct jobctl_config *cfg; /* NULL: JOBCTL_CONFIG_DEFAULT */
};

struct jobctl_result {
    struct jobctl_action *actions; /* owned: kills, then restarts, then starts (index order) */
    size_t nactions;
    struct jobctl_status status; /* owned */
    int64_t next_wakeup_ms;      /* earliest backoff expiry or deadline; JOBCTL_NO_WAKEUP */
};

/* One reconcile step.  0 on success; -EINVAL (Job invalid, see jobctl_spec_parse) or -ENOMEM,
 * with a message in `e`.  `out` is written only on success; release it with
 * jobctl_result_release.  The previous status may be the previous result's status. */
__attribute__((warn_unused_result)) int jobctl_sync(const struct jobctl_input *in,
                                                    struct jobctl_result *out, struct err *e);

/* Frees what the result owns and zeroes it.  NULL-safe. */
void jobctl_result_release(struct jobctl_result *r);


/* Formats sorted, distinct, non-negative indexes the way completedIndexes does: three or more
 * consecutive numbers become "first-last" ("1,3-5,7").  0 or -ENOMEM; *out_str is malloc'd. */
__attribute__((warn_unused_result)) int jobctl_indexes_format(const int *idx, size_t n,
                                                              char **out_str);

#endif
