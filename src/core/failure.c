/* failure: the JobSet failure policy (reconcile_int.h, "failure.c"). */
#include "core/reconcile_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "obj/base/rx.h"
#include "obj/tree/cond.h"
#include "obj/tree/jx.h"

#define MSG_MAX 512

static bool list_has(const json_t *arr, const char *s)
{
    size_t i;
    const json_t *v;
    json_array_foreach (arr, i, v)
        if (json_is_string(v) && strcmp(json_string_value(v), s ? s : "") == 0)
            return true;
    return false;
}

/* Go's regexp.MatchString for each pattern: an invalid one never matches (upstream logs it;
 * `validate`, `run` and `render` warn about it, see api/jobset/policy_warn.h). */
static bool any_pattern_matches(const json_t *patterns, const char *message)
{
    size_t i;
    const json_t *v;
    json_array_foreach (patterns, i, v)
        if (json_is_string(v) && rx_match_once(json_string_value(v), message ? message : "") > 0)
            return true;
    return false;
}

bool rec_rule_applies(const json_t *rule, const char *rj_name, const char *reason,
                      const char *message)
{
    const json_t *reasons = jx_arr(rule, "onJobFailureReasons");
    const json_t *patterns = jx_arr(rule, "onJobFailureMessagePatterns");
    const json_t *targets = jx_arr(rule, "targetReplicatedJobs");
    if (json_array_size(reasons) && !list_has(reasons, reason))
        return false;
    if (json_array_size(patterns) && !any_pattern_matches(patterns, message))
        return false;
    if (!rj_name || !*rj_name)
        return false;
    return !json_array_size(targets) || list_has(targets, rj_name);
}

static int64_t failed_at(const struct rec_job *j)
{
    int64_t t;
    if (kt_parse(cond_transition(j->failed_cond), &t))
        return REC_TIME_ZERO;
    return t;
}

/* The failed Job with the earliest Failed transition (ties: the first seen) among those `rule`
 * applies to (all failed Jobs when rule is NULL), or NULL. */
static const struct rec_job *first_failed(const struct rec_ctx *c, const json_t *rule)
{
    const struct rec_job *best = NULL;
    int64_t best_t = 0;
    for (size_t i = 0; i < c->n_jobs; i++) {
        const struct rec_job *j = &c->jobs[i];
        if (j->bucket != REC_BUCKET_FAILED)
            continue;
        if (rule && !rec_rule_applies(rule, j->rj_name, jx_str(j->failed_cond, "reason"),
                                      jx_str(j->failed_cond, "message")))
            continue;
        int64_t t = failed_at(j);
        if (!best || t < best_t) {
            best = j;
            best_t = t;
        }
    }
    return best;
}

/* As upstream failurePolicyRecreateAll: restarts++, maybe restartsCountTowardsMax++,
 * RestartingJobSet=True, event. */
static int recreate_all(struct rec_ctx *c, const struct rec_job *j, const json_t *rule,
                        bool counts)
{
    const char *action = counts ? "RestartJobSet" : "RestartJobSetAndIgnoreMaxRestarts";
    char msg[MSG_MAX], reason[MSG_MAX], ev_reason[MSG_MAX];
    snprintf(msg, sizeof(msg), "applying %s failure policy action (first failed job: %s)", action,
             j->name);
    if (rule)
        snprintf(reason, sizeof(reason), "FailurePolicy_%s",
                 jx_str(rule, "name") ? jx_str(rule, "name") : "");
    else
        snprintf(reason, sizeof(reason), "DefaultFailurePolicy");
    snprintf(ev_reason, sizeof(ev_reason), "%sFailurePolicyAction", action);
    c->restarts++;
    c->restarts_max += counts;
    const struct rec_cond cond = {REC_COND_RESTARTING, true, reason, msg, REC_EVENT_WARNING};
    int rc = rec__set_cond(c, &cond);
    return rc ? rc : rec__event(c, REC_EVENT_WARNING, ev_reason, msg);
}

