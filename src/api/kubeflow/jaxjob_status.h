/* jaxjob_status: a JAXJob's status (kubeflow.org/v1 JobStatus) from what its JobSet shows, with
 * the rules of the Kubeflow Training Operator v1 (kubeflow/training-operator release-1.9:
 * pkg/controller.v1/common/job.go ReconcileJobs, pkg/controller.v1/jax/jaxjob_controller.go
 * UpdateJobStatus, pkg/util/status.go UpdateJobConditions).  Pure: no I/O, no clock (`now_ms`
 * is given), no logging.
 *
 * Conditions Created, Running, Restarting, Succeeded, Failed, Suspended with reasons
 * JAXJob<Created|Running|Restarting|Succeeded|Failed|Suspended|Resumed> and upstream's
 * messages; bookkeeping as upstream's setCondition: nothing changes once Failed is True; a
 * condition with the same status and reason is left alone; Running and Restarting exclude each
 * other; Succeeded or Failed turn Running to False; a condition keeps its lastTransitionTime
 * while its status stays.
 *
 * The pods are those of the JobSet's one Job (the converter's replicated job "worker", replicas
 * 1, parallelism = completions = Worker.replicas), so replicaStatuses.Worker counts that Job's
 * status: active (pods not terminated), succeeded, failed (pod failures so far).  Then, as
 * upstream: succeeded == replicas -> Succeeded; else active > 0 -> Running; failed > 0 and
 * replicas > succeeded + active -> Restarting (restartPolicy other than Never) or Failed (Never).
 * The JobSet's own terminal conditions are followed too: a Job failed with DeadlineExceeded or
 * BackoffLimitExceeded gives upstream's "active longer than specified deadline" / "reached the
 * specified backoff limit" messages.  runPolicy: suspend (Suspended, Running False, active 0;
 * a resume sets Suspended False with JAXJobResumed and startTime = now); activeDeadlineSeconds
 * from status.startTime (Failed, and the JobSet deleted: upstream deletes every pod when a limit
 * is exceeded, whatever cleanPodPolicy says); ttlSecondsAfterFinished from completionTime
 * (the JAXJob deleted); cleanPodPolicy once finished (None keeps the pods, Running deletes the
 * Running and Pending ones, All deletes all).  A JAXJob that cannot be converted (obs.invalid) is
 * Failed with a Warning event, and a JobSet it has goes; a spec change carried out by a gang
 * restart (obs.respec) is Restarting until the new pods run. */
#ifndef JX_JAXJOB_STATUS_H
#define JX_JAXJOB_STATUS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* What the controller observed. */
struct jjs_obs {
    const json_t *jobset;  /* the JobSet this JAXJob controls, or NULL (not created yet) */
    const json_t *jobs;    /* the JobSet's Jobs (an array; NULL = none) */
    const char *invalid;   /* the JAXJob cannot be converted: the first field error, or NULL */
    /* The spec changed since the JobSet was built and the gang restarts with the new spec (the
     * JobSet is replaced: jobset and jobs then describe nothing to count): why, in a
     * sentence, or NULL.  Gives Restarting (JAXJobRestarting, in place of Running) with this
     * message and a Normal event; the new JobSet's pods then bring Running back. */
    const char *respec;
};

enum jjs_cleanup { JJS_CLEAN_NONE = 0, JJS_CLEAN_RUNNING, JJS_CLEAN_ALL };

struct jjs_result {
    json_t *status;          /* the new status (owned; jjs_result_release) */
    json_t *events;          /* [{"type", "reason", "message"}] to record (owned) */
    bool changed;            /* status differs from the JAXJob's */
    bool finished;           /* Succeeded or Failed is True */
    enum jjs_cleanup cleanup; /* pods to delete now (finished, by cleanPodPolicy) */
    bool delete_jobset;      /* a limit was exceeded, or the spec cannot be run: the JobSet
                              * (and so every pod) goes */
    bool delete_jaxjob;      /* ttlSecondsAfterFinished has passed */
    int64_t requeue_ms;      /* look again in this many ms (deadline, TTL), or -1 */
};

/* The label selector of the Worker pods (replicaStatuses.Worker.selector), as the controller
 * labels them: training.kubeflow.org/job-name=<name>,operator-name=jaxjob-controller,
 * replica-type=worker.  The three labels are those of jjs_pod_labels. */
#define JJS_LBL_JOB_NAME "training.kubeflow.org/job-name"
#define JJS_LBL_OPERATOR "training.kubeflow.org/operator-name"
#define JJS_LBL_RTYPE "training.kubeflow.org/replica-type"
#define JJS_OPERATOR "jaxjob-controller"
/* Per pod (upstream pkg/controller.v1/common/pod.go createNewPod): the replica index, and
 * job-role=master on index 0 (pkg/controller.v1/jax/jaxjob_controller.go IsMasterRole). */
#define JJS_LBL_RINDEX "training.kubeflow.org/replica-index"
#define JJS_LBL_ROLE "training.kubeflow.org/job-role"
#define JJS_ROLE_MASTER "master"

/* Computes the status of `jaxjob` (borrowed, a whole kubeflow.org/v1 JAXJob) from `obs`.
 * 0, or -ENOMEM (then `out` holds nothing). */
int jjs_compute(const json_t *jaxjob, const struct jjs_obs *obs, int64_t now_ms,
                struct jjs_result *out) __attribute__((warn_unused_result));
void jjs_result_release(struct jjs_result *r);

/* Succeeded or Failed is True in this kubeflow.org/v1 JobStatus (may be NULL). */
bool jjs_finished(const json_t *status);

/* The labels the controller puts on the Worker pod template: a new object, NULL on OOM. */
json_t *jjs_pod_labels(const char *name);

/* The labels a JAXJob Worker pod still lacks, given its metadata `meta` (borrowed): the pods of
 * a JAXJob share one pod template (one Indexed Job, pod i is replica i), so the per-pod labels
 * come from the pod's completion index (the batch.kubernetes.io/job-completion-index
 * annotation, else the label): replica-index=<index>, and job-role=master on index 0.  A pod
 * is a JAXJob Worker pod when its labels say so (operator-name=jaxjob-controller,
 * replica-type=worker: jjs_pod_labels).  Returns a new object holding only the labels to set
 * (empty when there are none: not such a pod, no index, or already labelled), NULL on OOM.
 * The pod webhook, the controller (without the webhook) and the local runner all ask this. */
json_t *jjs_pod_index_labels(const json_t *meta);

#endif
