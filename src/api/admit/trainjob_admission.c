/* trainjob_admission: see trainjob_admission.h. */
#include "api/admit/trainjob_admission.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/kubeflow/trainjob_init.h"
#include "obj/tree/dns.h"
#include "obj/tree/jx.h"
#include "obj/base/sbuf.h"

#define DATASET "dataset-initializer"
#define MODEL "model-initializer"
#define NODE "node"
#define INIT_VOLUME "initializer"
#define ANCESTOR "trainer.kubeflow.org/trainjob-ancestor-step"
#define ITEM_MAX 1048576 /* trainjob_types.go: +kubebuilder:validation:items:MaxLength */
#define IMMUTABLE "field is immutable"
#define DEPRECATION_URL                                                                         \
    "https://trainer.kubeflow.org/en/latest/operator-guides/runtime.html"                       \
    "#runtime-deprecation-policy"

static bool same(const json_t *a, const json_t *b)
{
    return (!a && !b) || (a && b && json_equal(a, b));
}

/* A CEL rule's error: "<path>: Invalid value: \"<type>\": <message>". */
static int cel(struct ferr_list *errs, const char *path, const char *type, const char *msg)
{
    return ferr_add_str(errs, FERR_INVALID, path, type, "%s", msg);
}

/* The transition rule self == oldSelf, evaluated when both objects have the field. */
static int immutable(struct ferr_list *errs, const json_t *o, const json_t *old, const char *key,
                     const char *path, const char *type)
{
    const json_t *a = json_object_get(o, key), *b = json_object_get(old, key);
    return a && b && !json_equal(a, b) ? cel(errs, path, type, IMMUTABLE) : 0;
}

/* ---- the TrainJob CRD ------------------------------------------------------------------ */

static int name_rules(const json_t *tj, struct ferr_list *errs)
{
    const char *name = jx_str(jx_obj(tj, "metadata"), "name");
    int rc = 0;
    if (!name)
        return 0;
    size_t n = strlen(name);
    bool ok = n > 0 && islower((unsigned char)name[0]) && name[n - 1] != '-';
    for (size_t i = 0; ok && i < n; i++)
        ok = islower((unsigned char)name[i]) || isdigit((unsigned char)name[i]) || name[i] == '-';
    if (!ok)
        rc = cel(errs, "metadata.name", "object",
                 "metadata.name must match RFC 1035 DNS label format");
    if (rc == 0 && n > DNS1035_LABEL_MAX)
        rc = cel(errs, "metadata.name", "object", "metadata.name must be no more than 63 "
                                                  "characters");
    return rc;
}

/* self == '' || self.matches('^[A-Za-z][A-Za-z0-9+.-]*://.+$') */
static bool storage_uri_ok(const char *s)
{
    if (!*s)
        return true;
    if (!isalpha((unsigned char)*s))
        return false;
    while (isalnum((unsigned char)*s) || *s == '+' || *s == '.' || *s == '-')
        s++;
    return strncmp(s, "://", 3) == 0 && s[3] != 0;
}

static int storage_rules(const json_t *spec, struct ferr_list *errs)
{
    static const char *const kinds[] = {"dataset", "model"};
    char path[FPATH_MAX];
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < 2; i++) {
        const char *uri = jx_str(jx_obj(jx_obj(spec, "initializer"), kinds[i]), "storageUri");
        if (!uri)
            continue;
        fpath_fmt(path, "spec.initializer.%s.storageUri", kinds[i]);
        if (strlen(uri) > 2048)
            rc = ferr_add(errs, FERR_TOO_LONG, path, NULL, "may not be more than 2048 bytes");
        else if (!storage_uri_ok(uri))
            rc = cel(errs, path, "string",
                     "storageUri may be empty, or it must be a valid URI (scheme://...)");
    }
    return rc;
}

