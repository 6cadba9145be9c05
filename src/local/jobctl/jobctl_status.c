/* jobctl: the Job status as data and as batch/v1 JSON; time and index formatting. */
#include "local/jobctl/jobctl.h"
#include "obj/tree/cond.h"
#include "obj/tree/jx.h"
#include "obj/base/ktime.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    free(st->failed_indexes);
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
    char buf[KT_RFC3339_MAX];
    if (kt_format(ms, buf) < 0)
        return 0; /* unrepresentable: leave the field out rather than lie */
    return jx_set_str(o, key, buf);
}

/* {type, status, reason, message, lastProbeTime, lastTransitionTime}: an empty reason or
 * message is left out, and so are both times when the time cannot be written. */
static json_t *cond_json(const char *type, const struct jobctl_cond *c)
{
    char buf[KT_RFC3339_MAX];
    const char *t = kt_format(c->time_ms, buf) < 0 ? NULL : buf;
    const struct cond k = {.type = type,
                           .status = c->status == JOBCTL_COND_TRUE ? COND_TRUE : COND_FALSE,
                           .reason = c->reason[0] ? c->reason : NULL,
                           .message = c->message[0] ? c->message : NULL,
                           .probed = t,
                           .transition = t};
    return cond_new(&k);
}

#define NCONDS 4

/* The present, not yet emitted condition with the earliest transition, or -1. */
static int earliest(const struct jobctl_cond *const *c, const bool *done)
{
    int best = -1;
    for (int i = 0; i < NCONDS; i++) {
        if (done[i] || c[i]->status == JOBCTL_COND_ABSENT)
            continue;
        if (best < 0 || c[i]->time_ms < c[best]->time_ms)
            best = i;
    }
    return best;
}

static int conditions_json(const struct jobctl_status *st, json_t *status)
{
    /* ties keep this order: SuccessCriteriaMet comes before the Complete it leads to */
    const struct jobctl_cond *const c[NCONDS] = {&st->suspended, &st->success_criteria,
                                                 &st->complete, &st->failed_cond};
    static const char *const types[NCONDS] = {"Suspended", "SuccessCriteriaMet", "Complete",
                                              "Failed"};
    bool done[NCONDS] = {false};
    int best;
    while ((best = earliest(c, done)) >= 0) {
        done[best] = true;
        if (cond_append(status, cond_json(types[best], c[best])) < 0)
            return -ENOMEM;
    }
    return 0;
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
    if (rc == 0 && st->failed_indexes)
        rc = jx_set_str(o, "failedIndexes", st->failed_indexes);
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
