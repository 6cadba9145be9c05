/* jaxjob_admission: the Training Operator's JAXJob validating webhook
 * (kubeflow/training-operator release-1.9 pkg/webhooks/jax/jaxjob_webhook.go: validateJAXJob,
 * validateJAXReplicaSpecs), after its defaulting has written replica types in CamelCase
 * (SetDefaults_JAXJob), with upstream's messages and Go's field paths (map keys in brackets):
 *   metadata.name: Invalid value: "<name>": should match: <DNS-1035 label errors>
 *   spec.jaxReplicaSpecs: Required value: must be required
 *   spec.jaxReplicaSpecs[<type>]: Unsupported value: "<type>": supported values: "Worker"
 *   spec.jaxReplicaSpecs[<type>].template.spec.containers: Required value: must be specified
 *   spec.jaxReplicaSpecs[<type>].template.spec.containers[<i>].image: Required value: must be
 *     required
 *   spec.jaxReplicaSpecs[<type>].template.spec.containers: Required value: must have at least
 *     one container with name jax
 * The one place these rules live: the cluster's webhook (kube/webhook/wh_kubeflow.c),
 * `validate --cluster` and every local run (through conv_jaxjob.c) call it. */
#ifndef JX_API_JAXJOB_ADMISSION_H
#define JX_API_JAXJOB_ADMISSION_H

#include <jansson.h>
#include <stdbool.h>

#include "obj/tree/ferr.h"

/* Appends the webhook's errors for JAXJob `jj` to errs.  `image_required`: a container without
 * an image is refused (a cluster); without it only an empty image is (a local run, which runs
 * commands without images).  A name that is missing or not a string is left to the object's
 * own checks.  0 or -ENOMEM. */
int jja_validate(const json_t *jj, bool image_required, struct ferr_list *errs);

/* The replica type a key stands for after upstream's defaulting: "Worker" for any case of it,
 * else the key itself (static or borrowed). */
const char *jja_replica_type(const char *key);

#endif
