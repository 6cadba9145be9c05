/* conv_jaxjob: Kubeflow Training Operator v1 JAXJob (kubeflow.org/v1) -> JobSet
 * (kubeflow/training-operator release-1.9: pkg/apis/kubeflow.org/v1, pkg/webhooks/jax).
 *
 * Validation is the JAXJob webhook's after its defaulting (SetDefaults_JAXJob): metadata.name a
 * DNS-1035 label; spec.jaxReplicaSpecs required, keys matched case-insensitively to "Worker"
 * (anything else is Unsupported at spec.jaxReplicaSpecs[<key>]); at least one container, an
 * image on every container (locally an empty one only: jaxset runs commands without images)
 * and one container named "jax" -- with the webhook's own words and
 * Go's field paths, map keys in brackets (pkg/webhooks/jax validateJAXReplicaSpecs: "must be
 * required", "must be specified", "must have at least one container with name jax"; a
 * container's empty name is no error of its own there).  Also checked (with those paths):
 * field types, replicas >= 0, restartPolicy, the jaxjob-port containerPort, the runPolicy
 * numbers and cleanPodPolicy, and that no container sets a variable the JAX runtime injects
 * (the JAXJob controller would append a duplicate; jaxset refuses it).
 *
 * The result is a JobSet of the same name, namespace, labels and annotations with ONE
 * replicated job "worker" (replicas 1) whose indexed Job runs Worker.replicas pods at once
 * (parallelism = completions = replicas); pod i is JAXJob replica i and pod 0 the coordinator
 * (jaxrt's default rule), and jaxrt injects the JAXJob variables from the annotations
 * jaxset.dev/jax-runtime=jaxjob and jaxset.dev/jax-coordinator-port.  Mapping decisions:
 *  - replica restartPolicy -> pod restartPolicy: Never->Never, OnFailure->OnFailure,
 *    Always->OnFailure (a Job's pods may not use Always; an in-place restart is the closest),
 *    ExitCode->Never plus a podFailurePolicy rule FailJob on exit codes In [1..127] of
 *    container "jax": the JAXJob fails on those (permanent) codes, while codes >= 128 stay
 *    retryable and count against backoffLimit, as in the JAXJob operator.
 *  - backoffLimit: 0 for restartPolicy Never, because the JAXJob controller fails the job on
 *    the first failed pod of a Never replica whatever runPolicy.backoffLimit says; otherwise
 *    runPolicy.backoffLimit when set, else unset (Kubernetes' default of 6, where the JAXJob
 *    operator would retry without limit).
 *  - runPolicy.activeDeadlineSeconds -> the Job's activeDeadlineSeconds; runPolicy.suspend ->
 *    JobSet spec.suspend; runPolicy.ttlSecondsAfterFinished -> JobSet ttlSecondsAfterFinished.
 *    The whole runPolicy is kept verbatim (compact JSON) in jaxset.dev/jaxjob-run-policy;
 *    cleanPodPolicy, schedulingPolicy and managedBy have no JobSet counterpart.
 *  - no failurePolicy: the first failed Job fails the JobSet, as any failure fails a JAXJob.
 *  - the port named jaxjob-port (6666) is appended to container "jax" when missing
 *    (SetDefaults_JAXJob), and its containerPort is the coordinator port.
 *  - the pod template carries the Training Operator's pod labels (job-name, operator-name,
 *    replica-type=worker: jjs_pod_labels); each pod's replica-index and job-role=master are
 *    set per pod (jjs_pod_index_labels), since all pods share this template. */
#include "api/convert/convert.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/convert/conv_util.h"
#include "api/admit/jaxjob_admission.h"
#include "api/kubeflow/jaxjob_status.h"
#include "api/schema/keys.h"
#include "obj/tree/jx.h"

#define JJ_WORKER "Worker"
#define JJ_CONTAINER "jax"
#define JJ_PORT_NAME "jaxjob-port"
#define JJ_PORT 6666
#define JJ_RS_PATH "spec.jaxReplicaSpecs[Worker]" /* Go's field path: map keys in brackets */
#define JJ_CTS_PATH JJ_RS_PATH ".template.spec.containers"
#define JJ_RJ_NAME "worker"

