/* kc_fiber: cooperative tasks on their own stacks, all on the calling thread (ucontext).
 *
 * The controller runs its reconciles as a few workers, as controller-runtime runs
 * MaxConcurrentReconciles goroutines: a worker that waits for the API server yields to the one
 * loop (kc_wait in kc.h does it), which resumes it later, so one JobSet's round trips no
 * longer hold up the next one's.  Nothing here is preemptive: a fiber runs until it yields or
 * returns, so the code between two yields needs no locks.
 *
 * Under AddressSanitizer every switch is announced (sanitizer/common_interface_defs.h), so
 * that its stack bookkeeping follows the fibers. */
#ifndef JX_KUBE_CLIENT_KC_FIBER_H
#define JX_KUBE_CLIENT_KC_FIBER_H

#include <stdbool.h>
#include <stddef.h>

struct kc_fiber;
typedef void (*kc_fiber_fn)(void *arg);

/* A fiber that will run fn(arg) on a stack of `stack` bytes (0: a default of 1 MiB, mapped
 * lazily, with a guard page below it).  Created suspended; NULL when out of memory. */
struct kc_fiber *kc_fiber_new(kc_fiber_fn fn, void *arg, size_t stack);
/* Frees a fiber that has returned or never started.  NULL is fine. */
void kc_fiber_free(struct kc_fiber *f);

/* From outside any fiber: runs `f` until it yields or returns.  True when it has returned (it
 * is then never resumed again). */
bool kc_fiber_resume(struct kc_fiber *f);
/* From inside a fiber: back to the kc_fiber_resume that ran it. */
void kc_fiber_yield(void);
/* kc_fiber_yield for a fiber that only has something to do once *done is set: until then
 * kc_fiber_waiting says so, and its resumer may leave it (a resume costs two context
 * switches, each a sigprocmask system call). */
void kc_fiber_yield_until(const bool *done);
bool kc_fiber_waiting(const struct kc_fiber *f);
/* The fiber running now, or NULL outside of every fiber. */
struct kc_fiber *kc_fiber_self(void);

#endif
