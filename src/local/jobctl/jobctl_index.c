/* jobctl: index sets of Indexed Jobs -- the interval strings ("1,3-5,7") of successPolicy rules,
 * the successPolicy itself, and the per-index failures of backoffLimitPerIndex.
 *
 * Kubernetes: pkg/apis/batch/validation/validation.go (validateSuccessPolicy,
 * validateIndexesFormat, parseIndexInterval) for the checks and their words;
 * pkg/controller/job/success_policy.go (matchSuccessPolicy, matchSucceededIndexesRule) and
 * indexed_job_utils.go (calculateFailedIndexes, isIndexFailed) for the behaviour. */
#include "local/jobctl/jobctl.h"
#include "local/jobctl/jobctl_int.h"
#include "obj/base/err.h"
#include "obj/tree/jx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SUCCESS_RULES 20
#define MAX_SUCCEEDED_INDEXES_LEN (64 * 1024)
#define RULE_PATH "spec.successPolicy.rules[%zu]"

/* ---- interval strings ------------------------------------------------------------------- */

struct ivl_iter {
    const char *p;  /* the next fragment; NULL at the end */
    long long last; /* last index of the previous interval; -1 before the first */
};

static void ivl_begin(struct ivl_iter *it, const char *s)
{
    it->p = s && *s ? s : NULL; /* "" holds no interval */
    it->last = -1;
}

/* Go's strconv.Atoi on s[0..n): optional sign, at least one digit, nothing else. */
static bool atoi_n(const char *s, size_t n, long long *out)
{
    size_t i = n > 0 && (s[0] == '+' || s[0] == '-') ? 1 : 0;
    bool neg = i == 1 && s[0] == '-';
    long long v = 0;
    if (i == n)
        return false;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (INT64_MAX - (s[i] - '0')) / 10)
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = neg ? -v : v;
    return true;
}

static int ivl_bound(const char *s, size_t n, long long completions, long long *out, char *msg,
                     size_t msgsz)
{
    if (!atoi_n(s, n, out)) {
        (void)snprintf(msg, msgsz, "cannot convert string to integer for index: \"%.*s\"", (int)n,
                       s);
        return -EINVAL;
    }
    if (*out >= completions) {
        (void)snprintf(msg, msgsz, "too large index: \"%.*s\"", (int)n, s);
        return -EINVAL;
    }
    return 0;
}

/* One fragment "x" or "x-y" of length n. */
static int ivl_fragment(const char *f, size_t n, long long completions, long long *x,
                        long long *y, char *msg, size_t msgsz)
{
    const char *dash = memchr(f, '-', n);
    if (dash && memchr(dash + 1, '-', n - (size_t)(dash + 1 - f))) {
        (void)snprintf(msg, msgsz,
                       "the fragment \"%.*s\" violates the requirement that an index interval "
                       "can have at most two parts separated by '-'",
                       (int)n, f);
        return -EINVAL;
    }
    size_t xn = dash ? (size_t)(dash - f) : n;
    if (ivl_bound(f, xn, completions, x, msg, msgsz) < 0)
        return -EINVAL;
    if (!dash) {
        *y = *x;
        return 0;
    }
    if (ivl_bound(dash + 1, n - xn - 1, completions, y, msg, msgsz) < 0)
        return -EINVAL;
    if (*x >= *y) {
        (void)snprintf(msg, msgsz, "non-increasing order, previous: %lld, current: %lld", *x, *y);
        return -EINVAL;
    }
    return 0;
}

/* 1 with the next interval [*x, *y], 0 at the end, -EINVAL with the reason in msg. */
static int ivl_next(struct ivl_iter *it, long long completions, long long *x, long long *y,
                    char *msg, size_t msgsz)
{
    if (!it->p)
        return 0;
    const char *comma = strchr(it->p, ',');
    size_t n = comma ? (size_t)(comma - it->p) : strlen(it->p);
    if (ivl_fragment(it->p, n, completions, x, y, msg, msgsz) < 0)
        return -EINVAL;
    if (it->last >= *x) {
        (void)snprintf(msg, msgsz, "non-increasing order, previous: %lld, current: %lld", it->last,
                       *x);
        return -EINVAL;
    }
    it->last = *y;
    it->p = comma ? comma + 1 : NULL;
    return 1;
}

