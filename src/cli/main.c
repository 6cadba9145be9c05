/* jaxset: run distributed JAX jobs described as JobSets, JAXJobs, TrainJobs or AIchor
 * manifests.  The binary runs the commands of one machine itself and loads every other one
 * (get, describe, logs, wait, delete, submit, controller..., help and version too) from the
 * module libjaxset_cluster.so (dispatch.c, with src/kube), so that `jaxset run`, the
 * supervisor of a run's pods, maps neither libcurl, libmicrohttpd and GnuTLS nor the thirty
 * libraries they bring: loading them took about 20 ms of every start and 6 MiB of resident
 * memory (bench/README.md).  Which commands are local is written once, in cli/util/commands.h;
 * what each does and takes, in help.c. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/util/cli.h"
#include "obj/base/module.h"

#define CLUSTER_MODULE "libjaxset_cluster.so"

/* The LOCAL commands of the list (cli/util/commands.h). */
static const struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
} local[] = {
#define X(name, fn, where) CLI_BINARY_##where(name, fn)
    CLI_COMMANDS(X)
#undef X
};

/* A closed stdin, stdout or stderr would be taken by the next file opened (`jaxset run F >&-`
 * put pod output into events.log, opened as fd 1): each is opened on /dev/null first, as Go's
 * runtime does before main (golang/go src/runtime/fds_unix.go, checkfds). */
static void std_fds_open(void)
{
    for (int fd = 0; fd < 3; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        if (open("/dev/null", O_RDWR) != fd)
            exit(EXIT_FAILURE); /* nowhere to say it: stderr may be the one closed */
    }
}

/* Every command but the local ones: cli_main of the module. */
static int from_module(int argc, char **argv)
{
    void *h = module_open(CLUSTER_MODULE);
    int (*fn)(int, char **) = h ? (int (*)(int, char **))dlsym(h, "cli_main") : NULL;
    if (!fn) {
        fprintf(stderr, "jaxset: " CLUSTER_MODULE " (every command but");
        for (size_t i = 0; i < sizeof(local) / sizeof(local[0]); i++)
            fprintf(stderr, "%s %s", i ? "," : "", local[i].name);
        fprintf(stderr, ") is missing beside the jaxset binary and in " JAXSET_MODULES_FROM_BIN
                        " from it (%s)\n", h ? "no cli_main in it" : dlerror());
        return EXIT_FAILURE;
    }
    return fn(argc, argv);
}

int main(int argc, char **argv)
{
    std_fds_open();
    for (size_t i = 0; argc > 1 && i < sizeof(local) / sizeof(local[0]); i++) {
        if (!strcmp(local[i].name, argv[1])) {
            int rc = local[i].fn(argc - 1, argv + 1);
            return rc == CLI_HELP_SHOWN ? EXIT_OK : rc;
        }
    }
    return from_module(argc, argv);
}