static int trainer_rules(const json_t *tr, struct ferr_list *errs)
{
    static const char *const keys[] = {"command", "args"};
    char path[FPATH_MAX];
    size_t i;
    const json_t *v;
    int rc = 0;
    const char *image = jx_str(tr, "image");
    if (image && strlen(image) > 500)
        rc = ferr_add(errs, FERR_TOO_LONG, "spec.trainer.image", NULL,
                      "may not be more than 500 bytes");
    for (size_t k = 0; rc == 0 && k < 2; k++)
        json_array_foreach (jx_arr(tr, keys[k]), i, v)
            if (rc == 0 && json_is_string(v) && json_string_length(v) > ITEM_MAX)
                rc = ferr_add(errs, FERR_TOO_LONG,
                              fpath_fmt(path, "spec.trainer.%s[%zu]", keys[k], i), NULL,
                              "may not be more than %d bytes", ITEM_MAX);
    return rc;
}

#define PATCH_POD                                                                               \
    "trainingRuntimeSpec.template.spec.replicatedJobs[%zu].template.spec.template.spec"

static const json_t *patch_rjobs(const json_t *p)
{
    return jx_arr(jx_path(p, "trainingRuntimeSpec.template.spec"), "replicatedJobs");
}

static const json_t *patch_pod(const json_t *rj)
{
    return jx_path(rj, "template.spec.template.spec");
}

/* The pod-spec patch's rules: terminationGracePeriodSeconds >= 0, serviceAccountName at most
 * 253 bytes, both immutable. */
static int pod_patch_rules(const json_t *pod, const json_t *old_pod, const char *ppath,
                           struct ferr_list *errs)
{
    char path[FPATH_MAX], sa[FPATH_MAX];
    const json_t *g = json_object_get(pod, "terminationGracePeriodSeconds");
    const char *name = jx_str(pod, "serviceAccountName");
    int rc = 0;
    fpath_field(path, ppath, "terminationGracePeriodSeconds");
    fpath_field(sa, ppath, "serviceAccountName");
    if (json_is_integer(g) && json_integer_value(g) < 0)
        rc = ferr_add(errs, FERR_INVALID, path, g, "%s in body should be greater than or equal "
                      "to 0", path);
    else
        rc = immutable(errs, pod, old_pod, "terminationGracePeriodSeconds", path, "integer");
    if (rc == 0 && name && strlen(name) > 253)
        rc = ferr_add(errs, FERR_TOO_LONG, sa, NULL, "may not be more than 253 bytes");
    if (rc == 0)
        rc = immutable(errs, pod, old_pod, "serviceAccountName", sa, "string");
    return rc;
}

static const json_t *by_manager(const json_t *old_spec, const char *mgr)
{
    size_t i;
    json_t *p;
    json_array_foreach (jx_arr(old_spec, "runtimePatches"), i, p)
        if (mgr && jx_str(p, "manager") && strcmp(jx_str(p, "manager"), mgr) == 0)
            return p;
    return NULL;
}

static int patch_rules(const json_t *spec, const json_t *old_spec, struct ferr_list *errs)
{
    char path[FPATH_MAX], ppath[FPATH_MAX];
    size_t i, j;
    json_t *p, *rj;
    int rc = 0;
    json_array_foreach (jx_arr(spec, "runtimePatches"), i, p) {
        const char *mgr = jx_str(p, "manager");
        const json_t *op = by_manager(old_spec, mgr);
        fpath_fmt(path, "spec.runtimePatches[%zu].manager", i);
        if (mgr && strlen(mgr) > 253)
            rc = ferr_add(errs, FERR_TOO_LONG, path, NULL, "may not be more than 253 bytes");
        json_array_foreach (patch_rjobs(p), j, rj) {
            fpath_fmt(ppath, "spec.runtimePatches[%zu]." PATCH_POD, i, j);
            const json_t *orj = jx_named(patch_rjobs(op), jx_str(rj, "name"));
            if (rc == 0)
                rc = pod_patch_rules(patch_pod(rj), patch_pod(orj), ppath, errs);
        }
        if (rc < 0)
            return rc;
    }
    return rc;
}

