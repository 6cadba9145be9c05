/* pods: pods.json entries as v1 Pods. */
#include "cli/backend/pods.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "api/schema/keys.h"
#include "cli/backend/backend.h"
#include "local/store/store_state.h"
#include "obj/tree/jx.h"

/* Sets label (or annotation) `key` to integer field `field` of `pod` when it has one. */
static int meta_int(json_t *meta, const char *map, const char *key, const json_t *pod,
                    const char *field)
{
    char buf[32];
    long long v;
    if (jx_int(pod, field, &v) < 0)
        return 0;
    snprintf(buf, sizeof(buf), "%lld", v);
    return jx_set_meta(meta, map, key, buf);
}

static int meta_str(json_t *meta, const char *map, const char *key, const char *v)
{
    return v ? jx_set_meta(meta, map, key, v) : 0;
}

static json_t *metadata(const json_t *pod, const char *ns, const char *jobset)
{
    json_t *m = json_pack("{s:s*,s:s*}", "name", jx_str(pod, "name"), "namespace", ns);
    const char *job = jx_str(pod, "job");
    const json_t *labels = jx_obj(pod, "labels"); /* the pod's own, as the runner made them */
    int rc = m ? 0 : -ENOMEM;
    if (rc == 0 && labels)
        rc = jx_set_new(m, "labels", json_deep_copy(labels));
    rc = rc ? rc : meta_str(m, "labels", LBL_K8S_JOB_NAME, job);
    rc = rc ? rc : meta_str(m, "labels", LBL_K8S_JOB_NAME_LEGACY, job);
    rc = rc ? rc : meta_int(m, "labels", ANN_JOB_COMPLETION_INDEX, pod, "completionIndex");
    rc = rc ? rc : meta_str(m, "labels", LBL_JOBSET_NAME, jobset);
    rc = rc ? rc : meta_str(m, "labels", LBL_RJ_NAME, jx_str(pod, "replicatedJob"));
    rc = rc ? rc : meta_int(m, "labels", LBL_JOB_INDEX, pod, "jobIndex");
    rc = rc ? rc : meta_int(m, "labels", LBL_RESTART_ATTEMPT, pod, "restartAttempt");
    rc = rc ? rc : meta_int(m, "annotations", ANN_JOB_COMPLETION_INDEX, pod, "completionIndex");
    rc = rc ? rc : meta_int(m, "annotations", ANN_JAX_PROCESS_ID, pod, "jaxProcessId");
    if (rc) {
        json_decref(m);
        return NULL;
    }
    return m;
}

/* A container's state: {"terminated": {exitCode, signal, reason}}, {"running": {}} or
 * {"waiting": {}} (ContainerState). */
static json_t *state(const json_t *c)
{
    const char *st = jx_str(c, "state");
    long long code = jx_int_or(c, "exitCode", 0);
    if (!st || (strcmp(st, "terminated") && strcmp(st, "running")))
        return json_pack("{s:{}}", "waiting");
    if (!strcmp(st, "running"))
        return json_pack("{s:{}}", "running");
    json_t *t = json_pack("{s:I}", "exitCode", (json_int_t)code);
    int rc = t ? 0 : -ENOMEM;
    if (rc == 0 && jx_str(c, "signal") && code > 128) /* the runner writes 128 + signal */
        rc = jx_set_int(t, "signal", code - 128);
    if (rc == 0 && jx_str(c, "reason"))
        rc = jx_set_str(t, "reason", jx_str(c, "reason"));
    if (rc) {
        json_decref(t);
        return NULL;
    }
    return json_pack("{s:o}", "terminated", t);
}

static int container_statuses(const json_t *pod, json_t *status)
{
    const json_t *c;
    size_t i;
    json_array_foreach (jx_arr(pod, "containers"), i, c) {
        bool init = jx_bool_or(c, "init", false);
        json_t *list = jx_ensure_arr(status, init ? "initContainerStatuses"
                                                  : "containerStatuses");
        json_t *s = json_pack("{s:s*,s:o*,s:I}", "name", jx_str(c, "name"), "state", state(c),
                              "restartCount",
                              (json_int_t)(init ? 0 : jx_int_or(pod, "restartCount", 0)));
        if (!list || !s || json_array_append_new(list, s) < 0)
            return -ENOMEM;
    }
    return 0;
}

json_t *pods_object(const json_t *pod, const char *ns, const char *jobset)
{
    json_t *o = json_pack("{s:s,s:s,s:o*,s:{s:s*},s:{s:s*,s:s*}}", "apiVersion", "v1", "kind",
                          "Pod", "metadata", metadata(pod, ns, jobset), "spec", "hostname",
                          jx_str(pod, "hostname"), "status", "phase", jx_str(pod, "phase"),
                          "startTime", jx_str(pod, "startTime"));
    if (!o || !jx_obj(o, "metadata") || container_statuses(pod, jx_obj(o, "status")) < 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *pods_run_jobset(const json_t *jobset, const char *state, const char *dir,
                        const char *id)
{
    json_t *js = json_deep_copy(jobset);
    json_t *meta = jx_ensure_obj(js, "metadata");
    if (!meta || meta_str(meta, "annotations", BACKEND_ANN_RUN_STATE, state) < 0 ||
        meta_str(meta, "annotations", BACKEND_ANN_RUN_DIR, dir) < 0 ||
        meta_str(meta, "annotations", BACKEND_ANN_RUN_ID, id) < 0) {
        json_decref(js);
        return NULL;
    }
    return js;
}

/* The Pod of pods.json entry `p` in a run in `state`, its spec from its Job of `jobs`. */
static json_t *run_pod(const json_t *p, const char *ns, const char *jobset, const json_t *jobs,
                       const char *state)
{
    const json_t *tmpl = NULL, *j;
    size_t i;
    json_array_foreach (jobs, i, j)
        if (jx_str(jx_obj(j, "metadata"), "name") && jx_str(p, "job") &&
            !strcmp(jx_str(jx_obj(j, "metadata"), "name"), jx_str(p, "job")))
            tmpl = jx_path(j, "spec.template.spec");
    json_t *o = pods_object(p, ns, jobset);
    json_t *spec = json_is_object(tmpl) ? json_deep_copy(tmpl) : json_object();
    const char *phase = jx_str(jx_obj(o, "status"), "phase");
    enum store_state rs;
    bool gone = store_state_parse(state, &rs) == 0 && store_state_abandoned(rs);
    int rc = o && spec ? 0 : -ENOMEM;
    if (rc == 0 && jx_str(p, "hostname"))
        rc = jx_set_str(spec, "hostname", jx_str(p, "hostname"));
    rc = rc ? rc : jx_set_new(o, "spec", json_incref(spec));
    if (rc == 0 && gone && phase && (!strcmp(phase, "Pending") || !strcmp(phase, "Running")))
        rc = jx_set_str(jx_obj(o, "status"), "phase", "Failed");
    json_decref(spec);
    if (rc) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *pods_run_pods(const json_t *jobset, const json_t *pods, const json_t *jobs,
                      const char *state)
{
    const json_t *meta = jx_obj(jobset, "metadata"), *p;
    const char *ns = jx_str(meta, "namespace"), *name = jx_str(meta, "name");
    json_t *items = json_array();
    size_t i;
    json_array_foreach (pods, i, p)
        if (!items || json_array_append_new(items, run_pod(p, ns ? ns : "default", name, jobs,
                                                           state)) < 0) {
            json_decref(items);
            return NULL;
        }
    return items;
}
