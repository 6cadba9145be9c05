/* The JAX runtime wiring of a JobSet (see jaxrt.h; names and flavours are in jaxrt_names.c).
 *
 * Process ids: pods are numbered in spec order (replicated jobs in order, then job index, then
 * pod index) and the numbering is rotated so that the coordinator pod is process 0, because
 * jax.distributed makes process 0 run the coordination service at the coordinator address
 * (jax-ml/jax jax/_src/distributed.py, State.initialize).  With the default coordinator (pod 0
 * of job 0 of the first JAX replicated job) the rotation is zero and ids are the plain
 * spec-order ordinals.
 * offset[rj] is the id of the replicated job's first pod; pod k of job j has id
 * (offset[rj] + j * pods_per_job + k) mod num_processes. */
#include "api/child/jaxrt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/schema/keys.h"
#include "obj/tree/jx.h"

#define ANN_PATH(key) "metadata.annotations[" key "]"

static const int default_ports[] = {
    [JAXRT_OFF] = 0, [JAXRT_JOBSET] = 6666, [JAXRT_JAXJOB] = 6666, [JAXRT_TRAINJOB] = 29500,
    [JAXRT_AICHOR] = 1234,
};

/* What an environment variable carries. */
enum ev_kind {
    EV_ADDR,    /* host:port */
    EV_HOST,    /* host */
    EV_PORT,    /* port */
    EV_NUM,     /* number of processes */
    EV_ID,      /* process id */
    EV_ONE,     /* "1" */
    EV_AI_HOST, /* AIchor's host: the coordinator label in the cluster form */
    EV_AI_ADDR, /* AIchor's address: $(JAXOPERATOR_COORDINATOR_HOST):port in that form */
};

#define FL(f) (1u << (f))
#define FL_ALL (FL(JAXRT_JOBSET) | FL(JAXRT_JAXJOB) | FL(JAXRT_TRAINJOB) | FL(JAXRT_AICHOR))

static const struct ev_spec {
    const char *name;
    unsigned flavors;
    enum ev_kind kind;
} ev_table[] = {
    {"JAX_COORDINATOR_ADDRESS", FL_ALL, EV_ADDR},
    {"JAX_COORDINATOR_PORT", FL_ALL, EV_PORT},
    {"JAX_NUM_PROCESSES", FL_ALL, EV_NUM},
    {"JAX_PROCESS_ID", FL_ALL, EV_ID},
    {"COORDINATOR_ADDRESS", FL(JAXRT_JAXJOB), EV_HOST},
    {"COORDINATOR_PORT", FL(JAXRT_JAXJOB), EV_PORT},
    {"NUM_PROCESSES", FL(JAXRT_JAXJOB), EV_NUM},
    {"PROCESS_ID", FL(JAXRT_JAXJOB), EV_ID},
    {"PYTHONUNBUFFERED", FL(JAXRT_JAXJOB), EV_ONE},
    {"JAXOPERATOR_COORDINATOR_HOST", FL(JAXRT_AICHOR), EV_AI_HOST},
    {"JAXOPERATOR_COORDINATOR_ADDRESS", FL(JAXRT_AICHOR), EV_AI_ADDR},
    {"JAXOPERATOR_NUM_PROCESSES", FL(JAXRT_AICHOR), EV_NUM},
    {"JAXOPERATOR_PROCESS_ID", FL(JAXRT_AICHOR), EV_ID},
};

enum id_mode { ID_LITERAL, ID_FIELDREF, ID_OMIT };

/* The values one set of variables is made of. */
struct ev_ctx {
    enum jaxrt_flavor flavor;
    const char *host;
    int port;
    long long num;
    long long id;
    enum id_mode id_mode;
    bool coord_label; /* AIchor host from the coordinator label (cluster form) */
};

/* ---- init ----------------------------------------------------------------------------- */

/* The annotation `key` of the JobSet (borrowed json value) or NULL. */
static const json_t *annotation(const json_t *js, const char *key)
{
    return json_object_get(jx_path(js, "metadata.annotations"), key);
}