static int managed_by_rule(const json_t *spec, struct ferr_list *errs)
{
    const char *mb = jx_str(spec, "managedBy");
    if (!mb || strcmp(mb, TJA_MANAGER_TRAINER) == 0 || strcmp(mb, TJA_MANAGER_KUEUE) == 0)
        return 0;
    return cel(errs, "spec.managedBy", "string",
               "ManagedBy must be " TJA_MANAGER_TRAINER " or " TJA_MANAGER_KUEUE " if set");
}

static int update_rules(const json_t *s, const json_t *os, struct ferr_list *errs)
{
    static const struct {
        const char *key, *type;
    } keys[] = {{"runtimeRef", "object"}, {"managedBy", "string"}, {"initializer", "object"},
                {"trainer", "object"}, {"activeDeadlineSeconds", "integer"}};
    char path[FPATH_MAX];
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < sizeof(keys) / sizeof(keys[0]); i++)
        rc = immutable(errs, s, os, keys[i].key, fpath_field(path, "spec", keys[i].key),
                       keys[i].type);
    return rc;
}

int tja_crd_rules(const json_t *tj, const json_t *old, struct ferr_list *errs)
{
    const json_t *s = jx_obj(tj, "spec"), *os = old ? jx_obj(old, "spec") : NULL;
    int rc = name_rules(tj, errs);
    if (rc == 0)
        rc = managed_by_rule(s, errs);
    if (rc == 0)
        rc = storage_rules(s, errs);
    if (rc == 0)
        rc = trainer_rules(jx_obj(s, "trainer"), errs);
    if (rc == 0)
        rc = patch_rules(s, os, errs);
    if (rc == 0 && os)
        rc = update_rules(s, os, errs);
    return rc < 0 || errs->rc < 0 ? -ENOMEM : 0;
}

/* ---- the runtimes' CRDs and webhook --------------------------------------------------- */

int tja_runtime_crd_rules(const json_t *rt, struct ferr_list *errs)
{
    static const char *const policies[] = {"torch", "mpi", "jax", "xgboost", "flux"};
    const json_t *ml = jx_path(rt, "spec.mlPolicy");
    const json_t *procs = jx_path(ml, "flux.numProcPerNode");
    int n = 0, rc = 0;
    for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++)
        n += json_object_get(ml, policies[i]) != NULL;
    if (n > 1)
        rc = cel(errs, "spec.mlPolicy", "object", "Only one of the policy can be configured");
    const char *mpi = jx_str(jx_obj(ml, "mpi"), "mpiImplementation");
    if (rc == 0 && mpi && *mpi && strcmp(mpi, "OpenMPI") != 0)
        rc = ferr_add_str(errs, FERR_NOT_SUPPORTED, "spec.mlPolicy.mpi.mpiImplementation", mpi,
                          "\"OpenMPI\", \"\"");
    if (rc == 0 && json_is_integer(procs) && json_integer_value(procs) < 1)
        rc = cel(errs, "spec.mlPolicy.flux.numProcPerNode", "integer",
                 "NumProcPerNode in fluxPolicy must be >= 1");
    return rc < 0 ? -ENOMEM : 0;
}

static const char *required_container(const char *ancestor)
{
    if (strcmp(ancestor, "trainer") == 0)
        return NODE;
    if (strcmp(ancestor, DATASET) == 0 || strcmp(ancestor, MODEL) == 0)
        return ancestor;
    return NULL;
}

