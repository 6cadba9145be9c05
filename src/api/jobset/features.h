/* features: the JobSet controller's feature gates (kubernetes-sigs/jobset pkg/features/features.go)
 * and the way Kubernetes components take them (k8s.io/component-base featuregate: the
 * `--feature-gates=A=true,B=false` flag, and the `featureGates:` map of upstream's controller
 * Configuration file).
 *
 *   gate            stage  default  what it turns on here
 *   InPlaceRestart  alpha  false    failurePolicy.restartStrategy InPlaceRestart
 *   RestartJob      alpha  false    failure-policy actions RestartJob,
 * RestartJobAndIgnoreMaxRestarts
 *   ElasticJobSet   alpha  false    JobSet updates of parallelism/completions (upstream) and
 *                                   replicas (jaxset's): the webhook admits them, the reconcile
 *                                   scales the Jobs (core/elastic.c); a local run never updates
 *   TLSOptions      GA     true     locked to true (the controller's TLS settings)
 *   TrainJobStatus  alpha  false    Kubeflow Trainer's gate (pkg/features): the controller's
 *                                   status server and its trainer pods' variables (kube/status);
 *                                   a local run serves it always (local/run/runner_status.c)
 *   AllAlpha, AllBeta               every alpha (beta) gate not set by name, as component-base
 *
 * A zeroed `struct feature_gates` is every gate at its default, and a NULL pointer reads the
 * same wherever one is taken, so code that knows nothing of gates keeps upstream's defaults. */
#ifndef JX_FEATURES_H
#define JX_FEATURES_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "obj/base/err.h"

enum fg_id {
    FG_IN_PLACE_RESTART,
    FG_RESTART_JOB,
    FG_ELASTIC_JOBSET,
    FG_TLS_OPTIONS,
    FG_TRAINJOB_STATUS,
    FG_N,
};

struct feature_gates {
    bool set[FG_N];     /* given by name */
    bool on[FG_N];      /* its value when set */
    signed char all_alpha, all_beta; /* 0 unset, 1 true, -1 false */
};

/* The gate's name ("InPlaceRestart"...), static. */
const char *fg_name(enum fg_id id);

/* Whether gate `id` is on; g NULL = defaults. */
bool fg_enabled(const struct feature_gates *g, enum fg_id id);

/* Applies one `--feature-gates` value, as component-base's flag does: comma-separated
 * NAME=BOOL pairs (spaces around either trimmed, empty items skipped, BOOL one of Go's
 * strconv.ParseBool spellings: 1 t T TRUE true True 0 f F FALSE false False).  Several values
 * add up, a later one winning for the same name; a gate set by name wins over AllAlpha/AllBeta.
 * Returns 0, or -EINVAL with the message component-base gives ("missing bool value for X",
 * "invalid value of X=Y, err: ...", "unrecognized feature gate: X" followed by the known gates,
 * "cannot set feature gate TLSOptions to false, feature is locked to true") and g unchanged.
 * `warn` (may be NULL) gets "Setting GA feature gate X=true. It will be removed in a future
 * release." when a GA gate is named, else an empty message. */
int fg_set(struct feature_gates *g, const char *value, struct err *e, struct err *warn);

/* The same from a JSON object {"InPlaceRestart": true, ...} (the controller Configuration's
 * featureGates); a value that is not a boolean is -EINVAL. */
int fg_set_map(struct feature_gates *g, const json_t *map, struct err *e, struct err *warn);

/* "InPlaceRestart=true,RestartJob=true": the gates whose value is not their default, in table
 * order, into out (empty when none).  Returns out. */
char *fg_format(const struct feature_gates *g, char *out, size_t n);

/* How a validation or controller message tells the user to turn gate `id` on:
 * "--feature-gates=InPlaceRestart=true". */
#define FG_HOW_TO_ENABLE(name) "--feature-gates=" name "=true"

#endif
