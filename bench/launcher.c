/* launcher: the least a launcher program can be, for bench_local's "exec floor" column.  It is
 * itself exec'd by the harness (as jaxset and mpirun are), then posix_spawns N copies of PROG
 * with JOB_COMPLETION_INDEX=0..N-1 added to its own environment and waits for them.  No
 * manifest, no pipes, no process groups, no state: what is left is the cost of being a program
 * that starts programs.
 *
 *   launcher N PROG
 *
 * SIGTERM kills the N children and exits.  Links nothing but libc. */
#define _GNU_SOURCE
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define LAUNCHER_MAX 4096

extern char **environ;

static pid_t kids[LAUNCHER_MAX];
static int n_kids;

static void on_term(int sig)
{
    (void)sig;
    for (int i = 0; i < n_kids; i++)
        kill(kids[i], SIGTERM);
    _exit(143);
}

/* environ plus one JOB_COMPLETION_INDEX slot at the end (filled per child). */
static char **env_with_index(char *slot)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **envp = calloc(n + 2, sizeof(*envp));
    if (!envp)
        return NULL;
    memcpy(envp, environ, n * sizeof(*envp));
    envp[n] = slot;
    return envp;
}

int main(int argc, char **argv)
{
    char slot[48];
    int n = argc == 3 ? atoi(argv[1]) : 0;
    if (n < 1 || n > LAUNCHER_MAX) {
        fprintf(stderr, "usage: launcher N PROG   (1 <= N <= %d)\n", LAUNCHER_MAX);
        return 2;
    }
    char **envp = env_with_index(slot);
    char *kid_argv[] = {argv[2], NULL};
    sigset_t term, none;
    posix_spawnattr_t at;
    sigemptyset(&none);
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK);
    posix_spawnattr_setsigmask(&at, &none);
    signal(SIGTERM, on_term);
    sigprocmask(SIG_BLOCK, &term, NULL); /* SIGTERM waits until every child is counted */
    for (int i = 0; envp && i < n; i++) {
        snprintf(slot, sizeof(slot), "JOB_COMPLETION_INDEX=%d", i);
        int rc = posix_spawn(&kids[n_kids], argv[2], NULL, &at, kid_argv, envp);
        if (rc) {
            fprintf(stderr, "launcher: %s: %s\n", argv[2], strerror(rc));
            on_term(SIGTERM);
        }
        n_kids++;
    }
    sigprocmask(SIG_UNBLOCK, &term, NULL);
    while (n_kids && wait(NULL) > 0)
        ;
    posix_spawnattr_destroy(&at);
    free(envp);
    return 0;
}
