/* jaxset: run distributed JAX jobs described as JobSets, JAXJobs, TrainJobs or AIchor
 * manifests.  This file only dispatches to the subcommands. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

#define JAXSET_VERSION "0.1.0"

static const struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *help;
} commands[] = {
    {"validate", cmd_validate, "check manifests fully; exit 2 with one line per field error"},
    {"render", cmd_render, "print what a cluster would receive: JobSet, Service, child Jobs"},
    {"run", cmd_run, "run a job on this machine with cluster semantics"},
    {"get", cmd_get, "show runs, or one JobSet with its status (-o json|yaml)"},
    {"logs", cmd_logs, "print the logs of a run's pods"},
    {"decode", cmd_decode, "print the documents of manifest files as one JSON array"},
};

static int help(FILE *out)
{
    fprintf(out, "usage: jaxset COMMAND [ARGS...]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].help);
    fprintf(out, "  %-10s %s\n", "version", "print the version");
    fprintf(out, "\nManifests: jobset.x-k8s.io/v1alpha2 JobSet, kubeflow.org/v1 JAXJob,\n"
                 "trainer.kubeflow.org/v1alpha1 TrainJob (+ TrainingRuntime or\n"
                 "ClusterTrainingRuntime), AIchorManifest (spec.operator: jax).\n");
    return out == stderr ? EXIT_INVALID : EXIT_OK;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return help(stderr);
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help"))
        return help(stdout);
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        printf("jaxset %s\n", JAXSET_VERSION);
        return EXIT_OK;
    }
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (!strcmp(commands[i].name, cmd))
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "jaxset: unknown command \"%s\"\n", cmd);
    return help(stderr);
}
