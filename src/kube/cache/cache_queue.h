/* cache_queue: the controller's work queue of "namespace/name" keys (client-go util/workqueue's
 * rate-limiting queue, on one thread).
 *
 * A key is queued at most once; a key added while it is being reconciled (it was popped) is
 * queued again, so a change seen meanwhile is never lost.  cache_queue_retry() requeues with
 * per-item exponential backoff (5 ms doubling to 1000 s, workqueue.DefaultItemBasedRateLimiter);
 * cache_queue_forget() resets it after a success.  cache_queue_add_after() is a timed requeue
 * (RequeueAfter). */
#ifndef JX_KUBE_CACHE_CACHE_QUEUE_H
#define JX_KUBE_CACHE_CACHE_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cache_queue;

struct cache_queue *cache_queue_new(void);
void cache_queue_free(struct cache_queue *q);

int cache_queue_add(struct cache_queue *q, const char *key);                                   /* due now */
int cache_queue_add_after(struct cache_queue *q, const char *key, int64_t now_ms, int64_t delay_ms);
int cache_queue_retry(struct cache_queue *q, const char *key, int64_t now_ms);                 /* with backoff */
void cache_queue_forget(struct cache_queue *q, const char *key);
unsigned cache_queue_failures(const struct cache_queue *q, const char *key);

/* Moves a due key into `key` (NUL-terminated, at most n bytes); false when none is due. */
bool cache_queue_pop(struct cache_queue *q, int64_t now_ms, char *key, size_t n);
/* Milliseconds until a delayed key is due (0 when one is ready; INT64_MAX when none). */
int64_t cache_queue_next_ms(const struct cache_queue *q, int64_t now_ms);
size_t cache_queue_len(const struct cache_queue *q); /* ready keys (the workqueue_depth metric) */
size_t cache_queue_adds(const struct cache_queue *q);
size_t cache_queue_retries(const struct cache_queue *q);

#endif
