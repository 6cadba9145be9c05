/* One reconcile: the JobSet and its Jobs from the caches, the webhook defaults applied in memory
 * (a JobSet that did not pass through an admission webhook behaves as one that did), the pure
 * core, and its plan executed through ctl__ops. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/jobset/features.h"
#include "api/jobset/jobset.h"
#include "api/schema/keys.h"
#include "api/jobset/local_ann.h"
#include "core/plan_exec.h"
#include "core/reconcile.h"
#include "kube/ctl/ctl_int.h"
#include "kube/client/kc_log.h"
#include "obj/tree/ferr.h"
#include "obj/tree/jx.h"
#include "obj/base/ktime.h"

#define LOGGER "jobset"

/* A JobSet the webhook would have refused is not reconciled (its errors are logged once per
 * generation); the core's input must be valid.  invalid_seen holds one entry per invalid JobSet
 * (key -> uid@generation last logged): a valid or deleted JobSet leaves it, so it stays as small
 * as the set of JobSets that are invalid now, and a JobSet recreated under the same name is
 * reported again. */
static bool valid(struct ctl *c, const char *key, const json_t *js, long long *grace)
{
    struct ferr_list errs;
    ferr_list_init(&errs);
    int n = js_validate_gated(js, &c->o->gates, &errs);
    if (n == 0)
        n = local_ann_restart_grace(js, grace, &errs);
    if (n == 0) {
        json_object_del(c->invalid_seen, key);
    } else {
        const json_t *m = jx_obj(js, "metadata");
        char tag[600];
        snprintf(tag, sizeof(tag), "%s@%lld", jx_str(m, "uid") ? jx_str(m, "uid") : "",
                 jx_int_or(m, "generation", 0));
        const char *seen = jx_str(c->invalid_seen, key);
        if (!seen || strcmp(seen, tag) != 0) {
            json_object_set_new(c->invalid_seen, key, json_string(tag));
            char *first = errs.n ? ferr_format(&errs.v[0]) : NULL;
            kc_log(KC_LOG_ERROR, LOGGER, key, "not reconciled: invalid (%d errors): %s", n,
                 first ? first : ERR_OOM_MSG);
            free(first);
        }
    }
    ferr_list_release(&errs);
    return n == 0;
}

/* restartStrategy InPlaceRestart with its gate on: the pass reads the JobSet's pods (upstream
 * lists them by the jobset-name label).  Read when needed, not cached: only such JobSets pay. */
static bool in_place(const struct ctl *c, const json_t *js)
{
    const char *s = jx_str(jx_path(js, "spec.failurePolicy"), "restartStrategy");
    return s && strcmp(s, "InPlaceRestart") == 0 && fg_enabled(&c->o->gates, FG_IN_PLACE_RESTART);
}

static int list_pods(struct ctl *c, const char *ns, const char *name, json_t **out,
                     struct err *e)
{
    char *sel = NULL, *esc = NULL, *path = NULL, *base = ctl__path("/api/v1", "pods", ns, NULL,
                                                                   NULL);
    json_t *list = NULL;
    int rc = base && asprintf(&sel, "%s=%s", LBL_JOBSET_NAME, name) >= 0 &&
                     (esc = kc_escape(sel)) &&
                     asprintf(&path, "%s?labelSelector=%s", base, esc) >= 0
                 ? kc_call(c->kc, "GET", path, NULL, NULL, &list, e)
                 : err_oom(e);
    if (rc == 0) {
        *out = json_incref(jx_arr(list, "items"));
        if (!*out)
            *out = json_array();
    }
    json_decref(list);
    free(sel);
    free(esc);
    free(path);
    free(base);
    return rc;
}

static int run_plan(struct ctl *c, const char *key, json_t *js, const json_t *raw,
                    long long grace, bool *requeued)
{
    const json_t *m = jx_obj(raw, "metadata");
    const char *uid = jx_str(m, "uid");
    json_t *jobs = ctl__owned(c->jobs, jx_str(m, "namespace"), uid);
    json_t *pods = NULL;
    struct rec_plan plan;
    struct err e = {{0}};
    int rc = 0;
    if (in_place(c, js))
        rc = list_pods(c, jx_str(m, "namespace"), jx_str(m, "name"), &pods, &e);
    if (rc == 0)
        rc = jobs ? rec_reconcile_gated(js, jobs, pods, kt_now_ms(), &c->o->gates, &plan, &e)
                  : -ENOMEM;
    json_decref(jobs);
    json_decref(pods);
    if (rc < 0) {
        kc_log(KC_LOG_ERROR, LOGGER, key, "reconcile: %s", e.msg);
        return rc;
    }
    struct ctl_pass ps = {c, raw, jx_str(m, "namespace"), jx_str(m, "name"), uid, grace, key,
                          NULL};
    struct rec_exec_result res;
    rc = rec_plan_execute(&plan, &ctl__ops, &ps, &res, &e);
    if (rc < 0) {
        kc_log(rc == -JX_ECONFLICT ? KC_LOG_DEBUG : KC_LOG_ERROR, LOGGER, key, "%s", e.msg);
    } else if (!res.status_written && plan.requeue_after_ms >= 0) {
        /* a written status queues the key itself once the write is in (ctl_ops.c) */
        cache_queue_add_after(c->q, key, kt_mono_ms(), plan.requeue_after_ms);
        *requeued = true;
    }
    rec_plan_release(&plan);
    return rc;
}

int ctl__reconcile(struct ctl *c, const char *key, bool *requeued)
{
    *requeued = false;
    if (strncmp(key, CTL_KEY_JAXJOB, strlen(CTL_KEY_JAXJOB)) == 0)
        return ctl__jaxjob_reconcile(c, key + strlen(CTL_KEY_JAXJOB), requeued);
    if (strncmp(key, CTL_KEY_TRAINJOB, strlen(CTL_KEY_TRAINJOB)) == 0)
        return ctl__trainjob_reconcile(c, key + strlen(CTL_KEY_TRAINJOB), requeued);
    if (strncmp(key, CTL_KEY_POD, strlen(CTL_KEY_POD)) == 0)
        return ctl__pod_reconcile(c, key + strlen(CTL_KEY_POD), requeued);
    char ns[256];
    const char *slash = strchr(key, '/');
    if (!slash || (size_t)(slash - key) >= sizeof(ns))
        return 0;
    snprintf(ns, sizeof(ns), "%.*s", (int)(slash - key), key);
    json_t *raw = cache_store_get(cache_inf_store(c->jobsets), ns, slash + 1);
    if (!raw) { /* deleted: its Jobs go with it (owner references) */
        json_object_del(c->invalid_seen, key);
        return 0;
    }
    json_t *js = json_deep_copy(raw);
    long long grace = -1;
    int rc = js && js_default(js) == 0 ? 0 : -ENOMEM;
    if (rc == 0 && valid(c, key, js, &grace))
        rc = run_plan(c, key, js, raw, grace, requeued);
    json_decref(js);
    json_decref(raw);
    return rc;
}