int tja_runtime_webhook_rules(const json_t *rt, struct ferr_list *errs)
{
    char path[FPATH_MAX];
    size_t i;
    json_t *rj;
    int rc = 0;
    json_array_foreach (jx_arr(jx_path(rt, "spec.template.spec"), "replicatedJobs"), i, rj) {
        const char *anc = jx_get_meta(jx_path(rj, "template.metadata"), "labels", ANCESTOR);
        const char *want = anc ? required_container(anc) : NULL;
        if (!want)
            continue;
        /* absent: 1 (the JobSet CRD's default).  A deliberate difference: the trainer job may
         * have several replicas (multi-slice, kubeflow/trainer #3408, still open upstream),
         * numNodes split evenly across them (api/convert/conv_trainjob.c tj_fill_rj). */
        const json_t *reps = json_object_get(rj, "replicas");
        bool trainer = strcmp(anc, "trainer") == 0;
        if (reps && (trainer ? json_integer_value(reps) < 1 : json_integer_value(reps) != 1))
            rc = ferr_add(errs, FERR_INVALID, fpath_fmt(path, "spec.template.spec."
                                                              "replicatedJobs[%zu].replicas", i),
                          reps, trainer ? "must be greater than or equal to 1"
                                        : "always must be 1");
        const json_t *cts = jx_arr(jx_path(rj, "template.spec.template.spec"), "containers");
        if (rc == 0 && !jx_named(cts, want))
            rc = ferr_add(errs, FERR_INVALID,
                          fpath_fmt(path, "spec.template.spec.replicatedJobs[%zu].template.spec."
                                          "template.spec.containers", i),
                          cts, "must contain the required container for the ancestor: %s", anc);
        if (rc < 0)
            return -ENOMEM;
    }
    return 0;
}

bool tja_webhook_validation_disabled(const json_t *rt)
{
    const char *v = jx_get_meta(jx_obj(rt, "metadata"), "labels", TJA_LABEL_WEBHOOK_VALIDATION);
    return v && strcmp(v, "disabled") == 0;
}

char *tja_deprecation_warning(const json_t *rt, bool referenced, bool *oom)
{
    const char *s = jx_get_meta(jx_obj(rt, "metadata"), "labels", TJA_GROUP "/support");
    *oom = false;
    if (!s || strcmp(s, "deprecated") != 0)
        return NULL;
    char *w = sb_fmt("%sClusterTrainingRuntime \"%s\" is deprecated and will be removed in a "
                     "future release of Kubeflow Trainer. See runtime deprecation policy: "
                     DEPRECATION_URL, referenced ? "Referenced " : "",
                     jx_str(jx_obj(rt, "metadata"), "name"));
    *oom = !w;
    return w;
}

/* ---- the TrainJob webhook's plugins --------------------------------------------------- */

