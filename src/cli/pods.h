/* pods: the pods of a local run (pods.json, local/runner_pods.c) as Kubernetes Pods, for
 * `jaxset get NAME -o json|yaml`. */
#ifndef JX_CLI_PODS_H
#define JX_CLI_PODS_H

#include <jansson.h>

/* A v1 Pod for one entry of pods.json: metadata.name and namespace; the labels the Job and
 * JobSet controllers give a pod (job name, completion index, JobSet, replicated job, job index,
 * restart attempt) and its JAX process id as the annotation jaxset.dev/jax-process-id;
 * spec.hostname; status.phase, startTime, and initContainerStatuses / containerStatuses with
 * each container's state (running, waiting, or terminated with exitCode, signal, reason) and
 * restartCount (the pod's: the local runner counts restarts per pod, on its app containers).
 * New reference, or NULL when out of memory. */
json_t *pods_object(const json_t *pod, const char *ns, const char *jobset);

/* A v1 List of `jobset` (borrowed; may be NULL) followed by a Pod for every entry of `pods`
 * (may be NULL), in its order.  New reference, or NULL when out of memory. */
json_t *pods_list(const json_t *jobset, const json_t *pods);

/* Annotations `get -o json|yaml` puts on a local run's JobSet: the run's state (cli/runs.h
 * runs_state: Starting, Running, Completed, Failed, Interrupted, Lost, Unknown) and its run
 * directory. */
#define PODS_ANN_RUN_STATE "jaxset.dev/run-state"
#define PODS_ANN_RUN_DIR "jaxset.dev/run-dir"

/* A local run as `get NAME -o json|yaml` prints it (all borrowed; any may be NULL): pods_list,
 * with the JobSet annotated with the run's `state` and `dir`; each Pod's spec is its Job's pod
 * template (of `jobs`, jobs.json) with its hostname, as a cluster's Pod carries it; and when
 * the run's process is gone without ending it (state Lost or Unknown) the pods it left
 * Pending or Running are Failed, as its watchdog killed them (local/watchdog.c).  New
 * reference, or NULL when out of memory. */
json_t *pods_run_list(const json_t *jobset, const json_t *pods, const json_t *jobs,
                      const char *state, const char *dir);

#endif
