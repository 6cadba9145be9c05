/* conv_aichor: AIchor manifest with spec.operator jax -> JobSet (AIchor's documentation,
 * docs.aichor.ai: "Manifest Reference" and "Execution runtimes -> Jax").
 *
 * Accepted: kind AIchorManifest (checked by the caller), apiVersion absent or 0.2.x; spec
 * required with operator "jax" (anything else is Unsupported at spec.operator: jaxset runs the
 * JAX operator only), image and command (one string) required, types with exactly one entry
 * "worker" (the demo repository spells it "Worker"; both are accepted, other types are
 * Unsupported).  types.worker.count >= 1 (default 1); resources required, with exactly one of
 * ramRatio | memory, cpus > 0 (default 1), cpuLimitRatio >= 1 (default 2), shmSizeGB >= 0,
 * accelerators.gpu.count >= 0.  spec.timeout supersedes spec.activeDeadlineSeconds; both
 * must be whole seconds >= 1 (duration strings are refused).
 *
 * The name is metadata.name, else the top-level name, else `fallback_name` (the file's base
 * name); it must be a DNS-1035 label and is not rewritten.  The JobSet has ONE replicated job
 * "worker" (replicas 1) whose indexed Job runs `count` pods at once with restartPolicy Never
 * and one container "worker": image = spec.image, command ["/bin/sh", "-c", spec.command].
 * Resources (AIchor sizes RAM in GB; Kubernetes decimal units are used, G = 10^9 bytes):
 *   requests.cpu = cpus, limits.cpu = cpus x cpuLimitRatio;
 *   requests.memory = limits.memory = cpus x ramRatio G, or memory G;
 *   nvidia.com/gpu = gpu.count in requests and limits when > 0;
 *   fractional amounts are written in the next smaller unit ("500m" cpu, "1500M" memory).
 * shmSizeGB > 0 adds an emptyDir volume "dshm" (medium Memory, sizeLimit <n>G) mounted at
 * /dev/shm.  The deadline becomes the Job's activeDeadlineSeconds.  spec.coordinator is pod 0
 * of job 0 of "worker", so pods carry the jobset.sigs.k8s.io/coordinator label AIchor reads,
 * and jaxrt exports the JAXOPERATOR_* variables (port 1234) from jax-runtime=aichor.  No
 * failurePolicy (a failed worker fails the experiment) and, where AIchor's docs are silent,
 * backoffLimit 0: a single re-created JAX process cannot rejoin a running coordinator
 * (marin-community/marin#7650), so retrying one pod would only hang.  builder, clone,
 * spec.tensorboard, spec.storage and accelerators.gpu.type/product are accepted and ignored
 * (no images, volumes or node selection locally). */
#include "api/convert/convert.h"

#include <errno.h>
#include <string.h>

#include "api/convert/conv_util.h"
#include "obj/tree/jx.h"

#define AI_PORT 1234
#define AI_RJ_NAME "worker"
#define AI_CONTAINER "worker"
#define AI_SHM_VOLUME "dshm"
#define AI_NAME_HINT                                                                   \
    " (the manifest has no name, so jaxset took it from the file name; set name to " \
    "choose another)"

struct ai {
    const char *name, *ns;
    const char *image, *command;
    long long count, gpus, deadline;
    bool have_deadline;
    double cpus, cpu_ratio, ram_ratio, memory, shm_gb;
};

/* ---- checks ----------------------------------------------------------------------------- */

/* Optional number o[key] (default `def`) that must be >= min, or > min when `strict`. */
static double ai_num(struct chk *c, const json_t *o, const char *key, const char *parent,
                     double def, double min, bool strict)
{
    const json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
    char path[FPATH_MAX];
    if (!v || json_is_null(v))
        return def;
    fpath_field(path, parent, key);
    double x = json_number_value(v);
    if (!json_is_number(v))
        ferr_add(c->errs, FERR_INVALID, path, v, "must be a number");
    else if (strict && x <= min)
        ferr_add(c->errs, FERR_INVALID, path, v, "must be greater than %g", min);
    else if (x < min)
        ferr_add(c->errs, FERR_INVALID, path, v, "must be greater than or equal to %g", min);
    else
        return x;
    return def;
}

static void ai_seconds(struct chk *c, const json_t *spec, const char *key, struct ai *a)
{
    const json_t *v = json_object_get(spec, key);
    char path[FPATH_MAX];
    long long s;
    if (!v || json_is_null(v))
        return;
    fpath_field(path, "spec", key);
    if (jx_int(spec, key, &s) < 0 || s < 1) {
        ferr_add(c->errs, FERR_INVALID, path, v, "must be a whole number of seconds >= 1");
        return;
    }
    a->deadline = s;
    a->have_deadline = true;
}

