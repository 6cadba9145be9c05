/* trainjob_status: a TrainJob's status (trainer.kubeflow.org/v1alpha1) from its JobSet, with
 * the rules of Kubeflow Trainer v2 (kubeflow/trainer pkg/controller/trainjob_controller.go
 * Reconcile, setSuspendedCondition, reconcileDeadline; pkg/runtime/framework/plugins/jobset
 * Status).  Pure: no I/O, no clock, no logging.
 *
 * Conditions are metav1.Conditions (meta.SetStatusCondition: a condition's
 * lastTransitionTime moves only when its status does):
 *   - Failed is cleared at the start of every pass unless its reason is DeadlineExceeded, then
 *     set again by what the pass finds (so fixing a runtime or a field lets the job go on);
 *   - a reason not to run (the runtime missing, of a kind jaxset does not run, a policy or
 *     field it does not implement, a JobSet it cannot build): Failed with that reason and a
 *     message naming it, and a Warning event when it appears;
 *   - Suspended True (reason Suspended, "TrainJob is suspended") while spec.suspend, then False
 *     (Resumed, "TrainJob is resumed");
 *   - the JobSet's Completed and Failed conditions, True, copied as Complete and Failed;
 *   - jobsStatus: the JobSet's replicatedJobsStatus, entry by entry;
 *   - activeDeadlineSeconds, counted from creation or the last resume (Suspended False's
 *     lastTransitionTime), while neither finished nor suspended: past it, Failed
 *     (DeadlineExceeded, "TrainJob exceeded its active deadline") and the JobSet deleted. */
#ifndef JX_TRAINJOB_STATUS_H
#define JX_TRAINJOB_STATUS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#define TJS_MANAGER "trainer.kubeflow.org/trainjob-controller"

/* Reasons of a Failed condition this controller sets (besides DeadlineExceeded). */
#define TJS_RUNTIME_NOT_SUPPORTED "TrainingRuntimeNotSupported" /* upstream's */
#define TJS_RUNTIME_NOT_FOUND "TrainingRuntimeNotFound"
#define TJS_NOT_IMPLEMENTED "NotImplementedByJaxset"
#define TJS_BUILD_FAILED "TrainJobResourcesCreationFailed" /* upstream's event reason */

struct tjs_obs {
    const json_t *jobset;   /* the JobSet the TrainJob controls, or NULL */
    const char *why;        /* a reason not to run (TJS_*), or NULL */
    const char *why_msg;    /* its message */
};

struct tjs_result {
    json_t *status;   /* owned (tjs_result_release) */
    json_t *events;   /* [{"type","reason","message"}] (owned) */
    bool changed, finished;
    bool delete_jobset; /* the deadline passed */
    int64_t requeue_ms; /* -1: none */
};

int tjs_compute(const json_t *trainjob, const struct tjs_obs *obs, int64_t now_ms,
                struct tjs_result *out) __attribute__((warn_unused_result));
void tjs_result_release(struct tjs_result *r);

/* Complete True, or Failed True for a reason that is not one of this controller's own checks
 * (those are looked at again every pass): the TrainJob will not run again. */
bool tjs_finished(const json_t *status);

/* What jaxset does not implement in this TrainJob and its runtime (borrowed): NULL, or a
 * message naming the field ("spec.mlPolicy.torch: ..."), written into buf.  (runtimePatches,
 * initializers and podGroupPolicy are implemented: api/kubeflow/trainjob_patch.h,
 * api/kubeflow/trainjob_init.h, api/kubeflow/trainjob_podgroup.h.) */
const char *tjs_unsupported(const json_t *trainjob, const json_t *runtime, char *buf, size_t n);

#endif
