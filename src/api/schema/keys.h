/* keys: the label, annotation and value strings that are part of the wire contract. */
#ifndef JX_KEYS_H
#define JX_KEYS_H

/* The kinds of job jaxset runs (kube/client/kc_res.c names each resource's). */
enum job_kind {
    JOB_KIND_OTHER,
    JOB_KIND_JOBSET,   /* jobset.x-k8s.io JobSet */
    JOB_KIND_JAXJOB,   /* kubeflow.org JAXJob */
    JOB_KIND_TRAINJOB, /* trainer.kubeflow.org TrainJob */
};

#define JOBSET_GROUP_VERSION "jobset.x-k8s.io/v1alpha2"
#define JOBSET_KIND "JobSet"
#define JOBSET_CONTROLLER_NAME "jobset.sigs.k8s.io/jobset-controller"

#define LBL_JOBSET_NAME "jobset.sigs.k8s.io/jobset-name"
#define LBL_JOBSET_UID "jobset.sigs.k8s.io/jobset-uid"
#define LBL_RJ_NAME "jobset.sigs.k8s.io/replicatedjob-name"
#define LBL_RJ_REPLICAS "jobset.sigs.k8s.io/replicatedjob-replicas"
#define LBL_GLOBAL_REPLICAS "jobset.sigs.k8s.io/global-replicas"
#define LBL_JOB_INDEX "jobset.sigs.k8s.io/job-index"
#define LBL_JOB_GLOBAL_INDEX "jobset.sigs.k8s.io/job-global-index"
#define LBL_GROUP_NAME "jobset.sigs.k8s.io/group-name"
#define LBL_GROUP_REPLICAS "jobset.sigs.k8s.io/group-replicas"
#define LBL_JOB_GROUP_INDEX "jobset.sigs.k8s.io/job-group-index"
#define LBL_JOB_KEY "jobset.sigs.k8s.io/job-key"
#define LBL_RESTART_ATTEMPT "jobset.sigs.k8s.io/restart-attempt"
/* Feature-gated keys (api/jobset/features.h): a Job's own restart count (RestartJob, a label and an
 * annotation), a pod's in-place restart attempt (InPlaceRestart, written by the in-pod agent)
 * and the JobSet annotation that makes the agent skip its barrier. */
#define LBL_JOB_RESTART_ATTEMPT "jobset.sigs.k8s.io/job-restart-attempt"
#define ANN_IN_PLACE_RESTART_ATTEMPT "jobset.sigs.k8s.io/in-place-restart-attempt"
#define ANN_DISABLE_IN_PLACE_RESTART "jobset.sigs.k8s.io/disable-in-place-restart"
#define LBL_COORDINATOR "jobset.sigs.k8s.io/coordinator"
#define ANN_EXCLUSIVE_TOPOLOGY "alpha.jobset.sigs.k8s.io/exclusive-topology"
#define ANN_NODE_SELECTOR "alpha.jobset.sigs.k8s.io/node-selector"
#define LBL_NAMESPACED_JOB "alpha.jobset.sigs.k8s.io/namespaced-job"
#define TAINT_NO_SCHEDULE "alpha.jobset.sigs.k8s.io/no-schedule"

/* Kubernetes' own Job keys: the completion index (an annotation and a label on pods of an
 * Indexed Job), and the labels the Job controller puts on its pods, each also under its legacy
 * unprefixed name. */
#define ANN_JOB_COMPLETION_INDEX "batch.kubernetes.io/job-completion-index"
#define LBL_K8S_JOB_NAME "batch.kubernetes.io/job-name"
#define LBL_K8S_JOB_NAME_LEGACY "job-name"
#define LBL_K8S_CONTROLLER_UID "batch.kubernetes.io/controller-uid"
#define LBL_K8S_CONTROLLER_UID_LEGACY "controller-uid"

/* jaxset's own annotations on a JobSet: they describe the JAX runtime, so that a converted
 * JobSet is self-contained (render it, feed it back, and it behaves the same). */
#define ANN_JAX_RUNTIME "jaxset.dev/jax-runtime"   /* jobset|jaxjob|trainjob|aichor ("true" = jobset) */
#define ANN_JAX_PORT "jaxset.dev/jax-coordinator-port"
#define ANN_JAX_RJS "jaxset.dev/jax-replicated-jobs" /* comma list; default: every RJ */
#define ANN_SOURCE_KIND "jaxset.dev/source-kind"     /* JAXJob, TrainJob, AIchorManifest */
#define ANN_JAXJOB_RUN_POLICY "jaxset.dev/jaxjob-run-policy" /* JAXJob spec.runPolicy, JSON */
/* On the JobSet a JAXJob owns: the SHA-1 of the JAXJob spec it was built from (less what takes
 * effect in place), so a spec change the JobSet does not carry is seen (kube/ctl/ctl_jaxjob.c) */
#define ANN_JAXJOB_SPEC_HASH "jaxset.dev/jaxjob-spec-hash"
/* On the JobSet a TrainJob owns: the SHA-1 of the JobSet spec built for it (less suspend), so a
 * rebuild of a suspended one replaces what it built before, removals included */
#define ANN_TRAINJOB_BUILD_HASH "jaxset.dev/trainjob-build-hash"
#define ANN_PROCESS_ID_OFFSET "jaxset.dev/jax-process-id-offset" /* on pod templates */
#define ANN_JAX_PROCESS_ID "jaxset.dev/jax-process-id" /* on pods `jaxset get` prints */
#define ANN_RESTART_GRACE "jaxset.dev/restart-grace-seconds" /* api/jobset/local_ann.h */

#endif
