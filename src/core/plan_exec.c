/* Plan execution in upstream's order (see plan_exec.h). */
#include "core/plan_exec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj/tree/jx.h"

#define EV_JOB_CREATION_FAILED "JobCreationFailed"
#define EV_SERVICE_CREATION_FAILED "HeadlessServiceCreationFailed"
#define EV_PVC_CREATION_FAILED "PVCCreationFailed"

static const char *obj_name(const json_t *o)
{
    const char *n = jx_str(jx_obj(o, "metadata"), "name");
    return n ? n : "";
}

static int exec_deletes(const struct rec_plan *p, const struct rec_ops *ops, void *ctx,
                        struct err *e)
{
    if (ops->delete_jobs && p->n_deletes) {
        int rc = ops->delete_jobs(ctx, p->deletes, p->n_deletes, e);
        if (rc < 0)
            err_prefix(e, "deleting jobs");
        return rc;
    }
    for (size_t i = 0; i < p->n_deletes; i++) {
        int rc = ops->delete_job(ctx, p->deletes[i].name, p->deletes[i].foreground, e);
        if (rc < 0) {
            err_prefix(e, "deleting job");
            return rc;
        }
    }
    return 0;
}

static int exec_service(const struct rec_plan *p, const struct rec_ops *ops, void *ctx,
                        struct err *e)
{
    if (!p->service)
        return 0;
    int rc = ops->create_service(ctx, p->service, e);
    if (rc < 0) {
        ops->record_event(ctx, REC_EVENT_WARNING, EV_SERVICE_CREATION_FAILED, e->msg);
        err_prefix(e, "creating headless service");
    }
    return rc;
}

static int exec_pvcs(const struct rec_plan *p, const struct rec_ops *ops, void *ctx,
                     struct err *e)
{
    for (size_t i = 0; i < json_array_size(p->pvcs); i++) {
        int rc = ops->create_pvc(ctx, json_array_get(p->pvcs, i), e);
        if (rc < 0) {
            ops->record_event(ctx, REC_EVENT_WARNING, EV_PVC_CREATION_FAILED, e->msg);
            err_prefix(e, "creating persistent volume claim");
            return rc;
        }
    }
    return 0;
}

/* Appends `job "<name>" creation failed with error: <msg>` to the joined text (one per line,
 * as Go's errors.Join).  Returns 0 or -ENOMEM. */
static int join_failure(char **joined, const char *name, const char *msg)
{
    char *next = NULL;
    int n = *joined ? asprintf(&next, "%s\njob \"%s\" creation failed with error: %s", *joined,
                               name, msg)
                    : asprintf(&next, "job \"%s\" creation failed with error: %s", name, msg);
    if (n < 0)
        return -ENOMEM;
    free(*joined);
    *joined = next;
    return 0;
}

/* Attempts every create (upstream creates them concurrently); the first error is returned. */
static int exec_creates(const struct rec_plan *p, const struct rec_ops *ops, void *ctx,
                        struct err *e)
{
    char *joined = NULL;
    int first = 0;
    struct err one = {{0}};
    int *rcs = NULL;
    struct err *errs = NULL;
    if (ops->create_jobs && p->n_creates) {
        rcs = calloc(p->n_creates, sizeof(*rcs));
        errs = calloc(p->n_creates, sizeof(*errs));
        if (!rcs || !errs)
            first = -ENOMEM;
        else
            ops->create_jobs(ctx, p->creates, p->n_creates, rcs, errs);
    }
    for (size_t i = 0; i < p->n_creates && first != -ENOMEM; i++) {
        int rc = rcs ? rcs[i] : ops->create_job(ctx, p->creates[i], &one);
        if (rc >= 0)
            continue;
        if (errs)
            one = errs[i];
        if (!first) {
            first = rc;
            *e = one;
        }
        if (join_failure(&joined, obj_name(p->creates[i]), one.msg) < 0)
            first = -ENOMEM;
    }
    free(rcs);
    free(errs);
    if (first) {
        if (joined)
            ops->record_event(ctx, REC_EVENT_WARNING, EV_JOB_CREATION_FAILED, joined);
        if (first == -ENOMEM && !joined)
            err_set(e, first, ERR_OOM_MSG);
        err_prefix(e, "creating jobs");
    }
    free(joined);
    return first;
}

static int exec_patches(const struct rec_plan *p, const struct rec_ops *ops, void *ctx,
                        struct err *e)
{
    for (size_t i = 0; i < p->n_patches; i++) {
        int rc = ops->update_job(ctx, &p->patches[i], e);
        if (rc < 0) {
            err_prefix(e, "updating job");
            return rc;
        }
    }
    return 0;
}

int rec_plan_execute(const struct rec_plan *p, const struct rec_ops *ops, void *ctx,
                     struct rec_exec_result *res, struct err *e)
{
    struct err local = {{0}};
    struct rec_exec_result r = {0};
    int rc = 0;
    e = e ? e : &local;
    if (p->skipped)
        goto out;
    if ((rc = exec_deletes(p, ops, ctx, e)) < 0 || (rc = exec_service(p, ops, ctx, e)) < 0 ||
        (rc = exec_pvcs(p, ops, ctx, e)) < 0 || (rc = exec_creates(p, ops, ctx, e)) < 0 ||
        (rc = exec_patches(p, ops, ctx, e)) < 0)
        goto out;
    r.changed = p->n_deletes || p->n_creates || p->n_patches;
    if (p->status_changed) {
        if ((rc = ops->write_status(ctx, p->status, e)) < 0) {
            err_prefix(e, "writing status");
            goto out;
        }
        r.status_written = r.changed = true;
    }
    for (size_t i = 0; i < p->n_events; i++)
        ops->record_event(ctx, p->events[i].type, p->events[i].reason, p->events[i].message);
    if (p->delete_jobset && (rc = ops->delete_jobset(ctx, e)) < 0)
        err_prefix(e, "deleting jobset");
out:
    if (res && rc == 0)
        *res = r;
    return rc;
}
