/* cond: Kubernetes status conditions (status.conditions: a list of {type, status, reason,
 * message, lastTransitionTime, ...}), found, tested, set and removed here for every kind: the
 * JobSet core, JAXJob and TrainJob, Jobs, Pods and the CLI call these functions and no other
 * code appends to or edits a list of conditions.  Nothing here knows a kind or a condition
 * type: the rules of a kind (which types exclude each other, what a Failed condition freezes)
 * stay with the kind and come in as arguments.
 *
 * `holder` is the object whose "conditions" member is the list (a status).  A missing holder, a
 * missing "conditions" or one that is not an array is an empty list; the functions that append
 * create the list (replacing a member that is not an array).  A condition's fields are written
 * in the order the caller's layout asks (struct cond), so that what each kind wrote before stays
 * byte for byte what it writes. */
#ifndef JX_COND_H
#define JX_COND_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define COND_TRUE "True"
#define COND_FALSE "False"

/* A condition to write.  Strings are borrowed; a NULL field other than type and status is left
 * out of the object.  The keys come in this order: type, status, lastTransitionTime (when
 * transition_first), reason, message, lastUpdateTime, lastProbeTime, lastTransitionTime (when
 * not transition_first). */
struct cond {
    const char *type;       /* required */
    const char *status;     /* required: "True", "False" or "Unknown" */
    const char *reason;
    const char *message;
    const char *transition; /* lastTransitionTime; for the set functions, the time a new
                             * condition or a changed status gets */
    const char *updated;    /* lastUpdateTime (Kubeflow v1 JobCondition) */
    const char *probed;     /* lastProbeTime (batch/v1 JobCondition) */
    bool transition_first;  /* lastTransitionTime right after status, as Go writes a
                             * metav1.Condition (apimachinery) */
};

/* ---- reading ------------------------------------------------------------------------------ */

/* The list of `holder`, or NULL (borrowed). */
json_t *cond_list(const json_t *holder);

/* The first condition of `type` (borrowed), or NULL; *idx (may be NULL) gets its index. */
json_t *cond_find(const json_t *holder, const char *type, size_t *idx);

/* The condition of `type` is there with status `status`. */
bool cond_is(const json_t *holder, const char *type, const char *status);

/* The condition of `type` is there with status "True". */
bool cond_true(const json_t *holder, const char *type);

/* The lastTransitionTime string of condition `cond`, or NULL (borrowed). */
const char *cond_transition(const json_t *cond);

/* ---- writing: each returns 0 or -ENOMEM unless it says more ------------------------------- */

/* A new condition object as `c` lays it out (new reference), or NULL on out of memory or when
 * type or status is NULL. */
json_t *cond_new(const struct cond *c);

/* Appends `cond` (stolen, also on failure; NULL = out of memory) to the list. */
int cond_append(json_t *holder, json_t *cond);

/* Puts `cond` (stolen, also on failure) at index `i` of the list, in place of what is there. */
int cond_replace(json_t *holder, size_t i, json_t *cond);

/* Makes `list` (stolen, also on failure; NULL = out of memory) the list of `holder`. */
int cond_list_set(json_t *holder, json_t *list);

/* Removes the first condition of `type`.  Returns 1 when one was removed, else 0. */
int cond_remove(json_t *holder, const char *type);

/* ---- setting: the three update rules the kinds use ---------------------------------------- */

/* apimachinery meta.SetStatusCondition (k8s.io/apimachinery pkg/api/meta/conditions.go): a new
 * type is appended with lastTransitionTime c->transition; an existing condition is updated in
 * place (its other keys kept, its missing ones added in c's order) with c's type, status,
 * reason, message and times, its lastTransitionTime moving to c->transition only when the
 * status changes.  Returns 1 when the condition is new or its status, reason or message
 * changed, 0 when not, -ENOMEM. */
int cond_set(json_t *holder, const struct cond *c);

/* kubernetes-sigs/jobset pkg/controllers/jobset_controller.go updateCondition: every condition
 * of c's type is replaced by a new one (other keys dropped) when its status changed
 * (lastTransitionTime c->transition) or its reason or message did (its lastTransitionTime kept,
 * left out when it had none); an absent type is appended only when c's status is "True"; and
 * when c's status is "True", a "True" condition of type `complement` (NULL = none) turns
 * "False" (its status only).  Returns 1 when the list changed, 0 when not, -ENOMEM. */
int cond_update(json_t *holder, const struct cond *c, const char *complement);

/* kubeflow/training-operator pkg/util/status.go setCondition and filterOutCondition: nothing
 * when a condition of c's type has c's status and reason; otherwise the list is rebuilt without
 * c's type, without the type `drop` (NULL = none) and without conditions that have no type,
 * the type `turn_false` (NULL = none) set to "False", and c appended last, its
 * lastTransitionTime kept from the old condition when the status stays (c->transition
 * otherwise).  c->updated is its lastUpdateTime.  (That a Failed condition freezes the list is
 * the caller's rule.)  Returns 1 when the list changed, 0 when not, -ENOMEM. */
int cond_set_kubeflow(json_t *holder, const struct cond *c, const char *drop,
                      const char *turn_false);

#endif