static int port_parse(struct jaxrt *rt, const json_t *js, struct ferr_list *errs)
{
    const json_t *a = annotation(js, ANN_JAX_PORT);
    rt->port = default_ports[rt->flavor];
    if (!a)
        return 0;
    const char *s = json_string_value(a);
    long p = 0;
    size_t len = s ? strlen(s) : 0;
    bool ok = len >= 1 && len <= 5 && strspn(s, "0123456789") == len;
    if (ok) {
        p = strtol(s, NULL, 10);
        ok = p >= 1 && p <= 65535;
    }
    if (ok) {
        rt->port = (int)p;
        return 0;
    }
    return ferr_add(errs, FERR_INVALID, ANN_PATH(ANN_JAX_PORT), a,
                    "must be between 1 and 65535, inclusive");
}

/* Marks the replicated job named by s[0..n) (spaces trimmed; empty entries are skipped). */
static int rjs_mark(struct jaxrt *rt, const struct js_view *v, const char *s, size_t n,
                    struct ferr_list *errs)
{
    while (n && (*s == ' ' || *s == '\t'))
        s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    if (n == 0)
        return 0;
    char *name = strndup(s, n);
    if (!name)
        return -ENOMEM;
    long i = js_view_find(v, name);
    int rc = 0;
    if (i >= 0) {
        rt->is_jax[i] = true;
    } else {
        json_t *val = json_string(name);
        rc = val ? ferr_add(errs, FERR_INVALID, ANN_PATH(ANN_JAX_RJS), val,
                            "no replicated job has this name")
                 : -ENOMEM;
        json_decref(val);
    }
    free(name);
    return rc;
}

static int rjs_select(struct jaxrt *rt, const json_t *js, const struct js_view *v,
                      struct ferr_list *errs)
{
    const json_t *a = annotation(js, ANN_JAX_RJS);
    for (size_t i = 0; i < v->n_rj; i++)
        rt->is_jax[i] = a == NULL;
    if (!a)
        return 0;
    const char *s = json_string_value(a);
    if (!s)
        return ferr_add(errs, FERR_INVALID, ANN_PATH(ANN_JAX_RJS), a,
                        "must be a comma-separated list of replicated job names");
    for (;;) {
        const char *comma = strchr(s, ',');
        size_t n = comma ? (size_t)(comma - s) : strlen(s);
        int rc = rjs_mark(rt, v, s, n, errs);
        if (rc < 0 || !comma)
            return rc;
        s = comma + 1;
    }
}

/* The variables kubeflow/trainer's JAX plugin writes into a TrainJob's JobSet
 * (api/convert/conv_trainjob.c tj_jax_env); the Jobs get jaxrt's values for them (env_upsert). */
static bool plugin_var(enum jaxrt_flavor f, const char *name)
{
    return f == JAXRT_TRAINJOB && name &&
           (strcmp(name, "JAX_NUM_PROCESSES") == 0 || strcmp(name, "JAX_PROCESS_ID") == 0 ||
            strcmp(name, "JAX_COORDINATOR_ADDRESS") == 0);
}

/* Reserved names in one container's env (path names the container). */
static int env_check(enum jaxrt_flavor f, const json_t *ctr, const char *path,
                     struct ferr_list *errs)
{
    const json_t *env = jx_arr(ctr, "env");
    char epath[FPATH_MAX], npath[FPATH_MAX];
    for (size_t k = 0; k < json_array_size(env); k++) {
        const json_t *e = json_array_get(env, k);
        if (!jaxrt_is_reserved(f, jx_str(e, "name")) || plugin_var(f, jx_str(e, "name")))
            continue;
        fpath_field(npath, fpath_index(epath, path, "env", k), "name");
        if (ferr_add(errs, FERR_INVALID, npath, json_object_get(e, "name"),
                     "is set by the JAX runtime and may not be set in the manifest") < 0)
            return -ENOMEM;
    }
    return 0;
}

static int containers_check(enum jaxrt_flavor f, const json_t *pspec, const char *base,
                            struct ferr_list *errs)
{
    static const char *const fields[] = {"containers", "initContainers"};
    char cpath[FPATH_MAX];
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        const json_t *arr = jx_arr(pspec, fields[i]);
        for (size_t c = 0; c < json_array_size(arr); c++) {
            fpath_index(cpath, base, fields[i], c);
            if (env_check(f, json_array_get(arr, c), cpath, errs) < 0)
                return -ENOMEM;
        }
    }
    return 0;
}

