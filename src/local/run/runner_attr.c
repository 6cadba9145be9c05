/* Failure attribution: at every restart and at the end, the first failed pod of the attempt,
 * which JAX process it ran, which container failed, how, and what it said last.  torchrun's
 * root-cause table is the model (pytorch/pytorch torch/distributed/elastic/multiprocessing/
 * errors/__init__.py, ChildFailedError.format_msg); the Job is the one the reconcile core names
 * as first failed (kubernetes-sigs/jobset pkg/controllers/failure_policy.go,
 * findFirstFailedJob). */
#include "local/run/runner_int.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "local/store/rundir.h"
#include "local/store/store_excerpt.h"
#include "obj/tree/jx.h"

static struct rpod *find_pod(const struct run *r, const char *name)
{
    for (size_t k = 0; k < r->n_jobs; k++)
        for (size_t i = 0; i < r->jobs[k]->n_pods; i++)
            if (!strcmp(r->jobs[k]->pods[i]->name, name))
                return r->jobs[k]->pods[i];
    return NULL;
}

static json_t *find_history(const struct run *r, const char *name)
{
    size_t i;
    json_t *p;
    json_array_foreach (r->pod_history, i, p)
        if (jx_str(p, "name") && !strcmp(jx_str(p, "name"), name))
            return p;
    return NULL;
}

/* The container that failed the pod: the first that exited non-zero by itself, else the first
 * stopped by a signal; its index in the pod's containers, -1 when none. */
static long failed_container(const json_t *pod)
{
    const json_t *cs = jx_arr(pod, "containers"), *c;
    long by_signal = -1;
    size_t i;
    json_array_foreach (cs, i, c) {
        if (jx_int_or(c, "exitCode", 0) == 0)
            continue;
        if (!jx_str(c, "signal"))
            return (long)i;
        by_signal = by_signal < 0 ? (long)i : by_signal;
    }
    return by_signal;
}

/* Marks the pod as the first failure and gives its container the end of its log as message
 * (once); the message into *msg (borrowed, NULL: none). */
static int mark(struct run *r, const json_t *pod, long ci, const char *log, const char **msg)
{
    const char *name = jx_str(pod, "name");
    struct rpod *p = find_pod(r, name);
    json_t *h = p ? NULL : find_history(r, name);
    json_t *hc = h ? json_array_get(jx_arr(h, "containers"), (size_t)ci) : NULL;
    *msg = NULL;
    if (p && (size_t)ci < p->n_c) {
        p->first_failure = true;
        if (!p->c[ci].message)
            p->c[ci].message = store_excerpt_log(log);
        *msg = p->c[ci].message;
        return 0;
    }
    if (!h || !hc)
        return 0;
    if (!jx_str(hc, "message")) {
        char *m = store_excerpt_log(log);
        int rc = m ? jx_set_str(hc, "message", m) : 0;
        free(m);
        if (rc < 0)
            return rc;
    }
    *msg = jx_str(hc, "message");
    return jx_set_bool(h, "firstFailure", true);
}

/* run.json's "failure" of failed pod `pod`, container index ci. */
static json_t *pod_failure(struct run *r, const json_t *pod, long ci)
{
    const json_t *c = json_array_get(jx_arr(pod, "containers"), (size_t)ci);
    const char *name = jx_str(pod, "name"), *cname = jx_str(c, "name"), *msg = NULL;
    char log[PATH_MAX];
    size_t nc = json_array_size(jx_arr(pod, "containers"));
    rd_log(log, sizeof(log), r->o->run_dir, name, nc > 1 ? cname : NULL);
    json_t *f = json_pack("{s:s,s:s,s:s,s:I}", "pod", name, "hostname",
                          jx_str(pod, "hostname") ? jx_str(pod, "hostname") : name, "job",
                          jx_str(pod, "job") ? jx_str(pod, "job") : "", "restartAttempt",
                          (json_int_t)jx_int_or(pod, "restartAttempt", 0));
    int rc = f ? 0 : -ENOMEM;
    if (!rc && jx_int_or(pod, "jaxProcessId", -1) >= 0)
        rc = jx_set_int(f, "jaxProcessId", jx_int_or(pod, "jaxProcessId", -1));
    if (!rc && c) {
        rc = jx_set_str(f, "container", cname ? cname : "");
        rc = rc ? rc : jx_set_int(f, "exitCode", jx_int_or(c, "exitCode", 0));
        if (!rc && jx_str(c, "signal"))
            rc = jx_set_str(f, "signal", jx_str(c, "signal"));
        rc = rc ? rc : mark(r, pod, ci, log, &msg);
        if (!rc && *log)
            rc = jx_set_str(f, "log", log);
        if (!rc && msg)
            rc = jx_set_str(f, "message", msg);
    }
    if (rc < 0) {
        json_decref(f);
        return NULL;
    }
    return f;
}

/* A Job that failed with no failed pod (activeDeadlineSeconds, a podFailurePolicy...): its own
 * Failed condition. */
