/* trainjob_status: the Trainer v2 status rules for a TrainJob run as a JobSet (see the header
 * for the rules and their upstream files). */
#include "api/kubeflow/trainjob_status.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "obj/tree/cond.h"
#include "obj/tree/jx.h"
#include "obj/base/ktime.h"

#define DEADLINE "DeadlineExceeded"

struct tjs_ctx {
    const json_t *spec;
    json_t *st;
    struct tjs_result *out;
    char now[KT_RFC3339_MAX];
    int64_t now_ms;
    int rc;
};

static bool own_reason(const char *r)
{
    static const char *const own[] = {TJS_RUNTIME_NOT_SUPPORTED, TJS_RUNTIME_NOT_FOUND,
                                      TJS_NOT_IMPLEMENTED, TJS_BUILD_FAILED, NULL};
    for (size_t i = 0; r && own[i]; i++)
        if (strcmp(r, own[i]) == 0)
            return true;
    return false;
}

bool tjs_finished(const json_t *status)
{
    const char *r = jx_str(cond_find(status, "Failed", NULL), "reason");
    return cond_true(status, "Complete") ||
           (cond_true(status, "Failed") && !own_reason(r));
}

/* meta.SetStatusCondition (cond_set), the reason defaulting to the type and the message to "";
 * a transition at `ltt`, NULL = now. */
static void condition(struct tjs_ctx *x, const char *type, const char *status,
                      const char *reason, const char *msg, const char *ltt)
{
    const struct cond c = {.type = type, .status = status,
                           .reason = reason && reason[0] ? reason : type,
                           .message = msg ? msg : "", .transition = ltt ? ltt : x->now};
    if (cond_set(x->st, &c) < 0)
        x->rc = -ENOMEM;
}

static void event(struct tjs_ctx *x, const char *reason, const char *msg)
{
    json_t *e = json_pack("{s:s,s:s,s:s}", "type", "Warning", "reason", reason, "message", msg);
    if (!e || json_array_append_new(x->out->events, e) < 0)
        x->rc = -ENOMEM;
}

/* removeFailedCondition: every pass decides Failed again, but for a passed deadline. */
static void clear_failed(struct tjs_ctx *x)
{
    const char *r = jx_str(cond_find(x->st, "Failed", NULL), "reason");
    if (!r || strcmp(r, DEADLINE) != 0)
        cond_remove(x->st, "Failed");
}

static void set_suspended(struct tjs_ctx *x)
{
    if (jx_bool_or(x->spec, "suspend", false))
        condition(x, "Suspended", "True", "Suspended", "TrainJob is suspended", NULL);
    else if (cond_true(x->st, "Suspended"))
        condition(x, "Suspended", "False", "Resumed", "TrainJob is resumed", NULL);
}

/* The JobSet plugin's Status: Completed/Failed copied as Complete/Failed, jobsStatus. */
static void from_jobset(struct tjs_ctx *x, const json_t *js)
{
    static const char *const map[][2] = {{"Completed", "Complete"}, {"Failed", "Failed"}};
    const json_t *jst = jx_obj(js, "status");
    for (size_t i = 0; i < 2; i++) {
        const json_t *c = cond_find(jst, map[i][0], NULL);
        if (cond_true(jst, map[i][0]))
            condition(x, map[i][1], "True", jx_str(c, "reason"), jx_str(c, "message"),
                      cond_transition(c));
    }
    json_t *out = json_array(), *r;
    size_t i;
    json_array_foreach (jx_arr(jst, "replicatedJobsStatus"), i, r) {
        json_t *e = json_pack("{s:s?,s:I,s:I,s:I,s:I,s:I}", "name", jx_str(r, "name"), "ready",
                              (json_int_t)jx_int_or(r, "ready", 0), "succeeded",
                              (json_int_t)jx_int_or(r, "succeeded", 0), "failed",
                              (json_int_t)jx_int_or(r, "failed", 0), "active",
                              (json_int_t)jx_int_or(r, "active", 0), "suspended",
                              (json_int_t)jx_int_or(r, "suspended", 0));
        if (!e || json_array_append_new(out, e) < 0)
            x->rc = -ENOMEM;
    }
    if (!out || json_object_set_new(x->st, "jobsStatus", out) < 0)
        x->rc = -ENOMEM;
}

