/* cache_inf (informers): list, watch, relist, resync (cache_inf.h). */
#include "kube/cache/cache_inf.h"

#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj/tree/jx.h"
#include "obj/base/ktime.h"
#include "obj/base/sbuf.h"

#define CACHE_INF_PAGE 500
#define CACHE_INF_BACKOFF_MIN_MS 800
#define CACHE_INF_BACKOFF_MAX_MS 30000

struct cache_inf {
    struct kc *c;
    struct cache_inf_opts o;
    char *path, *selector;
    struct cache_store *store;
    char *rv;                 /* resourceVersion to watch from */
    struct kc_watch *w;
    bool synced, need_list;
    int64_t retry_at_ms, backoff_ms, resync_at_ms;
};

static void note(struct cache_inf *i, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct cache_inf *i, const char *fmt, ...)
{
    if (!i->o.log)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    i->o.log(i->o.arg, msg);
}

struct cache_inf *cache_inf_new(struct kc *c, const struct cache_inf_opts *o)
{
    struct cache_inf *i = calloc(1, sizeof(*i));
    if (!i)
        return NULL;
    i->c = c;
    i->o = *o;
    i->path = strdup(o->path);
    i->selector = o->selector ? kc_escape(o->selector) : NULL;
    i->store = cache_store_new();
    i->need_list = true;
    if (!i->path || (o->selector && !i->selector) || !i->store) {
        cache_inf_free(i);
        return NULL;
    }
    return i;
}

void cache_inf_free(struct cache_inf *i)
{
    if (!i)
        return;
    kc_watch_cancel(i->w);
    cache_store_free(i->store);
    free(i->path);
    free(i->selector);
    free(i->rv);
    free(i);
}

bool cache_inf_synced(const struct cache_inf *i) { return i->synced; }
const struct cache_store *cache_inf_store(const struct cache_inf *i) { return i->store; }

static void set_rv(struct cache_inf *i, const char *rv)
{
    if (!rv || !*rv)
        return;
    char *d = strdup(rv);
    if (!d)
        return;
    free(i->rv);
    i->rv = d;
}

/* Stores one object (slimmed) and reports the change; a malformed one is skipped. */
static void apply(struct cache_inf *i, const char *type, const json_t *obj)
{
    char key[512];
    if (!cache_store_key(obj, key, sizeof(key))) {
        note(i, "%s: skipping an object without a usable metadata.name/namespace (%s)", i->o.name,
             jx_str(jx_obj(obj, "metadata"), "uid") ? jx_str(jx_obj(obj, "metadata"), "uid")
                                                    : "no uid");
        return;
    }
    json_t *slim = i->o.slim ? i->o.slim(obj) : json_incref((json_t *)obj);
    if (!slim)
        return;
    const json_t *m = jx_obj(obj, "metadata");
    int rc = 1;
    if (strcmp(type, "DELETED") == 0)
        cache_store_del(i->store, jx_str(m, "namespace"), jx_str(m, "name"));
    else
        rc = cache_store_put(i->store, slim);
    if (rc > 0 && i->o.changed)
        i->o.changed(i->o.arg, type, slim);
    json_decref(slim);
}

/* resourceVersions are opaque to clients, but kube-apiserver's (etcd revisions) and the test
 * server's are decimal counters: compared only when both are. */
static bool rv_newer(const char *a, const char *b)
{
    if (!a || !b || strspn(a, "0123456789") != strlen(a) || strspn(b, "0123456789") != strlen(b))
        return true;
    return strlen(a) > strlen(b) || (strlen(a) == strlen(b) && strcmp(a, b) > 0);
}

void cache_inf_observe(struct cache_inf *i, const json_t *obj)
{
    const json_t *m = jx_obj(obj, "metadata");
    const char *rv = jx_str(m, "resourceVersion");
    /* the watch is already past this write: it delivered it, or something newer (a deletion
     * included), so the cache must not be set back */
    if (!rv || !rv_newer(rv, i->rv))
        return;
    json_t *have = cache_store_get(i->store, jx_str(m, "namespace"), jx_str(m, "name"));
    bool newer = rv_newer(rv, jx_str(jx_obj(have, "metadata"), "resourceVersion"));
    json_decref(have);
    if (!newer)
        return;
    json_t *slim = i->o.slim ? i->o.slim(obj) : json_incref((json_t *)obj);
    if (slim)
        cache_store_put(i->store, slim);
    json_decref(slim);
}

