/* plan_exec: executes a reconcile plan (core/reconcile.h) through a table of backend
 * operations.  The local runner and the cluster controller differ only in their table; the
 * order of the steps and what a failure suppresses are decided here, once, as the upstream
 * JobSet controller does them (kubernetes-sigs/jobset pkg/controllers/jobset_controller.go,
 * Reconcile and reconcile; docs/design.md):
 *
 *   1. delete_job      for every plan delete (Foreground); the first failure ends the pass.
 *   2. create_service  when the plan holds a Service; a failure records the Warning event
 *                      HeadlessServiceCreationFailed and ends the pass.
 *   2b. create_pvc     for every claim of spec.volumeClaimPolicies; a failure records the
 *                      Warning event PVCCreationFailed and ends the pass.
 *   3. create_job      for every plan create, all of them attempted; failures record one
 *                      Warning event JobCreationFailed with the joined errors
 *                      (`job "<name>" creation failed with error: <err>`) and end the pass.
 *   4. update_job      for every plan patch; the first failure ends the pass.
 *   5. write_status    when the status changed.  A failure ends the pass: the plan's events
 *                      are NOT recorded (upstream emits them only after a successful write).
 *   6. record_event    for every plan event, in order.
 *   7. delete_jobset   when the TTL after finished expired.
 * An ended pass returns the failing operation's negative errno with its message in `e`; the
 * backend retries by reconciling again (upstream requeues with backoff).
 *
 * "Already exists" is not a failure: a backend's create_service returns 0 when a Service of
 * that name exists (whoever owns it), create_pvc for a claim that exists, and create_job for a
 * Job that exists, save the cluster backend's for a Job another owner controls (a name two
 * JobSets' Jobs share: kube/ctl ctl_ops.c, the condition JobNameConflict of core/status.h). */
#ifndef JX_PLAN_EXEC_H
#define JX_PLAN_EXEC_H

#include <jansson.h>
#include <stdbool.h>

#include "core/reconcile.h"
#include "obj/base/err.h"

/* Backend operations.  Every object argument is borrowed for the duration of the call (take a
 * reference to keep it).  Each returns 0 or a negative errno with a message in `e`, except
 * record_event, which cannot fail (a backend logs what it cannot deliver). */
struct rec_ops {
    int (*delete_job)(void *ctx, const char *name, bool foreground, struct err *e);
    int (*create_service)(void *ctx, json_t *service, struct err *e);
    int (*create_pvc)(void *ctx, json_t *pvc, struct err *e);
    int (*create_job)(void *ctx, json_t *job, struct err *e);
    int (*update_job)(void *ctx, const struct rec_patch *patch, struct err *e);
    int (*write_status)(void *ctx, json_t *status, struct err *e);
    void (*record_event)(void *ctx, enum rec_event_type type, const char *reason,
                         const char *message);
    int (*delete_jobset)(void *ctx, struct err *e);
    /* Optional batch forms for backends that write in parallel (upstream creates a pass's Jobs
     * concurrently, workqueue.ParallelizeUntil).  delete_jobs: every delete of the plan, the
     * first failure returned.  create_jobs: every create attempted; rcs[i] and errs[i] get
     * each one's result (0 or -errno and its message).  When NULL, the one-at-a-time forms
     * are called in order. */
    int (*delete_jobs)(void *ctx, const struct rec_delete *d, size_t n, struct err *e);
    void (*create_jobs)(void *ctx, json_t *const *jobs, size_t n, int *rcs, struct err *errs);
};

/* What a pass did, for the backend's own bookkeeping. */
struct rec_exec_result {
    bool changed;      /* a Job was deleted, created or updated, or the status was written */
    bool status_written;
};

/* Executes `p` (borrowed) through `ops` with `ctx`.  Returns 0 (and fills *res when non-NULL)
 * or the first failing operation's negative errno, with `e` naming the operation and object
 * (*res untouched: the backend reconciles again after a failure whatever it did). */
int rec_plan_execute(const struct rec_plan *p, const struct rec_ops *ops, void *ctx,
                     struct rec_exec_result *res, struct err *e)
    __attribute__((warn_unused_result));

#endif