struct tjv {
    const json_t *tj, *old, *ref, *rt, *js;
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

/* Adds "spec.runtimeRef: Invalid value: <runtimeRef>: <detail>"; takes `detail`. */
static int ref_invalid(const struct tjv *t, char *detail)
{
    json_t *v = ref_value(t->ref);
    int rc = v && detail ? ferr_add(t->errs, FERR_INVALID, "spec.runtimeRef", v, "%s", detail)
                         : -ENOMEM;
    json_decref(v);
    free(detail);
    return rc;
}

int tja_runtime_missing(const json_t *tj, bool cluster, struct ferr_list *errs)
{
    struct tjv t = {.tj = tj, .ref = jx_path(tj, "spec.runtimeRef"), .errs = errs};
    const char *name = jx_str(t.ref, "name");
    char *detail = sb_fmt("%s." TJA_GROUP " \"%s\" not found: specified %s must be created "
                          "before the TrainJob is created",
                          cluster ? "clustertrainingruntimes" : "trainingruntimes",
                          name ? name : "", cluster ? "clusterTrainingRuntime" : "trainingRuntime");
    json_t *v = ref_value(t.ref);
    int rc = v && detail ? ferr_add(errs, FERR_INVALID, cluster ? "spec.RuntimeRef"
                                                                : "spec.runtimeRef", v, "%s",
                                    detail)
                         : -ENOMEM;
    json_decref(v);
    free(detail);
    return rc < 0 ? -ENOMEM : 0;
}

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

/* plugins/jobset Validate: the initializer job `job` for input `cfg`. */
static int initializer_check(const struct tjv *t, const char *job, const char *cfg)
{
    const json_t *rj = rt_rjob(t->rt, job);
    if (!rj)
        return ref_invalid(t, sb_fmt("must have %s job when trainJob is configured with input %s",
                                     job, cfg));
    if (!rjob_container(rj, job))
        return ref_invalid(t, sb_fmt("must have container with name - %s in the %s job", job,
                                     job));
    const json_t *c = jx_named(jx_arr(jx_path(rj, "template.spec.template.spec"), "containers"),
                               job);
    if (jx_named(jx_arr(c, "volumeMounts"), INIT_VOLUME))
        return 0;
    return ref_invalid(t, sb_fmt("must have volumeMount with name - " INIT_VOLUME
                                 " in container %s of the %s job", job, job));
}

static bool suspended(const json_t *tj)
{
    return json_is_true(json_object_get(jx_obj(tj, "spec"), "suspend"));
}

/* plugins/jobset checkRuntimePatchesImmutability */
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

static bool reserved_container(const char *cn)
{
    return strcmp(cn, DATASET) == 0 || strcmp(cn, MODEL) == 0 || strcmp(cn, NODE) == 0;
}

static int rjob_patch_check(const struct tjv *t, const json_t *p)
{
    const char *name = jx_str(p, "name");
    const json_t *rj = rt_rjob(t->rt, name);
    if (!rj)
        return patch_invalid(t, strdup("must not have replicated job that doesn't exist in the "
                                       "runtime job template"));
    const json_t *pod = patch_pod(p);
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
        else if (json_array_size(jx_arr(c, "env")) > 0 && reserved_container(cn))
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
        json_array_foreach (patch_rjobs(p), j, rjp)
            if (rjob_patch_check(t, rjp) < 0)
                return -ENOMEM;
    }
    return 0;
}

static int jobset_plugin(const struct tjv *t)
{
    const json_t *init = jx_path(t->tj, "spec.initializer");
    const json_t *ds = json_object_get(init, "dataset"), *model = json_object_get(init, "model");
    int rc = 0;
    if (ds && !json_is_null(ds))
        rc = initializer_check(t, DATASET, "datasetConfig");
    if (rc == 0 && model && !json_is_null(model))
        rc = initializer_check(t, MODEL, "modelConfig");
    if (rc == 0)
        rc = patches_immutable(t);
    return rc == 0 ? patches_check(t) : rc;
}

/* plugins/torch and plugins/mpi: "must not have reserved envs, invalid envs configured: [..]"
 * (pkg/constants TorchRunReservedEnvNames, MPIReservedEnvNames; the names sorted). */
static int reserved_env(const struct tjv *t, const char *const *names)
{
    const json_t *env = jx_arr(jx_path(t->tj, "spec.trainer"), "env");
    struct sbuf b = {0};
    int found = 0, rc = 0;
    sb_puts(&b, "must not have reserved envs, invalid envs configured: [");
    for (size_t k = 0; names[k]; k++)
        if (jx_named(env, names[k]))
            sb_printf(&b, "%s%s", found++ ? " " : "", names[k]);
    sb_puts(&b, "]");
    if (sb_failed(&b))
        rc = -ENOMEM;
    else if (found)
        rc = ferr_add(t->errs, FERR_INVALID, "spec.trainer.env", env, "%s", sb_str(&b));
    sb_free(&b);
    return rc;
}