struct seen {
    json_t *keys;
    struct cache_inf *i;
};

/* The deletion delivered is the object as last cached, as client-go's reflector delivers a
 * DeletedFinalStateUnknown holding the last known state (tools/cache/delta_fifo.go, Replace):
 * its owner references are what lets the owner be requeued. */
static void drop_unseen(void *arg, const char *ns, const char *name)
{
    struct seen *s = arg;
    char key[512];
    snprintf(key, sizeof(key), "%s/%s", ns, name);
    if (json_object_get(s->keys, key))
        return;
    json_t *last = cache_store_get(s->i->store, ns, name);
    if (!last)
        last = json_pack("{s:{s:s,s:s}}", "metadata", "namespace", ns, "name", name);
    json_array_append_new(json_object_get(s->keys, ""), last);
}

/* After a relist: objects of the cache the list did not return were deleted meanwhile. */
static void reconcile_deleted(struct cache_inf *i, json_t *keys)
{
    json_t *gone = json_array();
    json_object_set_new(keys, "", gone);
    struct seen s = {keys, i};
    cache_store_each(i->store, drop_unseen, &s);
    size_t k;
    json_t *o;
    json_array_foreach (gone, k, o)
        apply(i, "DELETED", o);
}

static int list_page(struct cache_inf *i, const char *cont, json_t *keys, char **next,
                     struct err *e)
{
    struct sbuf p = SBUF_INIT;
    sb_printf(&p, "%s?limit=%d", i->path, CACHE_INF_PAGE);
    if (i->selector)
        sb_printf(&p, "&labelSelector=%s", i->selector);
    if (cont)
        sb_printf(&p, "&continue=%s", cont);
    json_t *body = NULL;
    int rc = sb_failed(&p) ? -ENOMEM : kc_call(i->c, "GET", sb_str(&p), NULL, NULL, &body, e);
    sb_free(&p);
    if (rc < 0)
        return rc;
    size_t k;
    json_t *item;
    json_array_foreach (jx_arr(body, "items"), k, item) {
        char key[512];
        if (cache_store_key(item, key, sizeof(key)))
            json_object_set_new(keys, key, json_true());
        apply(i, "ADDED", item);
    }
    const json_t *meta = jx_obj(body, "metadata");
    const char *c = jx_str(meta, "continue");
    *next = c && *c ? kc_escape(c) : NULL;
    if (!*next)
        set_rv(i, jx_str(meta, "resourceVersion"));
    json_decref(body);
    return 0;
}

static int list(struct cache_inf *i, struct err *e)
{
    json_t *keys = json_object();
    char *cont = NULL;
    int rc = 0;
    do {
        char *next = NULL;
        rc = list_page(i, cont, keys, &next, e);
        free(cont);
        cont = next;
        if (rc == 0 && cont && i->o.between_pages && !i->o.between_pages(i->o.arg))
            rc = err_set(e, -ECANCELED, "%s: list ended: stopping", i->o.name);
    } while (rc == 0 && cont);
    free(cont);
    if (rc == 0) {
        reconcile_deleted(i, keys);
        i->synced = true;
        i->need_list = false;
    }
    json_decref(keys);
    /* the pages' trees are gone; what they left between the cache's small strings goes back
     * to the system (glibc), else a large list leaves the heap at its peak */
    malloc_trim(0);
    return rc;
}

