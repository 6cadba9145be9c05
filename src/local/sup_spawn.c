/* Spawning one container: executable lookup in the container's PATH, posix_spawn in a new
 * process group with default signal dispositions and an empty signal mask. */
#include "local/sup_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SUP_PATH_MAX 4096
#define SUP_PIPE_SIZE (256 * 1024)

static const char *env_path(const char *const *envp)
{
    for (; envp && *envp; envp++)
        if (!strncmp(*envp, "PATH=", 5))
            return *envp + 5;
    const char *p = getenv("PATH");
    return p ? p : "/usr/local/bin:/usr/bin:/bin";
}

/* Resolves argv[0] as a shell would: as given when it contains '/', else along PATH. */
static int resolve(const struct sup_spec *spec, char *out, size_t n, struct err *err)
{
    const char *name = spec->argv[0];
    if (!name || !*name)
        return err_set(err, -ENOENT, "empty command");
    if (strchr(name, '/')) {
        snprintf(out, n, "%s", name);
        return 0;
    }
    const char *dirs = env_path(spec->envp);
    while (*dirs) {
        size_t len = strcspn(dirs, ":");
        snprintf(out, n, "%.*s%s%s", (int)len, dirs, len ? "/" : "", name);
        if (access(out, X_OK) == 0)
            return 0;
        dirs += len + (dirs[len] == ':');
    }
    return err_set(err, -ENOENT, "%s: executable file not found in $PATH", name);
}

static int setup(posix_spawn_file_actions_t *fa, posix_spawnattr_t *at,
                 const struct sup_spec *spec, int wfd)
{
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    sigdelset(&all, SIGKILL);
    sigdelset(&all, SIGSTOP);
    int rc = posix_spawnattr_setflags(at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                              POSIX_SPAWN_SETSIGDEF);
    rc = rc ? rc : posix_spawnattr_setpgroup(at, 0);
    rc = rc ? rc : posix_spawnattr_setsigmask(at, &none);
    rc = rc ? rc : posix_spawnattr_setsigdefault(at, &all);
    rc = rc ? rc : posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDONLY, 0);
    rc = rc ? rc : posix_spawn_file_actions_adddup2(fa, wfd, 1);
    rc = rc ? rc : posix_spawn_file_actions_adddup2(fa, wfd, 2);
    if (!rc && spec->cwd)
        rc = posix_spawn_file_actions_addchdir_np(fa, spec->cwd);
    return rc;
}

int sup__spawn(const struct sup_spec *spec, pid_t *out_pid, int *out_pipe, struct err *err)
{
    char path[SUP_PATH_MAX];
    int p[2], rc = resolve(spec, path, sizeof(path), err);
    if (rc < 0)
        return rc;
    if (pipe2(p, O_CLOEXEC) < 0)
        return err_set(err, -errno, "pipe: %s", strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    rc = setup(&fa, &at, spec, p[1]);
    pid_t pid = -1;
    if (!rc)
        rc = posix_spawn(&pid, path, &fa, &at, (char *const *)spec->argv,
                         (char *const *)spec->envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(p[1]);
    if (rc) {
        close(p[0]);
        return err_set(err, -rc, "%s: %s", spec->argv[0], strerror(rc));
    }
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    fcntl(p[0], F_SETPIPE_SZ, SUP_PIPE_SIZE); /* fewer wake-ups for chatty containers; best effort */
    *out_pid = pid;
    *out_pipe = p[0];
    return 0;
}
