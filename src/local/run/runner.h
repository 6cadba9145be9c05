/* runner: `jaxset run` — executes one validated JobSet on this machine with cluster semantics.
 *
 * The loop observes, calls the pure functions, and executes what they return:
 *   reconcile core (JobSet plan) -> child Jobs created/deleted/suspended, JobSet status;
 *   jobctl (per child Job)       -> pods started/restarted/killed, Job status;
 *   supervisor                   -> processes, output, exits.
 * Every container of a pod is a process group (initContainers first, one at a time; sidecars
 * alongside); its hostname, labels, annotations and environment are the ones it would have on
 * a cluster, with the JAX coordinator mapped to 127.0.0.1 and a port free on this machine.
 *
 * The run directory keeps everything: the JobSet and its Jobs with their status, every pod's
 * status (pods.json), the run's state, events, hosts file and each container's log
 * (local/store/rundir.h names the files).  The status files are rewritten (at most every
 * RUN_WRITE_MS) whenever the JobSet's status, a child Job's status or its pods change, each
 * replaced atomically in the order pods.json, jobs.json, jobset.json, run.json. */
#ifndef JX_RUNNER_H
#define JX_RUNNER_H

#include <stdbool.h>
#include <stdint.h>

#include "api/convert/manifest.h"
#include "obj/base/err.h"

/* How pods with volumes run (--volumes): */
enum runner_volumes {
    RUNNER_VOLUMES_MOUNT, /* each volume at its mountPath, in the pod's mount namespace */
    RUNNER_VOLUMES_SKIP,  /* no volume: the processes see this machine's files (a warning each) */
};

struct runner_opts {
    const char *run_dir;     /* created if needed; must not hold another run */
    int out_fd;              /* where pod output is forwarded (stdout) */
    int status_fd;           /* where the live status line, events and summary go (stderr) */
    bool color;              /* colour the prefixes */
    bool live;               /* redraw a one-line live status on status_fd (a tty) */
    bool quiet;              /* forward no pod output */
    const char *filter;      /* forward only pods whose replicated job or hostname matches */
    int grace_s;             /* termination grace override; -1: the pod's (default 30) */
    int restart_grace_s;     /* grace of pods torn down by a gang restart; -1: the JobSet's
                              * jaxset.dev/restart-grace-seconds, else grace_s / the pod's */
    int64_t restart_base_ms; /* OnFailure in-place restart backoff base */
    int gpus;                /* GPUs on this machine; -1: detect */
    enum runner_volumes volumes;
    const char *const *pvc;  /* --pvc CLAIM=PATH: claims mapped to directories, n_pvc of them */
    size_t n_pvc;
    bool images;             /* --images: every container in its image (local/image/img.h) */
};

/* The most pods (replicas x pods per Job, over every replicated job) one local run takes: more
 * is refused before anything is written or started. */
#define RUNNER_MAX_PODS 10000

/* What a valid manifest still needs to run on one machine, checked without starting anything:
 * every container has a command (there is no image entrypoint locally; with `images`, as
 * `run --images`, the image may give it) and env sources one machine can give (ConfigMaps and
 * Secrets only from the manifest files), volumes one machine can give (local/vol/volumes.h,
 * vol_check), and at most RUNNER_MAX_PODS pods.  `jaxset validate` reports the same errors as
 * `run`.  0, or a negative errno with err set
 * (a field path first). */
int runner_check(const struct manifest *m, bool images, struct err *err);

/* Runs to the end.  Returns the exit status (0 Completed, 1 Failed, 130 after SIGINT, 143 after
 * SIGTERM; the latter two only once every process is gone), or a negative errno with err set
 * when the run could not start (nothing is left running then). */
int runner_run(const struct manifest *m, const struct runner_opts *o, struct err *err);

/* Number of GPUs visible on this machine (/dev/nvidia<N>), 0 when none (or no
 * /dev/nvidiactl). */
int runner_detect_gpus(void);

#endif
