/* The webhook configurations and the CA bundle injection (see wh_config.h). */
#include "kube/webhook/wh_config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/admit/trainjob_admission.h"
#include "api/schema/keys.h"
#include "kube/webhook/wh_jobset.h"
#include "obj/tree/jx.h"
#include "obj/base/sbuf.h"

/* What a webhook's objectSelector selects. */
enum sel {
    SEL_ALL,
    SEL_JOBSET_PODS,  /* the jobset-name label exists */
    SEL_VALIDATED,    /* trainer.kubeflow.org/webhook-validation NotIn [disabled] (kubeflow/
                       * trainer v2.3.0 manifests/base/webhook/patch_validating.yaml, #3683) */
};

static const struct hook {
    bool mutating;
    const char *name, *path, *group, *version, *resource, *ops[2];
    enum sel sel;
} hooks[] = {
    {true, "mjobset.kb.io", WH_PATH_MUTATE_JOBSET, "jobset.x-k8s.io", "v1alpha2", "jobsets",
     {"CREATE", NULL}, SEL_ALL},
    {true, "mpod.kb.io", WH_PATH_MUTATE_POD, "", "v1", "pods", {"CREATE", NULL}, SEL_JOBSET_PODS},
    {false, "vjobset.kb.io", WH_PATH_VALIDATE_JOBSET, "jobset.x-k8s.io", "v1alpha2", "jobsets",
     {"CREATE", "UPDATE"}, SEL_ALL},
    /* exclusive placement's ValidateCreate (upstream pkg/webhooks/pod_webhook.go) */
    {false, "vpod.kb.io", WH_PATH_VALIDATE_POD, "", "v1", "pods", {"CREATE", NULL},
     SEL_JOBSET_PODS},
    /* kubeflow/training-operator's name; harmless while no JAXJob CRD is installed */
    {false, "validator.jaxjob.training-operator.kubeflow.org", WH_PATH_VALIDATE_JAXJOB,
     "kubeflow.org", "v1", "jaxjobs", {"CREATE", "UPDATE"}, SEL_ALL},
    /* kubeflow/trainer's name; harmless while no TrainJob CRD is installed */
    {false, "validator.trainjob.trainer.kubeflow.org", WH_PATH_VALIDATE_TRAINJOB,
     "trainer.kubeflow.org", "v1alpha1", "trainjobs", {"CREATE", "UPDATE"}, SEL_ALL},
    /* kubeflow/trainer's runtime webhooks, which a runtime labelled disabled opts out of */
    {false, "validator.clustertrainingruntime.trainer.kubeflow.org",
     WH_PATH_VALIDATE_CLUSTERTRAININGRUNTIME, "trainer.kubeflow.org", "v1alpha1",
     "clustertrainingruntimes", {"CREATE", "UPDATE"}, SEL_VALIDATED},
    {false, "validator.trainingruntime.trainer.kubeflow.org", WH_PATH_VALIDATE_TRAININGRUNTIME,
     "trainer.kubeflow.org", "v1alpha1", "trainingruntimes", {"CREATE", "UPDATE"},
     SEL_VALIDATED},
};

static char *url_of(const char *base, const char *path)
{
    size_t n = strlen(base);
    while (n && base[n - 1] == '/')
        n--;
    return sb_fmt("%.*s%s", (int)n, base, path);
}

static json_t *client_config(const struct hook *h, const char *svc_ns, const char *svc_name,
                             const char *url_base)
{
    if (url_base) {
        char *url = url_of(url_base, h->path);
        json_t *c = url ? json_pack("{s:s}", "url", url) : NULL;
        free(url);
        return c;
    }
    return json_pack("{s:{s:s,s:s,s:s,s:i}}", "service", "name", svc_name, "namespace", svc_ns,
                     "path", h->path, "port", 443);
}