static void ai_check_name(struct chk *c, const json_t *doc, const char *fallback, struct ai *a)
{
    const json_t *meta = chk_obj(c, doc, "metadata", "", false);
    const char *mname = chk_str(c, meta, "name", "metadata", false);
    const char *top = chk_str(c, doc, "name", "", false);
    a->ns = chk_str(c, meta, "namespace", "metadata", false);
    if (mname) {
        a->name = mname;
        chk_dns1035(c, "metadata.name", mname, NULL);
    } else if (top) {
        a->name = top;
        chk_dns1035(c, "name", top, NULL);
    } else {
        a->name = fallback;
        chk_dns1035(c, "name", fallback, fallback && *fallback ? AI_NAME_HINT : NULL);
    }
}

static void ai_check_version(struct chk *c, const json_t *doc)
{
    const json_t *v = json_object_get(doc, "apiVersion");
    const char *s = json_string_value(v);
    if (!v || json_is_null(v) || (json_is_real(v) && json_real_value(v) == 0.2))
        return;
    if (s && (strcmp(s, "0.2") == 0 || strncmp(s, "0.2.", 4) == 0))
        return;
    ferr_add(c->errs, FERR_NOT_SUPPORTED, "apiVersion", v, "\"0.2.x\"");
}

/* The largest amount (cores, or GB) jaxset writes as a quantity: its milli-units must fit the
 * int64 a Kubernetes Quantity is kept in, with room to spare. */
#define AI_QTY_MAX 1e15

/* A product the resources turn into a quantity, checked at the field the user wrote. */
static void ai_bound(struct chk *c, const json_t *res, const char *p, const char *field,
                     double amount, const char *what)
{
    char path[FPATH_MAX];
    if (amount <= AI_QTY_MAX)
        return;
    ferr_add(c->errs, FERR_INVALID, fpath_field(path, p, field), json_object_get(res, field),
             "%s would be %g, more than a Kubernetes quantity can hold here (at most %g)", what,
             amount, AI_QTY_MAX);
}

static void ai_check_bounds(struct chk *c, const json_t *res, const char *p, const struct ai *a)
{
    ai_bound(c, res, p, "cpus", a->cpus * a->cpu_ratio, "cpus x cpuLimitRatio");
    ai_bound(c, res, p, "ramRatio", a->cpus * a->ram_ratio, "cpus x ramRatio");
    ai_bound(c, res, p, "memory", a->memory, "memory");
    ai_bound(c, res, p, "shmSizeGB", a->shm_gb, "shmSizeGB");
}

static void ai_check_resources(struct chk *c, const json_t *res, const char *p, struct ai *a)
{
    char gpath[FPATH_MAX];
    bool ratio = json_object_get(res, "ramRatio") != NULL;
    bool mem = json_object_get(res, "memory") != NULL;
    a->cpus = ai_num(c, res, "cpus", p, 1, 0, true);
    a->cpu_ratio = ai_num(c, res, "cpuLimitRatio", p, 2, 1, false);
    a->ram_ratio = ai_num(c, res, "ramRatio", p, 0, 0, true);
    a->memory = ai_num(c, res, "memory", p, 0, 0, true);
    a->shm_gb = ai_num(c, res, "shmSizeGB", p, 0, 0, false);
    ai_check_bounds(c, res, p, a);
    if (ratio && mem)
        ferr_add(c->errs, FERR_FORBIDDEN, fpath_field(gpath, p, "memory"), NULL,
                 "may not be set together with ramRatio: set exactly one of ramRatio or "
                 "memory");
    else if (!ratio && !mem)
        ferr_add(c->errs, FERR_REQUIRED, p, NULL, "exactly one of ramRatio or memory must be set");
    const json_t *acc = chk_obj(c, res, "accelerators", p, false);
    fpath_fmt(gpath, "%s.accelerators", p);
    const json_t *gpu = chk_obj(c, acc, "gpu", gpath, false);
    fpath_fmt(gpath, "%s.accelerators.gpu", p);
    (void)chk_int(c, gpu, "count", gpath, 0, &a->gpus);
}

static void ai_check_types(struct chk *c, const json_t *spec, struct ai *a)
{
    const json_t *types = chk_obj(c, spec, "types", "spec", true), *worker = NULL;
    char path[FPATH_MAX], wpath[FPATH_MAX] = "spec.types.worker";
    const char *key, *wkey = NULL;
    json_t *v;
    json_object_foreach((json_t *)types, key, v) {
        fpath_key(path, "spec", "types", key);
        if (strcmp(key, "worker") != 0 && strcmp(key, "Worker") != 0) {
            ferr_add_str(c->errs, FERR_NOT_SUPPORTED, path, key, "\"worker\"");
        } else if (worker) {
            ferr_add_str(c->errs, FERR_DUPLICATE, path, key, NULL);
        } else {
            worker = v;
            wkey = key;
            fpath_field(wpath, "spec.types", key);
        }
    }
    if (types && !worker)
        ferr_add(c->errs, FERR_REQUIRED, wpath, NULL, NULL);
    if (!worker)
        return;
    worker = chk_obj(c, types, wkey, "spec.types", true);
    (void)chk_int(c, worker, "count", wpath, 1, &a->count);
    const json_t *res = chk_obj(c, worker, "resources", wpath, worker != NULL);
    fpath_field(path, wpath, "resources");
    if (res)
        ai_check_resources(c, res, path, a);
}