static json_t *job_failure(const struct run *r, const char *job)
{
    const json_t *cond = NULL, *c;
    size_t i;
    for (size_t k = 0; k < r->n_jobs && !cond; k++)
        if (!strcmp(r->jobs[k]->name, job))
            json_array_foreach (jx_arr(jx_obj(r->jobs[k]->obj, "status"), "conditions"), i, c)
                if (!cond && jx_str(c, "type") && !strcmp(jx_str(c, "type"), "Failed"))
                    cond = c;
    return json_pack("{s:s,s:s,s:s}", "job", job, "reason",
                     jx_str(cond, "reason") ? jx_str(cond, "reason") : "Failed", "message",
                     jx_str(cond, "message") ? jx_str(cond, "message") : "");
}

/* "gang-w-1-1 (JAX process 3, container c) exited with code 1: ValueError: boom (File ...)" */
static void one_line(const json_t *f, struct sbuf *b)
{
    const char *msg = jx_str(f, "message");
    if (!jx_str(f, "pod")) {
        sb_printf(b, "job %s failed: %s", jx_str(f, "job"), jx_str(f, "reason"));
        if (msg && *msg)
            sb_printf(b, ": %s", msg);
        return;
    }
    sb_printf(b, "%s (", jx_str(f, "hostname"));
    if (jx_int_or(f, "jaxProcessId", -1) >= 0)
        sb_printf(b, "JAX process %lld, ", jx_int_or(f, "jaxProcessId", -1));
    sb_printf(b, "pod %s", jx_str(f, "pod"));
    if (jx_str(f, "container"))
        sb_printf(b, ", container %s", jx_str(f, "container"));
    if (jx_str(f, "signal"))
        sb_printf(b, ") was killed by SIG%s", jx_str(f, "signal"));
    else if (jx_str(f, "container"))
        sb_printf(b, ") exited with code %lld", jx_int_or(f, "exitCode", 0));
    else
        sb_puts(b, ") failed");
    char *line = msg ? store_excerpt_line(msg) : NULL;
    if (line)
        sb_printf(b, ": %s", line);
    free(line);
}

int runner__attribute(struct run *r, const char *job, struct sbuf *line)
{
    json_t *pods = runner__pods_json(r), *f = NULL;
    const json_t *best = pods ? runner__pick_failed(pods, job) : NULL;
    if (best)
        f = pod_failure(r, best, failed_container(best));
    else if (pods)
        f = job_failure(r, job);
    json_decref(pods);
    struct sbuf said = {0};
    if (f)
        one_line(f, &said);
    if (!f || sb_failed(&said) || jx_set_str(f, "summary", sb_str(&said)) < 0) {
        sb_free(&said);
        json_decref(f);
        return -ENOMEM;
    }
    json_decref(r->failure);
    r->failure = f;
    const char *ts = jx_str(jx_obj(r->js, "status"), "terminalState"); /* written before events */
    r->failure_final = ts && !strcmp(ts, "Failed");
    r->status_dirty = true; /* pods.json and run.json name it */
    sb_puts(line, sb_str(&said));
    sb_free(&said);
    return 0;
}

void runner__failure_block(const struct run *r, struct sbuf *b)
{
    const json_t *f = r->failure;
    const char *msg = jx_str(f, "message");
    if (!f || !jx_str(f, "pod"))
        return;
    sb_printf(b, "jaxset: root cause (first observed failure, restart attempt %lld):\n",
              jx_int_or(f, "restartAttempt", 0));
    sb_printf(b, "  host        : %s\n  pod         : %s (job %s)\n", jx_str(f, "hostname"),
              jx_str(f, "pod"), jx_str(f, "job"));
    if (jx_int_or(f, "jaxProcessId", -1) >= 0)
        sb_printf(b, "  JAX process : %lld\n", jx_int_or(f, "jaxProcessId", -1));
    if (jx_str(f, "container"))
        sb_printf(b, "  container   : %s\n", jx_str(f, "container"));
    if (jx_str(f, "signal"))
        sb_printf(b, "  exit code   : %lld (SIG%s)\n", jx_int_or(f, "exitCode", 0),
                  jx_str(f, "signal"));
    else if (jx_str(f, "container"))
        sb_printf(b, "  exit code   : %lld\n", jx_int_or(f, "exitCode", 0));
    if (jx_str(f, "log"))
        sb_printf(b, "  log         : %s\n", jx_str(f, "log"));
    for (const char *s = msg, *label = "  error       : "; s && *s; label = "                ") {
        int n = (int)strcspn(s, "\n");
        sb_printf(b, "%s%.*s\n", label, n, s);
        s += n + (s[n] != 0);
    }
}

char *runner__container_said(const struct run *r, const struct rpod *p, const struct rcont *c)
{
    char log[PATH_MAX];
    rd_log(log, sizeof(log), r->o->run_dir, p->name, p->n_c > 1 ? jx_str(c->spec, "name") : NULL);
    char *m = store_excerpt_log(log), *line = m ? store_excerpt_line(m) : NULL;
    free(m);
    return line;
}
