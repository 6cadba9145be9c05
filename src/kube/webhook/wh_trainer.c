/* The TrainJob validating webhook (kubeflow/trainer pkg/webhooks/trainjob_webhook.go), at
 * /validate-trainer-kubeflow-org-v1alpha1-trainjob for CREATE and UPDATE, with upstream's
 * messages:
 *   - the runtime registry (pkg/runtime/runtime.go RuntimeRefToRuntimeRegistryKey): a runtimeRef
 *     other than TrainingRuntime or ClusterTrainingRuntime of trainer.kubeflow.org is refused
 *     with "unsupported runtime: <Kind>.<group>";
 *   - the runtime must exist (pkg/runtime/core trainingruntime.go, clustertrainingruntime.go
 *     ValidateObjects, field path spelled as upstream spells each); a ClusterTrainingRuntime
 *     labelled trainer.kubeflow.org/support=deprecated gives upstream's warning;
 *   - the plugins that apply to a JAX runtime (the JAX plugin's Validate checks nothing): the
 *     JobSet plugin's (pkg/runtime/framework/plugins/jobset Validate) initializer jobs, runtime
 *     patches (manager, replicated jobs and containers the runtime has, no env for the
 *     initializer and node containers) and their immutability while the TrainJob stays
 *     unsuspended or its JobSet has active jobs.
 * Such refusals are plain errors upstream (an aggregate of field errors), so controller-runtime
 * answers 403 Forbidden with the aggregate's text.  The TrainJob CRD's own rules (runtimeRef and
 * managedBy immutable, managedBy's values) are checked too, with the API server's CEL messages,
 * for servers that do not evaluate CEL; a real kube-apiserver refuses first.  When the controller
 * does not watch runtimes (no cache), only the CRD's rules are checked. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/webhook/wh_jobset.h"
#include "obj/dns.h"
#include "obj/jx.h"
#include "obj/sbuf.h"

#define GROUP "trainer.kubeflow.org"
#define MANAGER_TRAINER "trainer.kubeflow.org/trainjob-controller"
#define MANAGER_KUEUE "kueue.x-k8s.io/multikueue"
#define DATASET "dataset-initializer"
#define MODEL "model-initializer"
#define NODE "node"
#define INIT_VOLUME "initializer"
#define DEPRECATION_URL                                                                         \
    "https://trainer.kubeflow.org/en/latest/operator-guides/runtime.html"                       \
    "#runtime-deprecation-policy"

/* What one review reads. */
struct tjv {
    const json_t *tj, *old, *ref, *rt; /* rt: the runtime, NULL when unknown */
    const json_t *js;                  /* the TrainJob's JobSet, NULL when none */
    struct ferr_list *errs;
};

/* runtimeRef as Go's field errors print it: {"name":..,"apiGroup":..,"kind":..}. */
static json_t *ref_value(const json_t *ref)
{
    json_t *v = json_object();
    const char *keys[] = {"name", "apiGroup", "kind"};
    for (size_t i = 0; v && i < 3; i++)
        if (jx_str(ref, keys[i]) && jx_set_str(v, keys[i], jx_str(ref, keys[i])) < 0) {
            json_decref(v);
            return NULL;
        }
    return v;
}

/* Adds "<path>: Invalid value: <runtimeRef>: <detail>"; takes `detail` (NULL: out of memory). */
static int ref_invalid(const struct tjv *t, const char *path, char *detail)
{
    json_t *v = ref_value(t->ref);
    int rc = v && detail ? ferr_add(t->errs, FERR_INVALID, path, v, "%s", detail) : -ENOMEM;
    json_decref(v);
    free(detail);
    return rc;
}

/* ---- the CRD's rules ---------------------------------------------------------------------- */

static bool same(const json_t *a, const json_t *b)
{
    return (!a && !b) || (a && b && json_equal(a, b));
}

