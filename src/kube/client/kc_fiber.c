/* Fibers over makecontext/swapcontext (see kc_fiber.h). */
#include "kube/client/kc_fiber.h"

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define KC_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KC_FIBER_ASAN 1
#endif
#endif
#ifdef KC_FIBER_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

#define KC_FIBER_DEFAULT_STACK (1024 * 1024)

struct kc_fiber {
    ucontext_t ctx, caller;
    kc_fiber_fn fn;
    void *arg;
    void *map;       /* guard page + stack */
    size_t map_size;
    bool started, done;
    const bool *until; /* kc_fiber_yield_until: the flag it waits for */
#ifdef KC_FIBER_ASAN
    const void *caller_bottom; /* the resumer's stack, for the switch back */
    size_t caller_size;
#endif
};

static struct kc_fiber *current;

/* ---- AddressSanitizer's view of the switches ------------------------------------------- */

#ifdef KC_FIBER_ASAN
static void *stack_lo(const struct kc_fiber *f, size_t *size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    *size = f->map_size - page;
    return (char *)f->map + page;
}

/* Into the fiber (from its resumer). */
static void switch_in(struct kc_fiber *f, void **fake)
{
    size_t size;
    void *lo = stack_lo(f, &size);
    __sanitizer_start_switch_fiber(fake, lo, size);
}

static void switched_in(struct kc_fiber *f, void *fake)
{
    __sanitizer_finish_switch_fiber(fake, &f->caller_bottom, &f->caller_size);
}

/* Out of the fiber (back to its resumer); `leaving`: it returned and its stack is done. */
static void switch_out(struct kc_fiber *f, void **fake, bool leaving)
{
    __sanitizer_start_switch_fiber(leaving ? NULL : fake, f->caller_bottom, f->caller_size);
}

static void switched_out(void *fake)
{
    __sanitizer_finish_switch_fiber(fake, NULL, NULL);
}
#else
static void switch_in(struct kc_fiber *f, void **fake) { (void)f; (void)fake; }
static void switched_in(struct kc_fiber *f, void *fake) { (void)f; (void)fake; }
static void switch_out(struct kc_fiber *f, void **fake, bool leaving)
{
    (void)f;
    (void)fake;
    (void)leaving;
}
static void switched_out(void *fake) { (void)fake; }
#endif

/* ---- fibers ----------------------------------------------------------------------------- */

/* makecontext passes int arguments: the fiber's address in two halves. */
static void trampoline(unsigned hi, unsigned lo)
{
    struct kc_fiber *f = (struct kc_fiber *)(((uintptr_t)hi << 32) | (uintptr_t)lo);
    switched_in(f, NULL);
    f->fn(f->arg);
    f->done = true;
    switch_out(f, NULL, true);
    /* uc_link is NULL: swap back by hand so that the switch is announced */
    current = NULL;
    setcontext(&f->caller);
}

/* getcontext returns twice when the context is set again; this one never is (makecontext
 * replaces it), and keeping the call apart keeps kc_fiber_new's locals out of that question. */
static __attribute__((noinline)) int context_init(ucontext_t *u)
{
    return getcontext(u);
}

struct kc_fiber *kc_fiber_new(kc_fiber_fn fn, void *arg, size_t stack)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t size = ((stack ? stack : KC_FIBER_DEFAULT_STACK) + page - 1) / page * page + page;
    struct kc_fiber *f = calloc(1, sizeof(*f));
    if (!f)
        return NULL;
    f->map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
                  -1, 0);
    if (f->map == MAP_FAILED || mprotect(f->map, page, PROT_NONE) < 0 ||
        context_init(&f->ctx) < 0) {
        if (f->map != MAP_FAILED)
            munmap(f->map, size);
        free(f);
        return NULL;
    }
    f->map_size = size;
    f->fn = fn;
    f->arg = arg;
    f->ctx.uc_stack.ss_sp = (char *)f->map + page;
    f->ctx.uc_stack.ss_size = size - page;
    f->ctx.uc_link = NULL;
    uintptr_t p = (uintptr_t)f;
    makecontext(&f->ctx, (void (*)(void))trampoline, 2, (unsigned)(p >> 32),
                (unsigned)(p & 0xffffffffu));
    return f;
}

void kc_fiber_free(struct kc_fiber *f)
{
    if (!f)
        return;
    munmap(f->map, f->map_size);
    free(f);
}

bool kc_fiber_resume(struct kc_fiber *f)
{
    if (f->done || current)
        return f->done;
    void *fake = NULL;
    if (!f->started) /* the fiber starts with the signal mask of its first resumer */
        sigprocmask(SIG_SETMASK, NULL, &f->ctx.uc_sigmask);
    f->started = true;
    current = f;
    switch_in(f, &fake);
    swapcontext(&f->caller, &f->ctx);
    switched_out(fake);
    current = NULL;
    return f->done;
}

void kc_fiber_yield(void)
{
    struct kc_fiber *f = current;
    if (!f)
        return;
    void *fake = NULL;
    switch_out(f, &fake, false);
    current = NULL;
    swapcontext(&f->ctx, &f->caller);
    switched_in(f, fake);
    current = f;
}

void kc_fiber_yield_until(const bool *done)
{
    struct kc_fiber *f = current;
    if (!f)
        return;
    f->until = done;
    kc_fiber_yield();
    f->until = NULL;
}

bool kc_fiber_waiting(const struct kc_fiber *f)
{
    return f->until && !*f->until;
}

struct kc_fiber *kc_fiber_self(void)
{
    return current;
}
