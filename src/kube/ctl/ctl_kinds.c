/* What the JAXJob and TrainJob controllers share: their JobSet (found, created with a
 * controller owner reference, suspended or resumed), their status writes, Events, deletes and
 * the pod cleanup of cleanPodPolicy.  Requests are made with kc_call, so a reconcile on a
 * worker fiber yields while they are in flight (ctl_workers.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/schema/keys.h"
#include "kube/ctl/ctl_int.h"
#include "kube/client/kc_log.h"
#include "obj/tree/jx.h"
#include "obj/base/ktime.h"

void ctl__kind_requeue(struct ctl *c, const struct ctl_kind *k, const char *key, int64_t ms,
                       bool *requeued)
{
    char full[600];
    snprintf(full, sizeof(full), "%s%s", k->key, key);
    cache_queue_add_after(c->q, full, kt_mono_ms(), ms);
    *requeued = true;
}

/* A JobSet this process wrote: its cache entry is the answer already, so the watch event that
 * follows carries no change; the JobSet controller is told here instead. */
static void observed_jobset(struct ctl *c, const json_t *js)
{
    char key[600];
    cache_inf_observe(c->jobsets, js);
    if ((c->kinds & CTL_KIND_JOBSET) && cache_store_key(js, key, sizeof(key)))
        cache_queue_add(c->q, key);
}

json_t *ctl__kind_jobset(struct ctl *c, const char *ns, const char *name, const char *owner_uid,
                         bool *foreign)
{
    json_t *js = cache_store_get(cache_inf_store(c->jobsets), ns, name);
    const char *uid = js ? cache_store_owner_uid(js) : NULL;
    *foreign = js && (!uid || !owner_uid || strcmp(uid, owner_uid) != 0);
    if (*foreign) {
        json_decref(js);
        return NULL;
    }
    return js;
}

static json_t *owner_ref(const struct ctl_kind *k, const json_t *owner)
{
    const json_t *m = jx_obj(owner, "metadata");
    return json_pack("{s:s,s:s,s:s?,s:s?,s:b,s:b}", "apiVersion", k->api_version, "kind",
                     k->kind, "name", jx_str(m, "name"), "uid", jx_str(m, "uid"), "controller",
                     1, "blockOwnerDeletion", 1);
}

int ctl__kind_create_owned(struct ctl *c, const struct ctl_kind *k, const json_t *owner,
                           const char *prefix, const char *resource, const json_t *obj,
                           json_t **out, struct err *e)
{
    json_t *body = json_deep_copy(obj), *meta = jx_ensure_obj(body, "metadata");
    json_t *ref = owner_ref(k, owner);
    const char *ns = jx_str(jx_obj(owner, "metadata"), "namespace");
    char *path = ctl__path(prefix, resource, ns, NULL, NULL);
    int rc = body && meta && ref && path &&
                     jx_set_new(meta, "ownerReferences", json_pack("[O]", ref)) == 0
                 ? kc_call(c->kc, "POST", path, body, NULL, out, e)
                 : err_oom(e);
    if (rc == 0)
        kc_log(KC_LOG_INFO, k->component, ns, "%s: created %s %s",
               jx_str(jx_obj(owner, "metadata"), "name"), jx_str(obj, "kind"),
               jx_str(jx_obj(obj, "metadata"), "name"));
    json_decref(body);
    json_decref(ref);
    free(path);
    return rc;
}

int ctl__kind_create_jobset(struct ctl *c, const struct ctl_kind *k, const json_t *owner,
                            const json_t *js, json_t **out, struct err *e)
{
    json_t *body = json_deep_copy(js);
    int rc = body && jx_set_str(body, "apiVersion", JOBSET_GROUP_VERSION) == 0 &&
                     jx_set_str(body, "kind", JOBSET_KIND) == 0
                 ? ctl__kind_create_owned(c, k, owner, CTL_JS_PREFIX, "jobsets", body, out, e)
                 : err_oom(e);
    if (rc == 0 && *out)
        observed_jobset(c, *out);
    json_decref(body);
    return rc;
}

int ctl__kind_put(struct ctl *c, const char *prefix, const char *resource, const json_t *obj,
                  json_t **out, struct err *e)
{
    const json_t *m = jx_obj(obj, "metadata");
    char *path = ctl__path(prefix, resource, jx_str(m, "namespace"), jx_str(m, "name"), NULL);
    int rc = path ? kc_call(c->kc, "PUT", path, obj, NULL, out, e)
                  : err_oom(e);
    if (rc == 0 && *out && strcmp(resource, "jobsets") == 0)
        observed_jobset(c, *out);
    free(path);
    return rc;
}

static int suspend_jobset(struct ctl *c, const json_t *js, bool suspend, struct err *e)
{
    const json_t *m = jx_obj(js, "metadata");
    char *path = ctl__path(CTL_JS_PREFIX, "jobsets", jx_str(m, "namespace"), jx_str(m, "name"),
                           NULL);
    json_t *patch = json_pack("{s:{s:b}}", "spec", "suspend", suspend), *got = NULL;
    int rc = path && patch ? kc_call(c->kc, "PATCH", path, patch,
                                     "application/merge-patch+json", &got, e)
                           : err_oom(e);
    if (rc == 0 && got)
        observed_jobset(c, got);
    json_decref(got);
    json_decref(patch);
    free(path);
    return rc;
}