/* The number of indexes in s; -EINVAL with the reason in msg when s is malformed. */
static int ivl_total(const char *s, long long completions, long long *total, char *msg,
                     size_t msgsz)
{
    struct ivl_iter it;
    long long x, y;
    int rc;
    *total = 0;
    ivl_begin(&it, s);
    while ((rc = ivl_next(&it, completions, &x, &y, msg, msgsz)) > 0)
        *total += y - x + 1;
    return rc;
}

/* ---- spec.successPolicy ----------------------------------------------------------------- */

static const json_t *field(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_null(v) ? NULL : v;
}

static int check_indexes(const json_t *v, size_t i, long long completions, long long *total,
                         struct err *e)
{
    char why[256];
    if (!json_is_string(v))
        return err_set(e, -EINVAL, RULE_PATH ".succeededIndexes: Invalid value: must be a string",
                       i);
    const char *s = json_string_value(v);
    if (strlen(s) > MAX_SUCCEEDED_INDEXES_LEN)
        return err_set(e, -EINVAL,
                       RULE_PATH ".succeededIndexes: Too long: may not be more than %d bytes", i,
                       MAX_SUCCEEDED_INDEXES_LEN);
    if (ivl_total(s, completions, total, why, sizeof(why)) < 0)
        return err_set(e, -EINVAL,
                       RULE_PATH ".succeededIndexes: Invalid value: \"%s\": error parsing "
                                 "succeededIndexes: %s",
                       i, s, why);
    return 0;
}

static int check_count(const json_t *rule, size_t i, long long completions, bool has_idx,
                       long long total, struct err *e)
{
    long long n;
    if (jx_int(rule, "succeededCount", &n) < 0)
        return err_set(e, -EINVAL, RULE_PATH ".succeededCount: Invalid value: must be an integer",
                       i);
    if (n < 0)
        return err_set(e, -EINVAL,
                       RULE_PATH ".succeededCount: Invalid value: %lld: must be greater than or "
                                 "equal to 0",
                       i, n);
    if (n > completions)
        return err_set(e, -EINVAL,
                       RULE_PATH ".succeededCount: Invalid value: %lld: must be less than or equal "
                                 "to %lld (the number of specified completions)",
                       i, n, completions);
    if (has_idx && n > total)
        return err_set(e, -EINVAL,
                       RULE_PATH ".succeededCount: Invalid value: %lld: must be less than or equal "
                                 "to %lld (the number of indexes in the specified succeededIndexes "
                                 "field)",
                       i, n, total);
    return 0;
}

static int check_success_rule(const json_t *rule, size_t i, long long completions, struct err *e)
{
    long long total = 0;
    if (!json_is_object(rule))
        return err_set(e, -EINVAL, RULE_PATH ": Invalid value: must be an object", i);
    const json_t *idx = field(rule, "succeededIndexes"), *count = field(rule, "succeededCount");
    if (!idx && !count)
        return err_set(e, -EINVAL,
                       RULE_PATH ": Required value: at least one of succeededCount or "
                                 "succeededIndexes must be specified",
                       i);
    if (idx && check_indexes(idx, i, completions, &total, e) < 0)
        return -EINVAL;
    return count ? check_count(rule, i, completions, idx != NULL, total, e) : 0;
}

