/* cache_inf (informers): list-then-watch of one resource into a kstore (client-go tools/cache
 * Reflector and SharedInformer, on kclient's single thread).
 *
 *   - lists in pages (limit 500) and remembers the list's resourceVersion;
 *   - watches from it with bookmarks (allowWatchBookmarks), so that a restart resumes where it
 *     left off; a stream the server ends (timeoutSeconds, 5 to 10 minutes as client-go picks) is
 *     reopened at once, a failed one after a backoff (0.8 s doubling to 30 s, as the reflector);
 *   - 410 Gone/Expired (a compacted resourceVersion) relists, and the difference between the
 *     cache and the new list is delivered as changes (deleted objects included);
 *   - every `resync_ms` every cached object is delivered again (a periodic resync);
 *   - a malformed object (no metadata.name) is logged with what is known of it and skipped.
 * `changed` gets the slim object after the cache was updated ("ADDED", "MODIFIED", "DELETED",
 * "RESYNC"); it must not call back into the informer's client synchronously. */
#ifndef JX_KUBE_CACHE_CACHE_INF_H
#define JX_KUBE_CACHE_CACHE_INF_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "kube/client/kc.h"
#include "kube/cache/cache_store.h"

struct cache_inf_opts {
    const char *name;      /* for logs ("jobsets") */
    const char *path;      /* collection path, all namespaces ("/apis/batch/v1/jobs") */
    const char *selector;  /* labelSelector or NULL */
    /* what is kept of an object (a new reference) or NULL for the whole object */
    json_t *(*slim)(const json_t *obj);
    void (*changed)(void *arg, const char *type, const json_t *obj);
    void (*log)(void *arg, const char *msg); /* one line, or NULL */
    /* called between the pages of a list (NULL: none): a caller whose loop a long list would
     * hold serves what must not wait for it; false ends the list (-ECANCELED, retried) */
    bool (*between_pages)(void *arg);
    void *arg;
    int64_t resync_ms;     /* 0: none */
};

struct cache_inf;

struct cache_inf *cache_inf_new(struct kc *c, const struct cache_inf_opts *o); /* NULL on OOM; o copied */
void cache_inf_free(struct cache_inf *i);

/* Starts (list now, synchronously, then the watch).  A failed list is retried by cache_inf_tick. */
int cache_inf_start(struct cache_inf *i, struct err *e);

/* Reopens a dead watch or relists when due, resyncs; returns ms until it needs a tick again. */
int64_t cache_inf_tick(struct cache_inf *i, int64_t now_ms);

bool cache_inf_synced(const struct cache_inf *i); /* a list succeeded */

/* Stores an object this process just wrote (the server's answer), without a change callback,
 * so the next read sees it before the watch delivers it (a status write's new
 * resourceVersion).  Ignored when the cache already holds a newer one. */
void cache_inf_observe(struct cache_inf *i, const json_t *obj);
const struct cache_store *cache_inf_store(const struct cache_inf *i);

#endif
