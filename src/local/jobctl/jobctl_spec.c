/* jobctl: reading and checking the Job spec, the podFailurePolicy, the kubelet's exit rules. */
#include "local/jobctl/jobctl.h"
#include "local/jobctl/jobctl_int.h"
#include "obj/base/err.h"
#include "obj/tree/jx.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define JOBCTL_MAX_INDEXED_PARALLELISM 100000
#define RULE_PATH "spec.podFailurePolicy.rules[%zu]"

struct int_field {
    const char *key;
    long long min, max, def;
};

/* min/max/default of the integer fields, as batch/v1 validates and defaults them */
static const struct int_field f_parallelism = {"parallelism", 0, INT32_MAX, 1};
static const struct int_field f_completions = {"completions", 0, INT32_MAX, -1};
static const struct int_field f_backoff = {"backoffLimit", 0, INT32_MAX, 6};
static const struct int_field f_deadline = {"activeDeadlineSeconds", 0, INT64_MAX / 1000, -1};
static const struct int_field f_bl_per_index = {"backoffLimitPerIndex", 0, INT32_MAX, -1};
static const struct int_field f_max_failed = {"maxFailedIndexes", 0, INT32_MAX, -1};

static const char *const pfp_actions[] = {"FailJob", "FailIndex", "Ignore", "Count"};

static const enum jobctl__pfp pfp_action_codes[] = {JOBCTL__PFP_FAIL_JOB, JOBCTL__PFP_FAIL_INDEX,
                                                    JOBCTL__PFP_IGNORE, JOBCTL__PFP_COUNT};

static int read_int(const json_t *spec, const struct int_field *f, long long *out, struct err *e)
{
    int rc = jx_int(spec, f->key, out);
    if (rc == -ENOENT) {
        *out = f->def;
        return 0;
    }
    if (rc < 0)
        return err_set(e, -EINVAL, "spec.%s: Invalid value: must be an integer", f->key);
    if (*out < f->min)
        return err_set(e, -EINVAL,
                       "spec.%s: Invalid value: %lld: must be greater than or equal to %lld",
                       f->key, *out, f->min);
    if (*out > f->max)
        return err_set(e, -EINVAL,
                       "spec.%s: Invalid value: %lld: must be less than or equal to %lld", f->key,
                       *out, f->max);
    return 0;
}

static int str_index(const char *s, const char *const *tab, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        if (strcmp(s, tab[i]) == 0)
            return (int)i;
    return -1;
}

static int read_counts(const json_t *spec, struct jobctl_spec *s, struct err *e)
{
    long long par, comp, bl, ads, blpi, mfi;
    struct int_field backoff = f_backoff;
    int rc;
    if ((rc = read_int(spec, &f_bl_per_index, &blpi, e)) < 0 ||
        (rc = read_int(spec, &f_max_failed, &mfi, e)) < 0)
        return rc;
    /* batch/v1 defaulting: with backoffLimitPerIndex, the Job-wide limit is in effect unlimited */
    if (blpi >= 0)
        backoff.def = INT32_MAX;
    if ((rc = read_int(spec, &f_parallelism, &par, e)) < 0 ||
        (rc = read_int(spec, &f_completions, &comp, e)) < 0 ||
        (rc = read_int(spec, &backoff, &bl, e)) < 0 ||
        (rc = read_int(spec, &f_deadline, &ads, e)) < 0)
        return rc;
    /* batch/v1 defaulting: both unset means one pod, one completion */
    if (comp < 0 && jx_int_or(spec, "parallelism", -1) < 0)
        comp = 1;
    s->parallelism = (int32_t)par;
    s->completions = (int32_t)comp;
    s->backoff_limit = (int32_t)bl;
    s->active_deadline_s = ads;
    s->backoff_limit_per_index = (int32_t)blpi;
    s->max_failed_indexes = (int32_t)mfi;
    return 0;
}

static int read_mode(const json_t *spec, struct jobctl_spec *s, struct err *e)
{
    static const char *const modes[] = {"NonIndexed", "Indexed"};
    const char *mode = jx_str(spec, "completionMode");
    int m = mode ? str_index(mode, modes, 2) : 0;
    if (m < 0)
        return err_set(e, -EINVAL,
                       "spec.completionMode: Unsupported value: \"%s\": supported values: "
                       "\"NonIndexed\", \"Indexed\"",
                       mode);
    s->indexed = m == 1;
    if (s->indexed && s->completions < 0)
        return err_set(e, -EINVAL,
                       "spec.completions: Required value: when completion mode is Indexed");
    if (s->indexed && s->parallelism > JOBCTL_MAX_INDEXED_PARALLELISM)
        return err_set(e, -EINVAL,
                       "spec.parallelism: Invalid value: %d: must be less than or equal to %d when "
                       "completion mode is Indexed",
                       s->parallelism, JOBCTL_MAX_INDEXED_PARALLELISM);
    return 0;
}

