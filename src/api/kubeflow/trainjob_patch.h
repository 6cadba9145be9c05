/* trainjob_patch: a TrainJob's spec.runtimePatches applied to its runtime's JobSet template as
 * Kubeflow Trainer v2.3 applies them (kubeflow/trainer v2.3.0 pkg/runtime/core/
 * trainingruntime.go newRuntimeInfo and mergeRuntimePatches), before the ML policy and the
 * TrainJob's trainer fields are: for each patch in order, its trainingRuntimeSpec.template.spec
 * is a strategic merge patch (obj/tree/smp.h) onto the template's spec with the merge keys of the
 * JobSet, Job and Pod API types (jobset v1alpha2 JobSetSpec: replicatedJobs and dependsOn by
 * name; core/v1 PodSpec: containers, initContainers, ephemeralContainers, volumes,
 * imagePullSecrets, schedulingGates and resourceClaims by name, hostAliases by ip,
 * topologySpreadConstraints by topologyKey; Container: env by name, volumeMounts by mountPath,
 * ports by containerPort, volumeDevices by devicePath; ObjectMeta: ownerReferences by uid,
 * finalizers as a set; every other list, tolerations and affinity's among them, is replaced);
 * the replicated jobs then take back the runtime's order; the patches' template.metadata labels
 * and annotations are added to the template's (the JobSet's), later patches winning. */
#ifndef JX_TRAINJOB_PATCH_H
#define JX_TRAINJOB_PATCH_H

#include <jansson.h>

#include "obj/tree/ferr.h"

/* A copy of training runtime `rt` whose spec.template carries TrainJob `tj`'s runtime patches
 * (when it has none, `rt` itself: the result is read, never changed).  NULL: a patch that cannot
 * be applied, with an error at spec.runtimePatches[i].trainingRuntimeSpec.template.spec in `errs`,
 * or out of memory when none was added.  Both borrowed; a new reference. */
json_t *tjp_patched_runtime(const json_t *tj, const json_t *rt, struct ferr_list *errs);

#endif
