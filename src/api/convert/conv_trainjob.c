/* conv_trainjob: Kubeflow Trainer v2 TrainJob (trainer.kubeflow.org/v1alpha1) + the
 * TrainingRuntime/ClusterTrainingRuntime it names -> JobSet (kubeflow/trainer: the JAX plugin
 * pkg/runtime/framework/plugins/jax/jax.go and the JobSet plugin plugins/jobset).
 *
 * Checks, with the TrainJob's paths: metadata.name an RFC-1035 label of at most 63 characters;
 * spec.runtimeRef.name required, kind ClusterTrainingRuntime (default) or TrainingRuntime,
 * apiGroup trainer.kubeflow.org; spec.trainer field types (numNodes >= 0, command/args/env at
 * most 128 items) and no reserved JAX variable in spec.trainer.env; suspend a boolean;
 * activeDeadlineSeconds >= 1.  The runtime is found by the caller: NULL gives an error at
 * spec.runtimeRef.name; one of another kind, name or (TrainingRuntime) namespace is refused.
 * With the RUNTIME's paths (spec.mlPolicy, spec.template.spec.replicatedJobs...): it must be a
 * JAX runtime (mlPolicy.jax; jaxset is a JAX launcher, so torch, mpi, flux and xgboost
 * runtimes are not supported), must have a trainer replicated job (the one labelled
 * trainer.kubeflow.org/trainjob-ancestor-step=trainer, else the one named "node"; trainer PR
 * #3563) with a container "node", and no container of that job may set a reserved variable.
 *
 * The runtime's template first takes the TrainJob's spec.runtimePatches as Trainer v2.3 applies
 * them (api/kubeflow/trainjob_patch.h: strategic merge patches with the JobSet's merge keys, the
 * patches' labels and annotations), and what follows reads that patched runtime.
 * The JobSet (as the Trainer's JAX and JobSet plugins build it): name/namespace of the
 * TrainJob, labels/annotations of runtime.spec.template.metadata, spec = a copy of
 * runtime.spec.template.spec with spec.suspend = TrainJob spec.suspend (when set).  The trainer
 * replicated job gets replicas 1 and parallelism = completions = numNodes (spec.trainer.numNodes
 * ?? mlPolicy.numNodes ?? 1); its container "node" takes image/command/args from spec.trainer
 * when set, spec.trainer.env merged by name (upserted), resources = resourcesPerNode, and an
 * unnamed containerPort 29500 unless it has one; with spec.trainer, the JAX plugin's
 * JAX_NUM_PROCESSES, JAX_PROCESS_ID (fieldRef to the completion index) and
 * JAX_COORDINATOR_ADDRESS are upserted into its env as upstream writes them.  Annotations:
 * jax-runtime=trainjob, coordinator port 29500 and jax-replicated-jobs = the trainer job
 * (initializer jobs are not JAX processes), so the coordinator is
 * <trainjob>-node-0-0.<trainjob>:29500 as upstream. The initializer replicated jobs (labelled
 * trainjob-ancestor-step=dataset-initializer / model-initializer) get replicas 1 and
 * spec.initializer.dataset / .model in their container of that name (STORAGE_URI, env, envFrom
 * secretRef: api/kubeflow/trainjob_init.h); with the runtime's podGroupPolicy every pod template
 * gets the pod-group label (coscheduling) or annotation (volcano) naming the TrainJob.  The
 * PodGroup itself is the cluster controller's (api/kubeflow/trainjob_podgroup.h).
 * Decisions where upstream is silent: TrainJob activeDeadlineSeconds is put on the trainer Job
 * template (upstream measures it on the TrainJob; the trainer Job failing with
 * DeadlineExceeded fails the JobSet unless the runtime's failurePolicy says otherwise);
 * spec.managedBy and numProcPerNode (ignored by the JAX plugin too) are accepted and not
 * applied. */
#include "api/convert/convert.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "api/convert/conv_util.h"
#include "api/schema/keys.h"
#include "api/kubeflow/trainjob_init.h"
#include "api/kubeflow/trainjob_patch.h"
#include "obj/tree/jx.h"

