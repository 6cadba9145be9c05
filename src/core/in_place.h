/* in_place: the InPlaceRestart feature gate's part of the JobSet controller (kubernetes-sigs/jobset
 * pkg/controllers/in_place_restart.go, reconcileInPlaceRestart; KEP-467).
 *
 * With restartStrategy InPlaceRestart a restart keeps the pods: an agent in each pod (upstream's
 * in-place-restart-agent; `jaxset run` plays it locally) writes the pod's in-place restart
 * attempt into the annotation jobset.sigs.k8s.io/in-place-restart-attempt when the pod starts
 * (status.currentInPlaceRestartAttempt + 1, or 0 when unset) and holds the worker at a barrier.
 * The controller only reads those annotations and moves two status fields:
 *   - every expected pod (replicas x parallelism over the replicated jobs) at one attempt:
 *     currentInPlaceRestartAttempt = that attempt, which lifts the barriers;
 *   - attempts that differ: previousInPlaceRestartAttempt = max - 1 (never lowered), which
 *     tells every agent at or below it to restart its pod in place (all its containers).
 * It fails the JobSet (ReachedMaxRestarts) when a container restarted more than maxRestarts
 * times, or when the highest attempt minus the restarts that do not count exceeds maxRestarts.
 * A Job that fails anyway is handled by the failure policy, as with Recreate. */
#ifndef JX_CORE_IN_PLACE_H
#define JX_CORE_IN_PLACE_H

struct rec_ctx;

/* Runs the in-place restart step when the gate is on and the strategy is InPlaceRestart (a
 * no-op otherwise), over c->pods (v1 Pods: metadata.annotations, status.phase,
 * status.containerStatuses[] and initContainerStatuses[] restartCount; pods in phase Failed and
 * pods without the annotation are left out of the attempts).  Returns 0, -EINVAL with c->e set
 * (an annotation that is not a non-negative integer; a replicated job whose completions and
 * parallelism are not set and equal) or -ENOMEM. */
int rec_in_place_restart(struct rec_ctx *c) __attribute__((warn_unused_result));

#endif
