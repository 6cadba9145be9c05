/* The reconcile workers: ctl_opts.workers fibers (kube/client/kc_fiber.h) on the controller's one
 * thread, as controller-runtime runs MaxConcurrentReconciles goroutines over one workqueue.  A
 * worker takes a due key, reconciles it, and yields whenever it waits for the API server, so
 * that while one JobSet's writes are in flight the next JobSet's pass runs.  A key is never in
 * two passes at once: a key popped while another worker holds it is marked dirty and queued
 * again when that pass ends (client-go workqueue's dirty/processing sets). */
#include <stdio.h>
#include <stdlib.h>

#include "kube/ctl/ctl_int.h"
#include "kube/client/kc_fiber.h"
#include "kube/client/kc_log.h"
#include "obj/base/ktime.h"

struct ctl_worker {
    struct ctl *c;
    struct kc_fiber *f;
    bool idle; /* waiting for a key, not in a pass */
};

/* A due key no other pass holds; false when none is due. */
static bool next_key(struct ctl *c, char *key, size_t n)
{
    while (cache_queue_pop(c->q, kt_mono_ms(), key, n)) {
        if (json_object_get(c->status_inflight, key))
            continue; /* queued again when its status write is in */
        if (json_object_get(c->busy, key)) {
            json_object_set_new(c->dirty, key, json_true());
            continue;
        }
        return true;
    }
    return false;
}

static void pass(struct ctl *c, const char *key)
{
    json_object_set_new(c->busy, key, json_true());
    c->reconciles++;
    bool requeued = false;
    int64_t t0 = kt_mono_ms();
    int rc = ctl__reconcile(c, key, &requeued);
    ctl__obs_reconciled(c, rc, requeued, (double)(kt_mono_ms() - t0) / 1000.0);
    kc_log(KC_LOG_DEBUG, "jobset", key, "reconciled in %lld ms (%d)", (long long)(kt_mono_ms() - t0),
         rc);
    if (rc < 0) {
        c->reconcile_errors++;
        cache_queue_retry(c->q, key, kt_mono_ms());
        ctl__obs_queued(c, true);
    } else {
        cache_queue_forget(c->q, key);
    }
    json_object_del(c->busy, key);
    if (json_object_get(c->dirty, key)) {
        json_object_del(c->dirty, key);
        cache_queue_add(c->q, key);
    }
}

static void worker(void *arg)
{
    struct ctl_worker *w = arg;
    struct ctl *c = w->c;
    char key[512];
    while (!c->stop) {
        w->idle = true;
        if (!c->taking || !next_key(c, key, sizeof(key))) {
            kc_fiber_yield();
            continue;
        }
        w->idle = false;
        pass(c, key);
        kc_fiber_yield(); /* one pass a round: the loop looks at the network in between */
    }
}

int ctl__workers_start(struct ctl *c)
{
    size_t n = c->o->workers > 0 ? (size_t)c->o->workers : 1;
    c->workers = calloc(n, sizeof(*c->workers));
    c->busy = json_object();
    c->dirty = json_object();
    if (!c->workers || !c->busy || !c->dirty)
        return -1;
    for (size_t i = 0; i < n; i++) {
        c->workers[i] = (struct ctl_worker){c, kc_fiber_new(worker, &c->workers[i], 0), true};
        if (!c->workers[i].f)
            return -1;
        c->n_workers = i + 1;
    }
    return 0;
}

void ctl__workers_run(struct ctl *c, bool taking)
{
    c->taking = taking;
    for (size_t i = 0; i < c->n_workers; i++) {
        struct ctl_worker *w = &c->workers[i];
        /* an idle worker only when there is work; a busy one once its wait is over */
        if (w->idle ? !(taking && cache_queue_next_ms(c->q, kt_mono_ms()) == 0)
                    : kc_fiber_waiting(w->f))
            continue;
        kc_fiber_resume(w->f);
    }
}

/* After the loop (c->stop set): the passes under way finish, then every worker returns. */
void ctl__workers_stop(struct ctl *c)
{
    c->taking = false;
    for (bool left = true; left;) {
        left = false;
        for (size_t i = 0; i < c->n_workers; i++)
            left = !kc_fiber_resume(c->workers[i].f) || left;
        if (left)
            kc_run(c->kc, 100, NULL, 0, NULL);
    }
}

void ctl__workers_free(struct ctl *c)
{
    for (size_t i = 0; i < c->n_workers; i++)
        kc_fiber_free(c->workers[i].f);
    free(c->workers);
    json_decref(c->busy);
    json_decref(c->dirty);
}
