/* jaxrt: the JAX runtime wiring of a JobSet — coordinator host:port, process count and each
 * pod's process id — and the environment variables that carry them, under every name existing
 * code reads: kubeflow/training-operator (JAXJob, pkg/controller.v1/jax/envvar.go, setPodEnv),
 * kubeflow/trainer (pkg/runtime/framework/plugins/jax/jax.go), AIchor's JAX operator
 * (docs.aichor.ai) and jax.distributed itself (jax-ml/jax jax/_src/distributed.py).
 *
 * A JobSet opts in with the annotation jaxset.dev/jax-runtime (api/schema/keys.h); converters set
 * it.
 *   flavour   extra names                                                         default port
 *   jobset    JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES, JAX_PROCESS_ID,          6666
 *             JAX_COORDINATOR_PORT (every flavour exports these four)
 *   jaxjob    + COORDINATOR_ADDRESS (host), COORDINATOR_PORT, NUM_PROCESSES,       6666
 *               PROCESS_ID, PYTHONUNBUFFERED=1
 *   trainjob  (the four)                                                           29500
 *   aichor    + JAXOPERATOR_COORDINATOR_ADDRESS, JAXOPERATOR_COORDINATOR_HOST,     1234
 *               JAXOPERATOR_NUM_PROCESSES, JAXOPERATOR_PROCESS_ID
 * jaxset.dev/jax-coordinator-port overrides the port; jaxset.dev/jax-replicated-jobs (comma
 * list) restricts which replicated jobs are JAX processes (default: all).  The coordinator is
 * spec.coordinator when set, else pod 0 of job 0 of the first JAX replicated job.  Process ids
 * are global ordinals in spec order: replicated jobs in order, then job index, then pod
 * (completion) index. */
#ifndef JX_JAXRT_H
#define JX_JAXRT_H

#include <jansson.h>
#include <stdbool.h>

#include "api/jobset/jobset.h"
#include "obj/tree/ferr.h"

enum jaxrt_flavor { JAXRT_OFF = 0, JAXRT_JOBSET, JAXRT_JAXJOB, JAXRT_TRAINJOB, JAXRT_AICHOR };

struct jaxrt {
    enum jaxrt_flavor flavor;
    int port;
    bool *is_jax;              /* per replicated job (v->n_rj entries); owned */
    char coord_host[256];      /* "<js>-<rj>-<job>-<pod>.<subdomain>" */
    long long num_processes;
    long long *offset;         /* per replicated job: id of its first pod; owned */
};

/* Reads the runtime settings of a defaulted, valid JobSet and checks them: annotation values,
 * port range, named replicated jobs exist, every JAX replicated job runs all its pods at once
 * (parallelism == completions), and no container of a JAX pod sets one of the reserved
 * variable names itself (the kubeflow/trainer #3669 lesson).  Errors are appended with JobSet
 * field paths.  A JobSet without the annotation yields flavor JAXRT_OFF and no error.
 * Returns the number of errors added or -ENOMEM. */
int jaxrt_init(struct jaxrt *rt, const json_t *js, const struct js_view *v,
               struct ferr_list *errs);
void jaxrt_release(struct jaxrt *rt);

const char *jaxrt_flavor_name(enum jaxrt_flavor f);
/* Parses an annotation value; returns JAXRT_OFF for an unknown value. */
enum jaxrt_flavor jaxrt_flavor_parse(const char *s);

/* True when `name` is a variable this flavour injects (so a user may not set it). */
bool jaxrt_is_reserved(enum jaxrt_flavor f, const char *name);

/* True when `name` carries the process id in this flavour (JAX_PROCESS_ID, and PROCESS_ID for
 * jaxjob, JAXOPERATOR_PROCESS_ID for aichor): what the pod webhook sets per pod. */
bool jaxrt_is_id_var(enum jaxrt_flavor f, const char *name);

/* True when `name` carries the number of processes in this flavour (JAX_NUM_PROCESSES, and
 * NUM_PROCESSES for jaxjob, JAXOPERATOR_NUM_PROCESSES for aichor): what the pod webhook sets
 * per pod from the JobSet as it is then, so that a pod created after an ElasticJobSet scaling
 * counts the new size, whatever its Job's template says. */
bool jaxrt_is_num_var(enum jaxrt_flavor f, const char *name);

/* Process id of pod (rj, job, pod), or -1 when rj is not a JAX replicated job. */
long long jaxrt_process_id(const struct jaxrt *rt, const struct js_view *v, size_t rj,
                           long long job, long long pod);

/* The variables of one pod as a new JSON array of {"name","value"} objects, in a fixed order;
 * `coord_host`/`port` override the cluster values (the local runner maps the coordinator to a
 * local address); pass NULL/0 for the cluster values.  NULL on OOM; an empty array when rj is
 * not a JAX replicated job. */
json_t *jaxrt_pod_env(const struct jaxrt *rt, const struct js_view *v, size_t rj, long long job,
                      long long pod, const char *coord_host, int port);

/* Adds the variables to every container of a constructed child Job's pod template, as values
 * that hold for each of its pods: literal when the Job has one pod; JAX_PROCESS_ID (and its
 * aliases) from the downward API completion-index annotation when the Job's first pod is
 * process 0; otherwise the id is left to per-pod injection (local runner, pod webhook) and the
 * pod template carries jaxset.dev/jax-process-id-offset.  Returns 0 or -ENOMEM. */
int jaxrt_apply_job(const struct jaxrt *rt, const struct js_view *v, size_t rj, long long job,
                    json_t *job_obj);

#endif
