/* trainjob_init: a TrainJob's spec.initializer and its runtime's podGroupPolicy in the JobSet,
 * as kubeflow/trainer v2.3 builds them (pkg/runtime/framework/plugins/jobset/builder.go
 * Builder.Initializer and Builder.PodLabels/PodAnnotations; plugins/coscheduling and
 * plugins/volcano EnforcePodGroupPolicy).  Pure functions over JSON. */
#ifndef JX_TRAINJOB_INIT_H
#define JX_TRAINJOB_INIT_H

#include <jansson.h>

#include "api/schema/check.h"

#define TJI_DATASET "dataset-initializer"
#define TJI_MODEL "model-initializer"
#define TJI_ANCESTOR "trainer.kubeflow.org/trainjob-ancestor-step"
#define TJI_ENV_STORAGE_URI "STORAGE_URI"
#define TJI_COSCHED_LABEL "scheduling.x-k8s.io/pod-group"          /* PodGroupLabel */
#define TJI_VOLCANO_ANN "scheduling.k8s.io/group-name"             /* KubeGroupNameAnnotationKey */
#define TJI_VOLCANO_QUEUE "scheduling.volcano.sh/queue-name"       /* QueueNameAnnotationKey */

/* Checks the types of spec.initializer (`spec` is the TrainJob's spec): dataset and model
 * objects with a string storageUri, an env list of named objects and a secretRef with a name. */
void tji_check(struct chk *c, const json_t *spec);

/* Builder.Initializer on a JobSet spec (`jspec`, modified): every replicated job labelled
 * trainjob-ancestor-step=dataset-initializer (model-initializer) gets replicas 1, and its
 * container of that name, when the TrainJob (`tj_spec`) has spec.initializer.dataset (.model),
 * STORAGE_URI = storageUri (when set), the initializer's env upserted by name and an envFrom
 * of its secretRef.  0 or -ENOMEM. */
int tji_apply(json_t *jspec, const json_t *tj_spec);

/* The pods' pod-group label (coscheduling) or annotation (volcano), the TrainJob's name, on
 * every replicated job's pod template of `jspec`, as `pg_policy` (the runtime's
 * spec.podGroupPolicy, may be NULL) asks.  0 or -ENOMEM. */
int tji_pod_group(json_t *jspec, const json_t *pg_policy, const char *name);

/* Upserts the {"name",...} objects of `env` into node.env by name.  0 or -ENOMEM. */
int tji_merge_env(json_t *node, const json_t *env);

#endif
