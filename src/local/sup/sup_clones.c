/* The clones under way.  A container's child is cloned sharing our memory on a stack of its
 * own, without CLONE_VFORK (sup_spawn.c): the supervisor goes on preparing the next container
 * while the child sets itself up and execs.  The kernel clears the spawn's word once the child
 * has exec'd or exited and wakes its futex (CLONE_CHILD_CLEARTID; kernel/fork.c, mm_release):
 * only then are its stack and what it reads reused or freed.  The stacks are SUP_CLONES_MAX
 * slots of one mapping made once, so that no clone's start or end has malloc take or give back
 * memory while children run in ours.  With every slot taken, a spawn first waits for the
 * oldest child. */
#include "local/sup/sup_int.h"

#include <errno.h>
#include <stddef.h>
#include <sys/mman.h>

#define SUP_CLONES_BYTES ((size_t)SUP_CLONES_MAX * SUP_CHILD_STACK)

int sup__clones_init(struct sup__clones *q)
{
    q->head = NULL;
    q->tail = &q->head;
    q->stacks = mmap(NULL, SUP_CLONES_BYTES, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (q->stacks == MAP_FAILED) {
        q->stacks = NULL;
        return -errno;
    }
    return 0;
}

void sup__clones_free(struct sup__clones *q)
{
    sup__clones_quiesce(q);
    if (q->stacks)
        munmap(q->stacks, SUP_CLONES_BYTES);
    q->stacks = NULL;
    q->head = NULL; /* the jobs are their owners' to free */
    q->tail = &q->head;
}

/* Takes j off the list (it is there). */
static void unlink_job(struct sup__clones *q, struct sup__job *j)
{
    struct sup__job **at = &q->head;
    while (*at != j)
        at = &(*at)->next;
    *at = j->next;
    if (q->tail == &j->next)
        q->tail = at;
    j->next = NULL;
}

/* A slot no running child has, waiting for the oldest when there is none. */
static int free_slot(struct sup__clones *q)
{
    for (;;) {
        unsigned used = 0;
        struct sup__job *oldest = NULL;
        for (struct sup__job *j = q->head; j; j = j->next) {
            if (sup__spawn_done(j->sp))
                continue;
            used |= 1u << j->slot;
            oldest = oldest ? oldest : j;
        }
        for (int i = 0; i < SUP_CLONES_MAX; i++)
            if (!(used & (1u << i)))
                return i;
        sup__spawn_join(oldest->sp);
    }
}

void sup__clones_submit(struct sup__clones *q, struct sup__job *j)
{
    j->slot = free_slot(q);
    j->next = NULL;
    sup__spawn_clone(j->sp, j->pid, q->stacks + (size_t)j->slot * SUP_CHILD_STACK);
    *q->tail = j;
    q->tail = &j->next;
}

struct sup__job *sup__clones_take(struct sup__clones *q)
{
    struct sup__job *done = NULL, **dtail = &done;
    for (struct sup__job *j = q->head, *next; j; j = next) {
        next = j->next;
        if (!sup__spawn_done(j->sp))
            continue;
        unlink_job(q, j);
        *dtail = j;
        dtail = &j->next;
    }
    return done;
}

void sup__clones_wait(struct sup__clones *q, struct sup__job *j)
{
    for (struct sup__job *k = q->head; k; k = k->next) {
        if (k == j) {
            sup__spawn_join(j->sp);
            unlink_job(q, j);
            return;
        }
    }
}

void sup__clones_quiesce(struct sup__clones *q)
{
    for (struct sup__job *j = q->head; j; j = j->next)
        sup__spawn_join(j->sp);
}
