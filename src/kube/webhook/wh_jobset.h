/* wh_jobset, wh_pod: the controller's admission handlers (kube/wh_adm.h), as upstream
 * JobSet's pkg/webhooks serve them:
 *   /mutate-jobset-x-k8s-io-v1alpha2-jobset    JobSet defaults (js_default), on CREATE
 *   /validate-jobset-x-k8s-io-v1alpha2-jobset  CREATE: what `jaxset validate` checks
 *                                              (js_validate_admission), and the claims of
 *                                              volumeClaimPolicies that exist already
 *                                              (wh_ctx.pvcs_get); UPDATE: immutability
 *                                              and ElasticJobSet scaling (js_admit_update)
 *   /mutate--v1-pod                            exclusive placement's Default and the JAX
 *                                              process id of a JobSet's pod (wh_pod.c)
 *   /validate--v1-pod                          exclusive placement's ValidateCreate (wh_pod.c)
 *   /validate-kubeflow-org-v1-jaxjob           Kubeflow JAXJob validation, upstream's
 *                                              messages (wh_kubeflow.c)
 *   /validate-trainer-kubeflow-org-v1alpha1-trainjob  Kubeflow Trainer v2 TrainJob validation,
 *                                              kubeflow/trainer's messages (wh_trainer.c)
 *   /validate-trainer-kubeflow-org-v1alpha1-trainingruntime, ...-clustertrainingruntime
 *                                              Trainer's runtime webhooks (wh_trainer.c), which
 *                                              a runtime labelled trainer.kubeflow.org/
 *                                              webhook-validation: disabled never reaches
 * Refusals carry the field errors `jaxset validate` prints, in apierrors.NewInvalid's form. */
#ifndef JX_KUBE_WEBHOOK_WH_JOBSET_H
#define JX_KUBE_WEBHOOK_WH_JOBSET_H

#include <jansson.h>
#include <stdbool.h>

#include "api/jobset/features.h"
#include "api/child/placement.h"
#include "kube/webhook/wh_adm.h"
#include "obj/base/err.h"

#define WH_PATH_MUTATE_JOBSET "/mutate-jobset-x-k8s-io-v1alpha2-jobset"
#define WH_PATH_VALIDATE_JOBSET "/validate-jobset-x-k8s-io-v1alpha2-jobset"
#define WH_PATH_MUTATE_POD "/mutate--v1-pod"
#define WH_PATH_VALIDATE_POD "/validate--v1-pod"
#define WH_PATH_VALIDATE_JAXJOB "/validate-kubeflow-org-v1-jaxjob"
#define WH_PATH_VALIDATE_TRAINJOB "/validate-trainer-kubeflow-org-v1alpha1-trainjob"
#define WH_PATH_VALIDATE_TRAININGRUNTIME "/validate-trainer-kubeflow-org-v1alpha1-trainingruntime"
#define WH_PATH_VALIDATE_CLUSTERTRAININGRUNTIME                                                 \
    "/validate-trainer-kubeflow-org-v1alpha1-clustertrainingruntime"

/* What the handlers read: the feature gates, and for pods the JobSet as the controller's cache
 * holds it (a new tree the caller decrefs, or NULL when not cached). */
struct wh_ctx {
    const struct feature_gates *gates;
    json_t *(*jobset_get)(void *arg, const char *ns, const char *name);
    /* A TrainingRuntime (ns/name) or ClusterTrainingRuntime (name) from the TrainJob
     * controller's caches: 0 with *out a new tree or NULL (not found), -ENOSYS (no cache), or
     * -errno.  May be NULL (no cache). */
    int (*runtime_get)(void *arg, bool cluster, const char *ns, const char *name, json_t **out);
    /* The PersistentVolumeClaims names[0..n) of namespace `ns` as the API server has them now
     * (the JobSet webhook's look-up of the claims its volumeClaimPolicies would create): 0 with
     * outs[i] a new tree or NULL (not found), or -errno with `e` (the look-up failed; outs all
     * NULL).  May be NULL (no look-up: nothing is found). */
    int (*pvcs_get)(void *arg, const char *ns, const char *const *names, size_t n, json_t **outs,
                    struct err *e);
    void *arg;
    /* The pods and Nodes exclusive placement reads (the controller's caches); pods_named NULL:
     * no placement. */
    struct place_src place;
    /* jaxset's gated order (api/child/placement.h PLACE_GATE); false: upstream's refusals */
    bool place_gates;
};

/* wh_adm_fn handlers; `arg` is a struct wh_ctx. */
int wh_jobset_default(void *arg, const json_t *req, struct wh_adm_result *r);
int wh_jobset_validate(void *arg, const json_t *req, struct wh_adm_result *r);
int wh_pod_default(void *arg, const json_t *req, struct wh_adm_result *r);
int wh_pod_validate(void *arg, const json_t *req, struct wh_adm_result *r);
int wh_jaxjob_validate(void *arg, const json_t *req, struct wh_adm_result *r);
int wh_trainjob_validate(void *arg, const json_t *req, struct wh_adm_result *r);
int wh_runtime_validate(void *arg, const json_t *req, struct wh_adm_result *r);

#endif