int jobctl__read_success(const json_t *spec, struct jobctl_spec *s, struct err *e)
{
    const json_t *sp = field(spec, "successPolicy");
    const json_t *rules = jx_arr(sp, "rules");
    size_t i;
    json_t *rule;
    s->success_rules = NULL;
    if (!sp)
        return 0;
    if (!s->indexed)
        return err_set(e, -EINVAL,
                       "spec.successPolicy: Invalid value: requires indexed completion mode");
    if (json_array_size(rules) == 0)
        return err_set(e, -EINVAL,
                       "spec.successPolicy.rules: Required value: at least one rules must be "
                       "specified when the successPolicy is specified");
    if (json_array_size(rules) > MAX_SUCCESS_RULES)
        return err_set(e, -EINVAL,
                       "spec.successPolicy.rules: Too many: %zu: must have at most %d items",
                       json_array_size(rules), MAX_SUCCESS_RULES);
    json_array_foreach(rules, i, rule)
    {
        if (check_success_rule(rule, i, s->completions, e) < 0)
            return -EINVAL;
    }
    s->success_rules = rules;
    return 0;
}

/* ---- matching --------------------------------------------------------------------------- */

/* The position of the first element of v[0..n) not below x. */
static size_t lower_bound(const int *v, size_t n, long long x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A rule's succeededIndexes against the succeeded ones: how many it names, how many of those
 * succeeded. */
static void count_required(const char *s, long long completions, const int *done, size_t ndone,
                           long long *total, long long *contains)
{
    struct ivl_iter it;
    long long x, y;
    char why[256];
    *total = *contains = 0;
    ivl_begin(&it, s);
    while (ivl_next(&it, completions, &x, &y, why, sizeof(why)) > 0) {
        *total += y - x + 1;
        *contains += (long long)(lower_bound(done, ndone, y + 1) - lower_bound(done, ndone, x));
    }
}

static bool rule_met(const json_t *rule, long long completions, const int *done, size_t ndone)
{
    const char *idx = jx_str(rule, "succeededIndexes");
    long long count = -1, total, contains;
    if (jx_int(rule, "succeededCount", &count) < 0)
        count = -1;
    if (!idx)
        return count >= 0 && (long long)ndone >= count;
    count_required(idx, completions, done, ndone, &total, &contains);
    /* a rule naming no index is skipped, as upstream does */
    return total > 0 && (contains == total || (count >= 0 && contains >= count));
}

bool jobctl__success_match(const struct jobctl_spec *s, const int *done, size_t ndone, char *msg,
                           size_t msgsz)
{
    size_t i;
    json_t *rule;
    if (!s->success_rules || ndone == 0)
        return false;
    json_array_foreach(s->success_rules, i, rule)
    {
        if (rule_met(rule, s->completions, done, ndone)) {
            (void)snprintf(msg, msgsz, "Matched rules at index %zu", i);
            return true;
        }
    }
    return false;
}

/* ---- per-index failures ----------------------------------------------------------------- */

static int cmp_ixf(const void *a, const void *b)
{
    const struct jobctl__ixf *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

size_t jobctl__ixf_merge(struct jobctl__ixf *v, size_t n)
{
    size_t k = 0;
    qsort(v, n, sizeof(*v), cmp_ixf);
    for (size_t i = 0; i < n; i++) {
        struct jobctl__ixf *m = k ? &v[k - 1] : NULL;
        if (!m || m->index != v[i].index) {
            v[k++] = v[i];
            continue;
        }
        m->counted += v[i].counted;
        m->ignored += v[i].ignored;
        m->fail_index |= v[i].fail_index;
        m->last_ms = m->last_ms > v[i].last_ms ? m->last_ms : v[i].last_ms;
    }
    return k;
}

const struct jobctl__ixf *jobctl__ixf_find(const struct jobctl__ixf *v, size_t n, int index)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].index < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo].index == index ? &v[lo] : NULL;
}

size_t jobctl__ixf_failed(const struct jobctl__ixf *v, size_t n, int32_t limit, int *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].fail_index || v[i].counted > limit)
            out[k++] = v[i].index;
    return k;
}