#define TJ_PORT 29500
#define TJ_CONTAINER "node"
#define TJ_MAX_ITEMS 128
#define TJ_RJS_PATH "spec.template.spec.replicatedJobs"

struct tj {
    const char *name, *ns;
    const char *rt_name, *rt_kind;
    const json_t *spec;    /* the TrainJob's spec */
    const json_t *trainer; /* spec.trainer or NULL */
    bool have_nodes, have_suspend, suspend, have_deadline;
    long long num_nodes, deadline;
    long long replicas;  /* the trainer replicated job's: its Jobs share numNodes evenly */
    size_t rj_idx;       /* the trainer replicated job in the runtime */
    const char *rj_name;
    json_t *rt;          /* the runtime with the TrainJob's runtime patches (owned) */
};

/* ---- TrainJob checks -------------------------------------------------------------------- */

static void tj_check_strings(struct chk *c, const json_t *o, const char *key, const char *parent)
{
    const json_t *a = chk_arr(c, o, key, parent, false);
    char path[FPATH_MAX], ipath[FPATH_MAX];
    size_t i;
    const json_t *v;
    fpath_field(path, parent, key);
    if (json_array_size(a) > TJ_MAX_ITEMS)
        ferr_add(c->errs, FERR_TOO_MANY, path, NULL, "must have at most %d items", TJ_MAX_ITEMS);
    json_array_foreach(a, i, v) {
        if (!json_is_string(v))
            ferr_add(c->errs, FERR_INVALID, fpath_index(ipath, parent, key, i), v,
                     "must be a string");
    }
}

static void tj_check_trainer(struct chk *c, const json_t *spec, struct tj *t)
{
    static const char *const p = "spec.trainer";
    const json_t *tr = chk_obj(c, spec, "trainer", "spec", false);
    long long procs;
    t->trainer = tr;
    if (!tr)
        return;
    t->have_nodes = chk_int(c, tr, "numNodes", p, 0, &t->num_nodes);
    (void)chk_int(c, tr, "numProcPerNode", p, 1, &procs);
    (void)chk_str(c, tr, "image", p, false);
    (void)chk_obj(c, tr, "resourcesPerNode", p, false);
    tj_check_strings(c, tr, "command", p);
    tj_check_strings(c, tr, "args", p);
    const json_t *env = chk_arr(c, tr, "env", p, false);
    if (json_array_size(env) > TJ_MAX_ITEMS)
        ferr_add(c->errs, FERR_TOO_MANY, "spec.trainer.env", NULL, "must have at most %d items",
                 TJ_MAX_ITEMS);
    if (env)
        conv_env(c, env, "spec.trainer.env", JAXRT_TRAINJOB);
}

static void tj_check_ref(struct chk *c, const json_t *spec, struct tj *t)
{
    static const char *const kinds[] = {"ClusterTrainingRuntime", "TrainingRuntime", NULL};
    static const char *const groups[] = {"trainer.kubeflow.org", NULL};
    static const char *const p = "spec.runtimeRef";
    const json_t *ref = chk_obj(c, spec, "runtimeRef", "spec", true);
    if (!ref)
        return;
    size_t mark = c->errs->n;
    t->rt_name = chk_str(c, ref, "name", p, true);
    t->rt_kind = chk_enum(c, ref, "kind", p, kinds, false);
    (void)chk_enum(c, ref, "apiGroup", p, groups, false);
    if (c->errs->n > mark)
        t->rt_name = NULL; /* no runtime check on a broken reference */
    if (!t->rt_kind)
        t->rt_kind = kinds[0];
}

static void tj_check_job(struct chk *c, const json_t *doc, struct tj *t)
{
    (void)conv_metadata(c, doc, true, &t->name, &t->ns);
    size_t mark = c->errs->n;
    const json_t *spec = chk_obj(c, doc, "spec", "", false);
    if (c->errs->n > mark)
        return; /* wrong type, reported */
    t->spec = spec;
    tj_check_ref(c, spec, t);
    tj_check_trainer(c, spec, t);
    tji_check(c, spec);
    t->have_suspend = chk_bool(c, spec, "suspend", "spec", &t->suspend);
    t->have_deadline = chk_int(c, spec, "activeDeadlineSeconds", "spec", 1, &t->deadline);
}

