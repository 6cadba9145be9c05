/* plan: the plan builders every step of a pass shares (reconcile_int.h, "plan.c"): events,
 * deletes, creates and patches queued on c->plan, conditions set with their events, and the
 * lookup of the child Jobs observed.  Steps call down into this file; it calls none of them. */
#include "core/reconcile_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- plan builders ------------------------------------------------------------------------- */

/* Makes room for element n of an array that grows 8, 16, 32, ... */
static int plan_grow(void **arr, size_t n, size_t elem)
{
    size_t cap;
    if (n == 0)
        cap = 8;
    else if (n >= 8 && (n & (n - 1)) == 0)
        cap = n * 2;
    else
        return 0;
    void *p = realloc(*arr, cap * elem);
    if (!p)
        return -ENOMEM;
    *arr = p;
    return 0;
}

int rec__event(struct rec_ctx *c, enum rec_event_type t, const char *reason, const char *msg)
{
    struct rec_plan *p = c->plan;
    if (plan_grow((void **)&p->events, p->n_events, sizeof(*p->events)))
        return -ENOMEM;
    struct rec_event ev = {t, strdup(reason), strdup(msg)};
    if (!ev.reason || !ev.message) {
        free(ev.reason);
        free(ev.message);
        return -ENOMEM;
    }
    p->events[p->n_events++] = ev;
    return 0;
}

int rec__delete(struct rec_ctx *c, const char *name)
{
    struct rec_plan *p = c->plan;
    if (plan_grow((void **)&p->deletes, p->n_deletes, sizeof(*p->deletes)))
        return -ENOMEM;
    struct rec_delete d = {strdup(name), true};
    if (!d.name)
        return -ENOMEM;
    p->deletes[p->n_deletes++] = d;
    return 0;
}

int rec__create(struct rec_ctx *c, json_t *job)
{
    struct rec_plan *p = c->plan;
    if (!job || plan_grow((void **)&p->creates, p->n_creates, sizeof(*p->creates))) {
        json_decref(job);
        return -ENOMEM;
    }
    p->creates[p->n_creates++] = job;
    return 0;
}

int rec__patch(struct rec_ctx *c, const char *name, bool suspend, bool clear_start, json_t *job)
{
    struct rec_plan *p = c->plan;
    struct rec_patch pa = {strdup(name), suspend, clear_start, job, false};
    if (!pa.name || !job || plan_grow((void **)&p->patches, p->n_patches, sizeof(*p->patches))) {
        free(pa.name);
        json_decref(job);
        return -ENOMEM;
    }
    p->patches[p->n_patches++] = pa;
    return 0;
}

int rec__patch_scale(struct rec_ctx *c, const char *name, bool suspend, json_t *job)
{
    int rc = rec__patch(c, name, suspend, false, job);
    if (rc == 0)
        c->plan->patches[c->plan->n_patches - 1].scale = true;
    return rc;
}

void rec_plan_release(struct rec_plan *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n_creates; i++)
        json_decref(p->creates[i]);
    for (size_t i = 0; i < p->n_deletes; i++)
        free(p->deletes[i].name);
    for (size_t i = 0; i < p->n_patches; i++) {
        free(p->patches[i].name);
        json_decref(p->patches[i].job);
    }
    for (size_t i = 0; i < p->n_events; i++) {
        free(p->events[i].reason);
        free(p->events[i].message);
    }
    free(p->creates);
    free(p->deletes);
    free(p->patches);
    free(p->events);
    json_decref(p->status);
    json_decref(p->service);
    json_decref(p->pvcs);
    memset(p, 0, sizeof(*p));
    p->requeue_after_ms = -1;
}

/* ---- conditions with events ---------------------------------------------------------------- */

int rec__set_cond(struct rec_ctx *c, const struct rec_cond *cond)
{
    int rc = rec_cond_set(c->conds, cond, c->now);
    if (rc <= 0)
        return rc;
    return rec__event(c, cond->event, cond->reason, cond->message);
}

int rec__fail(struct rec_ctx *c, const char *reason, const char *msg)
{
    const struct rec_cond failed = {REC_COND_FAILED, true, reason, msg, REC_EVENT_WARNING};
    int rc = rec__set_cond(c, &failed);
    if (!rc)
        rc = rec__set_cond(c, &rec_cond_restarting_failed);
    c->terminal = "Failed";
    return rc;
}

int rec__complete(struct rec_ctx *c)
{
    int rc = rec__set_cond(c, &rec_cond_completed);
    if (!rc)
        rc = rec__set_cond(c, &rec_cond_restarting_completed);
    c->terminal = "Completed";
    return rc;
}

/* ---- the child Jobs observed --------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void rec__names_sort(struct rec_ctx *c)
{
    qsort(c->names, c->n_jobs, sizeof(*c->names), cmp_str);
}

bool rec__job_exists(const struct rec_ctx *c, const char *name)
{
    return c->n_jobs && bsearch(&name, c->names, c->n_jobs, sizeof(*c->names), cmp_str);
}
