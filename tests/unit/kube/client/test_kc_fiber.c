/* kfiber: resume/yield order, kc_fiber_self, many fibers interleaved, a fiber that never yields, deep
 * stacks, the guard page's size rounding, and yielding until a flag is set. */
#include "testutil.h"

#include <string.h>

#include "kube/client/kc_fiber.h"

struct trace {
    char log[256];
    size_t n;
    struct kc_fiber *self_seen;
};

static void note(struct trace *t, char c)
{
    if (t->n + 1 < sizeof(t->log))
        t->log[t->n++] = c;
}

static struct trace *shared;

static void two_steps(void *arg)
{
    char id = *(const char *)arg;
    note(shared, id);
    shared->self_seen = kc_fiber_self();
    kc_fiber_yield();
    note(shared, (char)(id - 'a' + 'A'));
}

static void resume_yield_order(void **state)
{
    (void)state;
    struct trace t = {0};
    shared = &t;
    char a = 'a', b = 'b';
    struct kc_fiber *fa = kc_fiber_new(two_steps, &a, 0), *fb = kc_fiber_new(two_steps, &b, 64 * 1024);
    assert_non_null(fa);
    assert_non_null(fb);
    assert_null(kc_fiber_self());
    assert_false(kc_fiber_resume(fa));
    assert_ptr_equal(t.self_seen, fa);
    assert_null(kc_fiber_self());
    assert_false(kc_fiber_resume(fb));
    assert_ptr_equal(t.self_seen, fb);
    assert_true(kc_fiber_resume(fb));
    assert_true(kc_fiber_resume(fa));
    assert_true(kc_fiber_resume(fa)); /* a returned fiber stays returned */
    note(&t, 0);
    assert_string_equal(t.log, "abBA");
    kc_fiber_yield(); /* outside a fiber: nothing */
    kc_fiber_free(fa);
    kc_fiber_free(fb);
    kc_fiber_free(NULL);
}

struct counter {
    int *done;
    int steps;
};

static void count_down(void *arg)
{
    struct counter *c = arg;
    for (int i = 0; i < c->steps; i++)
        kc_fiber_yield();
    (*c->done)++;
}

static void many_interleaved(void **state)
{
    (void)state;
    enum { N = 64 };
    struct kc_fiber *f[N];
    struct counter c[N];
    int done = 0;
    for (int i = 0; i < N; i++) {
        c[i] = (struct counter){&done, i};
        f[i] = kc_fiber_new(count_down, &c[i], 0);
        assert_non_null(f[i]);
    }
    int rounds = 0;
    for (bool left = true; left; rounds++) {
        left = false;
        for (int i = 0; i < N; i++)
            left = !kc_fiber_resume(f[i]) || left;
    }
    assert_int_equal(done, N);
    assert_int_equal(rounds, N); /* the longest needed N-1 yields, so N resumes */
    for (int i = 0; i < N; i++)
        kc_fiber_free(f[i]);
}

/* Recursion that touches a few hundred KiB of the fiber's own stack, across yields. */
static unsigned deep(int n)
{
    volatile unsigned char buf[1024];
    memset((unsigned char *)buf, n & 0xff, sizeof(buf));
    if (n % 64 == 0)
        kc_fiber_yield();
    return n ? deep(n - 1) + buf[7] : buf[0];
}

static void deep_fiber(void *arg)
{
    *(unsigned *)arg = deep(300);
}

static void deep_stacks(void **state)
{
    (void)state;
    unsigned r1 = 0, r2 = 0;
    struct kc_fiber *f1 = kc_fiber_new(deep_fiber, &r1, 0), *f2 = kc_fiber_new(deep_fiber, &r2, 0);
    int resumes = 0;
    for (;;) { /* both resumed every round, whether or not the other one is done */
        bool done1 = kc_fiber_resume(f1), done2 = kc_fiber_resume(f2);
        if (done1 && done2)
            break;
        resumes++;
    }
    unsigned want = 0;
    for (int n = 1; n <= 300; n++)
        want += (unsigned)(n & 0xff);
    assert_int_equal(r1, want);
    assert_int_equal(r2, want);
    assert_int_equal(resumes, 5); /* each yielded at n = 256, 192, 128, 64 and 0 */
    kc_fiber_free(f1);
    kc_fiber_free(f2);
}

/* kc_fiber_yield_until: waiting while the flag is false, not once it is set, nor after a
 * plain yield or when it has returned. */
static bool flag;

static void wait_flag(void *arg)
{
    int *steps = arg;
    (*steps)++;
    kc_fiber_yield_until(&flag);
    (*steps)++;
    kc_fiber_yield();
    (*steps)++;
}

static void yield_until(void **state)
{
    (void)state;
    int steps = 0;
    flag = false;
    struct kc_fiber *f = kc_fiber_new(wait_flag, &steps, 0);
    assert_non_null(f);
    assert_false(kc_fiber_waiting(f)); /* not started */
    assert_false(kc_fiber_resume(f));
    assert_int_equal(steps, 1);
    assert_true(kc_fiber_waiting(f));
    flag = true;
    assert_false(kc_fiber_waiting(f));
    assert_false(kc_fiber_resume(f));
    assert_int_equal(steps, 2);
    flag = false;
    assert_false(kc_fiber_waiting(f)); /* a plain yield: the flag is no longer its */
    assert_true(kc_fiber_resume(f));
    assert_int_equal(steps, 3);
    assert_false(kc_fiber_waiting(f));
    kc_fiber_yield_until(&flag); /* outside a fiber: nothing */
    kc_fiber_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(resume_yield_order),
        cmocka_unit_test(many_interleaved),
        cmocka_unit_test(deep_stacks),
        cmocka_unit_test(yield_until),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
