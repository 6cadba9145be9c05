/* Container cgroups made ahead.  Making a cgroup (mkdir below the run's) is most of what the
 * supervisor spends per container before its clone, ~45 us on a 2-core VM, on the one thread
 * that starts containers one after the other (bench/README.md).  When the caller knows that
 * many containers are about to start (sup_expect), a thread of ours makes their cgroups in
 * order while the first ones start: a spawn finds its cgroup made, or makes it itself when the
 * thread is behind (sup__cg_container).  The thread makes directories and nothing else, with
 * every signal blocked (they stay with the calling thread's signalfd). */
#include "local/sup_int.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>

#define AHEAD_STACK (64 * 1024)

static void *ahead_main(void *arg)
{
    struct sup__ahead *a = arg;
    char name[64];
    for (uint64_t id = a->first; id <= a->last && !atomic_load(&a->stop); id++) {
        snprintf(name, sizeof(name), "c%llu", (unsigned long long)id);
        mkdirat(a->dirfd, name, 0700); /* EEXIST: a spawn was first */
    }
    return NULL;
}

void sup__ahead_start(struct sup__ahead *a, int dirfd, uint64_t first, uint64_t last)
{
    sigset_t all, old;
    pthread_attr_t attr;
    sup__ahead_join(a);
    if (dirfd < 0 || first > last || pthread_attr_init(&attr) != 0)
        return;
    a->dirfd = dirfd;
    a->first = first;
    a->last = last;
    atomic_store(&a->stop, false);
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_setstacksize(&attr, AHEAD_STACK);
    a->running = pthread_create(&a->thread, &attr, ahead_main, a) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
}

void sup__ahead_join(struct sup__ahead *a)
{
    if (!a->running)
        return;
    atomic_store(&a->stop, true);
    pthread_join(a->thread, NULL);
    a->running = false;
}