static void ai_check(struct chk *c, const json_t *doc, const char *fallback, struct ai *a)
{
    ai_check_version(c, doc);
    ai_check_name(c, doc, fallback, a);
    const json_t *spec = chk_obj(c, doc, "spec", "", true);
    const char *op = chk_str(c, spec, "operator", "spec", spec != NULL);
    if (!spec)
        return;
    if (op && strcmp(op, "jax") != 0) {
        ferr_add_str(c->errs, FERR_NOT_SUPPORTED, "spec.operator", op, "\"jax\"");
        return; /* the rest is another operator's business */
    }
    a->image = chk_str(c, spec, "image", "spec", true);
    a->command = chk_str(c, spec, "command", "spec", true);
    ai_check_types(c, spec, a);
    ai_seconds(c, spec, "activeDeadlineSeconds", a);
    ai_seconds(c, spec, "timeout", a); /* supersedes activeDeadlineSeconds */
}

/* ---- building --------------------------------------------------------------------------- */

static json_t *ai_resources(const struct ai *a)
{
    char cpu[32], cpu_limit[32], mem[32], gpus[32];
    double gb = a->memory > 0 ? a->memory : a->cpus * a->ram_ratio;
    conv_quantity(a->cpus, "", "m", cpu, sizeof(cpu));
    conv_quantity(a->cpus * a->cpu_ratio, "", "m", cpu_limit, sizeof(cpu_limit));
    conv_quantity(gb, "G", "M", mem, sizeof(mem));
    snprintf(gpus, sizeof(gpus), "%lld", a->gpus);
    json_t *r = json_pack("{s:{s:s, s:s}, s:{s:s, s:s}}", "requests", "cpu", cpu, "memory", mem,
                          "limits", "cpu", cpu_limit, "memory", mem);
    if (r && a->gpus > 0 &&
        (jx_set_str(jx_obj(r, "requests"), "nvidia.com/gpu", gpus) < 0 ||
         jx_set_str(jx_obj(r, "limits"), "nvidia.com/gpu", gpus) < 0)) {
        json_decref(r);
        return NULL;
    }
    return r;
}

/* Adds the /dev/shm emptyDir to the pod spec and its mount to the container. */
static int ai_add_shm(json_t *pspec, json_t *ct, double gb)
{
    char size[32];
    conv_quantity(gb, "G", "M", size, sizeof(size));
    json_t *vols = json_pack("[{s:s, s:{s:s, s:s}}]", "name", AI_SHM_VOLUME, "emptyDir",
                             "medium", "Memory", "sizeLimit", size);
    json_t *mounts =
        json_pack("[{s:s, s:s}]", "name", AI_SHM_VOLUME, "mountPath", "/dev/shm");
    int rc = jx_set_new(ct, "volumeMounts", mounts);
    int rc2 = jx_set_new(pspec, "volumes", vols);
    return rc < 0 ? rc : rc2;
}

static json_t *ai_pod_template(const struct ai *a)
{
    json_t *ct = json_pack("{s:s, s:s, s:[s, s, s], s:o}", "name", AI_CONTAINER, "image",
                           a->image, "command", "/bin/sh", "-c", a->command, "resources",
                           ai_resources(a));
    json_t *t = json_pack("{s:{s:s, s:[o]}}", "spec", "restartPolicy", "Never", "containers",
                          ct);
    if (t && a->shm_gb > 0 && ai_add_shm(jx_obj(t, "spec"), ct, a->shm_gb) < 0) {
        json_decref(t);
        return NULL;
    }
    return t;
}

static int ai_fill_spec(json_t *js, const struct ai *a)
{
    json_t *spec = jx_obj(js, "spec");
    json_t *extra = json_pack("{s:i}", "backoffLimit", 0);
    int rc = extra ? 0 : -ENOMEM;
    if (rc == 0 && a->have_deadline)
        rc = jx_set_int(extra, "activeDeadlineSeconds", a->deadline);
    json_t *rj = rc == 0 ? conv_rj_new(AI_RJ_NAME, a->count, extra, ai_pod_template(a)) : NULL;
    json_decref(extra);
    if (!rj)
        return -ENOMEM;
    rc = jx_set_new(spec, "coordinator", json_pack("{s:s, s:i, s:i}", "replicatedJob",
                                                   AI_RJ_NAME, "jobIndex", 0, "podIndex", 0));
    if (rc == 0)
        return jx_set_new(spec, "replicatedJobs", json_pack("[o]", rj));
    json_decref(rj);
    return rc;
}

json_t *conv_aichor(const json_t *doc, const char *fallback_name, struct ferr_list *errs)
{
    struct chk c;
    struct ai a = {.count = 1};
    chk_init(&c, errs, CHK_REPORT);
    ai_check(&c, doc, fallback_name, &a);
    if (chk_result(&c))
        return NULL;
    json_t *js = conv_jobset_new(a.name, a.ns, NULL, NULL);
    if (!js || conv_annotate(js, JAXRT_AICHOR, "AIchorManifest", AI_PORT, NULL) < 0 ||
        ai_fill_spec(js, &a) < 0) {
        json_decref(js);
        return NULL;
    }
    return js;
}