struct jj {
    const char *name, *ns;
    const json_t *meta;
    const json_t *worker;     /* spec.jaxReplicaSpecs.<worker, any case>; borrowed */
    const json_t *run_policy; /* spec.runPolicy or NULL */
    long long replicas;
    const char *restart;      /* replica restartPolicy, default Never */
    long long port;           /* containerPort of jaxjob-port */
    bool has_port;            /* container jax already has a port named jaxjob-port */
    bool have_backoff, have_deadline, have_ttl, have_suspend, suspend;
    long long backoff, deadline, ttl;
};

static const struct {
    const char *replica; /* JAXJob ReplicaSpec.restartPolicy */
    const char *pod;     /* the Job pod template's restartPolicy */
} restart_map[] = {
    {"Never", "Never"},
    {"OnFailure", "OnFailure"},
    {"Always", "OnFailure"},
    {"ExitCode", "Never"},
};
#define N_RESTART (sizeof(restart_map) / sizeof(restart_map[0]))

static const char *pod_restart(const char *replica)
{
    for (size_t i = 0; i < N_RESTART; i++)
        if (strcmp(restart_map[i].replica, replica) == 0)
            return restart_map[i].pod;
    return "Never";
}

/* ---- validation ------------------------------------------------------------------------- */

/* The webhook's rules (a missing jaxReplicaSpecs, replica types) are jja_validate's; what a
 * JobSet needs besides: one Worker, so an empty map has nothing to run. */
static void jj_find_worker(struct chk *c, const json_t *spec, struct jj *j)
{
    const json_t *rs = chk_obj(c, spec, "jaxReplicaSpecs", "spec", false);
    char path[FPATH_MAX];
    const char *key;
    json_t *v;
    if (rs && json_object_size(rs) == 0)
        ferr_add(c->errs, FERR_REQUIRED, "spec.jaxReplicaSpecs", NULL, "must be required");
    json_object_foreach((json_t *)rs, key, v) {
        fpath_key(path, "spec", "jaxReplicaSpecs", key);
        if (strcmp(jja_replica_type(key), JJ_WORKER) != 0)
            continue; /* Unsupported: jja_validate */
        if (j->worker)
            ferr_add_str(c->errs, FERR_DUPLICATE, path, key, NULL);
        else
            j->worker = v;
    }
}

static void jj_check_port(struct chk *c, const json_t *jax, size_t idx, struct jj *j)
{
    char cpath[FPATH_MAX], ppath[FPATH_MAX], path[FPATH_MAX];
    size_t i;
    snprintf(cpath, sizeof(cpath), JJ_CTS_PATH "[%zu]", idx);
    const json_t *ports = chk_arr(c, jax, "ports", cpath, false);
    const json_t *port = chk_named(ports, JJ_PORT_NAME, SIZE_MAX, &i);
    j->port = JJ_PORT;
    if (!port)
        return;
    j->has_port = true;
    fpath_fmt(ppath, "%s.ports[%zu]", cpath, i);
    fpath_field(path, ppath, "containerPort");
    const json_t *v = json_object_get(port, "containerPort");
    long long p;
    if (!v || json_is_null(v))
        ferr_add(c->errs, FERR_REQUIRED, path, NULL, NULL);
    else if (jx_int(port, "containerPort", &p) < 0 || p < 1 || p > 65535)
        ferr_add(c->errs, FERR_INVALID, path, v, "must be between 1 and 65535, inclusive");
    else
        j->port = p;
}

/* Containers, images and the "jax" container are jja_validate's; here their types and the
 * coordinator port. */
static void jj_check_containers(struct chk *c, const json_t *pspec, struct jj *j)
{
    size_t idx;
    const json_t *cts = conv_containers(c, pspec, JJ_CTS_PATH, JAXRT_JAXJOB);
    const json_t *jax = chk_named(cts, JJ_CONTAINER, SIZE_MAX, &idx);
    if (jax)
        jj_check_port(c, jax, idx, j);
}

