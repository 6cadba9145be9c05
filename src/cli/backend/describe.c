/* describe: the Conditions and Jobs tables of both describes (cli/backend/describe.h). */
#include "cli/backend/describe.h"

#include <stdio.h>

#include "api/schema/keys.h"
#include "cli/util/table.h"
#include "obj/tree/cond.h"
#include "obj/tree/jx.h"

static const char *or_dash(const char *s)
{
    return s && *s ? s : "-";
}

int describe_conditions(const json_t *status)
{
    static const char *const cols[] = {"Type", "Status", "Reason", "Last Transition",
                                       "Message"};
    static const char *const keys[] = {"type", "status", "reason", "lastTransitionTime",
                                       "message"};
    struct table t = table_new(5);
    const json_t *c;
    size_t i;
    for (size_t k = 0; k < 5; k++)
        table_cell(&t, "%s", cols[k]);
    json_array_foreach (cond_list(status), i, c)
        for (size_t k = 0; k < 5; k++)
            table_cell(&t, "%s", or_dash(jx_str(c, keys[k])));
    return table_section("Conditions:", &t, 2);
}

/* "Failed=True (BackoffLimitExceeded), ..." of a Job's conditions (cut at 511 bytes), or "-". */
static void job_conditions(struct table *t, const json_t *job)
{
    char buf[512] = "";
    size_t len = 0, i;
    const json_t *c;
    json_array_foreach (cond_list(jx_obj(job, "status")), i, c) {
        const char *reason = jx_str(c, "reason");
        int n = snprintf(buf + len, sizeof(buf) - len, "%s%s=%s%s%s%s", len ? ", " : "",
                         or_dash(jx_str(c, "type")), or_dash(jx_str(c, "status")),
                         reason ? " (" : "", reason ? reason : "", reason ? ")" : "");
        if (n < 0 || (size_t)n >= sizeof(buf) - len)
            break;
        len += (size_t)n;
    }
    buf[len] = '\0';
    table_cell(t, "%s", or_dash(buf));
}

int describe_jobs(const json_t *jobs)
{
    static const char *const cols[] = {"Name",   "Replicated Job", "Restart Attempt", "Active",
                                       "Ready",  "Succeeded",      "Failed",          "Conditions"};
    static const char *const counts[] = {"active", "ready", "succeeded", "failed"};
    struct table t = table_new(8);
    const json_t *j;
    size_t i;
    for (size_t k = 0; k < 8; k++)
        table_cell(&t, "%s", cols[k]);
    json_array_foreach (jobs, i, j) {
        const json_t *meta = jx_obj(j, "metadata");
        table_cell(&t, "%s%s", or_dash(jx_str(meta, "name")),
                   jx_str(meta, "deletionTimestamp") ? " (terminating)" : "");
        table_cell(&t, "%s", or_dash(jx_get_meta(meta, "labels", LBL_RJ_NAME)));
        table_cell(&t, "%s", or_dash(jx_get_meta(meta, "labels", LBL_RESTART_ATTEMPT)));
        for (size_t k = 0; k < 4; k++)
            table_cell(&t, "%lld", jx_int_or(jx_obj(j, "status"), counts[k], 0));
        job_conditions(&t, j);
    }
    return table_section("Jobs:", &t, 2);
}
