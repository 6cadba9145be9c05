/* cache_queue: a FIFO of ready keys with a membership set, and a min-heap of delayed keys. */
#include "kube/cache/cache_queue.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#define CACHE_QUEUE_BASE_MS 5
#define CACHE_QUEUE_MAX_MS (1000LL * 1000)

struct cache_queue_delayed {
    int64_t due;
    char *key;
};

struct cache_queue {
    char **ready; /* ring buffer */
    size_t head, len, cap;
    json_t *queued;   /* keys in `ready` */
    json_t *failures; /* key -> integer */
    struct cache_queue_delayed *heap;
    size_t n_heap, cap_heap;
    size_t adds, retries;
};

struct cache_queue *cache_queue_new(void)
{
    struct cache_queue *q = calloc(1, sizeof(*q));
    if (!q)
        return NULL;
    q->queued = json_object();
    q->failures = json_object();
    if (!q->queued || !q->failures) {
        cache_queue_free(q);
        return NULL;
    }
    return q;
}

void cache_queue_free(struct cache_queue *q)
{
    if (!q)
        return;
    for (size_t i = 0; i < q->len; i++)
        free(q->ready[(q->head + i) % q->cap]);
    for (size_t i = 0; i < q->n_heap; i++)
        free(q->heap[i].key);
    free(q->ready);
    free(q->heap);
    json_decref(q->queued);
    json_decref(q->failures);
    free(q);
}

static int grow_ring(struct cache_queue *q)
{
    size_t cap = q->cap ? q->cap * 2 : 64;
    char **r = malloc(cap * sizeof(*r));
    if (!r)
        return -ENOMEM;
    for (size_t i = 0; i < q->len; i++)
        r[i] = q->ready[(q->head + i) % q->cap];
    free(q->ready);
    q->ready = r;
    q->cap = cap;
    q->head = 0;
    return 0;
}

int cache_queue_add(struct cache_queue *q, const char *key)
{
    if (json_object_get(q->queued, key))
        return 0;
    if (q->len == q->cap && grow_ring(q) < 0)
        return -ENOMEM;
    char *k = strdup(key);
    if (!k || json_object_set_new(q->queued, key, json_true()) < 0) {
        free(k);
        return -ENOMEM;
    }
    q->ready[(q->head + q->len++) % q->cap] = k;
    q->adds++;
    return 0;
}

static void heap_swap(struct cache_queue *q, size_t a, size_t b)
{
    struct cache_queue_delayed t = q->heap[a];
    q->heap[a] = q->heap[b];
    q->heap[b] = t;
}

static void sift_up(struct cache_queue *q, size_t i)
{
    while (i > 0 && q->heap[(i - 1) / 2].due > q->heap[i].due) {
        heap_swap(q, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void sift_down(struct cache_queue *q, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < q->n_heap && q->heap[l].due < q->heap[m].due)
            m = l;
        if (r < q->n_heap && q->heap[r].due < q->heap[m].due)
            m = r;
        if (m == i)
            return;
        heap_swap(q, i, m);
        i = m;
    }
}

int cache_queue_add_after(struct cache_queue *q, const char *key, int64_t now_ms, int64_t delay_ms)
{
    if (delay_ms <= 0)
        return cache_queue_add(q, key);
    if (q->n_heap == q->cap_heap) {
        size_t cap = q->cap_heap ? q->cap_heap * 2 : 64;
        struct cache_queue_delayed *h = realloc(q->heap, cap * sizeof(*h));
        if (!h)
            return -ENOMEM;
        q->heap = h;
        q->cap_heap = cap;
    }
    char *k = strdup(key);
    if (!k)
        return -ENOMEM;
    q->heap[q->n_heap] = (struct cache_queue_delayed){now_ms + delay_ms, k};
    sift_up(q, q->n_heap++);
    return 0;
}

unsigned cache_queue_failures(const struct cache_queue *q, const char *key)
{
    return (unsigned)json_integer_value(json_object_get(q->failures, key));
}

int cache_queue_retry(struct cache_queue *q, const char *key, int64_t now_ms)
{
    unsigned n = cache_queue_failures(q, key);
    int64_t d = CACHE_QUEUE_BASE_MS;
    for (unsigned i = 0; i < n && d < CACHE_QUEUE_MAX_MS; i++)
        d *= 2;
    if (d > CACHE_QUEUE_MAX_MS)
        d = CACHE_QUEUE_MAX_MS;
    if (json_object_set_new(q->failures, key, json_integer(n + 1)) < 0)
        return -ENOMEM;
    q->retries++;
    return cache_queue_add_after(q, key, now_ms, d);
}

void cache_queue_forget(struct cache_queue *q, const char *key)
{
    json_object_del(q->failures, key);
}

/* Delayed keys that are due join the ready FIFO. */
static void promote(struct cache_queue *q, int64_t now)
{
    while (q->n_heap && q->heap[0].due <= now) {
        char *k = q->heap[0].key;
        q->heap[0] = q->heap[--q->n_heap];
        sift_down(q, 0);
        cache_queue_add(q, k);
        free(k);
    }
}

bool cache_queue_pop(struct cache_queue *q, int64_t now_ms, char *key, size_t n)
{
    promote(q, now_ms);
    if (!q->len)
        return false;
    char *k = q->ready[q->head];
    q->head = (q->head + 1) % q->cap;
    q->len--;
    json_object_del(q->queued, k);
    snprintf(key, n, "%s", k);
    free(k);
    return true;
}

int64_t cache_queue_next_ms(const struct cache_queue *q, int64_t now_ms)
{
    if (q->len)
        return 0;
    if (!q->n_heap)
        return INT64_MAX;
    return q->heap[0].due > now_ms ? q->heap[0].due - now_ms : 0;
}

size_t cache_queue_len(const struct cache_queue *q) { return q->len; }
size_t cache_queue_adds(const struct cache_queue *q) { return q->adds; }
size_t cache_queue_retries(const struct cache_queue *q) { return q->retries; }