static int read_template(const json_t *spec, struct jobctl_spec *s, struct err *e)
{
    static const char *const policies[] = {"OnFailure", "Never"};
    const json_t *pod = jx_path(spec, "template.spec");
    const char *rp = jx_str(pod, "restartPolicy");
    int p = str_index(rp, policies, 2);
    if (!rp)
        return err_set(e, -EINVAL, "spec.template.spec.restartPolicy: Required value");
    if (p < 0)
        return err_set(e, -EINVAL,
                       "spec.template.spec.restartPolicy: Unsupported value: \"%s\": supported "
                       "values: \"OnFailure\", \"Never\"",
                       rp);
    s->restart_policy = p == 0 ? JOBCTL_RESTART_ON_FAILURE : JOBCTL_RESTART_NEVER;
    const char *c = jx_str(json_array_get(jx_arr(pod, "containers"), 0), "name");
    s->container = c ? c : "";
    return 0;
}

static int check_exit_codes(const json_t *req, size_t i, struct err *e)
{
    static const char *const ops[] = {"In", "NotIn"};
    const char *op = jx_str(req, "operator");
    const json_t *vals = jx_arr(req, "values");
    size_t j;
    json_t *v;
    if (str_index(op, ops, 2) < 0)
        return err_set(e, -EINVAL,
                       RULE_PATH ".onExitCodes.operator: Unsupported value: \"%s\": supported "
                                 "values: \"In\", \"NotIn\"",
                       i, op ? op : "");
    if (json_array_size(vals) == 0)
        return err_set(e, -EINVAL, RULE_PATH ".onExitCodes.values: Required value", i);
    json_array_foreach(vals, j, v)
    {
        if (!json_is_integer(v))
            return err_set(e, -EINVAL,
                           RULE_PATH ".onExitCodes.values[%zu]: Invalid value: must be an integer",
                           i, j);
        if (json_integer_value(v) == 0 && strcmp(op, "In") == 0)
            return err_set(
                e, -EINVAL,
                RULE_PATH
                ".onExitCodes.values[%zu]: Invalid value: 0: must not be 0 for the In operator",
                i, j);
    }
    return 0;
}

static int check_rule(const json_t *rule, size_t i, const struct jobctl_spec *s, struct err *e)
{
    const char *action = jx_str(rule, "action");
    const json_t *codes = jx_obj(rule, "onExitCodes");
    /* an empty onPodConditions is none (batch validation: len(rule.OnPodConditions) > 0) */
    const json_t *conds = jx_arr(rule, "onPodConditions");
    if (!json_array_size(conds))
        conds = NULL;
    if (!json_is_object(rule))
        return err_set(e, -EINVAL, RULE_PATH ": Invalid value: must be an object", i);
    if (str_index(action, pfp_actions, 4) < 0)
        return err_set(e, -EINVAL,
                       RULE_PATH ".action: Unsupported value: \"%s\": supported values: \"Count\", "
                                 "\"FailIndex\", \"FailJob\", \"Ignore\"",
                       i, action ? action : "");
    if (strcmp(action, "FailIndex") == 0 && s->backoff_limit_per_index < 0)
        return err_set(e, -EINVAL,
                       RULE_PATH ".action: Invalid value: \"FailIndex\": requires the "
                                 "backoffLimitPerIndex to be set",
                       i);
    if (codes && conds)
        return err_set(
            e, -EINVAL,
            RULE_PATH
            ": Invalid value: specifying both OnExitCodes and OnPodConditions is not supported",
            i);
    if (!codes && !conds)
        return err_set(
            e, -EINVAL,
            RULE_PATH
            ": Invalid value: specifying one of OnExitCodes and OnPodConditions is required",
            i);
    return codes ? check_exit_codes(codes, i, e) : 0;
}

static int read_pfp(const json_t *spec, struct jobctl_spec *s, struct err *e)
{
    const json_t *pfp = jx_obj(spec, "podFailurePolicy");
    size_t i;
    json_t *rule;
    int rc;
    s->pod_failure_rules = NULL;
    if (!pfp)
        return 0;
    if (s->restart_policy != JOBCTL_RESTART_NEVER)
        return err_set(e, -EINVAL,
                       "spec.template.spec.restartPolicy: Invalid value: \"OnFailure\": only "
                       "\"Never\" is supported when podFailurePolicy is specified");
    s->pod_failure_rules = jx_arr(pfp, "rules");
    if (!s->pod_failure_rules)
        return err_set(e, -EINVAL, "spec.podFailurePolicy.rules: Required value");
    json_array_foreach(s->pod_failure_rules, i, rule)
    {
        if ((rc = check_rule(rule, i, s, e)) < 0)
            return rc;
    }
    return 0;
}

