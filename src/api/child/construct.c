/* The objects the JobSet controller creates (see construct.h). */
#include "api/child/construct.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/jobset/features.h"
#include "api/schema/keys.h"
#include "obj/base/sha1.h"
#include "obj/tree/jx.h"

/* One key of upstream labelAndAnnotateObject and its value for a given child Job. */
struct stamp {
    const char *key;
    char val[320];
};

enum { STAMP_MAX = 14 };

void construct_job_key(const char *ns, const char *job_name, char out[41])
{
    struct sha1 s;
    uint8_t md[SHA1_LEN];
    static const char hex[] = "0123456789abcdef";
    sha1_init(&s);
    sha1_update(&s, ns, strlen(ns));
    sha1_update(&s, "/", 1);
    sha1_update(&s, job_name, strlen(job_name));
    sha1_final(&s, md);
    for (int i = 0; i < SHA1_LEN; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    out[40] = '\0';
}

static void stamp_str(struct stamp *s, const char *key, const char *val)
{
    s->key = key;
    snprintf(s->val, sizeof(s->val), "%s", val);
}

static void stamp_int(struct stamp *s, const char *key, long long val)
{
    s->key = key;
    snprintf(s->val, sizeof(s->val), "%lld", val);
}

/* Fills the labelAndAnnotateObject keys of Job `job` of `rj`; returns how many.  `js` is read
 * for the Job's own restart count when `restart_job` (the RestartJob gate) is on. */
static size_t stamps_fill(const json_t *js, const struct js_view *v, size_t rj, long long job,
                          const char *name, bool restart_job, struct stamp *st)
{
    const struct js_rj *r = &v->rj[rj];
    long long before = 0, group = 0, group_before = 0;
    for (size_t i = 0; i < v->n_rj; i++) {
        bool same = strcmp(v->rj[i].group, r->group) == 0;
        before += i < rj ? v->rj[i].replicas : 0;
        group_before += i < rj && same ? v->rj[i].replicas : 0;
        group += same ? v->rj[i].replicas : 0;
    }
    size_t n = 0;
    stamp_str(&st[n++], LBL_JOBSET_NAME, v->name);
    stamp_str(&st[n++], LBL_JOBSET_UID, v->uid ? v->uid : "");
    stamp_str(&st[n++], LBL_RJ_NAME, r->name);
    stamp_int(&st[n++], LBL_RJ_REPLICAS, r->replicas);
    stamp_int(&st[n++], LBL_GLOBAL_REPLICAS, v->global_replicas);
    stamp_int(&st[n++], LBL_JOB_INDEX, job);
    stamp_int(&st[n++], LBL_JOB_GLOBAL_INDEX, before + job);
    stamp_str(&st[n++], LBL_GROUP_NAME, r->group);
    stamp_int(&st[n++], LBL_GROUP_REPLICAS, group);
    stamp_int(&st[n++], LBL_JOB_GROUP_INDEX, group_before + job);
    st[n].key = LBL_JOB_KEY;
    construct_job_key(v->ns, name, st[n++].val);
    stamp_int(&st[n++], LBL_RESTART_ATTEMPT, v->restarts);
    if (restart_job)
        stamp_int(&st[n++], LBL_JOB_RESTART_ATTEMPT, js_job_restarts(js, r->name, job));
    if (v->has_coordinator) {
        st[n].key = LBL_COORDINATOR;
        snprintf(st[n++].val, sizeof(st[0].val), "%s-%s-%lld-%lld.%s", v->name, v->coord_rj,
                 v->coord_job, v->coord_pod, v->subdomain);
    }
    return n;
}

static int key_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A copy of the string map `m` (may be NULL) with the stamps added and keys sorted, the way
 * kubectl prints maps.  New reference or NULL on OOM. */
static json_t *map_stamped(const json_t *m, const struct stamp *st, size_t n)
{
    json_t *tmp = json_is_object(m) ? json_copy((json_t *)m) : json_object();
    json_t *out = NULL;
    const char **keys = NULL;
    if (!tmp)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (jx_set_str(tmp, st[i].key, st[i].val) < 0)
            goto out;
    size_t nk = json_object_size(tmp), k = 0;
    keys = calloc(nk ? nk : 1, sizeof(*keys));
    if (!keys)
        goto out;
    const char *key;
    json_t *val;
    json_object_foreach (tmp, key, val)
        keys[k++] = key;
    qsort(keys, nk, sizeof(*keys), key_cmp);
    out = json_object();
    for (size_t i = 0; out && i < nk; i++) {
        if (json_object_set(out, keys[i], json_object_get(tmp, keys[i])) < 0) {
            json_decref(out);
            out = NULL;
        }
    }
out:
    free(keys);
    json_decref(tmp);
    return out;
}

/* Copies the exclusive-placement annotations into `ann`: JobSet level first, then the
 * replicated job's template level (which wins); node-selector comes from the level that
 * supplied exclusive-topology (upstream labelAndAnnotateObject). */
static int exclusive_copy(json_t *ann, const json_t *js_ann, const json_t *rj_ann)
{
    const json_t *levels[2] = {js_ann, rj_ann};
    for (size_t i = 0; i < 2; i++) {
        const char *topo = jx_str(levels[i], ANN_EXCLUSIVE_TOPOLOGY);
        const char *sel = jx_str(levels[i], ANN_NODE_SELECTOR);
        if (!topo)
            continue;
        if (jx_set_str(ann, ANN_EXCLUSIVE_TOPOLOGY, topo) < 0)
            return -1;
        if (sel && jx_set_str(ann, ANN_NODE_SELECTOR, sel) < 0)
            return -1;
    }
    return 0;
}

/* What every part of one child Job is built from. */
struct build {
    const struct js_view *v;
    const json_t *js;     /* the JobSet */
    const json_t *js_ann; /* the JobSet's metadata.annotations */
    const json_t *rj_ann; /* the replicated job template's metadata.annotations */
    char name[256];
    struct stamp st[STAMP_MAX];
    size_t n;
};

/* Sets meta.labels and meta.annotations from the maps of `src_meta` plus the stamps. */
static int meta_stamp(json_t *meta, const json_t *src_meta, const struct build *b)
{
    json_t *ann = map_stamped(jx_obj(src_meta, "annotations"), b->st, b->n);
    if (!ann)
        return -1;
    if (exclusive_copy(ann, b->js_ann, b->rj_ann) < 0 ||
        jx_set_new(meta, "labels", map_stamped(jx_obj(src_meta, "labels"), b->st, b->n)) < 0) {
        json_decref(ann);
        return -1;
    }
    return jx_set_new(meta, "annotations", ann);
}

/* The Job's metadata: name, namespace, labels, annotations, ownerReferences. */
static json_t *job_meta(const struct build *b, const json_t *tmeta)
{
    json_t *meta = json_pack("{s:s,s:s}", "name", b->name, "namespace", b->v->ns);
    if (!meta || meta_stamp(meta, tmeta, b) < 0 ||
        jx_set_new(meta, "ownerReferences", json_array()) < 0 ||
        json_array_append_new(jx_arr(meta, "ownerReferences"), construct_owner_ref(b->v)) < 0) {
        json_decref(meta);
        return NULL;
    }
    return meta;
}

/* spec.template with its metadata first (created when absent); borrowed, NULL on OOM. */
static json_t *pod_template(json_t *spec)
{
    json_t *tmpl = jx_ensure_obj(spec, "template");
    if (!tmpl || jx_obj(tmpl, "metadata"))
        return tmpl;
    json_t *fresh = json_pack("{s:{}}", "metadata");
    if (!fresh || json_object_update(fresh, tmpl) < 0 ||
        json_object_set(spec, "template", fresh) < 0) {
        json_decref(fresh);
        return NULL;
    }
    json_decref(fresh);
    return fresh;
}

/* The node-selector strategy of exclusive placement (upstream addNamespacedJobNodeSelector,
 * addTaintToleration). */
static int node_selector_strategy(json_t *pspec, const json_t *job_ann, const char *ns,
                                  const char *name)
{
    char val[512];
    if (!jx_str(job_ann, ANN_EXCLUSIVE_TOPOLOGY) || !jx_str(job_ann, ANN_NODE_SELECTOR))
        return 0;
    snprintf(val, sizeof(val), "%s_%s", ns, name);
    json_t *sel = jx_ensure_obj(pspec, "nodeSelector");
    json_t *tol = jx_ensure_arr(pspec, "tolerations");
    if (!sel || !tol || jx_set_str(sel, LBL_NAMESPACED_JOB, val) < 0)
        return -1;
    return json_array_append_new(tol, json_pack("{s:s,s:s,s:s}", "key", TAINT_NO_SCHEDULE,
                                                "operator", "Exists", "effect", "NoSchedule"));
}

/* Stamps the Job spec (a copy of the template's): pod template keys, subdomain, exclusive
 * placement, suspend. */
static int job_spec(json_t *spec, const struct build *b, const json_t *job_ann)
{
    const struct js_view *v = b->v;
    json_t *ptmpl = pod_template(spec);
    json_t *pmeta = jx_obj(ptmpl, "metadata");
    if (!pmeta || meta_stamp(pmeta, pmeta, b) < 0)
        return -1;
    json_t *pspec = jx_ensure_obj(ptmpl, "spec");
    if (!pspec)
        return -1;
    if (v->dns_hostnames && jx_set_str(pspec, "subdomain", v->subdomain) < 0)
        return -1;
    if (node_selector_strategy(pspec, job_ann, v->ns, b->name) < 0)
        return -1;
    if (construct_pvc_volumes(b->js, v, pspec) < 0)
        return -1;
    return jx_set_bool(spec, "suspend", v->suspend);
}

json_t *construct_job(const json_t *js, const struct js_view *v, const struct jaxrt *rt,
                      size_t rj, long long job)
{
    return construct_job_gated(js, v, rt, NULL, rj, job);
}

json_t *construct_job_gated(const json_t *js, const struct js_view *v, const struct jaxrt *rt,
                            const struct feature_gates *g, size_t rj, long long job)
{
    struct build b = {.v = v};
    json_t *out = NULL, *meta = NULL, *spec = NULL;
    const json_t *tmpl = v->rj[rj].tmpl, *tspec = jx_obj(tmpl, "spec");
    const json_t *tmeta = jx_obj(tmpl, "metadata");

    b.js = js;
    b.js_ann = jx_path(js, "metadata.annotations");
    b.rj_ann = jx_obj(tmeta, "annotations");
    js_job_name(v, rj, job, b.name, sizeof(b.name));
    b.n = stamps_fill(js, v, rj, job, b.name, fg_enabled(g, FG_RESTART_JOB), b.st);
    meta = job_meta(&b, tmeta);
    spec = tspec ? json_deep_copy(tspec) : json_object();
    if (!meta || !spec || job_spec(spec, &b, jx_obj(meta, "annotations")) < 0)
        goto out;
    out = json_pack("{s:s,s:s,s:O,s:O}", "apiVersion", "batch/v1", "kind", "Job", "metadata",
                    meta, "spec", spec);
    if (out && rt && rt->flavor != JAXRT_OFF && jaxrt_apply_job(rt, v, rj, job, out) < 0) {
        json_decref(out);
        out = NULL;
    }
out:
    json_decref(meta);
    json_decref(spec);
    return out;
}

json_t *construct_service(const json_t *js, const struct js_view *v)
{
    (void)js;
    json_t *ref = construct_owner_ref(v);
    if (!ref)
        return NULL;
    return json_pack("{s:s,s:s,s:{s:s,s:s,s:[o]},s:{s:s,s:{s:s},s:b}}", "apiVersion", "v1",
                     "kind", "Service", "metadata", "name", v->subdomain, "namespace", v->ns,
                     "ownerReferences", ref, "spec", "clusterIP", "None", "selector",
                     LBL_JOBSET_NAME, v->name, "publishNotReadyAddresses",
                     v->publish_not_ready);
}
