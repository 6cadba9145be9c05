/* backend_cluster: the jobs of a cluster through its API server (kube/client), with kubectl's
 * flags and precedence (cli/backend/cluster.h): GET of one object or of a list (with -l's label
 * selector, in every namespace with -A), a watch from a list's version, DELETE with a
 * propagation policy; `get`'s table is kubectl-aligned (NAME, STATE, RESTARTS, READY, ACTIVE,
 * SUCCEEDED, FAILED, AGE; -o wide adds each replicated job's counts). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/backend/job_state.h"
#include "cli/backend/backend.h"
#include "cli/backend/backend_int.h"
#include "cli/util/cli.h"
#include "cli/backend/runs.h"
#include "obj/tree/jx.h"
#include "obj/base/ktime.h"
#include "obj/base/sbuf.h"

static int cl_open(struct backend *b)
{
    return cluster_connect(b->c);
}

static void cl_close(struct backend *b)
{
    cluster_close(b->c);
}

static int cl_get(struct backend *b, const struct kc_res *k, const char *name, json_t **out)
{
    return cluster_get(b->c, k, name, out);
}

/* "labelSelector=<escaped>" of -l (malloc'd), or NULL when none was given (or on OOM). */
static char *label_query(const char *selector)
{
    char *esc = selector ? kc_escape(selector) : NULL;
    char *q = esc ? sb_fmt("labelSelector=%s", esc) : NULL;
    free(esc);
    return q;
}

static int cl_list(struct backend *b, const struct kc_res *k, const char *selector,
                   json_t **out)
{
    struct kc_cli_resp r;
    char *path = kc_res_path(k, b->all_ns ? NULL : b->c->ns, NULL, NULL);
    char *q = label_query(selector);
    char *full = path && q ? sb_fmt("%s?%s", path, q) : NULL;
    int rc = EXIT_OK;
    *out = NULL;
    if (!path || (selector && !full)) {
        fprintf(stderr, "jaxset %s: " ERR_OOM_MSG "\n", b->c->cmd);
        rc = EXIT_CLUSTER;
    } else if (cluster_request(b->c, "GET", full ? full : path, NULL, &r) < 0) {
        rc = cluster_fail(b->c, &r);
        kc_cli_resp_free(&r);
    } else {
        *out = json_incref(r.body);
        kc_cli_resp_free(&r);
    }
    free(path);
    free(q);
    free(full);
    return rc;
}

static int cl_watch(struct backend *b, const struct kc_res *k, const char *name,
                    const char *selector, const char *rv, int64_t deadline_ms,
                    kc_cli_event_fn fn, void *arg)
{
    struct err e = {{0}};
    char *list = kc_res_path(k, b->all_ns ? NULL : b->c->ns, NULL, NULL);
    char *sel = name ? sb_fmt("fieldSelector=metadata.name%%3D%s", name) : label_query(selector);
    int rc = list && (sel || (!name && !selector))
                 ? kc_cli_watch(b->c->kc, list, sel, rv, deadline_ms, fn, arg, &e)
                 : -ENOMEM;
    free(list);
    free(sel);
    if (rc < 0 && rc != -JX_EGONE)
        fprintf(stderr, "jaxset %s: %s\n", b->c->cmd, e.msg[0] ? e.msg : ERR_OOM_MSG);
    return rc;
}

static int cl_remove(struct backend *b, const struct kc_res *k, const char *name,
                     const struct backend_delete *o)
{
    char q[KC_RES_QUALIFIED_MAX];
    struct kc_cli_resp r;
    int rc = EXIT_OK;
    char *path = kc_res_path(k, b->c->ns, name, NULL);
    json_t *opts = json_pack("{s:s, s:s, s:s}", "apiVersion", "v1", "kind", "DeleteOptions",
                             "propagationPolicy", o->cascade);
    if (!path || !opts)
        rc = EXIT_CLUSTER;
    else if (cluster_request(b->c, "DELETE", path, opts, &r) < 0)
        rc = cluster_fail(b->c, &r);
    else
        printf("%s \"%s\" deleted\n", kc_res_qualified(k, q), name);
    if (path && opts)
        kc_cli_resp_free(&r);
    json_decref(opts);
    free(path);
    return rc;
}

