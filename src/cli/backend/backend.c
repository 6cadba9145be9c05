/* backend: picking one, and the state every verb shows. */
#include "cli/backend/backend.h"

#include <string.h>

#include "cli/backend/job_state.h"
#include "obj/tree/jx.h"

int backend_open(struct backend *b, struct cluster *c)
{
    b->c = c;
    b->ops = cluster_wanted(c) ? &backend_cluster_ops : &backend_local_ops;
    return b->ops->open(b);
}

void backend_close(struct backend *b)
{
    if (b->ops)
        b->ops->close(b);
    b->ops = NULL;
}

bool backend_is_cluster(const struct backend *b)
{
    return b->ops == &backend_cluster_ops;
}

const char *backend_state(const struct kc_res *k, const json_t *obj, bool *final)
{
    static const char *const ended[] = {"Completed", "Failed", "Interrupted", "Lost",
                                        "Unknown"};
    const json_t *meta = jx_obj(obj, "metadata");
    const char *run = jx_get_meta(meta, "annotations", BACKEND_ANN_RUN_STATE);
    struct job_state v;
    const char *st = "Unknown";
    *final = false;
    if (run) {
        for (size_t i = 0; i < sizeof(ended) / sizeof(ended[0]); i++)
            *final |= !strcmp(run, ended[i]);
        return run;
    }
    if (job_state_read(k->family, obj, &v) == 0) { /* else out of memory: Unknown */
        st = v.state;
        *final = job_state_terminal(&v);
        job_state_release(&v);
    }
    if (jx_str(meta, "deletionTimestamp"))
        return "Terminating";
    return st;
}