/* ---- runtime checks --------------------------------------------------------------------- */

static bool tj_check_identity(struct chk *c, const json_t *rt, const struct tj *t)
{
    const char *kind = jx_str(rt, "kind");
    const json_t *meta = jx_obj(rt, "metadata");
    const char *name = jx_str(meta, "name"), *ns = jx_str(meta, "namespace");
    if (!kind || strcmp(kind, t->rt_kind) != 0) {
        ferr_add_str(c->errs, FERR_INVALID, "spec.runtimeRef.kind", t->rt_kind,
                     "the runtime given is a %s", kind ? kind : "document without a kind");
        return false;
    }
    if (!name || strcmp(name, t->rt_name) != 0) {
        ferr_add_str(c->errs, FERR_INVALID, "spec.runtimeRef.name", t->rt_name,
                     "the %s given is named \"%s\"", kind, name ? name : "");
        return false;
    }
    if (strcmp(kind, "TrainingRuntime") == 0 &&
        strcmp(ns ? ns : "default", t->ns ? t->ns : "default") != 0) {
        ferr_add_str(c->errs, FERR_INVALID, "spec.runtimeRef.name", t->rt_name,
                     "TrainingRuntime \"%s\" is in namespace \"%s\", not in the TrainJob's "
                     "namespace \"%s\"",
                     name, ns ? ns : "default", t->ns ? t->ns : "default");
        return false;
    }
    return true;
}

static bool tj_check_policy(struct chk *c, const json_t *rt, struct tj *t)
{
    static const char *const others[] = {"torch", "mpi", "flux", "xgboost", NULL};
    const json_t *ml = jx_path(rt, "spec.mlPolicy");
    const json_t *jax = jx_obj(ml, "jax");
    long long n;
    if (jax) {
        if (chk_int(c, ml, "numNodes", "spec.mlPolicy", 0, &n) && !t->have_nodes)
            t->num_nodes = n;
        return true;
    }
    for (size_t i = 0; others[i]; i++) {
        if (json_object_get(ml, others[i])) {
            ferr_add_str(c->errs, FERR_NOT_SUPPORTED, "spec.mlPolicy", others[i],
                         "\"jax\" (%s \"%s\": jaxset runs JAX runtimes only)", t->rt_kind,
                         t->rt_name);
            return false;
        }
    }
    ferr_add(c->errs, FERR_REQUIRED, "spec.mlPolicy", NULL,
             "%s \"%s\" has no mlPolicy.jax: jaxset runs JAX runtimes only", t->rt_kind,
             t->rt_name);
    return false;
}

/* conv_util.h */
long conv_trainjob_trainer(const json_t *rjs)
{
    size_t i, idx;
    const json_t *rj;
    json_array_foreach(rjs, i, rj) {
        const char *step = jx_get_meta(jx_path(rj, "template.metadata"), "labels", TJI_ANCESTOR);
        if (step && strcmp(step, "trainer") == 0)
            return (long)i;
    }
    return chk_named(rjs, TJ_CONTAINER, SIZE_MAX, &idx) ? (long)idx : -1;
}

/* Multi-slice (kubeflow/trainer #3408, open upstream, a deliberate difference): a trainer job of
 * R replicas runs numNodes/R nodes in each of its R Jobs, so numNodes is the total of hosts and
 * JAX_NUM_PROCESSES; process ids run on across the Jobs (api/child/jaxrt.c). */
static void tj_check_replicas(struct chk *c, const json_t *rj, const char *rpath, struct tj *t)
{
    long long r = 1;
    if (!chk_int(c, rj, "replicas", rpath, 1, &r))
        r = 1;
    t->replicas = r;
    if (r <= 1 || t->num_nodes % r == 0)
        return;
    char rp[FPATH_MAX];
    json_t *v = json_integer(t->num_nodes);
    fpath_field(rp, rpath, "replicas");
    if (!v || ferr_add(c->errs, FERR_INVALID,
                       t->have_nodes ? "spec.trainer.numNodes" : "spec.mlPolicy.numNodes", v,
                       "must be a multiple of %s (%lld): each of the trainer's Jobs runs "
                       "numNodes/replicas nodes", rp, r) < 0)
        c->rc = -ENOMEM;
    json_decref(v);
}