/* plugins/flux Validate */
static int flux_plugin(const struct tjv *t, const json_t *flux)
{
    const json_t *n = json_object_get(flux, "numProcPerNode");
    const json_t *tn = jx_path(t->tj, "spec.trainer.numProcPerNode");
    int rc = 0;
    n = tn && !json_is_null(tn) ? tn : n;
    if (json_is_integer(n) && json_integer_value(n) < 1)
        rc = ferr_add(t->errs, FERR_INVALID, "spec.trainer.numProcPerNode", n,
                      "must be greater than or equal to 1 for Flux TrainJob");
    const json_t *pod = jx_path(rt_rjob(t->rt, NODE), "template.spec.template.spec");
    if (rc == 0 && jx_named(jx_arr(pod, "initContainers"), "flux-installer"))
        rc = ferr_add_str(t->errs, FERR_INVALID, "spec.trainer.initContainers", "flux-installer",
                          "InitContainer 'flux-installer' is reserved");
    return rc;
}

static int ml_plugins(const struct tjv *t)
{
    static const char *const torch[] = {"PET_MASTER_ADDR", "PET_MASTER_PORT", "PET_NNODES",
                                        "PET_NODE_RANK", "PET_NPROC_PER_NODE", NULL};
    static const char *const mpi[] = {"OMPI_MCA_orte_default_hostfile",
                                      "OMPI_MCA_orte_keep_fqdn_hostnames",
                                      "OMPI_MCA_orte_set_default_slots",
                                      "OMPI_MCA_plm_rsh_args", NULL};
    const json_t *ml = jx_path(t->rt, "spec.mlPolicy");
    if (json_object_get(ml, "torch"))
        return reserved_env(t, torch);
    if (json_object_get(ml, "mpi"))
        return reserved_env(t, mpi);
    if (json_object_get(ml, "flux"))
        return flux_plugin(t, json_object_get(ml, "flux"));
    return 0;
}

/* plugins/volcano Validate: the queue annotation (the runtime template's, a runtime patch's
 * over it, as newRuntimeInfo merges them) must not be empty.  (Its check that a pod template's
 * priorityClassName names an existing PriorityClass needs the cluster, and is not made.) */
static int volcano_plugin(const struct tjv *t)
{
    const json_t *q = json_object_get(jx_path(t->rt, "spec.template.metadata.annotations"),
                                      TJI_VOLCANO_QUEUE);
    size_t i;
    const json_t *p;
    if (!json_object_get(jx_path(t->rt, "spec.podGroupPolicy"), "volcano"))
        return 0;
    json_array_foreach(jx_arr(jx_obj(t->tj, "spec"), "runtimePatches"), i, p) {
        const json_t *v = json_object_get(
            jx_path(p, "trainingRuntimeSpec.template.metadata.annotations"), TJI_VOLCANO_QUEUE);
        q = v ? v : q;
    }
    if (!json_is_string(q) || *json_string_value(q))
        return 0;
    return ferr_add_str(t->errs, FERR_INVALID, "spec.annotations[" TJI_VOLCANO_QUEUE "]", "",
                        "Volcano queue name must not be empty");
}

int tja_plugin_rules(const json_t *tj, const json_t *old, const json_t *rt, const json_t *js,
                     struct ferr_list *errs)
{
    struct tjv t = {tj, old, jx_path(tj, "spec.runtimeRef"), rt, js, errs};
    int rc = jobset_plugin(&t);
    if (rc == 0)
        rc = ml_plugins(&t);
    if (rc == 0)
        rc = volcano_plugin(&t);
    return rc < 0 || errs->rc < 0 ? -ENOMEM : 0;
}

/* ---- creation, as `validate` sees it ------------------------------------------------- */

/* Adds " (in <Kind> \"<name>\")" to the errors of `l` from index `from` on. */
static int in_runtime(struct ferr_list *l, size_t from, const json_t *rt)
{
    char *where = sb_fmt("in %s \"%s\"", jx_str(rt, "kind") ? jx_str(rt, "kind") : "",
                         jx_str(jx_obj(rt, "metadata"), "name") ? jx_str(jx_obj(rt, "metadata"),
                                                                        "name") : "");
    int rc = where ? 0 : -ENOMEM;
    for (size_t i = from; rc == 0 && i < l->n; i++) {
        char *path = strdup(l->v[i].path);
        rc = path ? ferr_move_to(&l->v[i], path, where) : -ENOMEM;
    }
    free(where);
    return rc;
}