static void jj_check_worker(struct chk *c, struct jj *j)
{
    static const char *const policies[] = {"Always", "OnFailure", "Never", "ExitCode", NULL};
    if (!json_is_object(j->worker)) {
        chk_type_error(c, JJ_RS_PATH, j->worker, CHK_OBJ);
        j->worker = NULL;
        return;
    }
    j->replicas = 1;
    (void)chk_int(c, j->worker, "replicas", JJ_RS_PATH, 0, &j->replicas);
    j->restart = chk_enum(c, j->worker, "restartPolicy", JJ_RS_PATH, policies, false);
    if (!j->restart)
        j->restart = "Never";
    size_t mark = c->errs->n;
    const json_t *tmpl = chk_obj(c, j->worker, "template", JJ_RS_PATH, false);
    const json_t *pspec = chk_obj(c, tmpl, "spec", JJ_RS_PATH ".template", false);
    if (c->errs->n == mark) /* else a wrong type was reported */
        jj_check_containers(c, pspec, j);
}

static void jj_check_run_policy(struct chk *c, const json_t *spec, struct jj *j)
{
    static const char *const clean[] = {"All", "Running", "None", NULL};
    static const char *const p = "spec.runPolicy";
    const json_t *rp = chk_obj(c, spec, "runPolicy", "spec", false);
    j->run_policy = rp;
    if (!rp)
        return;
    j->have_backoff = chk_int(c, rp, "backoffLimit", p, 0, &j->backoff);
    j->have_deadline = chk_int(c, rp, "activeDeadlineSeconds", p, 0, &j->deadline);
    j->have_ttl = chk_int(c, rp, "ttlSecondsAfterFinished", p, 0, &j->ttl);
    j->have_suspend = chk_bool(c, rp, "suspend", p, &j->suspend);
    (void)chk_enum(c, rp, "cleanPodPolicy", p, clean, false);
}

static void jj_check(struct chk *c, const json_t *doc, struct jj *j)
{
    j->meta = conv_metadata(c, doc, false, &j->name, &j->ns);
    size_t mark = c->errs->n;
    const json_t *spec = chk_obj(c, doc, "spec", "", false);
    if (c->errs->n > mark)
        return; /* wrong type, reported */
    jj_find_worker(c, spec, j);
    if (j->worker)
        jj_check_worker(c, j);
    jj_check_run_policy(c, spec, j);
}

/* ---- building --------------------------------------------------------------------------- */

static int jj_add_port(json_t *pspec)
{
    json_t *jax = chk_named(jx_arr(pspec, "containers"), JJ_CONTAINER, SIZE_MAX, NULL);
    json_t *ports = jx_ensure_arr(jax, "ports");
    json_t *port = json_pack("{s:s, s:i}", "name", JJ_PORT_NAME, "containerPort", JJ_PORT);
    if (!ports || !port || json_array_append_new(ports, port) < 0)
        return -ENOMEM;
    return 0;
}

/* The Training Operator's labels common to every Worker pod (jjs_pod_labels), over the
 * template's own as upstream's createNewPod sets them; the per-pod ones (replica-index,
 * job-role) are jjs_pod_index_labels'. */
static int jj_label(json_t *t, const char *name)
{
    json_t *labels = jx_ensure_obj(jx_ensure_obj(t, "metadata"), "labels");
    json_t *want = jjs_pod_labels(name);
    int rc = labels && want ? json_object_update(labels, want) : -1;
    json_decref(want);
    return rc < 0 ? -ENOMEM : 0;
}

static json_t *jj_pod_template(const struct jj *j)
{
    /* metadata first, as a PodTemplateSpec is written */
    json_t *t = json_pack("{s:{}}", "metadata");
    json_t *src = json_deep_copy(jx_obj(j->worker, "template"));
    if (!t || !src || json_object_update(t, src) < 0) {
        json_decref(t);
        t = NULL;
    }
    json_decref(src);
    json_t *pspec = jx_ensure_obj(t, "spec");
    int rc = pspec ? jx_set_str(pspec, "restartPolicy", pod_restart(j->restart)) : -ENOMEM;
    if (rc == 0 && !j->has_port)
        rc = jj_add_port(pspec);
    if (rc == 0)
        rc = jj_label(t, j->name);
    if (rc < 0) {
        json_decref(t);
        return NULL;
    }
    return t;
}

