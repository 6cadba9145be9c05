/* kqueue: the controller's work queue of "namespace/name" keys (client-go util/workqueue's
 * rate-limiting queue, on one thread).
 *
 * A key is queued at most once; a key added while it is being reconciled (it was popped) is
 * queued again, so a change seen meanwhile is never lost.  kq_retry() requeues with per-item
 * exponential backoff (5 ms doubling to 1000 s, workqueue.DefaultItemBasedRateLimiter);
 * kq_forget() resets it after a success.  kq_add_after() is a timed requeue (RequeueAfter). */
#ifndef JX_KQUEUE_H
#define JX_KQUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kq;

struct kq *kq_new(void);
void kq_free(struct kq *q);

int kq_add(struct kq *q, const char *key);                                   /* due now */
int kq_add_after(struct kq *q, const char *key, int64_t now_ms, int64_t delay_ms);
int kq_retry(struct kq *q, const char *key, int64_t now_ms);                 /* with backoff */
void kq_forget(struct kq *q, const char *key);
unsigned kq_failures(const struct kq *q, const char *key);

/* Moves a due key into `key` (NUL-terminated, at most n bytes); false when none is due. */
bool kq_pop(struct kq *q, int64_t now_ms, char *key, size_t n);
/* Milliseconds until a delayed key is due (0 when one is ready; INT64_MAX when none). */
int64_t kq_next_ms(const struct kq *q, int64_t now_ms);
size_t kq_len(const struct kq *q); /* ready keys (the workqueue_depth metric) */
size_t kq_adds(const struct kq *q);
size_t kq_retries(const struct kq *q);

#endif
