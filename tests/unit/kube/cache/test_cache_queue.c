/* kqueue: dedup, FIFO order, delayed keys, per-item exponential backoff, requeue while
 * processing. */
#include "testutil.h"

#include <string.h>

#include "kube/cache/cache_queue.h"

static void pop_is(struct cache_queue *q, int64_t now, const char *want)
{
    char key[64];
    if (!want) {
        assert_false(cache_queue_pop(q, now, key, sizeof(key)));
        return;
    }
    assert_true(cache_queue_pop(q, now, key, sizeof(key)));
    assert_string_equal(key, want);
}

static void fifo_and_dedup(void **state)
{
    (void)state;
    struct cache_queue *q = cache_queue_new();
    assert_int_equal(cache_queue_add(q, "ns/a"), 0);
    assert_int_equal(cache_queue_add(q, "ns/b"), 0);
    assert_int_equal(cache_queue_add(q, "ns/a"), 0);
    assert_int_equal(cache_queue_len(q), 2);
    assert_int_equal(cache_queue_adds(q), 2);
    pop_is(q, 0, "ns/a");
    cache_queue_add(q, "ns/a"); /* a change seen while ns/a was being reconciled */
    pop_is(q, 0, "ns/b");
    pop_is(q, 0, "ns/a");
    pop_is(q, 0, NULL);
    assert_int_equal(cache_queue_next_ms(q, 0), INT64_MAX);
    cache_queue_free(q);
}

static void delayed_in_due_order(void **state)
{
    (void)state;
    struct cache_queue *q = cache_queue_new();
    cache_queue_add_after(q, "ns/late", 1000, 300);
    cache_queue_add_after(q, "ns/early", 1000, 100);
    cache_queue_add_after(q, "ns/mid", 1000, 200);
    assert_int_equal(cache_queue_next_ms(q, 1000), 100);
    pop_is(q, 1050, NULL);
    pop_is(q, 1250, "ns/early");
    pop_is(q, 1250, "ns/mid");
    pop_is(q, 1250, NULL);
    assert_int_equal(cache_queue_next_ms(q, 1250), 50);
    pop_is(q, 1300, "ns/late");
    cache_queue_add_after(q, "ns/x", 0, 10);
    cache_queue_add(q, "ns/x");
    pop_is(q, 0, "ns/x");
    pop_is(q, 20, "ns/x"); /* the timed requeue still comes */
    cache_queue_free(q);
}

static void backoff_doubles_and_forget_resets(void **state)
{
    (void)state;
    struct cache_queue *q = cache_queue_new();
    int64_t now = 0, want = 5;
    for (int i = 0; i < 5; i++, want *= 2) {
        cache_queue_retry(q, "ns/f", now);
        assert_int_equal(cache_queue_next_ms(q, now), want);
        pop_is(q, now + want - 1, NULL);
        pop_is(q, now + want, "ns/f");
        now += want;
    }
    assert_int_equal(cache_queue_failures(q, "ns/f"), 5);
    assert_int_equal(cache_queue_retries(q), 5);
    cache_queue_forget(q, "ns/f");
    assert_int_equal(cache_queue_failures(q, "ns/f"), 0);
    cache_queue_retry(q, "ns/f", now);
    assert_int_equal(cache_queue_next_ms(q, now), 5);
    pop_is(q, now + 5, "ns/f");
    for (int i = 0; i < 40; i++)
        cache_queue_retry(q, "ns/g", now);
    pop_is(q, now + 5, "ns/g"); /* the earliest of its 40 requeues */
    while (cache_queue_pop(q, now + 1000LL * 1000 - 1, (char[64]){0}, 64))
        ;
    pop_is(q, now + 1000LL * 1000, "ns/g"); /* the 40th: capped at 1000 s */
    cache_queue_free(q);
}

static void many_keys(void **state)
{
    (void)state;
    struct cache_queue *q = cache_queue_new();
    char key[32];
    for (int i = 0; i < 5000; i++) {
        snprintf(key, sizeof(key), "ns/k%d", i);
        cache_queue_add(q, key);
        cache_queue_add_after(q, key, 0, 1 + i % 7);
    }
    assert_int_equal(cache_queue_len(q), 5000);
    int n = 0;
    while (cache_queue_pop(q, 100, key, sizeof(key)))
        n++;
    assert_int_equal(n, 5000); /* a delayed key already queued is not queued twice */
    cache_queue_free(q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fifo_and_dedup),
        cmocka_unit_test(delayed_in_due_order),
        cmocka_unit_test(backoff_doubles_and_forget_resets),
        cmocka_unit_test(many_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
