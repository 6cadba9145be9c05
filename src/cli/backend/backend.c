/* backend: picking one, the state every verb shows, and waiting for a state (`wait`, and
 * `submit --wait`: verbs.h). */
#include "cli/backend/backend.h"

#include <string.h>
#include <strings.h>

#include "cli/util/cli.h"
#include "cli/backend/job_state.h"
#include "cli/backend/verbs.h"
#include "obj/tree/jx.h"
#include "obj/base/ktime.h"

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

/* ---- waiting: read the job, then follow the backend's watch until a state is reached ---- */

int backend_wait_for_parse(const char *cmd, const char *arg, struct backend_wait_for *out)
{
    memset(out, 0, sizeof(*out));
    snprintf(out->status, sizeof(out->status), "True");
    if (!strcasecmp(arg, "Completed") || !strcasecmp(arg, "Complete") ||
        !strcasecmp(arg, "Succeeded")) {
        out->state = "Completed";
        return EXIT_OK;
    }
    if (!strcasecmp(arg, "Failed")) {
        out->state = "Failed";
        return EXIT_OK;
    }
    if (strncmp(arg, "condition=", 10) || !arg[10])
        return cli_usage_error(cmd, "--for takes Completed, Failed or condition=TYPE[=STATUS]");
    const char *type = arg + 10, *eq = strchr(type, '=');
    size_t n = eq ? (size_t)(eq - type) : strlen(type);
    if (!n || n >= sizeof(out->cond) || (eq && (!eq[1] || strlen(eq + 1) >= sizeof(out->status))))
        return cli_usage_error(cmd, "--for=condition=TYPE[=STATUS]: a bad TYPE or STATUS");
    memcpy(out->cond, type, n);
    if (eq)
        snprintf(out->status, sizeof(out->status), "%s", eq + 1);
    return EXIT_OK;
}

/* -1 not yet, 0 met, 1 the other terminal state reached (or a run ended without it). */
static int verdict(const struct kc_res *k, const json_t *obj, const struct backend_wait_for *f,
                   const char **state)
{
    bool final;
    *state = job_state_shown(k, obj, &final);
    if (f->state && !strcmp(*state, f->state))
        return 0;
    if (!f->state) {
        const char *st = jx_str(job_state_condition(obj, f->cond), "status");
        if (st && !strcasecmp(st, f->status))
            return 0;
    }
    return final ? 1 : -1;
}

struct waiting {
    const struct kc_res *k;
    const struct backend_wait_for *f;
    const char *state;
    char state_buf[32]; /* the state seen last (an event's object goes with the event) */
    int verdict;
    bool deleted;
};

static void judge(struct waiting *w, const json_t *obj)
{
    const char *st;
    w->verdict = verdict(w->k, obj, w->f, &st);
    snprintf(w->state_buf, sizeof(w->state_buf), "%s", st);
    w->state = w->state_buf;
}

static int on_event(void *arg, const char *type, json_t *obj)
{
    struct waiting *w = arg;
    if (!strcmp(type, "DELETED")) {
        w->deleted = true;
        return 1;
    }
    judge(w, obj);
    return w->verdict >= 0;
}

static void want(const struct backend_wait_for *f, char *buf, size_t len)
{
    if (f->state)
        snprintf(buf, len, "%s", f->state);
    else
        snprintf(buf, len, "condition %s=%s", f->cond, f->status);
}

static int report(const struct backend *b, const struct kc_res *k, const char *name,
                  const struct waiting *w, bool quiet)
{
    char q[KC_RES_QUALIFIED_MAX], what[200];
    const char *cmd = b->c->cmd;
    want(w->f, what, sizeof(what));
    kc_res_qualified(k, q);
    if (w->deleted) {
        fprintf(stderr, "jaxset %s: %s/%s was deleted before it was %s\n", cmd, q, name, what);
        return EXIT_JOB_FAILED;
    }
    if (w->verdict == 0) {
        if (!quiet)
            printf("%s/%s condition met\n", q, name);
        return EXIT_OK;
    }
    if (w->verdict == 1) {
        fprintf(stderr, "jaxset %s: %s/%s is %s, it will never be %s\n", cmd, q, name,
                w->state, what);
        return EXIT_JOB_FAILED;
    }
    fprintf(stderr, "jaxset %s: timed out waiting for %s/%s to be %s (it is %s)\n", cmd, q,
            name, what, w->state ? w->state : "unknown");
    return EXIT_TIMEOUT;
}

int backend_wait_job(struct backend *b, const struct kc_res *k, const char *name,
                     const struct backend_wait_for *f, int64_t deadline_ms, bool quiet)
{
    struct waiting w = {.k = k, .f = f, .verdict = -1};
    int rc = 0;
    for (;;) { /* read, then watch from there; again when the watch ends undecided */
        json_t *obj = NULL;
        int st = b->ops->get(b, k, name, &obj);
        if (st != EXIT_OK)
            return st;
        judge(&w, obj);
        const char *rv = jx_str(jx_obj(obj, "metadata"), "resourceVersion");
        rc = w.verdict >= 0 ? 1 : b->ops->watch(b, k, name, NULL, rv, deadline_ms, on_event, &w);
        json_decref(obj);
        if (rc != 0 && rc != -JX_EGONE)
            break;
        if (rc == 0 && deadline_ms && kt_mono_ms() >= deadline_ms)
            break;
    }
    if (rc < 0)
        return backend_is_cluster(b) ? EXIT_CLUSTER : EXIT_INVALID;
    return report(b, k, name, &w, quiet);
}

int backend_wait_cluster_job(struct cluster *c, const struct kc_res *k, const char *name,
                             const struct backend_wait_for *f, int64_t deadline_ms,
                             bool quiet)
{
    struct backend b = {.ops = &backend_cluster_ops, .c = c};
    return backend_wait_job(&b, k, name, f, deadline_ms, quiet);
}
