/* jobctl: the Job status as data and as batch/v1 JSON; time and index formatting. */
#include "local/jobctl.h"
#include "obj/jx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RFC3339_MIN_MS (-62167219200000LL) /* 0000-01-01T00:00:00Z */
#define RFC3339_MAX_MS 253402300799999LL   /* 9999-12-31T23:59:59.999Z */

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* Proleptic Gregorian date of a day count since 1970-01-01 (Hinnant's civil_from_days). */
static void civil_from_days(int64_t days, int64_t *y, int *m, int *d)
{
    int64_t z = days + 719468;
    int64_t era = floor_div(z, 146097);
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

int jobctl_rfc3339(int64_t ms, char out[32])
{
    int64_t y;
    int mo, d;
    out[0] = 0;
    if (ms < RFC3339_MIN_MS || ms > RFC3339_MAX_MS)
        return -ERANGE;
    int64_t secs = floor_div(ms, 1000);
    int64_t days = floor_div(secs, 86400);
    int64_t sod = secs - days * 86400;
    civil_from_days(days, &y, &mo, &d);
    (void)snprintf(out, 32, "%04lld-%02d-%02dT%02d:%02d:%02dZ", (long long)y, mo, d,
                   (int)(sod / 3600), (int)(sod / 60 % 60), (int)(sod % 60));
    return 0;
}

int jobctl_indexes_format(const int *idx, size_t n, char **out_str)
{
    size_t cap = n * 24 + 1, off = 0;
    char *s = malloc(cap);
    if (!s)
        return -ENOMEM;
    s[0] = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && idx[j + 1] == idx[j] + 1)
            j++;
        const char *sep = off ? "," : "";
        if (j - i >= 2)
            off += (size_t)snprintf(s + off, cap - off, "%s%d-%d", sep, idx[i], idx[j]);
        else if (j > i)
            off += (size_t)snprintf(s + off, cap - off, "%s%d,%d", sep, idx[i], idx[j]);
        else
            off += (size_t)snprintf(s + off, cap - off, "%s%d", sep, idx[i]);
        i = j + 1;
    }
    *out_str = s;
    return 0;
}

void jobctl_status_release(struct jobctl_status *st)
{
    if (!st)
        return;
    free(st->completed_indexes);
    memset(st, 0, sizeof(*st));
}

bool jobctl_status_finished(const struct jobctl_status *st)
{
    return st &&
           (st->complete.status == JOBCTL_COND_TRUE || st->failed_cond.status == JOBCTL_COND_TRUE);
}

const char *jobctl_kill_reason_str(enum jobctl_kill_reason r)
{
    static const char *const names[] = {
        [JOBCTL_KILL_SUSPENDED] = "Suspended",
        [JOBCTL_KILL_JOB_FAILED] = "JobFailed",
        [JOBCTL_KILL_JOB_COMPLETE] = "JobComplete",
        [JOBCTL_KILL_EXCESS] = "TooManyPods",
        [JOBCTL_KILL_DUPLICATE_INDEX] = "DuplicateIndex",
        [JOBCTL_KILL_INVALID_INDEX] = "InvalidIndex",
    };
    return (unsigned)r < sizeof(names) / sizeof(names[0]) ? names[r] : "Unknown";
}

void jobctl_result_release(struct jobctl_result *r)
{
    if (!r)
        return;
    free(r->actions);
    jobctl_status_release(&r->status);
    memset(r, 0, sizeof(*r));
    r->next_wakeup_ms = JOBCTL_NO_WAKEUP;
}

static int set_time(json_t *o, const char *key, int64_t ms)
{
    char buf[32];
    if (jobctl_rfc3339(ms, buf) < 0)
        return 0; /* unrepresentable: leave the field out rather than lie */
    return jx_set_str(o, key, buf);
}

static json_t *cond_json(const char *type, const struct jobctl_cond *c)
{
    json_t *o = json_object();
    int rc = o ? 0 : -ENOMEM;
    if (rc == 0)
        rc = jx_set_str(o, "type", type);
    if (rc == 0)
        rc = jx_set_str(o, "status", c->status == JOBCTL_COND_TRUE ? "True" : "False");
    if (rc == 0 && c->reason[0])
        rc = jx_set_str(o, "reason", c->reason);
    if (rc == 0 && c->message[0])
        rc = jx_set_str(o, "message", c->message);
    if (rc == 0)
        rc = set_time(o, "lastProbeTime", c->time_ms);
    if (rc == 0)
        rc = set_time(o, "lastTransitionTime", c->time_ms);
    if (rc < 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* The present, not yet emitted condition with the earliest transition, or -1. */
static int earliest(const struct jobctl_cond *const *c, const bool *done)
{
    int best = -1;
    for (int i = 0; i < 3; i++) {
        if (done[i] || c[i]->status == JOBCTL_COND_ABSENT)
            continue;
        if (best < 0 || c[i]->time_ms < c[best]->time_ms)
            best = i;
    }
    return best;
}

static int conditions_json(const struct jobctl_status *st, json_t *status)
{
    const struct jobctl_cond *const c[3] = {&st->suspended, &st->complete, &st->failed_cond};
    static const char *const types[3] = {"Suspended", "Complete", "Failed"};
    bool done[3] = {false, false, false};
    json_t *arr = json_array();
    int best;
    if (!arr)
        return -ENOMEM;
    while ((best = earliest(c, done)) >= 0) {
        done[best] = true;
        if (json_array_append_new(arr, cond_json(types[best], c[best])) < 0) {
            json_decref(arr);
            return -ENOMEM;
        }
    }
    if (json_array_size(arr) == 0) {
        json_decref(arr);
        return 0;
    }
    return jx_set_new(status, "conditions", arr);
}

static int counters_json(const struct jobctl_status *st, json_t *o)
{
    const struct {
        const char *key;
        int32_t v;
        bool always;
    } f[] = {{"active", st->active, false},
             {"ready", st->ready, true},
             {"succeeded", st->succeeded, false},
             {"failed", st->failed, false},
             {"terminating", st->terminating, true}};

    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
        if ((f[i].v || f[i].always) && jx_set_int(o, f[i].key, f[i].v) < 0)
            return -ENOMEM;
    return 0;
}

int jobctl_status_to_json(const struct jobctl_status *st, json_t **out_json)
{
    json_t *o = json_object();
    int rc = o ? counters_json(st, o) : -ENOMEM;
    if (rc == 0 && st->completed_indexes && st->completed_indexes[0])
        rc = jx_set_str(o, "completedIndexes", st->completed_indexes);
    if (rc == 0 && st->has_start)
        rc = set_time(o, "startTime", st->start_ms);
    if (rc == 0 && st->has_completion)
        rc = set_time(o, "completionTime", st->completion_ms);
    if (rc == 0)
        rc = conditions_json(st, o);
    if (rc == 0)
        rc = jx_set_new(o, "uncountedTerminatedPods", json_object());
    if (rc < 0) {
        json_decref(o);
        return -ENOMEM;
    }
    *out_json = o;
    return 0;
}