/* reconcileDeadline: from creation, or from the last resume. */
static void deadline(struct tjs_ctx *x, const json_t *tj)
{
    long long d;
    int64_t start;
    const char *from = jx_str(jx_obj(tj, "metadata"), "creationTimestamp");
    if (cond_is(x->st, "Suspended", COND_FALSE))
        from = cond_transition(cond_find(x->st, "Suspended", NULL));
    if (jx_int(x->spec, "activeDeadlineSeconds", &d) < 0 || d <= 0 || tjs_finished(x->st) ||
        jx_bool_or(x->spec, "suspend", false) || kt_parse(from, &start) < 0)
        return;
    if (x->now_ms <= start + d * 1000) {
        x->out->requeue_ms = start + d * 1000 - x->now_ms + 1;
        return;
    }
    condition(x, "Failed", "True", DEADLINE, "TrainJob exceeded its active deadline", NULL);
    x->out->delete_jobset = true;
}

static void run_rules(struct tjs_ctx *x, const json_t *tj, const struct tjs_obs *obs)
{
    const json_t *old = cond_find(x->st, "Failed", NULL);
    const char *was_reason = jx_str(old, "reason");
    bool was = cond_true(x->st, "Failed");
    bool same = was && was_reason && obs->why && strcmp(was_reason, obs->why) == 0;
    char ltt[KT_RFC3339_MAX] = "";
    if (was && cond_transition(old))
        snprintf(ltt, sizeof(ltt), "%s", cond_transition(old));
    clear_failed(x);
    if (obs->why && !tjs_finished(x->st)) {
        condition(x, "Failed", "True", obs->why, obs->why_msg, ltt[0] ? ltt : NULL);
        if (!same)
            event(x, obs->why, obs->why_msg ? obs->why_msg : "");
    }
    set_suspended(x);
    if (obs->jobset)
        from_jobset(x, obs->jobset);
    deadline(x, tj);
}

int tjs_compute(const json_t *trainjob, const struct tjs_obs *obs, int64_t now_ms,
                struct tjs_result *out)
{
    const json_t *old = jx_obj(trainjob, "status");
    struct tjs_ctx x = {.spec = jx_obj(trainjob, "spec"), .out = out, .now_ms = now_ms};
    memset(out, 0, sizeof(*out));
    out->requeue_ms = -1;
    kt_format(now_ms, x.now);
    x.st = old ? json_deep_copy(old) : json_object();
    out->status = x.st;
    out->events = json_array();
    if (!x.st || !out->events)
        x.rc = -ENOMEM;
    if (x.rc == 0)
        run_rules(&x, trainjob, obs);
    if (x.rc < 0) {
        tjs_result_release(out);
        return x.rc;
    }
    out->finished = tjs_finished(x.st);
    out->changed = !old ? json_object_size(x.st) > 0 : !json_equal(old, x.st);
    return 0;
}

void tjs_result_release(struct tjs_result *r)
{
    json_decref(r->status);
    json_decref(r->events);
    r->status = r->events = NULL;
}

const char *tjs_unsupported(const json_t *trainjob, const json_t *runtime, char *buf, size_t n)
{
    (void)trainjob;
    const json_t *rspec = jx_obj(runtime, "spec");
    static const char *const others[] = {"torch", "mpi", "flux", "xgboost", NULL};
    for (size_t i = 0; json_object_get(jx_obj(rspec, "mlPolicy"), "jax") && others[i]; i++) {
        if (!json_object_get(jx_obj(rspec, "mlPolicy"), others[i]))
            continue;
        snprintf(buf, n, "spec.mlPolicy.%s: only one policy can be configured, and jaxset "
                 "runs jax", others[i]);
        return buf;
    }
    return NULL;
}
