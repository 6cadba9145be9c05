/* local_ann: jaxset's annotations on a JobSet that tune how its pods are run (not the JAX
 * runtime, see jaxrt.h).  Read once, when a manifest is checked.
 *
 *   jaxset.dev/restart-grace-seconds  a non-negative integer: when a failure-policy restart
 *       tears a gang down, its pods get this termination grace period instead of their own
 *       terminationGracePeriodSeconds.  JAX workers treat SIGTERM as a preemption notice and
 *       keep running, so without it a restart waits out the whole grace period.  Stopping the
 *       whole run keeps each pod's own grace.  On a cluster the pods of the Jobs jaxset's
 *       controller creates carry it as their terminationGracePeriodSeconds when it is shorter
 *       (local_ann_cap_job_grace): the Job controller deletes a failed Job's pods, and the
 *       garbage collector a deleted Job's, with the pods' own grace, and the kubelet keeps the
 *       grace of the first deletion however it is shortened afterwards
 *       (kubernetes/kubernetes#83916; docs/cluster.md, restart grace on a cluster). */
#ifndef JX_LOCAL_ANN_H
#define JX_LOCAL_ANN_H

#include <jansson.h>

#include "obj/tree/ferr.h"

/* Largest restart grace accepted (seconds): a day, as a typo guard. */
#define LOCAL_RESTART_GRACE_MAX 86400

/* Reads jaxset.dev/restart-grace-seconds of `js`: *out is its value, or -1 when absent.  An
 * invalid value is a field error at metadata.annotations[jaxset.dev/restart-grace-seconds].
 * Returns the number of errors added (0 or 1) or -ENOMEM. */
int local_ann_restart_grace(const json_t *js, long long *out, struct ferr_list *errs);

/* Job `job`'s pod template gets terminationGracePeriodSeconds `grace` when its own (30 when
 * unset, as the API server defaults it) is longer; nothing when grace < 0.  0 or -ENOMEM. */
int local_ann_cap_job_grace(json_t *job, long long grace);

#endif
