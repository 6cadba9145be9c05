/* convert: the other dialects -> a plain JobSet (not yet defaulted) carrying jaxset's JAX
 * runtime annotations (api/keys.h).  Each converter validates its own input first (with the
 * input's field paths, e.g. spec.jaxReplicaSpecs.Worker.template.spec.containers) and returns
 * NULL when it appended errors.  Inputs are borrowed; the result is a new reference. */
#ifndef JX_CONVERT_H
#define JX_CONVERT_H

#include <jansson.h>

#include "obj/ferr.h"

/* kubeflow.org/v1 JAXJob (kubeflow/training-operator release-1.9). */
json_t *conv_jaxjob(const json_t *doc, struct ferr_list *errs);

/* trainer.kubeflow.org/v1alpha1 TrainJob (kubeflow/trainer) with its TrainingRuntime or
 * ClusterTrainingRuntime (`runtime`, NULL when none was found: then an error names
 * spec.runtimeRef.name). */
json_t *conv_trainjob(const json_t *doc, const json_t *runtime, struct ferr_list *errs);

/* AIchor manifest with spec.operator jax (docs.aichor.ai, "Manifest Reference").
 * `fallback_name` names the JobSet when the manifest has no name (the file's base name, say). */
json_t *conv_aichor(const json_t *doc, const char *fallback_name, struct ferr_list *errs);

#endif
