/* schema: which fields each kind jaxset reads may hold, to find the unknown ones as an API server
 * does with `kubectl apply --validate=strict` (kubectl's default).
 *
 * A table lists the field names of one object type and, for each, what its value is: a leaf (a
 * scalar, or free-form such as label values and resource quantities: never looked into), an
 * object of a known type, a list of such objects or a map from any key to such objects.  For
 * the Kubernetes kinds (JobSet, JAXJob, TrainJob, TrainingRuntime, ClusterTrainingRuntime) the
 * tables are generated from the kinds' CustomResourceDefinitions (schema_crd.c,
 * scripts/gen_schema_crd.py): an API server finds the unknown fields of a custom resource by
 * pruning it against exactly that schema, so every field a PodSpec or Container has in the
 * Kubernetes release the CRD embeds is known, whether or not jaxset uses it locally.  The root
 * `metadata` is the API server's ObjectMeta (k8s.io/apimachinery pkg/apis/meta/v1, types.go).
 * AIchor has no published schema: its table follows AIchor's Manifest Reference for the
 * fields the jax operator reads (schema_aichor.c).
 *
 * Unknown fields are reported with the path an API server's pruning prints (map entries as
 * `.key`, list items as `[i]`):  spec.replicatedJobs[0].replica: unknown field  */
#ifndef JX_SCHEMA_H
#define JX_SCHEMA_H

#include <jansson.h>
#include <stdbool.h>

#include "obj/tree/ferr.h"

enum sch_kind {
    SCH_LEAF, /* anything; not looked into */
    SCH_OBJ,  /* an object of `type` */
    SCH_LIST, /* a list of objects of `type` */
    SCH_MAP,  /* an object whose every value is an object of `type` */
};

struct sch_type;

struct sch_field {
    const char *name;
    enum sch_kind kind;
    const struct sch_type *type; /* NULL for SCH_LEAF */
};

struct sch_type {
    const struct sch_field *fields;
    unsigned n;
    bool open; /* x-kubernetes-preserve-unknown-fields: other keys are accepted too */
};

/* Roots: whole documents of each kind. */
extern const struct sch_type sch_jobset;                   /* jobset.x-k8s.io/v1alpha2 */
extern const struct sch_type sch_jaxjob;                   /* kubeflow.org/v1 */
extern const struct sch_type sch_trainjob;                 /* trainer.kubeflow.org/v1alpha1 */
extern const struct sch_type sch_training_runtime;         /* trainer.kubeflow.org/v1alpha1 */
extern const struct sch_type sch_cluster_training_runtime; /* trainer.kubeflow.org/v1alpha1 */
extern const struct sch_type sch_aichor;                   /* AIchorManifest, operator jax */
/* ObjectMeta, the root metadata of every Kubernetes kind. */
extern const struct sch_type sch_object_meta;

#define SCH_MAX_ERRORS 1000

/* Appends to `errs` one FERR_UNKNOWN_FIELD error per field of `doc` (borrowed) that `root` does
 * not know, in document order.  Values of the wrong JSON type are not looked into (their checks
 * belong to the validators).  The detail suggests a known field of the same object whose name
 * is close ("did you mean \"replicas\"?"); `where` (may be NULL) is added to every detail, e.g.
 * "in ClusterTrainingRuntime \"jax\"" when the document is not the one the error is reported
 * under.  At most SCH_MAX_ERRORS fields are listed, then one more error counts the others; keys
 * longer than 256 bytes are cut in paths ("..."): work and errors stay linear in the size of
 * the document.  Returns 0 or -ENOMEM (errs->rc says so
 * too). */
int sch_check(const json_t *doc, const struct sch_type *root, const char *where,
              struct ferr_list *errs);

/* Same, and removes each unknown field from `doc`, as an API server drops them under
 * --validate=warn or ignore.  `errs` may be NULL (nothing reported). */
int sch_prune(json_t *doc, const struct sch_type *root, const char *where,
              struct ferr_list *errs);

#endif
