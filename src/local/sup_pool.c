/* The spawner threads: each takes a queued spawn and makes its vfork-style clone, during which
 * the calling thread is suspended until the child has exec'd (600-850 us a container on the
 * 2-core VM, bench/README.md, launch).  The supervisor's thread prepares the next containers
 * meanwhile, and up to SUP_POOL_MAX clones run at once.  The threads block every signal, never
 * allocate (so glibc gives them no arena of their own), and tell the supervisor's loop of each
 * finished clone through an eventfd. */
#include "local/sup_int.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* Enough for the child's stack (sup_spawn.c) and a sanitized build's frames; only what is
 * touched becomes resident. */
#define SUP_POOL_STACK (256 * 1024)

int sup__pool_start(struct sup__pool *pl)
{
    cpu_set_t cpus;
    size_t n = sched_getaffinity(0, sizeof(cpus), &cpus) == 0 ? (size_t)CPU_COUNT(&cpus) : 1;
    pl->max = n < 1 ? 1 : n > SUP_POOL_MAX ? SUP_POOL_MAX : n;
    pl->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (pl->efd < 0)
        return -errno;
    pthread_mutex_init(&pl->mu, NULL);
    pthread_cond_init(&pl->work, NULL);
    pthread_cond_init(&pl->done, NULL);
    pl->head = NULL;
    pl->tail = &pl->head;
    pl->started = true;
    return 0;
}

/* Under the lock. */
static void finish(struct sup__pool *pl, struct sup__job *j)
{
    uint64_t one = 1;
    j->done = true;
    j->next = pl->fin;
    pl->fin = j;
    pl->busy--;
    pthread_cond_broadcast(&pl->done);
    ssize_t w = write(pl->efd, &one, sizeof(one)); /* fails only when 2^64 - 2 are unread */
    (void)w;
}

static void *spawner(void *arg)
{
    struct sup__pool *pl = arg;
    pthread_mutex_lock(&pl->mu);
    for (;;) {
        while (!pl->head && !pl->stop)
            pthread_cond_wait(&pl->work, &pl->mu);
        struct sup__job *j = pl->head;
        if (!j)
            break;
        pl->head = j->next;
        if (!pl->head)
            pl->tail = &pl->head;
        pthread_mutex_unlock(&pl->mu);
        sup__spawn_clone(j->sp, j->pid);
        pthread_mutex_lock(&pl->mu);
        finish(pl, j);
    }
    pthread_mutex_unlock(&pl->mu);
    return NULL;
}

/* One more spawner thread, born with every signal blocked (the mask is inherited); under the
 * lock. */
static void grow(struct sup__pool *pl)
{
    pthread_attr_t attr;
    sigset_t all, old;
    if (pthread_attr_init(&attr) != 0)
        return;
    pthread_attr_setstacksize(&attr, SUP_POOL_STACK);
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    if (pthread_create(&pl->th[pl->n_threads], &attr, spawner, pl) == 0)
        pl->n_threads++;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
}

void sup__pool_submit(struct sup__pool *pl, struct sup__job *j)
{
    pthread_mutex_lock(&pl->mu);
    while (pl->busy >= SUP_POOL_QUEUE * pl->max) /* a few clones ahead: what each holds */
        pthread_cond_wait(&pl->done, &pl->mu); /* (argv, envp) is freed soon after */
    j->done = false;
    j->next = NULL;
    pl->busy++;
    if (pl->busy > pl->n_threads && pl->n_threads < pl->max)
        grow(pl);
    if (!pl->n_threads) { /* no thread to be had: the clone is made here */
        pthread_mutex_unlock(&pl->mu);
        sup__spawn_clone(j->sp, j->pid);
        pthread_mutex_lock(&pl->mu);
        finish(pl, j);
    } else {
        *pl->tail = j;
        pl->tail = &j->next;
        pthread_cond_signal(&pl->work);
    }
    pthread_mutex_unlock(&pl->mu);
}

struct sup__job *sup__pool_take(struct sup__pool *pl)
{
    if (!pl->started)
        return NULL;
    pthread_mutex_lock(&pl->mu);
    struct sup__job *fin = pl->fin;
    pl->fin = NULL;
    pthread_mutex_unlock(&pl->mu);
    return fin;
}

void sup__pool_wait(struct sup__pool *pl, struct sup__job *j)
{
    pthread_mutex_lock(&pl->mu);
    while (!j->done)
        pthread_cond_wait(&pl->done, &pl->mu);
    for (struct sup__job **at = &pl->fin; *at; at = &(*at)->next) {
        if (*at == j) {
            *at = j->next;
            break;
        }
    }
    pthread_mutex_unlock(&pl->mu);
}

void sup__pool_quiesce(struct sup__pool *pl)
{
    if (!pl->started)
        return;
    pthread_mutex_lock(&pl->mu);
    while (pl->busy)
        pthread_cond_wait(&pl->done, &pl->mu);
    pthread_mutex_unlock(&pl->mu);
}

void sup__pool_stop(struct sup__pool *pl)
{
    if (!pl->started)
        return;
    pthread_mutex_lock(&pl->mu);
    pl->stop = true;
    pthread_cond_broadcast(&pl->work);
    pthread_mutex_unlock(&pl->mu);
    for (size_t i = 0; i < pl->n_threads; i++)
        pthread_join(pl->th[i], NULL);
    pthread_cond_destroy(&pl->done);
    pthread_cond_destroy(&pl->work);
    pthread_mutex_destroy(&pl->mu);
    close(pl->efd);
    pl->started = false;
    pl->n_threads = 0;
}
