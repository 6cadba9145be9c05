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

#endif
