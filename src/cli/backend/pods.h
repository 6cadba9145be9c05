/* pods: a local run's JobSet and its pods (pods.json, local/run/runner_pods.c) as Kubernetes
 * objects, for the local backend (cli/backend/backend_local.c: `get NAME`, `get pods -l ...`). */
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

/* A local run's JobSet as `get` prints it: a copy of `jobset` annotated with the run's state
 * (cli/backend/runs.h runs_state: Starting, Running, Completed, Failed, Interrupted, Lost...), its
 * directory and its id (cli/backend/backend.h BACKEND_ANN_*; any may be NULL: not set).  New
 * reference, or NULL when out of memory. */
json_t *pods_run_jobset(const json_t *jobset, const char *state, const char *dir,
                        const char *id);

/* The Pods of a local run (`pods`, pods.json, in its order) of JobSet `jobset` (borrowed; any
 * may be NULL), an array: each Pod's spec is its Job's pod template (of `jobs`, jobs.json) with
 * its hostname, as a cluster's Pod carries it; and when the run's process is gone without
 * ending it (`state` Lost or Unknown) the pods it left Pending or Running are Failed, as its
 * watchdog killed them (local/watchdog.c).  New reference, or NULL when out of memory. */
json_t *pods_run_pods(const json_t *jobset, const json_t *pods, const json_t *jobs,
                      const char *state);

#endif
