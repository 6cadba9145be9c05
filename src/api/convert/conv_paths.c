/* conv_paths: the user's field behind a field of a converted JobSet (convert.h,
 * conv_user_path), so that errors found in the JobSet (its validation, the JAX runtime's) name
 * what the user wrote: spec.types.worker.count, not spec.replicatedJobs[0].template.spec
 * .parallelism.  Each dialect is a list of rules tried in order; a rule maps a JobSet path prefix
 * (matched at a field boundary) to the user's path, keeping what follows the prefix when the
 * two have the same shape below it (a JAXJob's pod template is the Job's), dropping it
 * otherwise.  The rules mirror what each converter builds (conv_jaxjob.c, conv_trainjob.c,
 * conv_aichor.c). */
#include "api/convert/convert.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/schema/check.h"
#include "api/convert/conv_util.h"
#include "obj/tree/jx.h"

#define RJ0 "spec.replicatedJobs[0]"
#define JOB0 RJ0 ".template.spec"
#define POD0 JOB0 ".template.spec"

struct remap {
    const char *path; /* the JobSet path */
    char *out;        /* the result once a rule matched, malloc'd */
    bool runtime;     /* the result is a path of the TrainJob's runtime */
    bool matched;
};

/* When path starts with `from` at a field boundary: the rest of it (maybe ""), else NULL. */
static const char *after(const char *path, const char *from)
{
    size_t n = strlen(from);
    if (strncmp(path, from, n) != 0)
        return NULL;
    return path[n] == 0 || path[n] == '.' || path[n] == '[' ? path + n : NULL;
}

/* One rule: `from` -> `to` (plus the rest of the path when keep_rest).  No-op once matched. */
static void rule(struct remap *r, const char *from, const char *to, bool keep_rest,
                 bool runtime)
{
    const char *rest = r->matched ? NULL : after(r->path, from);
    if (!rest)
        return;
    r->matched = true;
    r->runtime = runtime;
    if (asprintf(&r->out, "%s%s", to, keep_rest ? rest : "") < 0)
        r->out = NULL;
}

/* ---- AIchor ------------------------------------------------------------------------------ */

/* The first key of `o` equal to `name` ignoring case (as the converters match it), or NULL. */
static const char *key_ci(const json_t *o, const char *name)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)o, k, v)
        if (strcasecmp(k, name) == 0)
            return k;
    return NULL;
}

static void aichor(struct remap *r, const json_t *doc)
{
    const json_t *spec = jx_obj(doc, "spec");
    const char *key = key_ci(jx_obj(spec, "types"), "worker");
    char w[FPATH_MAX], x[FPATH_MAX];
    const char *name = jx_str(jx_obj(doc, "metadata"), "name") ? "metadata.name" : "name";
    snprintf(w, sizeof(w), "spec.types.%s", key ? key : "worker");
    rule(r, "metadata.name", name, false, false);
    rule(r, "metadata", "metadata", true, false);
    rule(r, POD0 ".containers[0].image", "spec.image", false, false);
    rule(r, POD0 ".containers[0].command", "spec.command", false, false);
    rule(r, POD0 ".containers[0].resources", fpath_field(x, w, "resources"), false, false);
    rule(r, POD0 ".containers[0].volumeMounts", fpath_field(x, w, "resources.shmSizeGB"),
         false, false);
    rule(r, POD0 ".volumes", fpath_field(x, w, "resources.shmSizeGB"), false, false);
    rule(r, JOB0 ".parallelism", fpath_field(x, w, "count"), false, false);
    rule(r, JOB0 ".completions", fpath_field(x, w, "count"), false, false);
    rule(r, JOB0 ".activeDeadlineSeconds",
         json_object_get(spec, "timeout") ? "spec.timeout" : "spec.activeDeadlineSeconds", false,
         false);
    /* the replicated job's name, the subdomain and the coordinator come from the name */
    rule(r, RJ0 ".name", name, false, false);
    rule(r, "spec.network", name, false, false);
    rule(r, "spec.coordinator", name, false, false);
    rule(r, RJ0, w, false, false);
    rule(r, "spec", "spec", false, false);
}

/* ---- JAXJob ------------------------------------------------------------------------------ */

static void jaxjob(struct remap *r, const json_t *doc)
{
    const char *key = key_ci(jx_path(doc, "spec.jaxReplicaSpecs"), "Worker");
    char w[FPATH_MAX], x[FPATH_MAX];
    snprintf(w, sizeof(w), "spec.jaxReplicaSpecs[%s]", key ? key : "Worker");
    rule(r, "metadata", "metadata", true, false);
    rule(r, POD0 ".restartPolicy", fpath_field(x, w, "restartPolicy"), false, false);
    rule(r, JOB0 ".template", fpath_field(x, w, "template"), true, false);
    rule(r, JOB0 ".parallelism", fpath_field(x, w, "replicas"), false, false);
    rule(r, JOB0 ".completions", fpath_field(x, w, "replicas"), false, false);
    rule(r, JOB0 ".podFailurePolicy", fpath_field(x, w, "restartPolicy"), false, false);
    rule(r, JOB0 ".backoffLimit", "spec.runPolicy.backoffLimit", false, false);
    rule(r, JOB0 ".activeDeadlineSeconds", "spec.runPolicy.activeDeadlineSeconds", false, false);
    rule(r, "spec.suspend", "spec.runPolicy.suspend", false, false);
    rule(r, "spec.ttlSecondsAfterFinished", "spec.runPolicy.ttlSecondsAfterFinished", false,
         false);
    rule(r, RJ0 ".name", "metadata.name", false, false);
    rule(r, "spec.network", "metadata.name", false, false);
    rule(r, RJ0, w, false, false);
    rule(r, "spec", "spec", false, false);
}

