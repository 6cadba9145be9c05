/* kc_res: kinds and their REST paths (kc_res.h). */
#include "kube/client/kc_res.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kube/client/kc.h"
#include "obj/tree/jx.h"
#include "obj/base/sbuf.h"

static const struct kc_res kinds[] = {
    {"JobSet", "jobset.x-k8s.io", "v1alpha2", "jobsets", "jobset", "js", true, JOB_KIND_JOBSET},
    {"JAXJob", "kubeflow.org", "v1", "jaxjobs", "jaxjob", NULL, true, JOB_KIND_JAXJOB},
    {"TrainJob", "trainer.kubeflow.org", "v1alpha1", "trainjobs", "trainjob", NULL, true,
     JOB_KIND_TRAINJOB},
    {"TrainingRuntime", "trainer.kubeflow.org", "v1alpha1", "trainingruntimes",
     "trainingruntime", NULL, true, JOB_KIND_OTHER},
    {"ClusterTrainingRuntime", "trainer.kubeflow.org", "v1alpha1", "clustertrainingruntimes",
     "clustertrainingruntime", NULL, false, JOB_KIND_OTHER},
    {"ConfigMap", "", "v1", "configmaps", "configmap", "cm", true, JOB_KIND_OTHER},
    {"Secret", "", "v1", "secrets", "secret", NULL, true, JOB_KIND_OTHER},
    {"Job", "batch", "v1", "jobs", "job", NULL, true, JOB_KIND_OTHER},
    {"Pod", "", "v1", "pods", "pod", "po", true, JOB_KIND_OTHER},
    {"Event", "", "v1", "events", "event", "ev", true, JOB_KIND_OTHER},
};
#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))

static bool names(const struct kc_res *r, const char *w)
{
    size_t n = strlen(r->plural);
    if (!strcasecmp(w, r->kind) || !strcasecmp(w, r->plural) || !strcasecmp(w, r->singular) ||
        (r->short_name && !strcasecmp(w, r->short_name)))
        return true;
    return r->group[0] && !strncasecmp(w, r->plural, n) && w[n] == '.' &&
           !strcasecmp(w + n + 1, r->group);
}

const struct kc_res *kc_res_find(const char *word)
{
    for (size_t i = 0; word && i < N_KINDS; i++)
        if (names(&kinds[i], word))
            return &kinds[i];
    return NULL;
}

const struct kc_res *kc_res_of(const json_t *obj)
{
    const char *av = jx_str(obj, "apiVersion"), *kind = jx_str(obj, "kind");
    if (!av || !kind)
        return NULL;
    const char *slash = strchr(av, '/');
    for (size_t i = 0; i < N_KINDS; i++) {
        const struct kc_res *r = &kinds[i];
        size_t gl = strlen(r->group);
        bool group_ok = slash ? (size_t)(slash - av) == gl && !strncmp(av, r->group, gl)
                              : gl == 0;
        if (group_ok && !strcmp(slash ? slash + 1 : av, r->version) && !strcmp(kind, r->kind))
            return r;
    }
    return NULL;
}

const char *kc_res_job_kinds(void)
{
    return "jobset, jaxjob, trainjob";
}

char *kc_res_path(const struct kc_res *r, const char *ns, const char *name, const char *sub)
{
    struct sbuf b = {0};
    char *ens = ns ? kc_escape(ns) : NULL, *ename = name ? kc_escape(name) : NULL;
    if ((ns && !ens) || (name && !ename)) {
        free(ens);
        free(ename);
        return NULL;
    }
    ns = ens; /* a name typed on a command line is one path segment, whatever it holds */
    name = ename;
    if (r->group[0])
        sb_printf(&b, "/apis/%s/%s", r->group, r->version);
    else
        sb_printf(&b, "/api/%s", r->version);
    if (r->namespaced && ns)
        sb_printf(&b, "/namespaces/%s", ns);
    sb_printf(&b, "/%s", r->plural);
    if (name)
        sb_printf(&b, "/%s", name);
    if (name && sub)
        sb_printf(&b, "/%s", sub);
    free(ens);
    free(ename);
    return sb_detach(&b);
}

const char *kc_res_qualified(const struct kc_res *r, char out[KC_RES_QUALIFIED_MAX])
{
    if (r->group[0])
        snprintf(out, KC_RES_QUALIFIED_MAX, "%s.%s", r->singular, r->group);
    else
        snprintf(out, KC_RES_QUALIFIED_MAX, "%s", r->singular);
    return out;
}