/* onExitCodes values 1..127: the codes the JAXJob ExitCode policy treats as permanent. */
static json_t *jj_exit_code_policy(void)
{
    json_t *codes = json_array();
    for (int i = 1; codes && i <= 127; i++) {
        if (json_array_append_new(codes, json_integer(i)) < 0) {
            json_decref(codes);
            return NULL;
        }
    }
    return json_pack("{s:[{s:s, s:{s:s, s:s, s:o}}]}", "rules", "action", "FailJob",
                     "onExitCodes", "containerName", JJ_CONTAINER, "operator", "In", "values",
                     codes);
}

/* The Job spec fields beside completionMode/parallelism/completions/template. */
static json_t *jj_job_extra(const struct jj *j)
{
    json_t *x = json_object();
    int rc = x ? 0 : -ENOMEM;
    bool never = strcmp(j->restart, "Never") == 0;
    if (rc == 0 && (never || j->have_backoff))
        rc = jx_set_int(x, "backoffLimit", never ? 0 : j->backoff);
    if (rc == 0 && j->have_deadline)
        rc = jx_set_int(x, "activeDeadlineSeconds", j->deadline);
    if (rc == 0 && strcmp(j->restart, "ExitCode") == 0)
        rc = jx_set_new(x, "podFailurePolicy", jj_exit_code_policy());
    if (rc < 0) {
        json_decref(x);
        return NULL;
    }
    return x;
}

static int jj_fill_spec(json_t *js, const struct jj *j)
{
    json_t *spec = jx_obj(js, "spec");
    json_t *extra = jj_job_extra(j);
    json_t *rj = extra ? conv_rj_new(JJ_RJ_NAME, j->replicas, extra, jj_pod_template(j)) : NULL;
    int rc = rj ? 0 : -ENOMEM;
    json_decref(extra);
    if (rc == 0 && j->have_suspend)
        rc = jx_set_bool(spec, "suspend", j->suspend);
    if (rc == 0 && j->have_ttl)
        rc = jx_set_int(spec, "ttlSecondsAfterFinished", j->ttl);
    if (rc == 0) {
        rc = jx_set_new(spec, "replicatedJobs", json_pack("[o]", rj));
        rj = NULL;
    }
    json_decref(rj);
    return rc;
}

static int jj_annotate(json_t *js, const struct jj *j)
{
    int rc = conv_annotate(js, JAXRT_JAXJOB, "JAXJob", j->port, NULL);
    if (rc < 0 || !j->run_policy)
        return rc;
    char *rp = json_dumps(j->run_policy, JSON_COMPACT);
    rc = rp ? jx_set_meta(jx_obj(js, "metadata"), "annotations", ANN_JAXJOB_RUN_POLICY, rp)
            : -ENOMEM;
    free(rp);
    return rc;
}

json_t *conv_jaxjob(const json_t *doc, struct ferr_list *errs)
{
    return conv_jaxjob_ex(doc, false, errs);
}

json_t *conv_jaxjob_ex(const json_t *doc, bool cluster, struct ferr_list *errs)
{
    struct chk c;
    struct jj j = {0};
    chk_init(&c, errs, CHK_REPORT);
    if (jja_validate(doc, cluster, errs) < 0)
        return NULL;
    jj_check(&c, doc, &j);
    if (chk_result(&c))
        return NULL;
    json_t *js = conv_jobset_new(j.name, j.ns, jx_obj(j.meta, "labels"),
                                 jx_obj(j.meta, "annotations"));
    if (!js || jj_annotate(js, &j) < 0 || jj_fill_spec(js, &j) < 0) {
        json_decref(js);
        return NULL;
    }
    return js;
}