static void tj_check_template(struct chk *c, const json_t *rt, struct tj *t)
{
    const json_t *rjs = jx_path(rt, TJ_RJS_PATH);
    char rpath[FPATH_MAX], cpath[FPATH_MAX];
    long idx = json_is_array(rjs) ? conv_trainjob_trainer(rjs) : -1;
    if (idx < 0) {
        ferr_add(c->errs, FERR_REQUIRED, TJ_RJS_PATH, NULL,
                 "%s \"%s\" has no replicated job labelled " TJI_ANCESTOR
                 "=trainer or named \"" TJ_CONTAINER "\"",
                 t->rt_kind, t->rt_name);
        return;
    }
    const json_t *rj = json_array_get(rjs, (size_t)idx);
    t->rj_idx = (size_t)idx;
    fpath_index(rpath, "spec.template.spec", "replicatedJobs", (size_t)idx);
    t->rj_name = chk_str(c, rj, "name", rpath, true);
    tj_check_replicas(c, rj, rpath, t);
    fpath_fmt(cpath, "%s.template.spec.template.spec.containers", rpath);
    const json_t *cts = conv_containers(c, jx_path(rj, "template.spec.template.spec"), cpath,
                                        JAXRT_TRAINJOB);
    if (!chk_named(cts, TJ_CONTAINER, SIZE_MAX, NULL))
        ferr_add(c->errs, FERR_REQUIRED, cpath, NULL,
                 "must have a container named \"" TJ_CONTAINER "\"");
}

static void tj_check_runtime(struct chk *c, const json_t *doc, const json_t *rt, struct tj *t)
{
    if (!rt) {
        ferr_add_str(c->errs, FERR_INVALID, "spec.runtimeRef.name", t->rt_name,
                     "no %s \"%s\" was given (put it in the same file or name its file on the "
                     "command line)",
                     t->rt_kind, t->rt_name);
        return;
    }
    /* a runtime of the wrong identity or framework says nothing useful about its template */
    if (!tj_check_identity(c, rt, t) || !tj_check_policy(c, rt, t))
        return;
    size_t mark = c->errs->n;
    t->rt = tjp_patched_runtime(doc, rt, c->errs);
    if (!t->rt && c->errs->n == mark)
        c->rc = -ENOMEM;
    if (t->rt)
        tj_check_template(c, t->rt, t);
}

/* ---- building --------------------------------------------------------------------------- */

static int tj_add_port(json_t *node)
{
    json_t *ports = jx_ensure_arr(node, "ports");
    size_t i;
    const json_t *p;
    if (!ports)
        return -ENOMEM;
    json_array_foreach(ports, i, p) {
        if (jx_int_or(p, "containerPort", -1) == TJ_PORT)
            return 0;
    }
    return json_array_append_new(ports, json_pack("{s:i}", "containerPort", TJ_PORT)) < 0
               ? -ENOMEM
               : 0;
}

/* Copies spec.trainer[key] (when set) into node[to]. */
static int tj_override(json_t *node, const json_t *tr, const char *key, const char *to)
{
    const json_t *v = json_object_get(tr, key);
    if (!v || json_is_null(v))
        return 0;
    return jx_set_new(node, to, json_deep_copy(v));
}

/* What kubeflow/trainer's JAX plugin (pkg/runtime/framework/plugins/jax/jax.go
 * EnforceMLPolicy) upserts into the trainer container's env when the TrainJob has
 * spec.trainer: the values the child Jobs get from api/jaxrt too (jaxrt_apply_job). */
