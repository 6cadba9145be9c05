/* runs: the runs kept on disk, as the CLI shows them. */
#include "cli/backend/runs.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/backend/backend.h"
#include "cli/backend/job_state.h"
#include "cli/util/cli.h"
#include "obj/tree/jx.h"
#include "obj/base/ktime.h"

#define RUN_EVENT_NAME_MAX (NAME_MAX + 24)

/* A live run: what its JobSet's status says (api/job_state: Suspended, Restarting...), as for
 * a JobSet on a cluster; Running before it has one. */
static const char *live_state(const struct store_run *r)
{
    const char *running = store_state_name(STORE_RUNNING);
    struct job_state v;
    if (!r->jobset || job_state_read(JOB_KIND_JOBSET, r->jobset, &v) < 0)
        return running;
    const char *st = v.state;
    job_state_release(&v);
    return !strcmp(st, "Pending") || !strcmp(st, "Created") ? running : st;
}

int runs_not_found(const struct backend *b, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "jaxset %s: %s\n", b->c->cmd, msg);
    json_t *st = b->c->errors_json ? json_pack("{s:s, s:s, s:{}, s:s, s:s, s:s, s:i}", "kind",
                                               "Status", "apiVersion", "v1", "metadata",
                                               "status", "Failure", "message", msg, "reason",
                                               "NotFound", "code", 404)
                                   : NULL;
    if (st && json_dumpf(st, stderr, JSON_COMPACT) == 0)
        fputc('\n', stderr);
    json_decref(st);
    return EXIT_INVALID;
}

const char *runs_state(const struct store_run *r)
{
    enum store_state st = store_run_state(r);
    return st == STORE_RUNNING ? live_state(r) : store_state_name(st);
}

/* "<a><ua>", followed by "<b><ub>" unless b is 0. */
static void units(char out[RUNS_HUMAN_MAX], long long a, const char *ua, long long b,
                  const char *ub)
{
    int n = snprintf(out, RUNS_HUMAN_MAX, "%lld%s", a, ua);
    if (b && n > 0 && n < RUNS_HUMAN_MAX)
        snprintf(out + n, RUNS_HUMAN_MAX - (size_t)n, "%lld%s", b, ub);
}

char *runs_human(int64_t ms, char out[RUNS_HUMAN_MAX])
{
    long long s = ms / 1000, m = s / 60, h = m / 60, d = h / 24;
    if (s < -1)
        snprintf(out, RUNS_HUMAN_MAX, "<invalid>");
    else if (s < 0)
        units(out, 0, "s", 0, "");
    else if (s < 120)
        units(out, s, "s", 0, "");
    else if (m < 10)
        units(out, m, "m", s % 60, "s");
    else if (m < 180)
        units(out, m, "m", 0, "");
    else if (h < 8)
        units(out, h, "h", m % 60, "m");
    else if (h < 48)
        units(out, h, "h", 0, "");
    else if (h < 24 * 8)
        units(out, d, "d", h % 24, "h");
    else if (h < 24 * 365 * 2)
        units(out, d, "d", 0, "");
    else if (h < 24 * 365 * 8)
        units(out, d / 365, "y", d % 365, "d");
    else
        units(out, d / 365, "y", 0, "");
    return out;
}

char *runs_age(const char *ts, int64_t now, char out[RUNS_HUMAN_MAX])
{
    int64_t ms;
    if (kt_parse(ts, &ms) < 0)
        snprintf(out, RUNS_HUMAN_MAX, "-");
    else
        runs_human(now - ms, out);
    return out;
}

/* An event of events.log (store_events) as an Event of the JobSet `js` in namespace `ns`; a
 * Note as it is.  NULL on OOM. */
static json_t *event_of(const json_t *e, const char *js, const char *ns)
{
    char name[RUN_EVENT_NAME_MAX];
    const char *ts = jx_str(e, "time");
    if (!ts)
        return json_pack("{s:s, s:s}", "type", "Note", "message", jx_str(e, "message"));
    snprintf(name, sizeof(name), "%s.%lld", js, jx_int_or(e, "line", 0));
    return json_pack("{s:s, s:s, s:{s:s, s:s, s:s}, s:{s:s, s:s, s:s, s:s}, s:s, s:s, s:s, "
                     "s:s, s:s, s:i, s:{s:s}}",
                     "apiVersion", "v1", "kind", "Event", "metadata", "name", name, "namespace",
                     ns, "creationTimestamp", ts, "involvedObject", "apiVersion",
                     "jobset.x-k8s.io/v1alpha2", "kind", "JobSet", "name", js, "namespace", ns,
                     "type", jx_str(e, "type"), "reason", jx_str(e, "reason"), "message",
                     jx_str(e, "message"), "firstTimestamp", ts, "lastTimestamp", ts, "count", 1,
                     "source", "component", "jaxset");
}

json_t *runs_events(const struct store_run *r, bool notes)
{
    const json_t *meta = jx_obj(r->jobset, "metadata");
    const char *ns = jx_str(meta, "namespace") ? jx_str(meta, "namespace") : "default";
    json_t *all = store_events(r->dir, notes), *out = all ? json_array() : NULL, *e;
    const json_t *ev;
    size_t i;
    json_array_foreach (all, i, ev)
        if (out && (!(e = event_of(ev, r->name, ns)) || json_array_append_new(out, e) < 0)) {
            json_decref(out);
            out = NULL;
        }
    json_decref(all);
    return out;
}
