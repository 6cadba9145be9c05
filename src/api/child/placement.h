/* placement: exclusive placement per topology domain (the annotation
 * alpha.jobset.sigs.k8s.io/exclusive-topology), the pure part of kubernetes-sigs/jobset's pod
 * webhook (pkg/webhooks/pod_webhook.go) and pod reconciler (pkg/controllers/pod_controller.go)
 * over pods as JSON trees.  What these read from a cluster (the pods named like a Job's leader,
 * a Node) comes through struct place_src, so the tables of upstream's tests run without one.
 *
 * Pods of the node-selector strategy (alpha.jobset.sigs.k8s.io/node-selector) are left alone
 * by all of it: construction gives their Jobs a nodeSelector and toleration instead
 * (api/child/construct.c node_selector_strategy). */
#ifndef JX_API_PLACEMENT_H
#define JX_API_PLACEMENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* upstream pkg/constants: the pod label of its priority, and the DisruptionTarget condition
 * the reconciler puts on the followers it deletes */
#define LBL_PRIORITY "jobset.sigs.k8s.io/priority"
#define PLACE_VIOLATION_REASON "ExclusivePlacementViolation"
#define PLACE_VIOLATION_MESSAGE "Pod violated JobSet exclusive placement policy"

/* An answer that is not "yes": the admission Status (code, reason) or the reconcile error. */
struct place_err {
    int code;           /* 403 (a plain Go error, controller-runtime's Denied), 404 NotFound */
    const char *reason; /* "Forbidden", "NotFound" */
    char msg[512];
};

struct place_src {
    /* The pods of namespace ns whose name less its random suffix is `base` and that carry the
     * exclusive-topology annotation (upstream's podName field index): a new array, NULL on
     * OOM. */
    json_t *(*pods_named)(void *arg, const char *ns, const char *base);
    /* Node `name`: 0 with *out a new reference, -ENOENT when there is none, or -errno. */
    int (*node)(void *arg, const char *name, json_t **out);
    void *arg;
};

/* The result of a function that may fail: 0 yes/done, PLACE_NO refused or failed with `pe`
 * filled, or -ENOMEM. */
#define PLACE_NO 1

/* placement.IsLeaderPod: the completion index annotation is "0". */
bool place_is_leader(const json_t *pod);

/* removePodNameSuffix: the name less its last "-" part; -EINVAL when it has fewer than 5. */
int place_index_name(const char *pod_name, char *out, size_t n);

/* genLeaderPodName: "<jobset>-<replicatedjob>-<job index>-0" from the pod's labels. */
int place_leader_name(const json_t *pod, char *out, size_t n, struct place_err *pe);

/* podsOwnedBySameJob. */
int place_same_job(const json_t *leader, const json_t *follower, struct place_err *pe);

/* leaderPodForFollower: *leader a new reference on 0. */
int place_leader_for_follower(const struct place_src *src, const json_t *pod, json_t **leader,
                              struct place_err *pe);

/* The domain of the follower `pod`'s leader once it is scheduled (setNodeSelector's look-up):
 * 0 with *have and dom set, or with *have false while no single live leader is found or it is
 * not scheduled; PLACE_NO when its Node is missing or unlabelled, or -ENOMEM. */
int place_follower_domain(const json_t *pod, const struct place_src *src, char *dom, size_t n,
                          bool *have, struct place_err *pe);

/* The pod webhook's Default, on `pod` in place: the priority label, then for leaders the pod
 * affinity to their Job and anti-affinity to every other Job of the same priority in the
 * topology, for followers the nodeSelector of their scheduled leader's domain. */
int place_default(json_t *pod, const struct place_src *src, struct place_err *pe);

/* The pod webhook's ValidateCreate: a follower is admitted once its leader is scheduled and its
 * nodeSelector names the topology key. */
int place_validate(const json_t *pod, const struct place_src *src, struct place_err *pe);

/* The pod reconciler's filter: a scheduled leader of exclusive placement, not being deleted
 * (and, unlike upstream at HEAD, not of the node-selector strategy). */
bool place_reconcile_wanted(const json_t *pod);

/* listPodsForJob over `pods`: those with the exclusive annotation and job-key `job_key`
 * controlled by owner `uid`; a new array, NULL on OOM. */
json_t *place_pods_for_job(const json_t *pods, const char *job_key, const char *uid);

/* validatePodPlacements: *matched when every follower's nodeSelector names the leader's
 * domain (the label of its Node).  A leader whose Node is gone is an error only when a
 * follower must be judged. */
int place_validate_placements(const json_t *leader, const json_t *pods,
                              const struct place_src *src, bool *matched, struct place_err *pe);

/* updatePodCondition with the violation condition (DisruptionTarget True) at `now` (RFC 3339):
 * true when the pod's status changed and must be written. */
bool place_condition_add(json_t *pod, const char *now);

/* The pod reconciler's pass over one leader (Reconcile): `pods` are the pods of its namespace
 * that share its job-key label.  *deletions: a new array of {"pod": the follower as it should
 * be written, "updateStatus": true when its violation condition is new} for every follower of
 * the leader's Job when some follower's placement disagrees with the leader's; empty when all
 * agree. */
int place_reconcile_plan(const json_t *leader, const json_t *pods, const struct place_src *src,
                         const char *now, json_t **deletions, struct place_err *pe);

/* ---- jaxset's gated order (the controller's default; --exclusive-placement=webhook is
 * upstream's) -------------------------------------------------------------------------------
 * Upstream refuses a follower until its leader is scheduled, and the Job controller retries the
 * creation with its backoff (1 s, 2 s, 4 s... per Job), which is most of a recovery's time.  In
 * the gated order, option 1 of kubernetes-sigs/jobset#310, a follower that would be refused is
 * admitted with the scheduling gate PLACE_GATE instead, so the scheduler leaves it alone; once
 * its leader is scheduled the controller adds the leader's domain to its nodeSelector and
 * removes the gate in one patch (Kubernetes lets a gated pod's nodeSelector be added to,
 * KEP-3838).  The guarantee is the same: a follower runs only in its leader's domain, the
 * leader's affinities keep each Job alone there. */
#define PLACE_GATE "jaxset.dev/exclusive-placement"

/* True when `pod` carries PLACE_GATE. */
bool place_gated(const json_t *pod);

/* After place_default: a follower of exclusive placement whose nodeSelector does not name the
 * topology key gets PLACE_GATE.  0 or -ENOMEM. */
int place_gate_default(json_t *pod);

/* The validating webhook's answer in the gated order: true when `pod` is a gated follower
 * still without its domain, which is admitted (ValidateCreate is not asked). */
bool place_gate_admits(const json_t *pod);

/* The JSON patch that gives the gated `follower` the domain `dom` and removes PLACE_GATE (its
 * other gates kept, tested against the gates it had): a new array, NULL on OOM. */
json_t *place_ungate_patch(const json_t *follower, const char *dom);

/* For a gated follower: *patch its ungating once its leader is scheduled, NULL while it is
 * not (or while no single leader is found, or while it is being deleted).  0, PLACE_NO (the
 * leader's Node says nothing of the domain) or -ENOMEM. */
int place_ungate_one(const json_t *follower, const struct place_src *src, json_t **patch,
                     struct place_err *pe);

#endif