static int tj_jax_env(json_t *node, const struct tj *t)
{
    char num[32], addr[600];
    snprintf(num, sizeof(num), "%lld", t->num_nodes);
    snprintf(addr, sizeof(addr), "%s-" TJ_CONTAINER "-0-0.%s:%d", t->name ? t->name : "",
             t->name ? t->name : "", TJ_PORT);
    json_t *env = json_pack("[{s:s,s:s},{s:s,s:{s:{s:s}}},{s:s,s:s}]", "name",
                            "JAX_NUM_PROCESSES", "value", num, "name", "JAX_PROCESS_ID",
                            "valueFrom", "fieldRef", "fieldPath",
                            "metadata.annotations['" ANN_JOB_COMPLETION_INDEX "']", "name",
                            "JAX_COORDINATOR_ADDRESS", "value", addr);
    int rc = env ? tji_merge_env(node, env) : -ENOMEM;
    json_decref(env);
    return rc;
}

static int tj_fill_node(json_t *node, const struct tj *t)
{
    const json_t *tr = t->trainer;
    const json_t *env = jx_arr(tr, "env");
    int rc = tj_override(node, tr, "image", "image");
    if (rc == 0)
        rc = tj_override(node, tr, "command", "command");
    if (rc == 0)
        rc = tj_override(node, tr, "args", "args");
    if (rc == 0 && env)
        rc = tji_merge_env(node, env);
    if (rc == 0)
        rc = tj_override(node, tr, "resourcesPerNode", "resources");
    if (rc == 0 && tr)
        rc = tj_jax_env(node, t);
    return rc == 0 ? tj_add_port(node) : rc;
}

static int tj_fill_rj(json_t *rj, const struct tj *t)
{
    json_t *jspec = jx_ensure_obj(jx_ensure_obj(rj, "template"), "spec");
    long long per_job = t->num_nodes / t->replicas;
    int rc = jspec ? jx_set_int(rj, "replicas", t->replicas) : -ENOMEM;
    if (rc == 0)
        rc = jx_set_int(jspec, "parallelism", per_job);
    if (rc == 0)
        rc = jx_set_int(jspec, "completions", per_job);
    if (rc == 0 && t->have_deadline)
        rc = jx_set_int(jspec, "activeDeadlineSeconds", t->deadline);
    json_t *node = chk_named(jx_arr(jx_path(jspec, "template.spec"), "containers"), TJ_CONTAINER,
                             SIZE_MAX, NULL);
    return rc == 0 ? tj_fill_node(node, t) : rc;
}

static json_t *tj_build(const json_t *rt, const struct tj *t)
{
    const json_t *tmeta = jx_path(rt, "spec.template.metadata");
    json_t *js = conv_jobset_new(t->name, t->ns, jx_obj(tmeta, "labels"),
                                 jx_obj(tmeta, "annotations"));
    json_t *spec = json_deep_copy(jx_path(rt, "spec.template.spec"));
    int rc = js && spec ? 0 : -ENOMEM;
    if (rc == 0) {
        json_object_del(spec, "suspend");
        rc = t->have_suspend ? jx_set_bool(spec, "suspend", t->suspend) : 0;
    }
    if (rc == 0)
        rc = tji_apply(spec, t->spec);
    if (rc == 0)
        rc = tj_fill_rj(json_array_get(jx_arr(spec, "replicatedJobs"), t->rj_idx), t);
    if (rc == 0)
        rc = tji_pod_group(spec, jx_path(rt, "spec.podGroupPolicy"), t->name);
    if (rc == 0) {
        rc = jx_set_new(js, "spec", spec);
        spec = NULL;
    }
    if (rc == 0)
        rc = conv_annotate(js, JAXRT_TRAINJOB, "TrainJob", TJ_PORT, t->rj_name);
    json_decref(spec);
    if (rc < 0) {
        json_decref(js);
        return NULL;
    }
    return js;
}

json_t *conv_trainjob(const json_t *doc, const json_t *runtime, struct ferr_list *errs)
{
    struct chk c;
    struct tj t = {.num_nodes = 1, .replicas = 1};
    chk_init(&c, errs, CHK_REPORT);
    tj_check_job(&c, doc, &t);
    if (t.rt_name)
        tj_check_runtime(&c, doc, runtime, &t);
    json_t *js = chk_result(&c) ? NULL : tj_build(t.rt, &t);
    json_decref(t.rt);
    return js;
}
