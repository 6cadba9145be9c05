/* kpods: a cluster job's Jobs and pods and their JAX process ids (kpods.h). */
#include "cli/backend/kpods.h"

#include <stdlib.h>
#include <string.h>

#include "api/schema/keys.h"
#include "api/child/pod_meta.h"
#include "cli/util/cli.h"
#include "obj/tree/ferr.h"
#include "obj/tree/jx.h"
#include "obj/base/sbuf.h"

static const char *selector_label(const struct kc_res *k)
{
    return k->family == JOB_KIND_JAXJOB ? "training.kubeflow.org/job-name" : LBL_JOBSET_NAME;
}

char *kpods_selector(const struct kc_res *k, const char *name)
{
    char *label = sb_fmt("%s=%s", selector_label(k), name);
    char *esc = label ? kc_escape(label) : NULL;
    char *sel = esc ? sb_fmt("labelSelector=%s", esc) : NULL;
    free(label);
    free(esc);
    return sel;
}

static int by_name(const void *a, const void *b)
{
    const char *x = jx_str(jx_obj(*(json_t *const *)a, "metadata"), "name");
    const char *y = jx_str(jx_obj(*(json_t *const *)b, "metadata"), "name");
    return strcmp(x ? x : "", y ? y : "");
}

/* Sorts the array's items with `cmp` (qsort over a copy of the pointers). */
static void sort_items(json_t *arr, int (*cmp)(const void *, const void *))
{
    size_t n = json_array_size(arr);
    json_t **v = malloc((n ? n : 1) * sizeof(*v));
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        v[i] = json_incref(json_array_get(arr, i));
    qsort(v, n, sizeof(*v), cmp);
    json_array_clear(arr);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, v[i]);
    free(v);
}

int kpods_list(struct cluster *c, const char *res, const struct kc_res *k, const char *name,
               json_t **out)
{
    const struct kc_res *r = kc_res_find(res);
    char *list = kc_res_path(r, c->ns, NULL, NULL), *sel = kpods_selector(k, name), *path = NULL;
    struct kc_cli_resp resp = {0};
    int rc = EXIT_CLUSTER;
    *out = NULL;
    if (list && sel && (path = sb_fmt("%s?%s", list, sel))) {
        if (cluster_request(c, "GET", path, NULL, &resp) < 0)
            rc = cluster_fail(c, &resp);
        else if ((*out = json_incref(jx_arr(resp.body, "items"))))
            rc = EXIT_OK;
    }
    if (rc == EXIT_OK)
        sort_items(*out, by_name);
    kc_cli_resp_free(&resp);
    free(list);
    free(sel);
    free(path);
    /* a JAXJob jaxset's controller runs is a JobSet of its name: its pods carry the JobSet's
     * labels, not the Training Operator's */
    if (rc == EXIT_OK && k->family == JOB_KIND_JAXJOB && json_array_size(*out) == 0) {
        json_decref(*out);
        return kpods_list(c, res, kc_res_find("jobset"), name, out);
    }
    return rc;
}

void kpods_ids_init(struct kpods_ids *ids, const json_t *jobset)
{
    struct ferr_list errs;
    memset(ids, 0, sizeof(*ids));
    if (!jobset || !(ids->js = json_deep_copy(jobset)) || js_default(ids->js) < 0)
        return;
    ids->have_view = js_view_init(&ids->v, ids->js) == 0;
    ferr_list_init(&errs);
    ids->have_rt = ids->have_view && jaxrt_init(&ids->rt, ids->js, &ids->v, &errs) >= 0;
    ferr_list_release(&errs);
}

void kpods_ids_release(struct kpods_ids *ids)
{
    if (ids->have_rt)
        jaxrt_release(&ids->rt);
    if (ids->have_view)
        js_view_release(&ids->v);
    json_decref(ids->js);
    memset(ids, 0, sizeof(*ids));
}

/* JAX_PROCESS_ID (or a JAXJob's PROCESS_ID) set as a value in the pod's first container. */
static long long env_id(const json_t *pod)
{
    const json_t *e;
    size_t i;
    json_array_foreach (jx_arr(json_array_get(jx_arr(jx_obj(pod, "spec"), "containers"), 0),
                               "env"), i, e) {
        const char *n = jx_str(e, "name"), *v = jx_str(e, "value");
        if (n && v && (!strcmp(n, "JAX_PROCESS_ID") || !strcmp(n, "PROCESS_ID")))
            return strtoll(v, NULL, 10);
    }
    return -1;
}

long long kpods_process_id(const struct kpods_ids *ids, const json_t *pod)
{
    const json_t *meta = jx_obj(pod, "metadata");
    long long id = env_id(pod);
    if (id >= 0 || !ids || !ids->have_rt || ids->rt.flavor == JAXRT_OFF)
        return id;
    const char *rj = jx_get_meta(meta, "labels", LBL_RJ_NAME);
    long k = rj ? js_view_find(&ids->v, rj) : -1;
    long long job = pod_meta_int(meta, "labels", LBL_JOB_INDEX);
    long long idx = pod_completion_index(meta);
    if (k < 0 || job < 0)
        return -1;
    return jaxrt_process_id(&ids->rt, &ids->v, (size_t)k, job, idx < 0 ? 0 : idx);
}

const char *kpods_hostname(const json_t *pod)
{
    const char *h = jx_str(jx_obj(pod, "spec"), "hostname");
    return h ? h : jx_str(jx_obj(pod, "metadata"), "name");
}

static const struct kpods_ids *sort_ids;

long long kpods_attempt(const json_t *pod)
{
    return pod_meta_int(jx_obj(pod, "metadata"), "labels", LBL_RESTART_ATTEMPT);
}

static int by_process(const void *a, const void *b)
{
    long long ax = kpods_attempt(*(json_t *const *)a), ay = kpods_attempt(*(json_t *const *)b);
    if (ax != ay)
        return ax < ay ? -1 : 1;
    long long x = kpods_process_id(sort_ids, *(json_t *const *)a);
    long long y = kpods_process_id(sort_ids, *(json_t *const *)b);
    if (x != y)
        return x < 0 ? 1 : y < 0 ? -1 : x < y ? -1 : 1;
    return by_name(a, b);
}

void kpods_sort(json_t *pods, const struct kpods_ids *ids)
{
    sort_ids = ids;
    sort_items(pods, by_process);
    sort_ids = NULL;
}