static int fail_with(struct rec_ctx *c, const char *reason, const char *base,
                     const struct rec_job *j)
{
    char msg[MSG_MAX];
    snprintf(msg, sizeof(msg), "%s (first failed job: %s)", base, j->name);
    return rec__fail(c, reason, msg);
}

static int act_fail(struct rec_ctx *c, const struct rec_job *j, const json_t *rule)
{
    (void)rule;
    return fail_with(c, "FailJobSetFailurePolicyAction", "applying FailJobSet failure policy action",
                     j);
}

/* RestartJobSet fails once restartsCountTowardsMax (plus, with the RestartJob gate on, every
 * Job's own restarts that count) has reached maxRestarts (upstream
 * restartJobSetActionApplier). */
static int act_restart(struct rec_ctx *c, const struct rec_job *j, const json_t *rule)
{
    long long max = jx_int_or(jx_obj(c->spec, "failurePolicy"), "maxRestarts", 0);
    long long used = c->job_restarts ? rec_restarts_towards_max(c) : c->restarts_max;
    if (used >= max)
        return fail_with(c, "ReachedMaxRestarts",
                         "jobset failed due to reaching max number of restarts", j);
    return recreate_all(c, j, rule, true);
}

static int act_restart_ignore_max(struct rec_ctx *c, const struct rec_job *j, const json_t *rule)
{
    return recreate_all(c, j, rule, false);
}

/* RestartJob and RestartJobAndIgnoreMaxRestarts: only the failed Job is recreated
 * (restart_job.c); an error while the RestartJob gate is off, as upstream. */
static int act_restart_job_as(struct rec_ctx *c, const struct rec_job *j, bool counts)
{
    if (!c->job_restarts)
        return err_set(c->e, -EINVAL,
                       "%s failure policy action cannot be used when the feature gate RestartJob "
                       "is disabled (turn it on with " FG_HOW_TO_ENABLE("RestartJob") ")",
                       counts ? "RestartJob" : "RestartJobAndIgnoreMaxRestarts");
    return rec_restart_job(c, j, counts);
}

static int act_restart_job(struct rec_ctx *c, const struct rec_job *j, const json_t *rule)
{
    (void)rule;
    return act_restart_job_as(c, j, true);
}

static int act_restart_job_ignore_max(struct rec_ctx *c, const struct rec_job *j,
                                      const json_t *rule)
{
    (void)rule;
    return act_restart_job_as(c, j, false);
}

static const struct failure_action {
    const char *name;
    int (*apply)(struct rec_ctx *c, const struct rec_job *j, const json_t *rule);
} failure_actions[] = {
    {"FailJobSet", act_fail},
    {"RestartJobSet", act_restart},
    {"RestartJobSetAndIgnoreMaxRestarts", act_restart_ignore_max},
    {"RestartJob", act_restart_job},
    {"RestartJobAndIgnoreMaxRestarts", act_restart_job_ignore_max},
};

static int apply_action(struct rec_ctx *c, const char *action, const struct rec_job *j,
                        const json_t *rule)
{
    for (size_t i = 0; i < sizeof(failure_actions) / sizeof(failure_actions[0]); i++)
        if (action && strcmp(action, failure_actions[i].name) == 0)
            return failure_actions[i].apply(c, j, rule);
    return err_set(c->e, -EINVAL,
                   "failed to find a corresponding action for the FailurePolicyRuleAction %s",
                   action ? action : "");
}

int rec_failure_execute(struct rec_ctx *c)
{
    const json_t *fp = json_object_get(c->spec, "failurePolicy");
    const struct rec_job *j;
    size_t i;
    const json_t *rule;
    if (!fp || json_is_null(fp)) {
        j = first_failed(c, NULL);
        return fail_with(c, "FailedJobs", "jobset failed due to one or more job failures", j);
    }
    json_array_foreach (jx_arr(fp, "rules"), i, rule) {
        j = first_failed(c, rule);
        if (j)
            return apply_action(c, jx_str(rule, "action"), j, rule);
    }
    return act_restart(c, first_failed(c, NULL), NULL);
}