int wh_trainjob_crd_rules(const json_t *tj, const json_t *old, struct ferr_list *errs)
{
    const char *mb = jx_str(jx_obj(tj, "spec"), "managedBy");
    int rc = 0;
    if (mb && strcmp(mb, MANAGER_TRAINER) != 0 && strcmp(mb, MANAGER_KUEUE) != 0)
        rc = ferr_add_str(errs, FERR_INVALID, "spec.managedBy", "string",
                          "ManagedBy must be " MANAGER_TRAINER " or " MANAGER_KUEUE " if set");
    if (!old)
        return rc;
    const json_t *s = jx_obj(tj, "spec"), *os = jx_obj(old, "spec");
    if (rc == 0 && !same(json_object_get(s, "runtimeRef"), json_object_get(os, "runtimeRef")))
        rc = ferr_add_str(errs, FERR_INVALID, "spec.runtimeRef", "object",
                          "runtimeRef is immutable");
    if (rc == 0 && json_object_get(os, "managedBy") &&
        !same(json_object_get(s, "managedBy"), json_object_get(os, "managedBy")))
        rc = ferr_add_str(errs, FERR_INVALID, "spec.managedBy", "string",
                          "ManagedBy value is immutable");
    return rc;
}

/* ---- the JobSet plugin ------------------------------------------------------------------- */

static const json_t *rt_rjob(const json_t *rt, const char *name)
{
    return jx_named(jx_arr(jx_path(rt, "spec.template.spec"), "replicatedJobs"), name);
}

static const json_t *rjob_container(const json_t *rj, const char *name)
{
    const json_t *pod = jx_path(rj, "template.spec.template.spec");
    const json_t *c = jx_named(jx_arr(pod, "initContainers"), name);
    return c ? c : jx_named(jx_arr(pod, "containers"), name);
}

static int initializer_check(const struct tjv *t, const char *job, const char *cfg)
{
    const json_t *rj = rt_rjob(t->rt, job);
    if (!rj)
        return ref_invalid(t, "spec.runtimeRef",
                           sb_fmt("must have %s job when trainJob is configured with input %s",
                                  job, cfg));
    if (!rjob_container(rj, job))
        return ref_invalid(t, "spec.runtimeRef",
                           sb_fmt("must have container with name - %s in the %s job", job, job));
    const json_t *c = jx_named(jx_arr(jx_path(rj, "template.spec.template.spec"), "containers"),
                                 job);
    if (jx_named(jx_arr(c, "volumeMounts"), INIT_VOLUME))
        return 0;
    return ref_invalid(t, "spec.runtimeRef",
                       sb_fmt("must have volumeMount with name - " INIT_VOLUME
                              " in container %s of the %s job", job, job));
}

static bool suspended(const json_t *tj)
{
    return json_is_true(json_object_get(jx_obj(tj, "spec"), "suspend"));
}

static int patches_immutable(const struct tjv *t)
{
    const char *path = "spec.runtimePatches";
    if (!t->old || same(json_object_get(jx_obj(t->tj, "spec"), "runtimePatches"),
                        json_object_get(jx_obj(t->old, "spec"), "runtimePatches")))
        return 0;
    if (!suspended(t->old) && !suspended(t->tj))
        return ferr_add(t->errs, FERR_FORBIDDEN, path, NULL,
                        "RuntimePatches can only be modified when the TrainJob is suspended "
                        "before or after the update");
    size_t i;
    json_t *st;
    json_array_foreach (jx_arr(jx_obj(t->js, "status"), "replicatedJobsStatus"), i, st)
        if (json_integer_value(json_object_get(st, "active")) > 0 &&
            ferr_add(t->errs, FERR_FORBIDDEN, path, NULL,
                     "RuntimePatches cannot be modified when the JobSet's ReplicatedJob %s is "
                     "still active", jx_str(st, "name") ? jx_str(st, "name") : "") < 0)
            return -ENOMEM;
    return 0;
}

/* Adds "spec.runtimePatches: Invalid value: <patches>: <detail>"; takes `detail`. */
static int patch_invalid(const struct tjv *t, char *detail)
{
    const json_t *v = json_object_get(jx_obj(t->tj, "spec"), "runtimePatches");
    int rc = detail ? ferr_add(t->errs, FERR_INVALID, "spec.runtimePatches", v, "%s", detail)
                    : -ENOMEM;
    free(detail);
    return rc;
}

