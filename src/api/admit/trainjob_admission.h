/* trainjob_admission: Kubeflow Trainer v2's admission of a TrainJob and of the runtime it names,
 * one rule set for `jaxset validate --cluster` (api/convert/manifest.c), the cluster's validating
 * webhook (kube/wh_trainer.c) and the local runner (through manifest loading), with upstream's
 * field paths and messages (kubeflow/trainer v2.3.0):
 *   - tja_crd_rules: the TrainJob CRD's OpenAPI and CEL rules (manifests/base/crds/
 *     trainer.kubeflow.org_trainjobs.yaml; pkg/apis/trainer/v1alpha1/trainjob_types.go):
 *     metadata.name an RFC 1035 label of at most 63 characters, managedBy's values, storageUri,
 *     command/args item lengths, image length, runtime patches' manager,
 *     terminationGracePeriodSeconds and serviceAccountName, and on update the immutable fields;
 *   - tja_runtime_crd_rules: the TrainingRuntime/ClusterTrainingRuntime CRDs' rules on mlPolicy
 *     (only one policy; mpi's mpiImplementation; flux numProcPerNode >= 1);
 *   - tja_runtime_webhook_rules: pkg/webhooks/trainingruntime_webhook.go validateReplicatedJobs
 *     (ancestor jobs have replicas 1 and their required container), checked on CREATE (and a
 *     ClusterTrainingRuntime's UPDATE), not for a runtime labelled
 *     trainer.kubeflow.org/webhook-validation: disabled (tja_webhook_validation_disabled);
 *   - tja_plugin_rules: the TrainJob webhook's plugins (pkg/runtime/framework/plugins: jobset's
 *     initializer and runtime-patch rules with their immutability, torch's and mpi's reserved
 *     env, flux's numProcPerNode and reserved init container; jax checks nothing);
 *   - tja_runtime_missing: the runtime named must exist;
 *   - tja_deprecation_warning: pkg/runtime/core/clustertrainingruntime.go (a TrainJob naming a
 *     deprecated ClusterTrainingRuntime) and pkg/webhooks/clustertrainingruntime_webhook.go
 *     (creating one). */
#ifndef JX_TRAINJOB_ADMISSION_H
#define JX_TRAINJOB_ADMISSION_H

#include <jansson.h>
#include <stdbool.h>

#include "obj/tree/ferr.h"

#define TJA_GROUP "trainer.kubeflow.org"
#define TJA_MANAGER_TRAINER "trainer.kubeflow.org/trainjob-controller"
#define TJA_MANAGER_KUEUE "kueue.x-k8s.io/multikueue"

/* Each appends field errors to `errs`; `old` is NULL on create.  0 or -ENOMEM. */
int tja_crd_rules(const json_t *tj, const json_t *old, struct ferr_list *errs);
int tja_runtime_crd_rules(const json_t *rt, struct ferr_list *errs);
int tja_runtime_webhook_rules(const json_t *rt, struct ferr_list *errs);
/* `rt`: the runtime the TrainJob names (not NULL); `js`: its JobSet on update, or NULL. */
int tja_plugin_rules(const json_t *tj, const json_t *old, const json_t *rt, const json_t *js,
                     struct ferr_list *errs);

/* The error a TrainJob naming a runtime that does not exist gets (pkg/runtime/core
 * trainingruntime.go, clustertrainingruntime.go ValidateObjects; the latter spells the path
 * "spec.RuntimeRef"), the runtime's kind ClusterTrainingRuntime when `cluster`.  0 or -ENOMEM. */
int tja_runtime_missing(const json_t *tj, bool cluster, struct ferr_list *errs);

/* The label with which a runtime opts out of the runtime webhooks (kubeflow/trainer v2.3.0,
 * #3683): their ValidatingWebhookConfiguration selects only the objects whose label is not
 * "disabled" (objectSelector NotIn), so the API server never calls them for such a runtime, on
 * create or update.  The TrainJob webhook still checks a TrainJob that names it, and the CRD's
 * own rules still apply. */
#define TJA_LABEL_WEBHOOK_VALIDATION TJA_GROUP "/webhook-validation"

/* True when `rt` carries trainer.kubeflow.org/webhook-validation: disabled: what the runtime
 * webhook checks (tja_runtime_webhook_rules, the creation's deprecation warning) is skipped
 * wherever jaxset plays it. */
bool tja_webhook_validation_disabled(const json_t *rt);

/* Upstream's warning for ClusterTrainingRuntime `rt` when it is labelled
 * trainer.kubeflow.org/support=deprecated, as a TrainJob naming it (`referenced`) or its own
 * creation gives it; NULL when none (or out of memory: *oom set).  malloc'd. */
char *tja_deprecation_warning(const json_t *rt, bool referenced, bool *oom);

/* What a cluster's admission checks when TrainJob `tj` is created after runtime `rt` (NULL:
 * none given) was: the TrainJob CRD, the runtime's CRD and the TrainJob webhook refuse (into
 * `errs`; a runtime's errors say "in <Kind> \"<name>\""); the runtime webhook's create-time
 * rules (tja_runtime_webhook_rules) are errors too unless `cluster`, where they are warnings:
 * upstream's webhook checks them on CREATE only, so a runtime updated into that state is
 * admitted and fails later.  The deprecation warnings go to `warnings`.  With `rt` NULL, the
 * missing-runtime error is given only when `cluster` (the local loader words its own).
 * 0 or -ENOMEM. */
int tja_admit_create(const json_t *tj, const json_t *rt, bool cluster, struct ferr_list *errs,
                     struct ferr_list *warnings);

#endif
