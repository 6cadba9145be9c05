/* jaxset wait [KIND/]NAME --for=Completed|Failed|condition=TYPE[=STATUS] [--timeout D]: until
 * a job reaches a state, as `kubectl wait` (exit 0 when met), but also ends at once, with 1,
 * when the job reached the other terminal state (a Failed job will never be Completed), and
 * with 124 (timeout(1)'s status) when the time limit passed.  On a cluster it reads the job,
 * then follows a watch; locally it reads the run directory until the run ends. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli/cli.h"
#include "api/job_state.h"
#include "cli/runs.h"
#include "cli/verbs.h"
#include "obj/jx.h"
#include "obj/ktime.h"
#include "obj/sbuf.h"

int wait_for_parse(const char *cmd, const char *arg, struct wait_for *out)
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

/* -1 not yet, 0 met, 1 the other terminal state reached. */
static int verdict(const struct kc_res *k, const json_t *obj, const struct wait_for *f,
                   const char **state)
{
    struct job_state v;
    if (job_state_read(k->family, obj, &v) < 0)
        return -1; /* out of memory: look again at the next event */
    *state = v.state;
    int rc = job_state_terminal(&v) ? 1 : -1;
    job_state_release(&v);
    if (f->state && !strcmp(*state, f->state))
        return 0;
    if (!f->state) {
        const char *st = jx_str(job_state_condition(obj, f->cond), "status");
        if (st && !strcasecmp(st, f->status))
            return 0;
    }
    return rc;
}

struct waiting {
    const struct kc_res *k;
    const struct wait_for *f;
    const char *state;
    int verdict;
    bool deleted;
};

static int on_event(void *arg, const char *type, json_t *obj)
{
    struct waiting *w = arg;
    if (!strcmp(type, "DELETED")) {
        w->deleted = true;
        return 1;
    }
    w->verdict = verdict(w->k, obj, w->f, &w->state);
    return w->verdict >= 0;
}

static void want(const struct wait_for *f, char *buf, size_t len)
{
    if (f->state)
        snprintf(buf, len, "%s", f->state);
    else
        snprintf(buf, len, "condition %s=%s", f->cond, f->status);
}

static int report(struct cluster *c, const struct kc_res *k, const char *name,
                  const struct waiting *w, bool quiet)
{
    char q[KC_RES_QUALIFIED_MAX], what[200];
    want(w->f, what, sizeof(what));
    if (w->deleted) {
        fprintf(stderr, "jaxset %s: %s/%s was deleted before it was %s\n", c->cmd,
                kc_res_qualified(k, q), name, what);
        return EXIT_JOB_FAILED;
    }
    if (w->verdict == 0) {
        if (!quiet)
            printf("%s/%s condition met\n", kc_res_qualified(k, q), name);
        return EXIT_OK;
    }
    if (w->verdict == 1) {
        fprintf(stderr, "jaxset %s: %s/%s is %s, it will never be %s\n", c->cmd,
                kc_res_qualified(k, q), name, w->state, what);
        return EXIT_JOB_FAILED;
    }
    fprintf(stderr, "jaxset %s: timed out waiting for %s/%s to be %s (it is %s)\n", c->cmd,
            kc_res_qualified(k, q), name, what, w->state ? w->state : "unknown");
    return EXIT_TIMEOUT;
}

int wait_cluster_job(struct cluster *c, const struct kc_res *k, const char *name,
                     const struct wait_for *f, int64_t deadline_ms, bool quiet)
{
    struct waiting w = {.k = k, .f = f, .verdict = -1};
    struct err e = {{0}};
    char *list = kc_res_path(k, c->ns, NULL, NULL);
    char *sel = sb_fmt("fieldSelector=metadata.name%%3D%s", name);
    int rc = list && sel ? -JX_EGONE : -ENOMEM;
    while (rc == -JX_EGONE) { /* read, then watch from there; again when the version is gone */
        json_t *obj = NULL;
        int st = cluster_get(c, k, name, &obj);
        if (st != EXIT_OK) {
            rc = st;
            break;
        }
        w.verdict = verdict(k, obj, f, &w.state);
        const char *rv = jx_str(jx_obj(obj, "metadata"), "resourceVersion");
        rc = w.verdict >= 0 ? 1 : kc_cli_watch(c->kc, list, sel, rv, deadline_ms, on_event, &w, &e);
        json_decref(obj);
    }
    free(list);
    free(sel);
    if (rc < 0) {
        fprintf(stderr, "jaxset %s: %s\n", c->cmd, e.msg[0] ? e.msg : "out of memory");
        return EXIT_CLUSTER;
    }
    return rc > 1 ? rc : report(c, k, name, &w, quiet);
}