int jobctl_spec_parse(const json_t *job, struct jobctl_spec *out, struct err *e)
{
    struct jobctl_spec s = {0};
    const json_t *spec = jx_obj(job, "spec");
    const char *ns = jx_str(jx_obj(job, "metadata"), "namespace");
    int rc;
    if (!spec)
        return err_set(e, -EINVAL, "spec: Required value");
    s.ns = ns && *ns ? ns : "default";
    s.suspend = jx_bool_or(spec, "suspend", false);
    if ((rc = read_counts(spec, &s, e)) < 0 || (rc = read_mode(spec, &s, e)) < 0 ||
        (rc = read_template(spec, &s, e)) < 0 || (rc = read_pfp(spec, &s, e)) < 0 ||
        (rc = jobctl__read_success(spec, &s, e)) < 0)
        return rc;
    *out = s;
    return 0;
}

int jobctl__exit_code(const struct jobctl_pod *p)
{
    return p->signal > 0 ? 128 + p->signal : p->exit_code;
}

int64_t jobctl__backoff(int64_t base, int64_t max, int n)
{
    int64_t d = base;
    for (int i = 0; i < n && d < max; i++)
        d = d > max / 2 ? max : d * 2;
    return d < max ? d : max;
}

static bool value_in(const json_t *vals, long long code)
{
    size_t i;
    json_t *v;
    json_array_foreach(vals, i, v)
    {
        if (json_integer_value(v) == code)
            return true;
    }
    return false;
}

static bool match_exit_codes(const json_t *req, const struct jobctl_spec *s,
                             const struct jobctl_pod *p)
{
    const char *want = jx_str(req, "containerName");
    const char *have = p->container ? p->container : s->container;
    int code = jobctl__exit_code(p);
    if (code == 0 || (want && strcmp(want, have) != 0))
        return false;
    bool in = value_in(jx_arr(req, "values"), code);
    return strcmp(jx_str(req, "operator"), "In") == 0 ? in : !in;
}

/* Only DisruptionTarget exists for a local pod. */
static bool match_conditions(const json_t *conds, const struct jobctl_pod *p)
{
    size_t i;
    json_t *c;
    json_array_foreach(conds, i, c)
    {
        const char *type = jx_str(c, "type");
        const char *status = jx_str(c, "status");
        if (type && strcmp(type, "DisruptionTarget") == 0 && p->disruption_target &&
            (!status || strcmp(status, "True") == 0))
            return true;
    }
    return false;
}

enum jobctl__pfp jobctl__pfp_match(const struct jobctl_spec *s, const struct jobctl_pod *p,
                                   char *msg, size_t msgsz)
{
    size_t i;
    json_t *rule;
    const char *name = p->name ? p->name : "";
    json_array_foreach(s->pod_failure_rules, i, rule)
    {
        const char *action = jx_str(rule, "action");
        const json_t *codes = jx_obj(rule, "onExitCodes");
        bool hit = codes ? match_exit_codes(codes, s, p)
                         : match_conditions(jx_arr(rule, "onPodConditions"), p);
        if (!hit)
            continue;
        if (codes)
            (void)snprintf(
                msg, msgsz,
                "Container %s for pod %s/%s failed with exit code %d matching %s rule at index %zu",
                p->container ? p->container : s->container, s->ns, name, jobctl__exit_code(p),
                action, i);
        else
            (void)snprintf(msg, msgsz,
                           "Pod %s/%s has condition DisruptionTarget matching %s rule at index %zu",
                           s->ns, name, action, i);
        return pfp_action_codes[str_index(action, pfp_actions, 4)];
    }
    return JOBCTL__PFP_NONE;
}

void jobctl_pod_exited(struct jobctl_pod *p, enum jobctl_restart_policy rp, int exit_code, int sig,
                       int64_t now_ms)
{
    p->exit_code = exit_code;
    p->signal = sig;
    p->finish_ms = now_ms;
    p->ready = false;
    p->waiting = false;
    if (exit_code == 0 && sig == 0)
        p->phase = JOBCTL_SUCCEEDED;
    else if (rp == JOBCTL_RESTART_NEVER || p->terminating)
        p->phase = JOBCTL_FAILED;
    else {
        p->phase = JOBCTL_RUNNING;
        p->waiting = true;
    }
}

void jobctl_pod_restarted(struct jobctl_pod *p, int64_t now_ms)
{
    p->restart_count++;
    p->waiting = false;
    p->ready = false;
    p->phase = JOBCTL_RUNNING;
    p->start_ms = now_ms;
}