static json_t *selector(enum sel sel)
{
    if (sel == SEL_JOBSET_PODS)
        return json_pack("{s:[{s:s,s:s}]}", "matchExpressions", "key", LBL_JOBSET_NAME,
                         "operator", "Exists");
    return json_pack("{s:[{s:s,s:s,s:[s]}]}", "matchExpressions", "key",
                     TJA_LABEL_WEBHOOK_VALIDATION, "operator", "NotIn", "values",
                     "disabled");
}

static json_t *webhook(const struct hook *h, const char *svc_ns, const char *svc_name,
                       const char *url_base)
{
    json_t *ops = json_array();
    for (size_t i = 0; ops && i < 2 && h->ops[i]; i++)
        json_array_append_new(ops, json_string(h->ops[i]));
    json_t *w = json_pack(
        "{s:s,s:[s],s:o,s:s,s:s,s:i,s:s,s:[{s:[s],s:[s],s:o,s:[s],s:s}]}", "name", h->name,
        "admissionReviewVersions", "v1", "clientConfig",
        client_config(h, svc_ns, svc_name, url_base), "failurePolicy", "Fail", "sideEffects",
        "None", "timeoutSeconds", 10, "matchPolicy", "Equivalent", "rules", "apiGroups",
        h->group, "apiVersions", h->version, "operations", ops, "resources", h->resource,
        "scope", "*");
    if (w && h->sel != SEL_ALL && jx_set_new(w, "objectSelector", selector(h->sel)) < 0) {
        json_decref(w);
        return NULL;
    }
    if (w && h->mutating && jx_set_str(w, "reinvocationPolicy", "Never") < 0) {
        json_decref(w);
        return NULL;
    }
    return w;
}

json_t *wh_config_new(bool mutating, const char *name, const char *svc_ns, const char *svc_name,
                     const char *url_base)
{
    json_t *list = json_array();
    for (size_t i = 0; list && i < sizeof(hooks) / sizeof(hooks[0]); i++) {
        if (hooks[i].mutating != mutating)
            continue;
        json_t *w = webhook(&hooks[i], svc_ns, svc_name, url_base);
        if (!w || json_array_append_new(list, w) < 0) {
            json_decref(list);
            return NULL;
        }
    }
    if (!list)
        return NULL;
    return json_pack("{s:s,s:s,s:{s:s,s:{s:s}},s:o}", "apiVersion",
                     "admissionregistration.k8s.io/v1", "kind",
                     mutating ? "MutatingWebhookConfiguration"
                              : "ValidatingWebhookConfiguration",
                     "metadata", "name", name, "labels", "app.kubernetes.io/part-of", "jaxset",
                     "webhooks", list);
}

static const char *builtin_path(const char *name)
{
    for (size_t i = 0; name && i < sizeof(hooks) / sizeof(hooks[0]); i++)
        if (strcmp(hooks[i].name, name) == 0)
            return hooks[i].path;
    return NULL;
}

int wh_config_inject(json_t *cfg, const char *ca_b64, const char *url_base)
{
    int changed = 0;
    size_t i;
    json_t *w;
    json_array_foreach (jx_arr(cfg, "webhooks"), i, w) {
        json_t *cc = jx_ensure_obj(w, "clientConfig");
        if (!cc)
            return -ENOMEM;
        if (url_base) {
            const char *path = jx_str(jx_obj(cc, "service"), "path");
            if (!path)
                path = builtin_path(jx_str(w, "name"));
            char *url = url_of(url_base, path ? path : "/");
            if (!url)
                return -ENOMEM;
            if (!jx_str(cc, "url") || strcmp(jx_str(cc, "url"), url) != 0 ||
                json_object_get(cc, "service")) {
                json_object_del(cc, "service");
                changed = 1;
                if (jx_set_str(cc, "url", url) < 0) {
                    free(url);
                    return -ENOMEM;
                }
            }
            free(url);
        }
        const char *cur = jx_str(cc, "caBundle");
        if (!cur || strcmp(cur, ca_b64) != 0) {
            changed = 1;
            if (jx_set_str(cc, "caBundle", ca_b64) < 0)
                return -ENOMEM;
        }
    }
    return changed;
}
