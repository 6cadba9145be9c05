/* The JobSet rules that depend on feature gates (kubernetes-sigs/jobset
 * pkg/webhooks/jobset_webhook.go: ValidateCreate's InPlaceRestart checks, validateFailurePolicy's
 * RestartJob check).  With a gate off its feature is refused with upstream's message and how to
 * turn the gate on; with it on, the feature's own requirements are checked. */
#include "api/jobset/jobset_validate_int.h"
#include "obj/tree/jx.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* validateFailurePolicy: RestartJob* actions keep a per-Job restart count in the status, a list
 * of at most 1024 items. */
#define MAX_REPLICAS_RESTART_JOB 1024

static bool restart_job_action(const char *a)
{
    return a && (strcmp(a, "RestartJob") == 0 || strcmp(a, "RestartJobAndIgnoreMaxRestarts") == 0);
}

/* Upstream stops at the first replicated job over the limit. */
static void check_restart_job_replicas(struct jsv *c)
{
    char p[FPATH_MAX];
    for (size_t i = 0; i < json_array_size(c->rjs); i++) {
        long long n = chk_int_or(json_array_get(c->rjs, i), "replicas", 1, NULL);
        if (n <= MAX_REPLICAS_RESTART_JOB)
            continue;
        fpath_fmt(p, "spec.replicatedJobs[%zu].replicas", i);
        chk_add_int(&c->chk, FERR_INVALID, p, n,
                    "JobSet cannot have a failure policy rule with RestartJob or "
                    "RestartJobAndIgnoreMaxRestarts action and a replicated job with replicas > "
                    "%d",
                    MAX_REPLICAS_RESTART_JOB);
        return;
    }
}

bool js__restart_job_gate(struct jsv *c, const json_t *rules)
{
    char p[FPATH_MAX];
    for (size_t k = 0; k < json_array_size(rules); k++) {
        const char *a = jx_str(json_array_get(rules, k), "action");
        if (!restart_job_action(a))
            continue;
        if (fg_enabled(c->gates, FG_RESTART_JOB)) {
            check_restart_job_replicas(c);
            return false;
        }
        fpath_fmt(p, "spec.failurePolicy.rules[%zu].action", k);
        ferr_add_str(c->chk.errs, FERR_INVALID, p, a,
                     "RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions are "
                     "not allowed when RestartJob feature gate is disabled (turn it on with "
                     FG_HOW_TO_ENABLE("RestartJob") ")");
        return true; /* upstream returns early: the other rule checks are skipped */
    }
    return false;
}

/* The value of a field as field.Invalid shows a nil pointer: null. */
static const json_t *or_null(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return v ? v : json_null();
}

/* One replicated job's template under InPlaceRestart: Jobs that never fail because of a pod
 * (backoffLimit MaxInt32), replacement pods only once the old one has failed, and a fixed number
 * of pods (completions == parallelism, both set). */
static void check_in_place_rj(struct jsv *c, size_t i)
{
    const json_t *rj = json_array_get(c->rjs, i);
    const json_t *spec = jx_path(rj, "template.spec");
    const char *name = jx_str(rj, "name") ? jx_str(rj, "name") : "";
    const char *prp = jx_str(spec, "podReplacementPolicy");
    bool has_bl, has_comp, has_par;
    long long bl = chk_int_or(spec, "backoffLimit", 0, &has_bl);
    long long comp = chk_int_or(spec, "completions", 0, &has_comp);
    long long par = chk_int_or(spec, "parallelism", 0, &has_par);
    char p[FPATH_MAX];
    if (!has_bl || bl != INT32_MAX) {
        fpath_fmt(p, "spec.replicatedJobs[%zu].template.spec.backoffLimit", i);
        ferr_add(c->chk.errs, FERR_INVALID, p, or_null(spec, "backoffLimit"),
                 "replicatedJob %s: must be set to %d (MaxInt32) when in-place restart is "
                 "enabled",
                 name, INT32_MAX);
    }
    if (!prp || strcmp(prp, "Failed") != 0) {
        fpath_fmt(p, "spec.replicatedJobs[%zu].template.spec.podReplacementPolicy", i);
        ferr_add(c->chk.errs, FERR_INVALID, p, or_null(spec, "podReplacementPolicy"),
                 "replicatedJob %s: must be set to Failed when in-place restart is enabled",
                 name);
    }
    if (!has_comp || !has_par || comp != par) {
        fpath_fmt(p, "spec.replicatedJobs[%zu].template.spec.completions", i);
        ferr_add(c->chk.errs, FERR_INVALID, p, or_null(spec, "completions"),
                 "replicatedJob %s: completions and parallelism must be set and equal to each "
                 "other when in-place restart is enabled",
                 name);
    }
}

void js__in_place_gate(struct jsv *c)
{
    const char *rs = jx_str(jx_obj(c->spec, "failurePolicy"), "restartStrategy");
    if (!rs || strcmp(rs, "InPlaceRestart") != 0)
        return;
    if (!fg_enabled(c->gates, FG_IN_PLACE_RESTART)) {
        ferr_add_str(c->chk.errs, FERR_INVALID, "spec.failurePolicy.restartStrategy", rs,
                     "InPlaceRestart restart strategy cannot be set when InPlaceRestart feature "
                     "gate is disabled (turn it on with " FG_HOW_TO_ENABLE("InPlaceRestart") ")");
        return;
    }
    for (size_t i = 0; i < json_array_size(c->rjs); i++)
        if (json_is_object(json_array_get(c->rjs, i)))
            check_in_place_rj(c, i);
}
