/* The TrainJob validating webhook (kubeflow/trainer pkg/webhooks/trainjob_webhook.go), and the
 * runtimes' (below, "the runtime webhooks").  The TrainJob webhook is at
 * /validate-trainer-kubeflow-org-v1alpha1-trainjob for CREATE and UPDATE, with upstream's
 * messages:
 *   - the runtime registry (pkg/runtime/runtime.go RuntimeRefToRuntimeRegistryKey): a runtimeRef
 *     other than TrainingRuntime or ClusterTrainingRuntime of trainer.kubeflow.org is refused
 *     with "unsupported runtime: <Kind>.<group>";
 *   - the runtime must exist (pkg/runtime/core trainingruntime.go, clustertrainingruntime.go
 *     ValidateObjects, field path spelled as upstream spells each); a ClusterTrainingRuntime
 *     labelled trainer.kubeflow.org/support=deprecated gives upstream's warning;
 *   - the plugins' rules (api/admit/trainjob_admission.h tja_plugin_rules: jobset, torch, mpi,
 *     flux), the same rules `jaxset validate --cluster` checks.
 * Such refusals are plain errors upstream (an aggregate of field errors), so controller-runtime
 * answers 403 Forbidden with the aggregate's text.  The TrainJob CRD's own rules
 * (api/admit/trainjob_admission.h tja_crd_rules) are checked too, with the API server's CEL
 * messages, for servers that do not evaluate CEL; a real kube-apiserver refuses first.  When the
 * controller does not watch runtimes (no cache), only the CRD's rules are checked. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/admit/trainjob_admission.h"
#include "kube/webhook/wh_jobset.h"
#include "obj/tree/jx.h"
#include "obj/base/sbuf.h"

#define GROUP TJA_GROUP

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
    return tja_runtime_missing(tj, cluster, errs);
}

static int warn_deprecated(const json_t *rt, struct wh_adm_result *r)
{
    bool oom;
    char *w = tja_deprecation_warning(rt, true, &oom);
    if (!w)
        return oom ? -ENOMEM : 0;
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
    rc = tja_plugin_rules(tj, old, rt, js, errs);
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
    int rc = tja_crd_rules(tj, old, &errs);
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

/* ---- the runtime webhooks ------------------------------------------------------------------
 * kubeflow/trainer v2.3.0 pkg/webhooks/trainingruntime_webhook.go and
 * clustertrainingruntime_webhook.go, at /validate-trainer-kubeflow-org-v1alpha1-trainingruntime
 * and ...-clustertrainingruntime: validateReplicatedJobs (tja_runtime_webhook_rules) on CREATE
 * of either kind and on UPDATE of a ClusterTrainingRuntime (a TrainingRuntime's UPDATE is
 * admitted as it is), refused as a plain error (403 with the aggregate, as the TrainJob's); the
 * creation of a ClusterTrainingRuntime labelled trainer.kubeflow.org/support=deprecated gets
 * upstream's warning.  Like upstream's, the handler does not read
 * trainer.kubeflow.org/webhook-validation: the webhook configurations' objectSelector keeps the
 * runtimes labelled "disabled" away from it (wh_config.c, config/webhook). */

static int warn(struct wh_adm_result *r, char *w)
{
    if (!r->warnings)
        r->warnings = json_array();
    int rc = r->warnings ? json_array_append_new(r->warnings, json_string(w)) : -1;
    free(w);
    return rc < 0 ? -ENOMEM : 0;
}

int wh_runtime_validate(void *arg, const json_t *req, struct wh_adm_result *r)
{
    (void)arg;
    const json_t *rt = jx_obj(req, "object");
    const char *op = jx_str(req, "operation"), *kind = jx_str(jx_obj(req, "kind"), "kind");
    bool cluster = kind && strcmp(kind, "ClusterTrainingRuntime") == 0;
    bool create = op && strcmp(op, "CREATE") == 0, update = op && strcmp(op, "UPDATE") == 0;
    struct ferr_list errs;
    bool oom = false;
    if (!rt || !(create || (update && cluster)))
        return 0;
    ferr_list_init(&errs);
    char *w = create && cluster ? tja_deprecation_warning(rt, false, &oom) : NULL;
    int rc = oom ? -ENOMEM : w ? warn(r, w) : 0;
    if (rc == 0)
        rc = tja_runtime_webhook_rules(rt, &errs);
    if (rc == 0 && errs.rc < 0)
        rc = errs.rc;
    if (rc == 0 && errs.n > 0)
        rc = deny_aggregate(r, &errs);
    ferr_list_release(&errs);
    return rc < 0 ? rc : 0;
}