/* The checks of one JAX replicated job. */
static int rj_check(const struct jaxrt *rt, const struct js_view *v, size_t i,
                    struct ferr_list *errs)
{
    const struct js_rj *r = &v->rj[i];
    char base[FPATH_MAX], path[FPATH_MAX];
    int rc = 0;
    snprintf(base, sizeof(base), "spec.replicatedJobs[%zu].template.spec", i);
    if (r->parallelism != r->pods_per_job) {
        json_t *val = json_integer(r->parallelism);
        rc = val ? ferr_add(errs, FERR_INVALID, fpath_field(path, base, "parallelism"), val,
                            "must equal completions for a JAX replicated job (every process "
                            "must run at once)")
                 : -ENOMEM;
        json_decref(val);
    }
    if (rc == 0 && !r->indexed && r->pods_per_job > 1)
        rc = ferr_add(errs, FERR_INVALID, fpath_field(path, base, "completionMode"),
                      json_object_get(jx_obj(r->tmpl, "spec"), "completionMode"),
                      "must be Indexed for a JAX replicated job with more than one pod per "
                      "job (process ids are completion indexes)");
    if (rc == 0)
        rc = containers_check(rt->flavor, jx_path(r->tmpl, "spec.template.spec"),
                              fpath_field(path, base, "template.spec"), errs);
    return rc;
}

/* Picks the coordinator pod; -1 in *rj when there is none (an error was added). */
static int coord_pick(const struct jaxrt *rt, const json_t *js, const struct js_view *v,
                      long *rj, struct ferr_list *errs)
{
    *rj = -1;
    if (v->has_coordinator) {
        long i = js_view_find(v, v->coord_rj);
        if (i >= 0 && rt->is_jax[i]) {
            *rj = i;
            return 0;
        }
        return ferr_add(errs, FERR_INVALID, "spec.coordinator.replicatedJob",
                        json_object_get(jx_path(js, "spec.coordinator"), "replicatedJob"),
                        "must name a replicated job that runs JAX processes (JAX process 0 "
                        "runs the coordination service)");
    }
    for (size_t i = 0; i < v->n_rj; i++) {
        if (rt->is_jax[i] && v->rj[i].replicas > 0 && v->rj[i].pods_per_job > 0) {
            *rj = (long)i;
            return 0;
        }
    }
    return ferr_add(errs, FERR_INVALID, ANN_PATH(ANN_JAX_RUNTIME), annotation(js, ANN_JAX_RUNTIME),
                    "no replicated job runs JAX processes");
}

/* num_processes, coord_host and the rotated offsets. */
static void layout(struct jaxrt *rt, const struct js_view *v, long crj)
{
    long long base = 0, coord = 0;
    bool explicit = v->has_coordinator;
    long long cjob = explicit ? v->coord_job : 0, cpod = explicit ? v->coord_pod : 0;
    for (size_t i = 0; i < v->n_rj; i++) {
        rt->offset[i] = -1;
        if (!rt->is_jax[i])
            continue;
        if ((long)i == crj)
            coord = base + cjob * v->rj[i].pods_per_job + cpod;
        rt->offset[i] = base;
        base += v->rj[i].replicas * v->rj[i].pods_per_job;
    }
    rt->num_processes = base;
    for (size_t i = 0; base > 0 && i < v->n_rj; i++)
        if (rt->is_jax[i])
            rt->offset[i] = ((rt->offset[i] - coord) % base + base) % base;
    snprintf(rt->coord_host, sizeof(rt->coord_host), "%s-%s-%lld-%lld.%s", v->name,
             v->rj[crj].name, cjob, cpod, v->subdomain);
}

/* Reads the flavour; 1 when it is unknown (error added), 0 otherwise, -ENOMEM. */
static int flavor_read(struct jaxrt *rt, const json_t *js, struct ferr_list *errs)
{
    const json_t *a = annotation(js, ANN_JAX_RUNTIME);
    if (!a)
        return 0;
    rt->flavor = jaxrt_flavor_parse(json_string_value(a));
    if (rt->flavor != JAXRT_OFF)
        return 0;
    int rc = ferr_add(errs, FERR_NOT_SUPPORTED, ANN_PATH(ANN_JAX_RUNTIME), a,
                      "\"jobset\", \"jaxjob\", \"trainjob\", \"aichor\"");
    return rc < 0 ? rc : 1;
}