/* A local run: its state as `jaxset get` shows it, its JobSet's conditions. */
static int local_verdict(const struct runs_run *r, const struct wait_for *f, const char **state)
{
    static const struct kc_res local_kind = {.kind = "JobSet", .family = JOB_KIND_JOBSET};
    const char *st = runs_state(r);
    bool ended = !runs_live(r);
    int v = r->jobset ? verdict(&local_kind, r->jobset, f, state) : -1;
    *state = st;
    if (v == 0 || (f->state && !strcmp(st, f->state)))
        return 0;
    return ended ? 1 : -1;
}

static int wait_local(const char *name, const struct wait_for *f, int64_t deadline_ms)
{
    struct waiting w = {.f = f, .verdict = -1};
    const struct timespec tick = {0, 100 * 1000 * 1000};
    struct runs_run r;
    for (;;) {
        if (runs_load(name, &r) < 0) {
            fprintf(stderr, "jaxset wait: no run of \"%s\" found\n", name);
            return EXIT_INVALID;
        }
        w.verdict = local_verdict(&r, f, &w.state);
        runs_free(&r);
        if (w.verdict >= 0 || (deadline_ms && kt_mono_ms() >= deadline_ms))
            break;
        nanosleep(&tick, NULL);
    }
    struct cluster c = cluster_new("wait");
    static const struct kc_res run_kind = {.kind = "JobSet", .singular = "run", .group = ""};
    return report(&c, &run_kind, name, &w, false);
}

struct wait_args {
    struct cluster c;
    const char *name;
    struct wait_for f;
    bool have_for;
    long long timeout_ms;
};

static int on_arg(void *ctx, int code, const char *arg)
{
    struct wait_args *a = ctx;
    int rc = cluster_opt(&a->c, code, arg);
    if (rc != -1)
        return rc;
    switch (code) {
    case 'F':
        a->have_for = true;
        return wait_for_parse("wait", arg, &a->f);
    case 'T':
        if ((a->timeout_ms = cli_duration_ms(arg)) < 0)
            return cli_usage_error("wait", "--timeout takes a duration such as 30s, 10m or 0 "
                                           "(none)");
        return EXIT_OK;
    case CLI_OPERAND:
        if (a->name)
            return cli_usage_error("wait", "one NAME only");
        a->name = arg;
        return EXIT_OK;
    default: return cli_usage_error("wait", "unknown option");
    }
}

static int wait_cluster(struct wait_args *a, int64_t deadline)
{
    const struct kc_res *k;
    const char *name;
    char buf[64];
    int rc = cluster_job_arg("wait", a->name, &k, &name, buf, sizeof(buf));
    if (rc == EXIT_OK && (rc = cluster_connect(&a->c)) == EXIT_OK) {
        rc = wait_cluster_job(&a->c, k, name, &a->f, deadline, false);
        cluster_close(&a->c);
    }
    return rc;
}

int cmd_wait(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLUSTER_LONGOPTS, CLUSTER_LOCAL_LONGOPT, {"for", required_argument, NULL, 'F'},
        {"timeout", required_argument, NULL, 'T'}, {0}};
    struct wait_args a = {.c = cluster_new("wait")};
    int rc = cli_parse(argc, argv, CLUSTER_SHORTOPTS, longopts, on_arg, &a);
    if (rc != EXIT_OK)
        return rc;
    if (!a.name)
        return cli_usage_error("wait", "no NAME given");
    if (!a.have_for)
        wait_for_parse("wait", "Completed", &a.f);
    int64_t deadline = a.timeout_ms > 0 ? kt_mono_ms() + a.timeout_ms : 0;
    if (cluster_wanted(&a.c))
        return wait_cluster(&a, deadline);
    if (strchr(a.name, '/'))
        return cli_usage_error("wait", "a local run is named by NAME alone");
    return wait_local(a.name, &a.f, deadline);
}