/* ---- TrainJob ---------------------------------------------------------------------------- */

/* Index in spec.trainer.env of the variable `name`, or -1. */
static long env_index(const json_t *env, const char *name)
{
    size_t i;
    json_t *e;
    json_array_foreach(env, i, e) {
        const char *n = jx_str(e, "name");
        if (name && n && strcmp(n, name) == 0)
            return (long)i;
    }
    return -1;
}

/* env[i] of the node container: the runtime's entries (replaced by the TrainJob's of the same
 * name), then the TrainJob's other entries in order (conv_trainjob.c, tj_merge_env). */
static void trainjob_env(struct remap *r, const char *ct, const char *rpath, const json_t *rt_env,
                         const json_t *tr_env)
{
    char from[FPATH_MAX], to[FPATH_MAX];
    size_t n_rt = json_array_size(rt_env);
    for (size_t i = 0; !r->matched && i < n_rt + json_array_size(tr_env); i++) {
        long j = -1;
        size_t added = 0; /* TrainJob entries appended before this one */
        if (i < n_rt)
            j = env_index(tr_env, jx_str(json_array_get(rt_env, i), "name"));
        for (size_t t = 0; i >= n_rt && j < 0 && t < json_array_size(tr_env); t++) {
            const char *n = jx_str(json_array_get(tr_env, t), "name");
            if (env_index(rt_env, n) >= 0)
                continue;
            if (added++ == i - n_rt)
                j = (long)t;
        }
        fpath_fmt(from, "%s.env[%zu]", ct, i);
        if (j >= 0)
            snprintf(to, sizeof(to), "spec.trainer.env[%ld]", j);
        else
            fpath_fmt(to, "%s.env[%zu]", rpath, i);
        rule(r, from, to, true, j < 0);
    }
}

/* The node container of the trainer job: fields spec.trainer overrides are the TrainJob's. */
static void trainjob_node(struct remap *r, const json_t *doc, const json_t *runtime, long idx)
{
    static const char *const fields[][2] = {{"image", "image"},
                                             {"command", "command"},
                                             {"args", "args"},
                                             {"resources", "resourcesPerNode"}};
    const json_t *tr = jx_path(doc, "spec.trainer");
    const json_t *rj = json_array_get(jx_path(runtime, "spec.template.spec.replicatedJobs"),
                                      (size_t)idx);
    const json_t *cts = jx_path(rj, "template.spec.template.spec.containers");
    char ct[FPATH_MAX], from[FPATH_MAX], to[FPATH_MAX], rpath[FPATH_MAX];
    size_t k;
    if (!chk_named(cts, "node", SIZE_MAX, &k))
        return;
    snprintf(ct, sizeof(ct), "spec.replicatedJobs[%ld].template.spec.template.spec.containers[%zu]",
             idx, k);
    fpath_fmt(rpath, "spec.template.%s", ct);
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        const json_t *v = json_object_get(tr, fields[i][1]);
        if (!v || json_is_null(v))
            continue;
        fpath_fmt(from, "%s.%s", ct, fields[i][0]);
        snprintf(to, sizeof(to), "spec.trainer.%s", fields[i][1]);
        rule(r, from, to, true, false);
    }
    trainjob_env(r, ct, rpath, jx_arr(json_array_get(cts, k), "env"), jx_arr(tr, "env"));
}

static void trainjob(struct remap *r, const json_t *doc, const json_t *runtime)
{
    const json_t *spec = jx_obj(doc, "spec");
    long idx = conv_trainjob_trainer(jx_path(runtime, "spec.template.spec.replicatedJobs"));
    char from[FPATH_MAX];
    bool nodes = json_object_get(jx_obj(spec, "trainer"), "numNodes") ||
                 !json_object_get(jx_path(runtime, "spec.mlPolicy"), "numNodes");
    rule(r, "metadata.labels", "spec.template.metadata.labels", true, true);
    rule(r, "metadata.annotations", "spec.template.metadata.annotations", true, true);
    rule(r, "metadata", "metadata", true, false);
    rule(r, "spec.suspend", "spec.suspend", false, false);
    if (idx >= 0) {
        snprintf(from, sizeof(from), "spec.replicatedJobs[%ld].template.spec.parallelism", idx);
        rule(r, from, nodes ? "spec.trainer.numNodes" : "spec.mlPolicy.numNodes", false, !nodes);
        snprintf(from, sizeof(from), "spec.replicatedJobs[%ld].template.spec.completions", idx);
        rule(r, from, nodes ? "spec.trainer.numNodes" : "spec.mlPolicy.numNodes", false, !nodes);
        snprintf(from, sizeof(from), "spec.replicatedJobs[%ld].template.spec."
                                     "activeDeadlineSeconds", idx);
        if (json_object_get(spec, "activeDeadlineSeconds"))
            rule(r, from, "spec.activeDeadlineSeconds", false, false);
        trainjob_node(r, doc, runtime, idx);
    }
    /* the rest of the JobSet's spec is a copy of the runtime's template */
    rule(r, "spec", "spec.template.spec", true, true);
}

char *conv_user_path(const char *kind, const json_t *doc, const json_t *runtime,
                     const char *js_path, bool *in_runtime)
{
    struct remap r = {.path = js_path};
    if (strcmp(kind, "AIchorManifest") == 0)
        aichor(&r, doc);
    else if (strcmp(kind, "JAXJob") == 0)
        jaxjob(&r, doc);
    else if (strcmp(kind, "TrainJob") == 0 && runtime)
        trainjob(&r, doc, runtime);
    *in_runtime = r.matched && r.runtime;
    return r.out;
}