/* Everything after the flavour; 0 or -ENOMEM. */
static int init_checks(struct jaxrt *rt, const json_t *js, const struct js_view *v,
                       struct ferr_list *errs)
{
    long crj = -1;
    rt->is_jax = calloc(v->n_rj ? v->n_rj : 1, sizeof(*rt->is_jax));
    rt->offset = calloc(v->n_rj ? v->n_rj : 1, sizeof(*rt->offset));
    if (!rt->is_jax || !rt->offset)
        return -ENOMEM;
    if (port_parse(rt, js, errs) < 0 || rjs_select(rt, js, v, errs) < 0)
        return -ENOMEM;
    for (size_t i = 0; i < v->n_rj; i++)
        if (rt->is_jax[i] && rj_check(rt, v, i, errs) < 0)
            return -ENOMEM;
    if (coord_pick(rt, js, v, &crj, errs) < 0)
        return -ENOMEM;
    if (crj >= 0)
        layout(rt, v, crj);
    return 0;
}

int jaxrt_init(struct jaxrt *rt, const json_t *js, const struct js_view *v,
               struct ferr_list *errs)
{
    size_t n0 = errs->n;
    memset(rt, 0, sizeof(*rt));
    int rc = flavor_read(rt, js, errs);
    if (rc == 0 && rt->flavor != JAXRT_OFF)
        rc = init_checks(rt, js, v, errs);
    return rc < 0 ? rc : (int)(errs->n - n0);
}

void jaxrt_release(struct jaxrt *rt)
{
    if (!rt)
        return;
    free(rt->is_jax);
    free(rt->offset);
    memset(rt, 0, sizeof(*rt));
}

long long jaxrt_process_id(const struct jaxrt *rt, const struct js_view *v, size_t rj,
                           long long job, long long pod)
{
    if (rt->flavor == JAXRT_OFF || !rt->is_jax || rj >= v->n_rj || !rt->is_jax[rj] ||
        rt->num_processes <= 0)
        return -1;
    return (rt->offset[rj] + job * v->rj[rj].pods_per_job + pod) % rt->num_processes;
}

/* ---- environment ---------------------------------------------------------------------- */

static json_t *ev_str(const char *name, const char *val)
{
    return json_pack("{s:s,s:s}", "name", name, "value", val);
}

static json_t *ev_int(const char *name, long long n)
{
    char val[32];
    snprintf(val, sizeof(val), "%lld", n);
    return ev_str(name, val);
}

static json_t *ev_fieldref(const char *name, const char *field_path)
{
    return json_pack("{s:s,s:{s:{s:s}}}", "name", name, "valueFrom", "fieldRef", "fieldPath",
                     field_path);
}

/* The literal value of a host-ish variable into buf. */
static const char *ev_host_value(enum ev_kind k, const struct ev_ctx *c, char *buf, size_t n)
{
    if (k == EV_HOST || k == EV_AI_HOST)
        return c->host;
    if (k == EV_AI_ADDR && c->coord_label)
        snprintf(buf, n, "$(JAXOPERATOR_COORDINATOR_HOST):%d", c->port);
    else
        snprintf(buf, n, "%s:%d", c->host, c->port);
    return buf;
}

/* One entry; *out is NULL when the variable is omitted.  Returns 0 or -ENOMEM. */
static int ev_entry(const struct ev_spec *s, const struct ev_ctx *c, json_t **out)
{
    char buf[320];
    *out = NULL;
    if (s->kind == EV_AI_HOST && c->coord_label)
        *out = ev_fieldref(s->name, "metadata.labels['" LBL_COORDINATOR "']");
    else if (s->kind == EV_HOST || s->kind == EV_AI_HOST || s->kind == EV_ADDR ||
             s->kind == EV_AI_ADDR)
        *out = ev_str(s->name, ev_host_value(s->kind, c, buf, sizeof(buf)));
    else if (s->kind == EV_PORT)
        *out = ev_int(s->name, c->port);
    else if (s->kind == EV_NUM)
        *out = ev_int(s->name, c->num);
    else if (s->kind == EV_ONE)
        *out = ev_str(s->name, "1");
    else if (c->id_mode == ID_OMIT)
        return 0;
    else if (c->id_mode == ID_LITERAL)
        *out = ev_int(s->name, c->id);
    else
        *out = ev_fieldref(s->name, "metadata.annotations['" ANN_JOB_COMPLETION_INDEX "']");
    return *out ? 0 : -ENOMEM;
}

