/* A spawned child is cloned onto the CPU its parent runs on.  The parent sleeps from the clone
 * until the child has exec'd (CLONE_VFORK), so that CPU is the one sure to be free; left to
 * itself, the scheduler's fork balancing often puts the child on another CPU, busy with a
 * container started before, or idle and to be woken, while the parent's stays idle (perf
 * sched:sched_migrate_task, bench/README.md measures it).  The parent narrows its own affinity
 * to its CPU for the clone only; the child inherits that, and puts back the parent's affinity
 * before its exec (sup_spawn.c), so the container's program only ever sees jaxset's own. */
#include "local/sup_int.h"

#include <sched.h>

/* Cleared when putting an affinity back failed once: no pinning any more. */
static bool pin_works = true;

bool sup__pin(cpu_set_t *saved)
{
    cpu_set_t one;
    int cpu = sched_getcpu();
    if (!pin_works || cpu < 0 || cpu >= CPU_SETSIZE ||
        sched_getaffinity(0, sizeof(*saved), saved) < 0 || CPU_COUNT(saved) < 2 ||
        !CPU_ISSET(cpu, saved))
        return false;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    return sched_setaffinity(0, sizeof(one), &one) == 0;
}

void sup__unpin(const cpu_set_t *saved)
{
    if (sched_setaffinity(0, sizeof(*saved), saved) < 0)
        pin_works = false;
}
