/* convert: the other dialects -> a plain JobSet (not yet defaulted) carrying jaxset's JAX
 * runtime annotations (api/schema/keys.h).  Each converter validates its own input first (with the
 * input's field paths, e.g. spec.jaxReplicaSpecs.Worker.template.spec.containers) and returns
 * NULL when it appended errors.  Inputs are borrowed; the result is a new reference. */
#ifndef JX_CONVERT_H
#define JX_CONVERT_H

#include <jansson.h>
#include <stdbool.h>

#include "api/jobset/features.h"
#include "obj/tree/ferr.h"

/* kubeflow.org/v1 JAXJob (kubeflow/training-operator release-1.9). */
json_t *conv_jaxjob(const json_t *doc, struct ferr_list *errs);
/* conv_jaxjob as a cluster admits the JAXJob (`cluster`): a container without an image is
 * refused too, as the JAXJob webhook refuses it; conv_jaxjob refuses only an empty one. */
json_t *conv_jaxjob_ex(const json_t *doc, bool cluster, struct ferr_list *errs);

/* trainer.kubeflow.org/v1alpha1 TrainJob (kubeflow/trainer) with its TrainingRuntime or
 * ClusterTrainingRuntime (`runtime`, NULL when none was found: then an error names
 * spec.runtimeRef.name). */
json_t *conv_trainjob(const json_t *doc, const json_t *runtime, struct ferr_list *errs);

/* AIchor manifest with spec.operator jax (docs.aichor.ai, "Manifest Reference").
 * `fallback_name` names the JobSet when the manifest has no name (the file's base name, say). */
json_t *conv_aichor(const json_t *doc, const char *fallback_name, struct ferr_list *errs);

/* Where the field at `js_path` of the JobSet that the converter of `kind` ("JAXJob", "TrainJob",
 * "AIchorManifest") built from `doc` (and, for a TrainJob, `runtime`) comes from in the user's
 * documents: a malloc'd path (e.g. "spec.types.worker.count" for
 * "spec.replicatedJobs[0].template.spec.parallelism" of an AIchor manifest), with *in_runtime
 * set when it is a path of the runtime.  NULL for another kind, a path with no rule, or on OOM
 * (then the JobSet path stands).  conv_paths.c. */
char *conv_user_path(const char *kind, const json_t *doc, const json_t *runtime,
                     const char *js_path, bool *in_runtime);

/* The JobSet a cluster controller creates for `kind` ("JAXJob" or "TrainJob" with its
 * `runtime`): converted, then checked on a defaulted copy as the JobSet webhook and controller
 * would check it (validation with `g`, the JAX runtime), errors under the user's paths.  A new
 * reference (not defaulted), or NULL: errors appended, or out of memory when none was.
 * conv_cluster.c. */
json_t *conv_for_cluster(const char *kind, const json_t *doc, const json_t *runtime,
                         const struct feature_gates *g, struct ferr_list *errs);

#endif