static size_t cl_columns(const struct backend *b, bool wide, const char **out)
{
    static const char *const head[] = {"NAME", "STATE", "RESTARTS", "READY", "ACTIVE",
                                       "SUCCEEDED", "FAILED", "AGE", "REPLICATED JOBS"};
    size_t n = 0;
    if (b->all_ns)
        out[n++] = "NAMESPACE";
    for (size_t i = 0; i < (wide ? 9u : 8u); i++)
        out[n++] = head[i];
    return n;
}

enum counter { C_READY, C_ACTIVE, C_SUCCEEDED, C_FAILED };

static long long counter(const struct job_state_rj *r, enum counter which)
{
    switch (which) {
    case C_READY: return r->ready;
    case C_ACTIVE: return r->active;
    case C_SUCCEEDED: return r->succeeded;
    default: return r->failed;
    }
}

/* Sum of one counter over the replicated jobs ("n/replicas" when `of_replicas`); "-" when no
 * replicated job reports it. */
static void sum_cell(struct table *t, const struct job_state *v, enum counter which,
                     bool of_replicas)
{
    long long n = 0, total = 0;
    bool known = false, totals = of_replicas;
    for (size_t i = 0; i < v->n_rj; i++) {
        long long x = counter(&v->rj[i], which);
        known |= x >= 0;
        n += x > 0 ? x : 0;
        totals &= v->rj[i].replicas >= 0;
        total += v->rj[i].replicas > 0 ? v->rj[i].replicas : 0;
    }
    if (!known)
        table_cell(t, "-");
    else if (totals && v->n_rj)
        table_cell(t, "%lld/%lld", n, total);
    else
        table_cell(t, "%lld", n);
}

/* "name:ready/active/succeeded/failed,..." ('-' for a counter the kind does not keep). */
static void rj_cell(struct table *t, const struct job_state *v)
{
    struct sbuf b = SBUF_INIT;
    for (size_t i = 0; i < v->n_rj; i++) {
        const struct job_state_rj *r = &v->rj[i];
        long long c[] = {counter(r, C_READY), counter(r, C_ACTIVE), counter(r, C_SUCCEEDED),
                         counter(r, C_FAILED)};
        sb_printf(&b, "%s%s:", i ? "," : "", r->name ? r->name : "?");
        for (size_t k = 0; k < 4; k++)
            sb_printf(&b, c[k] < 0 ? "%s-" : "%s%lld", k ? "/" : "", c[k] < 0 ? 0 : c[k]);
    }
    table_cell(t, "%s", b.len ? sb_str(&b) : "-");
    sb_free(&b);
}

static void cl_row(struct backend *b, const struct kc_res *k, const json_t *obj, bool wide,
                   struct table *t)
{
    struct job_state v;
    char age[RUNS_HUMAN_MAX];
    bool final;
    const json_t *meta = jx_obj(obj, "metadata");
    const char *state = job_state_shown(k, obj, &final);
    if (job_state_read(k->family, obj, &v) < 0)
        v = (struct job_state){.state = "Unknown", .restarts = -1}; /* out of memory */
    if (b->all_ns)
        table_cell(t, "%s", jx_str(meta, "namespace") ? jx_str(meta, "namespace") : "");
    table_cell(t, "%s", jx_str(meta, "name") ? jx_str(meta, "name") : "?");
    table_cell(t, "%s", state);
    if (v.restarts < 0)
        table_cell(t, "-");
    else
        table_cell(t, "%lld", v.restarts);
    sum_cell(t, &v, C_READY, true);
    sum_cell(t, &v, C_ACTIVE, false);
    sum_cell(t, &v, C_SUCCEEDED, true);
    sum_cell(t, &v, C_FAILED, false);
    table_cell(t, "%s", runs_age(jx_str(meta, "creationTimestamp"), kt_now_ms(), age));
    if (wide)
        rj_cell(t, &v);
    job_state_release(&v);
}

const struct backend_ops backend_cluster_ops = {
    .open = cl_open,
    .close = cl_close,
    .get = cl_get,
    .list = cl_list,
    .watch = cl_watch,
    .remove = cl_remove,
    .logs = logs_cluster,
    .describe = describe_cluster,
    .columns = cl_columns,
    .row = cl_row,
};
