/* trainjob_podgroup: the PodGroup kubeflow/trainer v2.3 creates for a TrainJob whose runtime has
 * spec.podGroupPolicy (pkg/runtime/framework/plugins/coscheduling/coscheduling.go and
 * plugins/volcano/volcano.go, Build): named and namespaced as the TrainJob, minMember the sum of
 * the pod counts of the replicated jobs (the trainer's numNodes, another job's parallelism,
 * at least 1; replicas are not counted, as upstream), minResources the sum of each pod's
 * requests (k8s resourcehelpers.PodRequests: the containers and sidecars, or an init container
 * when it asks more, plus the overhead) times its count.  Coscheduling
 * (scheduling.x-k8s.io/v1alpha1) adds scheduleTimeoutSeconds (the runtime's, default 60);
 * Volcano (scheduling.volcano.sh/v1beta1) adds the queue of the scheduling.volcano.sh/queue-name
 * annotation, a replicated job's priorityClassName and the policy's networkTopology.  The owner
 * reference is the caller's.  Pure functions over JSON. */
#ifndef JX_TRAINJOB_PODGROUP_H
#define JX_TRAINJOB_PODGROUP_H

#include <jansson.h>

struct tjpg_kind {
    const char *plugin;      /* "coscheduling", "volcano": the podGroupPolicy member */
    const char *api_version; /* "scheduling.x-k8s.io/v1alpha1" */
    const char *prefix;      /* "/apis/scheduling.x-k8s.io/v1alpha1" */
    const char *crd;         /* "podgroups.scheduling.x-k8s.io" */
};

#define TJPG_KINDS 2 /* coscheduling, volcano */

/* The i-th PodGroup kind (i < TJPG_KINDS), NULL past them. */
const struct tjpg_kind *tjpg_kind_at(size_t i);

/* The PodGroup kind `pg_policy` (a runtime's spec.podGroupPolicy, may be NULL) asks for, or
 * NULL when none. */
const struct tjpg_kind *tjpg_kind(const json_t *pg_policy);

/* The PodGroup for TrainJob ns/name whose runtime's podGroupPolicy is `pg_policy`, from the
 * JobSet the converter built for it (`jobset`, borrowed): a new reference, NULL when there is
 * no policy (*rc 0) or on failure (*rc -ENOMEM, or -ERANGE for a request past the quantity
 * range). */
json_t *tjpg_build(const char *ns, const char *name, const json_t *pg_policy,
                   const json_t *jobset, int *rc);

#endif
