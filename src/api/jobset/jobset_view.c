#include "api/jobset/jobset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj/tree/jx.h"

static void rj_fill(struct js_rj *r, const json_t *rjo)
{
    const json_t *tspec = jx_path(rjo, "template.spec");
    long long par, comp;
    bool has_par = jx_int(tspec, "parallelism", &par) == 0;
    bool has_comp = jx_int(tspec, "completions", &comp) == 0;

    r->name = jx_str(rjo, "name");
    r->group = jx_str(rjo, "groupName");
    if (!r->group)
        r->group = "default";
    r->replicas = jx_int_or(rjo, "replicas", 1);
    r->parallelism = has_par ? par : 1;
    r->completions = has_comp ? comp : (has_par ? -1 : 1);
    const char *mode = jx_str(tspec, "completionMode");
    r->indexed = !mode || strcmp(mode, "Indexed") == 0;
    r->pods_per_job = r->completions >= 0 ? r->completions : r->parallelism;
    r->tmpl = jx_obj(rjo, "template");
}

static void coordinator_fill(struct js_view *v, const json_t *spec)
{
    const json_t *c = jx_obj(spec, "coordinator");
    v->has_coordinator = c != NULL;
    if (!c)
        return;
    v->coord_rj = jx_str(c, "replicatedJob");
    v->coord_job = jx_int_or(c, "jobIndex", 0);
    v->coord_pod = jx_int_or(c, "podIndex", 0);
}

int js_view_init(struct js_view *v, const json_t *js)
{
    memset(v, 0, sizeof(*v));
    const json_t *meta = jx_obj(js, "metadata"), *spec = jx_obj(js, "spec");
    const json_t *rjs = jx_arr(spec, "replicatedJobs");
    const json_t *net = jx_obj(spec, "network");
    v->name = jx_str(meta, "name");
    if (!v->name || (json_object_get(spec, "replicatedJobs") && !rjs))
        return -EINVAL; /* no replicatedJobs is none (upstream's CRD leaves them optional) */
    v->ns = jx_str(meta, "namespace");
    if (!v->ns)
        v->ns = "default";
    v->uid = jx_str(meta, "uid");
    v->subdomain = jx_str(net, "subdomain");
    if (!v->subdomain || !*v->subdomain)
        v->subdomain = v->name;
    v->dns_hostnames = jx_bool_or(net, "enableDNSHostnames", true);
    v->publish_not_ready = jx_bool_or(net, "publishNotReadyAddresses", true);
    v->suspend = jx_bool_or(spec, "suspend", false);
    v->restarts = jx_int_or(jx_obj(js, "status"), "restarts", 0);
    v->n_rj = json_array_size(rjs);
    v->rj = calloc(v->n_rj ? v->n_rj : 1, sizeof(*v->rj));
    if (!v->rj)
        return -ENOMEM;
    for (size_t i = 0; i < v->n_rj; i++) {
        rj_fill(&v->rj[i], json_array_get(rjs, i));
        if (!v->rj[i].name) {
            js_view_release(v);
            return -EINVAL;
        }
        v->global_replicas += v->rj[i].replicas;
    }
    coordinator_fill(v, spec);
    return 0;
}

void js_view_release(struct js_view *v)
{
    if (!v)
        return;
    free(v->rj);
    memset(v, 0, sizeof(*v));
}

long long js_job_restarts(const json_t *js, const char *rj, long long job)
{
    size_t i;
    const json_t *e;
    json_array_foreach (jx_arr(jx_obj(js, "status"), "replicatedJobsStatus"), i, e) {
        const char *n = jx_str(e, "name");
        if (!n || !rj || strcmp(n, rj) != 0)
            continue;
        const json_t *v = job < 0 ? NULL : json_array_get(jx_arr(e, "jobRestarts"), (size_t)job);
        return json_is_integer(v) ? json_integer_value(v) : 0;
    }
    return 0;
}

long js_view_find(const struct js_view *v, const char *name)
{
    for (size_t i = 0; name && i < v->n_rj; i++)
        if (strcmp(v->rj[i].name, name) == 0)
            return (long)i;
    return -1;
}

void js_job_name(const struct js_view *v, size_t rj, long long job, char *out, size_t n)
{
    snprintf(out, n, "%s-%s-%lld", v->name, v->rj[rj].name, job);
}

void js_pod_hostname(const struct js_view *v, size_t rj, long long job, long long pod, char *out,
                     size_t n)
{
    snprintf(out, n, "%s-%s-%lld-%lld", v->name, v->rj[rj].name, job, pod);
}
