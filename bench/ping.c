/* ping: the trivial worker of bench_local.  Sends one datagram "<index> <attempt> <pid>" to
 * the AF_UNIX datagram socket named by $BENCH_SOCK, then waits to be killed.
 *
 *   index   $JOB_COMPLETION_INDEX (jaxset, bare floor), else $OMPI_COMM_WORLD_RANK (mpirun)
 *   attempt $ATTEMPT (jaxset: the restart-attempt label through a fieldRef), else 0
 *
 * SIGUSR1 makes it exit with status 1: that is how the harness crashes one worker for the
 * restart benchmark (the harness knows every worker's pid from its record).  SIGTERM keeps its
 * default action, unless $BENCH_IGNORE_TERM is set: then it is ignored, as JAX workers do
 * (they take it as a preemption notice and keep running).  Links nothing but libc. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static void on_usr1(int sig)
{
    (void)sig;
    _exit(1);
}

static const char *env_or(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v && *v ? v : dflt;
}

int main(void)
{
    const char *path = getenv("BENCH_SOCK");
    const char *index = env_or("JOB_COMPLETION_INDEX", env_or("OMPI_COMM_WORLD_RANK", "0"));
    const char *attempt = env_or("ATTEMPT", "0");
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    struct sigaction sa = {.sa_handler = on_usr1};
    char rec[128];

    if (!path || strlen(path) >= sizeof(a.sun_path)) {
        fprintf(stderr, "ping: BENCH_SOCK unset or too long\n");
        return 2;
    }
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL); /* before the record: the harness may signal right after */
    if (getenv("BENCH_IGNORE_TERM"))
        signal(SIGTERM, SIG_IGN);
    memcpy(a.sun_path, path, strlen(path) + 1);
    int len = snprintf(rec, sizeof(rec), "%s %s %ld", index, attempt, (long)getpid());
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || sendto(fd, rec, (size_t)len, 0, (struct sockaddr *)&a, sizeof(a)) != len) {
        perror("ping: sendto");
        return 2;
    }
    close(fd);
    for (;;)
        pause();
}