static void on_event(void *arg, json_t *ev)
{
    struct cache_inf *i = arg;
    const char *type = jx_str(ev, "type");
    const json_t *obj = jx_obj(ev, "object");
    if (type && strcmp(type, "UNDECODABLE") == 0) {
        note(i, "%s: watch: skipping an event that cannot be read: %s", i->o.name,
             jx_str(ev, "error") ? jx_str(ev, "error") : "?");
        return;
    }
    if (!type || !obj)
        return;
    if (strcmp(type, "ERROR") == 0) {
        long long code = jx_int_or(obj, "code", 0);
        note(i, "%s: watch error: %s", i->o.name,
             jx_str(obj, "message") ? jx_str(obj, "message") : "?");
        if (code == 410)
            i->need_list = true;
        kc_watch_cancel(i->w);
        i->w = NULL;
        return;
    }
    set_rv(i, jx_str(jx_obj(obj, "metadata"), "resourceVersion"));
    if (strcmp(type, "BOOKMARK") != 0)
        apply(i, type, obj);
    i->backoff_ms = 0;
}

static void on_end(void *arg, int rc, long code, const char *msg)
{
    struct cache_inf *i = arg;
    i->w = NULL;
    if (code == 410 || rc == -JX_EGONE)
        i->need_list = true;
    if (rc == 0) {
        i->retry_at_ms = 0; /* the server closed it (timeoutSeconds): reopen at once */
        return;
    }
    note(i, "%s: watch ended: %s", i->o.name, msg && *msg ? msg : "connection lost");
    i->backoff_ms = i->backoff_ms ? i->backoff_ms * 2 : CACHE_INF_BACKOFF_MIN_MS;
    if (i->backoff_ms > CACHE_INF_BACKOFF_MAX_MS)
        i->backoff_ms = CACHE_INF_BACKOFF_MAX_MS;
    i->retry_at_ms = kt_mono_ms() + i->backoff_ms;
}

static int start_watch(struct cache_inf *i)
{
    struct sbuf p = SBUF_INIT;
    sb_printf(&p, "%s?watch=1&allowWatchBookmarks=true&timeoutSeconds=%d", i->path,
              300 + rand() % 300);
    if (i->rv)
        sb_printf(&p, "&resourceVersion=%s", i->rv);
    if (i->selector)
        sb_printf(&p, "&labelSelector=%s", i->selector);
    i->w = sb_failed(&p) ? NULL : kc_watch(i->c, sb_str(&p), on_event, on_end, i);
    sb_free(&p);
    if (!i->w)
        return -ENOMEM;
    return 0;
}

int cache_inf_start(struct cache_inf *i, struct err *e)
{
    int rc = list(i, e);
    if (rc < 0) {
        i->retry_at_ms = kt_mono_ms() + CACHE_INF_BACKOFF_MIN_MS;
        i->backoff_ms = CACHE_INF_BACKOFF_MIN_MS;
        return rc;
    }
    if (i->o.resync_ms > 0)
        i->resync_at_ms = kt_mono_ms() + i->o.resync_ms;
    return start_watch(i);
}

static void resync_one(void *arg, const char *ns, const char *name)
{
    struct cache_inf *i = arg;
    json_t *o = cache_store_get(i->store, ns, name);
    if (o && i->o.changed)
        i->o.changed(i->o.arg, "RESYNC", o);
    json_decref(o);
}

int64_t cache_inf_tick(struct cache_inf *i, int64_t now)
{
    if (!i->w && now >= i->retry_at_ms) {
        struct err e;
        if (i->need_list) {
            if (list(i, &e) < 0) {
                note(i, "%s: list failed: %s", i->o.name, e.msg);
                on_end(i, -EIO, 0, NULL);
            }
        }
        if (!i->need_list && start_watch(i) < 0)
            i->retry_at_ms = now + CACHE_INF_BACKOFF_MIN_MS;
    }
    if (i->o.resync_ms > 0 && i->synced && now >= i->resync_at_ms) {
        cache_store_each(i->store, resync_one, i);
        i->resync_at_ms = now + i->o.resync_ms;
    }
    int64_t next = i->w ? INT64_MAX : i->retry_at_ms - now;
    if (i->o.resync_ms > 0 && i->resync_at_ms - now < next)
        next = i->resync_at_ms - now;
    return next < 0 ? 0 : next;
}