int ctl__kind_sync_suspend(struct ctl *c, const char *logger, const char *key,
                           const json_t *js, bool want)
{
    struct err e = {{0}};
    if (!js || jx_bool_or(jx_obj(js, "spec"), "suspend", false) == want)
        return 0;
    int rc = suspend_jobset(c, js, want, &e);
    if (rc < 0)
        kc_log(KC_LOG_ERROR, logger, key, "%s its JobSet: %s", want ? "suspending" : "resuming",
             e.msg);
    return rc;
}

int ctl__kind_put_status(struct ctl *c, const struct ctl_kind *k, struct cache_inf *inf,
                         const json_t *obj, const json_t *status, struct err *e)
{
    const json_t *m = jx_obj(obj, "metadata");
    json_t *body = json_copy((json_t *)obj), *got = NULL;
    char *path = ctl__path(k->prefix, k->resource, jx_str(m, "namespace"), jx_str(m, "name"),
                           "status");
    int rc = body && path && json_object_set(body, "status", (json_t *)status) == 0
                 ? kc_call(c->kc, "PUT", path, body, NULL, &got, e)
                 : err_oom(e);
    if (rc == 0 && got)
        cache_inf_observe(inf, got);
    json_decref(got);
    json_decref(body);
    free(path);
    return rc;
}

void ctl__kind_events(struct ctl *c, const struct ctl_kind *k, const json_t *obj,
                      const json_t *events)
{
    size_t i;
    json_t *ev;
    json_array_foreach (events, i, ev) {
        json_t *body = ctl__event_new(c, k, jx_obj(obj, "metadata"), jx_str(ev, "type"),
                                      jx_str(ev, "reason"), jx_str(ev, "message"));
        ctl__event_send(c, body);
        json_decref(body);
    }
}

int ctl__kind_delete(struct ctl *c, const char *prefix, const char *resource, const char *ns,
                     const char *name, const char *uid, const char *propagation, struct err *e)
{
    char *path = ctl__path(prefix, resource, ns, name, NULL);
    json_t *opts = json_pack("{s:s,s:s,s:s}", "kind", "DeleteOptions", "apiVersion", "v1",
                             "propagationPolicy", propagation);
    if (opts && uid)
        jx_set_new(opts, "preconditions", json_pack("{s:s}", "uid", uid));
    int rc = path && opts ? kc_call(c->kc, "DELETE", path, opts, NULL, NULL, e)
                          : err_oom(e);
    json_decref(opts);
    free(path);
    return rc == -ENOENT ? 0 : rc;
}

static int list_pods(struct ctl *c, const char *ns, const char *jobset, json_t **out,
                     struct err *e)
{
    char *sel = NULL, *esc = NULL, *path = NULL, *base = ctl__path("/api/v1", "pods", ns, NULL,
                                                                   NULL);
    int rc = base && asprintf(&sel, "%s=%s", LBL_JOBSET_NAME, jobset) >= 0 &&
                     (esc = kc_escape(sel)) &&
                     asprintf(&path, "%s?labelSelector=%s", base, esc) >= 0
                 ? kc_call(c->kc, "GET", path, NULL, NULL, out, e)
                 : err_oom(e);
    free(sel);
    free(esc);
    free(path);
    free(base);
    return rc;
}

/* Upstream counts Pending as Running here: a pending pod becomes a running one. */
static bool to_clean(const json_t *pod, bool running_only)
{
    const char *phase = jx_str(jx_obj(pod, "status"), "phase");
    if (json_object_get(jx_obj(pod, "metadata"), "deletionTimestamp"))
        return false;
    return !running_only || !phase || strcmp(phase, "Running") == 0 ||
           strcmp(phase, "Pending") == 0;
}

int ctl__kind_clean_pods(struct ctl *c, const char *ns, const char *jobset, bool running_only,
                         struct err *e)
{
    json_t *list = NULL, *pod;
    size_t i, n = 0;
    int rc = list_pods(c, ns, jobset, &list, e);
    json_array_foreach (jx_arr(list, "items"), i, pod) {
        if (rc < 0 || !to_clean(pod, running_only))
            continue;
        rc = ctl__kind_delete(c, "/api/v1", "pods", ns, jx_str(jx_obj(pod, "metadata"), "name"),
                              NULL, "Background", e);
        n += rc == 0;
    }
    if (n)
        kc_log(KC_LOG_INFO, "cleanpod", ns, "%s: deleted %zu pods (cleanPodPolicy %s)", jobset, n,
             running_only ? "Running" : "All");
    json_decref(list);
    return rc;
}

bool ctl__kind_served(struct ctl *c, const char *prefix, const char *resource)
{
    char path[512];
    struct err e = {{0}};
    snprintf(path, sizeof(path), "%s/%s?limit=1", prefix, resource);
    return kc_call(c->kc, "GET", path, NULL, NULL, NULL, &e) != -ENOENT;
}