static json_t *ev_array(const struct ev_ctx *c)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < sizeof(ev_table) / sizeof(ev_table[0]); i++) {
        json_t *e;
        if (!(ev_table[i].flavors & FL(c->flavor)))
            continue;
        if (ev_entry(&ev_table[i], c, &e) < 0 || (e && json_array_append_new(arr, e) < 0)) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

json_t *jaxrt_pod_env(const struct jaxrt *rt, const struct js_view *v, size_t rj, long long job,
                      long long pod, const char *coord_host, int port)
{
    long long id = jaxrt_process_id(rt, v, rj, job, pod);
    if (id < 0)
        return json_array();
    struct ev_ctx c = {
        .flavor = rt->flavor,
        .host = coord_host ? coord_host : rt->coord_host,
        .port = port > 0 ? port : rt->port,
        .num = rt->num_processes,
        .id = id,
        .id_mode = ID_LITERAL,
    };
    return ev_array(&c);
}

/* Upserts (by name) a deep copy of every entry of `env` into the env of each container of
 * `pspec`: a variable the JobSet already holds (the TrainJob JAX plugin's) takes jaxrt's value. */
static int env_append(json_t *pspec, const json_t *env)
{
    json_t *ctrs = jx_arr(pspec, "containers");
    for (size_t c = 0; c < json_array_size(ctrs); c++) {
        json_t *dst = jx_ensure_arr(json_array_get(ctrs, c), "env");
        if (!dst)
            return -ENOMEM;
        for (size_t k = 0; k < json_array_size(env); k++) {
            const json_t *e = json_array_get(env, k);
            json_t *copy = json_deep_copy(e);
            size_t at;
            json_t *old;
            int rc = -1;
            json_array_foreach (dst, at, old)
                if (jx_str(old, "name") && strcmp(jx_str(old, "name"), jx_str(e, "name")) == 0)
                    break;
            rc = at < json_array_size(dst) ? json_array_set_new(dst, at, copy)
                                           : json_array_append_new(dst, copy);
            if (rc < 0)
                return -ENOMEM;
        }
    }
    return 0;
}

/* Removes the process id variables from each container of `pspec`: a Job whose pods' ids are not
 * one fieldRef of it (ID_OMIT) must not keep the TrainJob JAX plugin's completion-index one,
 * which would number every Job's pods from 0 (kubeflow/trainer #3537). */
static void env_drop_ids(json_t *pspec, enum jaxrt_flavor f)
{
    json_t *ctrs = jx_arr(pspec, "containers");
    for (size_t c = 0; c < json_array_size(ctrs); c++) {
        json_t *env = jx_arr(json_array_get(ctrs, c), "env");
        for (size_t k = 0; k < json_array_size(env);) {
            if (jaxrt_is_id_var(f, jx_str(json_array_get(env, k), "name")))
                json_array_remove(env, k);
            else
                k++;
        }
    }
}

int jaxrt_apply_job(const struct jaxrt *rt, const struct js_view *v, size_t rj, long long job,
                    json_t *job_obj)
{
    long long first = jaxrt_process_id(rt, v, rj, job, 0);
    if (first < 0)
        return 0;
    long long ppj = v->rj[rj].pods_per_job;
    struct ev_ctx c = {
        .flavor = rt->flavor,
        .host = rt->coord_host,
        .port = rt->port,
        .num = rt->num_processes,
        .id = first,
        .id_mode = ppj == 1 ? ID_LITERAL : (first == 0 && ppj > 1 ? ID_FIELDREF : ID_OMIT),
        .coord_label = v->has_coordinator,
    };
    char off[32];
    snprintf(off, sizeof(off), "%lld", first);
    json_t *ptmpl = jx_ensure_obj(jx_obj(job_obj, "spec"), "template");
    json_t *pmeta = jx_ensure_obj(ptmpl, "metadata");
    json_t *pspec = jx_obj(ptmpl, "spec");
    if (!pmeta || jx_set_meta(pmeta, "annotations", ANN_PROCESS_ID_OFFSET, off) < 0)
        return -ENOMEM;
    if (c.id_mode == ID_OMIT)
        env_drop_ids(pspec, rt->flavor);
    json_t *env = ev_array(&c);
    int rc = env ? env_append(pspec, env) : -ENOMEM;
    json_decref(env);
    return rc;
}