static int runtime_rules(const json_t *rt, bool cluster, struct ferr_list *errs,
                         struct ferr_list *warnings)
{
    size_t from = errs->n, wfrom = warnings->n;
    int rc = tja_runtime_crd_rules(rt, errs);
    if (rc == 0)
        rc = in_runtime(errs, from, rt);
    if (rc == 0 && !tja_webhook_validation_disabled(rt)) /* the runtime webhook never saw it */
        rc = tja_runtime_webhook_rules(rt, cluster ? warnings : errs);
    if (rc == 0)
        rc = cluster ? in_runtime(warnings, wfrom, rt) : in_runtime(errs, from, rt);
    return rc;
}

static int add_warning(struct ferr_list *warnings, const json_t *rt, bool referenced)
{
    bool oom = false;
    const char *kind = jx_str(rt, "kind");
    char *w = kind && strcmp(kind, "ClusterTrainingRuntime") == 0
                  ? tja_deprecation_warning(rt, referenced, &oom)
                  : NULL;
    int rc = w ? ferr_add_str(warnings, FERR_INVALID, referenced ? "spec.runtimeRef" :
                              "metadata.labels", "deprecated", "%s", w) : 0;
    free(w);
    return oom || rc < 0 ? -ENOMEM : 0;
}

/* pkg/runtime/runtime.go RuntimeRefToRuntimeRegistryKey: the runtimes registered are
 * TrainingRuntime and ClusterTrainingRuntime of trainer.kubeflow.org (both defaulted). */
static int registry_check(const json_t *ref, struct ferr_list *errs)
{
    const char *kind = jx_str(ref, "kind"), *group = jx_str(ref, "apiGroup");
    kind = kind ? kind : "ClusterTrainingRuntime";
    group = group ? group : TJA_GROUP;
    if (strcmp(group, TJA_GROUP) == 0 &&
        (strcmp(kind, "TrainingRuntime") == 0 || strcmp(kind, "ClusterTrainingRuntime") == 0))
        return 0;
    int rc = ferr_add(errs, FERR_FORBIDDEN, "spec.runtimeRef", NULL, "unsupported runtime: %s%s%s",
                      kind, *group ? "." : "", group);
    return rc < 0 ? -ENOMEM : 1;
}

int tja_admit_create(const json_t *tj, const json_t *rt, bool cluster, struct ferr_list *errs,
                     struct ferr_list *warnings)
{
    const char *kind = jx_str(jx_path(tj, "spec.runtimeRef"), "kind");
    int rc = tja_crd_rules(tj, NULL, errs);
    if (rc == 0 && errs->n == 0 && cluster &&
        (rc = registry_check(jx_path(tj, "spec.runtimeRef"), errs)) != 0)
        return rc < 0 ? rc : 0;
    if (rc == 0 && !rt && cluster)
        rc = tja_runtime_missing(tj, !kind || strcmp(kind, "TrainingRuntime") != 0, errs);
    if (rc < 0 || !rt)
        return rc;
    if (!tja_webhook_validation_disabled(rt)) /* the creation's, from the runtime webhook */
        rc = add_warning(warnings, rt, false);
    if (rc == 0)
        rc = add_warning(warnings, rt, true);
    if (rc == 0)
        rc = runtime_rules(rt, cluster, errs, warnings);
    if (rc == 0)
        rc = tja_plugin_rules(tj, NULL, rt, NULL, errs);
    return rc < 0 || errs->rc < 0 || warnings->rc < 0 ? -ENOMEM : 0;
}
