/* What happened to each pod, kept for `get`, `describe` and the summary: one JSON object per
 * pod in the shape of a Pod's status (phase, start and finish, restartCount, a state per
 * container with exit code, signal and reason), written to <run dir>/pods.json with the other
 * state files.  Pods of Jobs deleted by a restart are kept too, in the order they ended. */
#include "local/run/runner_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/schema/keys.h"
#include "obj/tree/jx.h"
#include "obj/base/ktime.h"

static const char *const phases[] = {"Pending", "Running", "Succeeded", "Failed"};

static int set_time(json_t *o, const char *key, int64_t ms)
{
    char ts[KT_RFC3339_MAX];
    return ms <= 0 || kt_format(ms, ts) < 0 ? 0 : jx_set_str(o, key, ts);
}

/* A container's state as the kubelet reports it: running, waiting (not started yet, or
 * waiting for an in-place restart) or terminated with exitCode (128 + signal when killed, as
 * the kubelet reports it), signal and reason. */
static json_t *container_json(const struct rcont *c)
{
    json_t *o = json_pack("{s:s}", "name", jx_str(c->spec, "name") ? jx_str(c->spec, "name")
                                                                     : "");
    const char *state = c->alive ? "running" : c->done ? "terminated" : "waiting";
    int rc = o ? jx_set_str(o, "state", state) : -ENOMEM;
    if (rc == 0 && c->init)
        rc = jx_set_bool(o, "init", true);
    if (rc == 0 && c->done && !c->alive) {
        int code = c->sig ? 128 + c->sig : c->code;
        rc = jx_set_int(o, "exitCode", code);
        if (rc == 0 && c->sig)
            rc = jx_set_str(o, "signal", sigabbrev_np(c->sig) ? sigabbrev_np(c->sig) : "?");
        if (rc == 0)
            rc = jx_set_str(o, "reason", code == 0 ? "Completed" : "Error");
        if (rc == 0 && c->message) /* as the kubelet's terminated.message */
            rc = jx_set_str(o, "message", c->message);
    }
    if (rc < 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static int pod_fields(const struct run *r, const struct rjob *j, const struct rpod *p,
                      json_t *o)
{
    const char *attempt = jx_get_meta(p->meta, "labels", LBL_RESTART_ATTEMPT);
    const char *job_attempt = jx_get_meta(p->meta, "labels", LBL_JOB_RESTART_ATTEMPT);
    long long id = r->m->rt.flavor != JAXRT_OFF
                       ? jaxrt_process_id(&r->m->rt, &r->m->view, j->rj, j->index,
                                          p->jp.index < 0 ? 0 : p->jp.index)
                       : -1;
    int rc = jx_set_str(o, "hostname", p->hostname);
    rc = rc ? rc : jx_set_new(o, "labels", json_deep_copy(jx_obj(p->meta, "labels")));
    rc = rc ? rc : jx_set_str(o, "job", j->name);
    rc = rc ? rc : jx_set_str(o, "replicatedJob", r->m->view.rj[j->rj].name);
    rc = rc ? rc : jx_set_int(o, "jobIndex", j->index);
    if (!rc && p->jp.index >= 0)
        rc = jx_set_int(o, "completionIndex", p->jp.index);
    if (!rc && attempt)
        rc = jx_set_int(o, "restartAttempt", strtoll(attempt, NULL, 10));
    if (!rc && job_attempt) /* RestartJob: the Job's own restart count */
        rc = jx_set_int(o, "jobRestartAttempt", strtoll(job_attempt, NULL, 10));
    if (!rc && p->ipr_attempt >= 0) /* InPlaceRestart: the attempt its agent wrote */
        rc = jx_set_int(o, "inPlaceRestartAttempt", p->ipr_attempt);
    if (!rc && id >= 0)
        rc = jx_set_int(o, "jaxProcessId", id);
    if (!rc && p->first_failure)
        rc = jx_set_bool(o, "firstFailure", true);
    rc = rc ? rc : jx_set_str(o, "phase", phases[p->jp.phase]);
    rc = rc ? rc : set_time(o, "startTime", p->jp.start_ms);
    if (!rc && (p->jp.phase == JOBCTL_SUCCEEDED || p->jp.phase == JOBCTL_FAILED))
        rc = set_time(o, "finishTime", p->jp.finish_ms);
    return rc ? rc : jx_set_int(o, "restartCount", p->jp.restart_count);
}

json_t *runner__pod_json(const struct run *r, const struct rjob *j, const struct rpod *p)
{
    json_t *o = json_pack("{s:s}", "name", p->name), *cs = json_array();
    int rc = o && cs ? pod_fields(r, j, p, o) : -ENOMEM;
    for (size_t i = 0; rc == 0 && i < p->n_c; i++) {
        json_t *c = container_json(&p->c[i]);
        rc = c && json_array_append_new(cs, c) == 0 ? 0 : -ENOMEM;
    }
    if (rc == 0 && jx_set_new(o, "containers", cs) == 0)
        return o;
    json_decref(o);
    json_decref(cs);
    return NULL;
}

int runner__pods_retire(struct run *r, const struct rjob *j)
{
    if (!r->pod_history && !(r->pod_history = json_array()))
        return -ENOMEM;
    for (size_t i = 0; i < j->n_pods; i++) {
        json_t *p = runner__pod_json(r, j, j->pods[i]);
        if (!p || json_array_append_new(r->pod_history, p) < 0)
            return -ENOMEM;
    }
    return 0;
}

json_t *runner__pods_json(const struct run *r)
{
    json_t *all = r->pod_history ? json_copy(r->pod_history) : json_array();
    for (size_t k = 0; all && k < r->n_jobs; k++)
        for (size_t i = 0; i < r->jobs[k]->n_pods; i++) {
            json_t *p = runner__pod_json(r, r->jobs[k], r->jobs[k]->pods[i]);
            if (!p || json_array_append_new(all, p) < 0) {
                json_decref(all);
                return NULL;
            }
        }
    return all;
}

/* A pod whose container exited non-zero by itself, rather than by a signal (most often the
 * teardown's SIGTERM after another pod failed). */
static bool exited_by_itself(const json_t *pod)
{
    size_t i;
    const json_t *c;
    json_array_foreach (jx_arr(pod, "containers"), i, c)
        if (jx_int_or(c, "exitCode", 0) != 0 && !jx_str(c, "signal"))
            return true;
    return false;
}

/* Writes one pod object to f; false on failure. */
static bool dump_pod(FILE *f, json_t *pod, bool first)
{
    bool ok = pod && fputs(first ? "\n" : ",\n", f) >= 0 &&
              json_dumpf(pod, f, JSON_INDENT(2)) == 0;
    json_decref(pod);
    return ok;
}

int runner__pods_write(const struct run *r, const char *path)
{
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
        return -ENAMETOOLONG;
    unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return -e;
    }
    /* one pod at a time: the whole list is never a tree in memory */
    bool ok = fputc('[', f) != EOF, first = true;
    size_t n_old = r->pod_history ? json_array_size(r->pod_history) : 0;
    for (size_t i = 0; ok && i < n_old; i++, first = false)
        ok = dump_pod(f, json_incref(json_array_get(r->pod_history, i)), first);
    for (size_t k = 0; ok && k < r->n_jobs; k++)
        for (size_t i = 0; ok && i < r->jobs[k]->n_pods; i++, first = false)
            ok = dump_pod(f, runner__pod_json(r, r->jobs[k], r->jobs[k]->pods[i]), first);
    ok = ok && fputs("\n]\n", f) >= 0;
    int rc = fclose(f) == 0 && ok ? 0 : -(errno ? errno : EIO);
    if (rc == 0 && rename(tmp, path) < 0)
        rc = -errno;
    if (rc < 0)
        unlink(tmp);
    return rc;
}

/* Whether failed pod `p` ended the run before `best`: a later restart attempt wins (its failure
 * is what ended the run), then a later restart of its own Job (RestartJob), then a later
 * in-place restart attempt (the pod that restarted in place last), then a pod that exited by
 * itself over one stopped by a signal (finish times are to the second: a teardown in the same
 * second would tie), then the earlier finish. */
static bool failed_first(const json_t *p, const json_t *best)
{
    long long a = jx_int_or(p, "restartAttempt", 0), b = jx_int_or(best, "restartAttempt", 0);
    long long ia = jx_int_or(p, "inPlaceRestartAttempt", 0);
    long long ib = jx_int_or(best, "inPlaceRestartAttempt", 0);
    const char *fin = jx_str(p, "finishTime"), *bfin = jx_str(best, "finishTime");
    long long ja = jx_int_or(p, "jobRestartAttempt", 0);
    long long jb = jx_int_or(best, "jobRestartAttempt", 0);
    if (a != b)
        return a > b;
    if (ja != jb)
        return ja > jb;
    if (ia != ib)
        return ia > ib;
    if (exited_by_itself(p) != exited_by_itself(best))
        return exited_by_itself(p);
    return fin && bfin && strcmp(fin, bfin) < 0;
}

/* "pod <name> (container <c> exited with code N | killed by SIGX)" of the first failed pod of
 * the last restart attempt, into out; false when no pod failed. */
const json_t *runner__pick_failed(const json_t *pods, const char *job)
{
    const json_t *best = NULL, *p;
    size_t i;
    json_array_foreach (pods, i, p) {
        const char *ph = jx_str(p, "phase"), *pj = jx_str(p, "job");
        if (job && (!pj || strcmp(pj, job)))
            continue;
        if (ph && !strcmp(ph, "Failed") && (!best || failed_first(p, best)))
            best = p;
    }
    return best;
}

bool runner__first_failed(const json_t *pods, char *out, size_t n)
{
    const json_t *best = runner__pick_failed(pods, NULL);
    size_t i;
    if (!best)
        return false;
    const json_t *c, *who = NULL;
    json_array_foreach (jx_arr(best, "containers"), i, c)
        if (!who && jx_int_or(c, "exitCode", 0) != 0)
            who = c;
    if (!who)
        snprintf(out, n, "pod %s", jx_str(best, "name"));
    else if (jx_str(who, "signal"))
        snprintf(out, n, "pod %s (container %s killed by SIG%s)", jx_str(best, "name"),
                 jx_str(who, "name"), jx_str(who, "signal"));
    else
        snprintf(out, n, "pod %s (container %s exited with code %lld)", jx_str(best, "name"),
                 jx_str(who, "name"), jx_int_or(who, "exitCode", 0));
    return true;
}