static int rjob_patch_check(const struct tjv *t, const json_t *p)
{
    const char *name = jx_str(p, "name");
    const json_t *rj = rt_rjob(t->rt, name);
    if (!rj)
        return patch_invalid(t, strdup("must not have replicated job that doesn't exist in the "
                                       "runtime job template"));
    const json_t *pod = jx_path(p, "template.spec.template.spec");
    size_t i;
    json_t *c;
    json_array_foreach (jx_arr(pod, "initContainers"), i, c)
        if (!rjob_container(rj, jx_str(c, "name")) &&
            patch_invalid(t, sb_fmt("must not have initContainer that doesn't exist in the "
                                    "runtime job %s", name)) < 0)
            return -ENOMEM;
    json_array_foreach (jx_arr(pod, "containers"), i, c) {
        const char *cn = jx_str(c, "name");
        int rc = 0;
        if (!rjob_container(rj, cn))
            rc = patch_invalid(t, sb_fmt("must not have container that doesn't exist in the "
                                         "runtime job %s", name));
        else if (json_array_size(jx_arr(c, "env")) > 0 &&
                 (strcmp(cn, DATASET) == 0 || strcmp(cn, MODEL) == 0 || strcmp(cn, NODE) == 0))
            rc = patch_invalid(t, strdup("must not have envs for the " DATASET ", " MODEL
                                         ", " NODE " containers"));
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int patches_check(const struct tjv *t)
{
    size_t i, j;
    json_t *p, *rjp;
    json_array_foreach (jx_arr(jx_obj(t->tj, "spec"), "runtimePatches"), i, p) {
        const char *mgr = jx_str(p, "manager");
        if (dns_domain_prefixed_path(mgr ? mgr : "", "spec.runtimePatches.manager", t->errs) < 0)
            return -ENOMEM;
        json_array_foreach (jx_arr(jx_path(p, "trainingRuntimeSpec.template.spec"),
                                   "replicatedJobs"), j, rjp)
            if (rjob_patch_check(t, rjp) < 0)
                return -ENOMEM;
    }
    return 0;
}

int wh_trainjob_rules(const json_t *tj, const json_t *old, const json_t *rt, const json_t *js,
                      struct ferr_list *errs)
{
    struct tjv t = {tj, old, jx_path(tj, "spec.runtimeRef"), rt, js, errs};
    const json_t *init = jx_path(tj, "spec.initializer");
    int rc = 0;
    if (json_object_get(init, "dataset") && !json_is_null(json_object_get(init, "dataset")))
        rc = initializer_check(&t, DATASET, "datasetConfig");
    if (rc == 0 && json_object_get(init, "model") && !json_is_null(json_object_get(init, "model")))
        rc = initializer_check(&t, MODEL, "modelConfig");
    if (rc == 0)
        rc = patches_immutable(&t);
    if (rc == 0)
        rc = patches_check(&t);
    return rc < 0 || errs->rc < 0 ? -ENOMEM : 0;
}

/* ---- the handler ---------------------------------------------------------------------------- */

/* Denies with the aggregate of `errs` as controller-runtime answers a plain error. */
static int deny_aggregate(struct wh_adm_result *r, const struct ferr_list *errs)
{
    struct sbuf b = {0};
    bool oom = false;
    sb_puts(&b, errs->n > 1 ? "[" : "");
    for (size_t i = 0; i < errs->n; i++) {
        char *line = ferr_format(&errs->v[i]);
        oom = oom || !line;
        sb_printf(&b, "%s%s", i ? ", " : "", line ? line : "");
        free(line);
    }
    sb_puts(&b, errs->n > 1 ? "]" : "");
    int rc = oom || sb_failed(&b) ? -ENOMEM : wh_adm_deny(r, 403, "Forbidden", "%s", sb_str(&b));
    sb_free(&b);
    return rc;
}

/* The runtime spec.runtimeRef names: 0 (*rt set or, with a not-found error added, NULL),
 * 1 (no cache: unknown), or -errno. */
static int resolve(const struct wh_ctx *ctx, const json_t *tj, bool cluster, json_t **rt,
                   struct ferr_list *errs)
{
    const json_t *ref = jx_path(tj, "spec.runtimeRef");
    const char *name = jx_str(ref, "name");
    if (!ctx || !ctx->runtime_get)
        return 1;
    int rc = ctx->runtime_get(ctx->arg, cluster, jx_str(jx_obj(tj, "metadata"), "namespace"),
                              name ? name : "", rt);
    if (rc == -ENOSYS)
        return 1;
    if (rc < 0 || *rt)
        return rc;
    struct tjv t = {.ref = ref, .errs = errs};
    /* upstream spells the ClusterTrainingRuntime's path "spec.RuntimeRef" */
    return ref_invalid(&t, cluster ? "spec.RuntimeRef" : "spec.runtimeRef",
                       sb_fmt("%s." GROUP " \"%s\" not found: specified %s must be created "
                              "before the TrainJob is created",
                              cluster ? "clustertrainingruntimes" : "trainingruntimes",
                              name ? name : "",
                              cluster ? "clusterTrainingRuntime" : "trainingRuntime"));
}

static int warn_deprecated(const json_t *rt, struct wh_adm_result *r)
{
    const char *s = jx_str(jx_obj(jx_obj(rt, "metadata"), "labels"), GROUP "/support");
    if (!s || strcmp(s, "deprecated") != 0)
        return 0;
    char *w = sb_fmt("Referenced ClusterTrainingRuntime \"%s\" is deprecated and will be removed "
                     "in a future release of Kubeflow Trainer. See runtime deprecation policy: "
                     DEPRECATION_URL, jx_str(jx_obj(rt, "metadata"), "name"));
    if (!r->warnings)
        r->warnings = json_array();
    int rc = w && r->warnings ? json_array_append_new(r->warnings, json_string(w)) : -ENOMEM;
    free(w);
    return rc < 0 ? -ENOMEM : 0;
}

static int unsupported(const json_t *tj, struct wh_adm_result *r)
{
    const json_t *ref = jx_path(tj, "spec.runtimeRef");
    const char *kind = jx_str(ref, "kind"), *group = jx_str(ref, "apiGroup");
    kind = kind ? kind : "";
    bool ok = group && strcmp(group, GROUP) == 0 &&
              (strcmp(kind, "TrainingRuntime") == 0 || strcmp(kind, "ClusterTrainingRuntime") == 0);
    if (ok)
        return 0;
    int rc = group && *group ? wh_adm_deny(r, 403, "Forbidden", "unsupported runtime: %s.%s", kind,
                                        group)
                             : wh_adm_deny(r, 403, "Forbidden", "unsupported runtime: %s", kind);
    return rc < 0 ? rc : 1;
}

static int runtime_rules(const struct wh_ctx *ctx, const json_t *tj, const json_t *old,
                         struct wh_adm_result *r, struct ferr_list *errs)
{
    const char *kind = jx_str(jx_path(tj, "spec.runtimeRef"), "kind");
    bool cluster = kind && strcmp(kind, "ClusterTrainingRuntime") == 0;
    json_t *rt = NULL, *js = NULL;
    int rc = resolve(ctx, tj, cluster, &rt, errs);
    if (rc != 0 || !rt)
        goto out;
    if (cluster && (rc = warn_deprecated(rt, r)) < 0)
        goto out;
    const json_t *md = jx_obj(tj, "metadata");
    if (old && ctx->jobset_get)
        js = ctx->jobset_get(ctx->arg, jx_str(md, "namespace"), jx_str(md, "name"));
    rc = wh_trainjob_rules(tj, old, rt, js, errs);
out:
    json_decref(rt);
    json_decref(js);
    return rc < 0 ? rc : 0;
}

int wh_trainjob_validate(void *arg, const json_t *req, struct wh_adm_result *r)
{
    const struct wh_ctx *ctx = arg;
    const json_t *tj = jx_obj(req, "object");
    const char *op = jx_str(req, "operation");
    if (!tj || !op || (strcmp(op, "CREATE") != 0 && strcmp(op, "UPDATE") != 0))
        return 0;
    const json_t *old = strcmp(op, "UPDATE") == 0 ? jx_obj(req, "oldObject") : NULL;
    struct ferr_list errs;
    ferr_list_init(&errs);
    int rc = wh_trainjob_crd_rules(tj, old, &errs);
    if (rc == 0 && errs.rc == 0 && errs.n > 0) {
        rc = wh_adm_deny_invalid(r, GROUP, "TrainJob", jx_str(jx_obj(tj, "metadata"), "name"),
                              &errs);
        goto out;
    }
    if (rc == 0 && (rc = unsupported(tj, r)) != 0)
        goto out;
    rc = runtime_rules(ctx, tj, old, r, &errs);
    if (rc == 0 && errs.rc < 0)
        rc = errs.rc;
    if (rc == 0 && errs.n > 0)
        rc = deny_aggregate(r, &errs);
out:
    ferr_list_release(&errs);
    return rc < 0 ? rc : 0;
}
