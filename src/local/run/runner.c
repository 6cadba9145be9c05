/* The runner's loop: reconcile core + jobctl + supervisor (see runner.h). */
#include "local/run/runner_int.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "api/schema/keys.h"
#include "core/plan_exec.h"
#include "core/reconcile.h"
#include "local/podenv/podenv.h"
#include "local/store/rundir.h"
#include "local/store/store_run.h"
#include "local/store/store_state.h"
#include "obj/base/fs.h"
#include "obj/tree/jx.h"
#include "obj/base/ktime.h"

#define RUN_MAX_PASSES 64 /* reconcile passes before waiting; a plan converges in a few */

int runner_detect_gpus(void)
{
    int n = 0;
    /* The NVIDIA driver's control device comes with every /dev/nvidia<N> (the user-mode driver
     * opens it before any GPU's; the container toolkit and device plugin mount it beside
     * them): without it there is no GPU to count, and /dev is not listed (a listing of /dev
     * took 70-85 us of every start). */
    if (access("/dev/nvidiactl", F_OK) < 0)
        return 0;
    DIR *d = opendir("/dev");
    struct dirent *de;
    while (d && (de = readdir(d))) {
        const char *s = de->d_name;
        if (strncmp(s, "nvidia", 6) || !s[6])
            continue;
        bool digits = true;
        for (const char *c = s + 6; *c; c++)
            digits &= *c >= '0' && *c <= '9';
        n += digits;
    }
    if (d)
        closedir(d);
    return n;
}

/* A TCP port free on this machine now (the kernel's pick), for the coordinator. */
static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    int port = -1;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

static struct rjob *find_job(const struct run *r, const char *name)
{
    for (size_t i = 0; i < r->n_jobs; i++)
        if (!strcmp(r->jobs[i]->name, name))
            return r->jobs[i];
    return NULL;
}

static int add_job(struct run *r, json_t *obj, struct err *err)
{
    struct rjob **nj = realloc(r->jobs, (r->n_jobs + 1) * sizeof(*nj));
    if (nj)
        r->jobs = nj; /* the old array is gone either way once realloc succeeded */
    struct rjob *j = nj ? calloc(1, sizeof(*j)) : NULL;
    const json_t *meta = jx_obj(obj, "metadata");
    if (!j) {
        json_decref(obj);
        return err_oom(err);
    }
    j->obj = obj;
    const char *name = jx_str(meta, "name"), *idx = jx_get_meta(meta, "labels", LBL_JOB_INDEX);
    long rj = js_view_find(&r->m->view, jx_get_meta(meta, "labels", LBL_RJ_NAME));
    /* the core built this Job (construct_job): a name that is a validated DNS label, the
     * replicated job's name and the index as labels; anything else is a bug to report */
    if (!name || snprintf(j->name, sizeof(j->name), "%s", name) >= (int)sizeof(j->name) ||
        rj < 0 || !idx) {
        runner__job_free(j);
        return err_set(err, -EINVAL, "job %s: not a child Job of this JobSet",
                       name ? name : "(no name)");
    }
    j->rj = (size_t)rj;
    j->index = strtoll(idx, NULL, 10);
    j->wakeup_ms = INT64_MAX;
    int rc = jx_set_str(jx_ensure_obj(obj, "metadata"), "uid", j->name) < 0 ||
                     runner__agent_commands(jx_path(obj, "spec.template.spec")) < 0
                 ? err_oom(err)
                 : jobctl_spec_parse(obj, &j->spec, err);
    if (rc < 0) {
        runner__job_free(j);
        return rc;
    }
    r->jobs[r->n_jobs++] = j;
    return 0;
}

static void delete_job(struct run *r, const char *name, int64_t now)
{
    struct rjob *j = find_job(r, name);
    char ts[KT_RFC3339_MAX];
    if (!j || j->deleting)
        return;
    j->deleting = true;
    kt_format(now, ts);
    jx_set_str(jx_ensure_obj(j->obj, "metadata"), "deletionTimestamp", ts);
    runner__kill_job(r, j, now);
}

/* Drops Jobs whose foreground deletion is over (no process left); returns how many. */
static size_t reap_deleted(struct run *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n_jobs;) {
        struct rjob *j = r->jobs[i];
        bool alive = false;
        for (size_t k = 0; k < j->n_pods; k++)
            alive |= runner__pod_alive(j->pods[k]);
        if (j->deleting && !alive) {
            if (runner__pods_retire(r, j) < 0)
                runner__note(r, ERR_OOM_MSG ": the pods of job %s are left out of pods.json",
                             j->name);
            runner__job_free(j);
            r->jobs[i] = r->jobs[--r->n_jobs];
            n++;
        } else {
            i++;
        }
    }
    return n;
}

/* The observed Jobs for the core; NULL on OOM (a partial list would show it too few Jobs). */
static json_t *jobs_json(const struct run *r)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < r->n_jobs; i++)
        if (json_array_append(arr, r->jobs[i]->obj) < 0) {
            json_decref(arr);
            return NULL;
        }
    return arr;
}

/* ---- the local backend's plan operations (core/plan_exec.h) ---------------------------- */

struct run_pass {
    struct run *r;
    int64_t now;
};

/* A Job of an earlier restart attempt is being torn down by a gang restart. */
static bool restart_teardown(const struct run *r, const struct rjob *j)
{
    const char *a = jx_get_meta(jx_obj(j->obj, "metadata"), "labels", LBL_RESTART_ATTEMPT);
    long long restarts = jx_int_or(jx_obj(r->js, "status"), "restarts", 0);
    return !r->signal && a && strtoll(a, NULL, 10) < restarts;
}

static int op_delete_job(void *ctx, const char *name, bool foreground, struct err *e)
{
    struct run_pass *ps = ctx;
    struct rjob *j = find_job(ps->r, name);
    (void)foreground; /* a Job's pods are always stopped before its name is free again */
    (void)e;
    if (j && !j->deleting)
        j->restart_teardown = restart_teardown(ps->r, j) || runner__job_outdated(ps->r, j);
    delete_job(ps->r, name, ps->now);
    return 0;
}

/* Pod hostnames resolve through the run's hosts file (runner_hosts.c): nothing to create. */
static int op_create_service(void *ctx, json_t *service, struct err *e)
{
    (void)ctx;
    (void)service;
    (void)e;
    return 0;
}

/* Crash-loop backoff of gang restarts: upstream recreates a restarted gang at once, and a
 * cluster's pod start-up paces the loop; locally a gang that fails at once would restart
 * hundreds of times a second.  The first quick restart is immediate; from the second
 * consecutive attempt that lived less than RUN_GANG_STABLE_MS on, the new attempt waits
 * base, 2 x base, ... (--restart-backoff, at most RUN_GANG_BACKOFF_MAX_MS).  A Job restarted
 * alone (RestartJob gate) has the same backoff of its own (runner_restart.c). */
static void gang_attempt_begins(struct run *r, long long attempt, int64_t now)
{
    int64_t delay = runner__backoff_begin(r, &r->quick_restarts, &r->attempt_started_ms,
                                          &r->gang_hold_ms, now);
    r->attempt = attempt;
    if (delay > 0)
        runner__note(r, "restart attempt %lld starts in %.1f s: the gang failed %d times in a row "
                        "within %d s (crash-loop backoff; --restart-backoff sets its base)",
                     attempt, (double)delay / 1000, r->quick_restarts, RUN_GANG_STABLE_MS / 1000);
}

/* A Job already there (the API server's AlreadyExists) or a run being stopped creates nothing;
 * a restarted gang waiting out its backoff is created later. */
static int op_create_job(void *ctx, json_t *job, struct err *e)
{
    struct run_pass *ps = ctx;
    struct run *r = ps->r;
    const json_t *meta = jx_obj(job, "metadata");
    const char *a = jx_get_meta(meta, "labels", LBL_RESTART_ATTEMPT);
    long long attempt = a ? strtoll(a, NULL, 10) : 0;
    if (r->signal || find_job(r, jx_str(meta, "name")))
        return 0;
    if (attempt > r->attempt)
        gang_attempt_begins(r, attempt, ps->now);
    int64_t hold = ps->now < r->gang_hold_ms ? r->gang_hold_ms
                                             : runner__job_restart_hold(r, job, ps->now);
    if (hold < 0)
        return err_oom(e);
    if (hold > 0) {
        r->held = true;
        r->held_until_ms = hold < r->held_until_ms ? hold : r->held_until_ms;
        return 0;
    }
    return add_job(r, json_incref(job), e);
}

static int op_update_job(void *ctx, const struct rec_patch *pa, struct err *e)
{
    struct run_pass *ps = ctx;
    struct rjob *j = find_job(ps->r, pa->name);
    (void)e;
    if (!j)
        return 0;
    jx_set_bool(jx_obj(j->obj, "spec"), "suspend", pa->suspend);
    j->spec.suspend = pa->suspend;
    if (pa->clear_start_time) {
        json_object_del(jx_obj(j->obj, "status"), "startTime");
        j->st.has_start = false;
    }
    return 0;
}

static int op_write_status(void *ctx, json_t *status, struct err *e)
{
    struct run_pass *ps = ctx;
    if (json_object_set(ps->r->js, "status", status) < 0)
        return err_oom(e);
    ps->r->status_dirty = true;
    return 0;
}

static void op_record_event(void *ctx, enum rec_event_type type, const char *reason,
                            const char *message)
{
    struct run_pass *ps = ctx;
    runner__event(ps->r, type == REC_EVENT_WARNING ? "Warning" : "Normal", reason, message);
}

/* ttlSecondsAfterFinished: a local run ends once it is finished, its directory is kept. */
static int op_delete_jobset(void *ctx, struct err *e)
{
    (void)ctx;
    (void)e;
    return 0;
}

/* A claim of spec.volumeClaimPolicies is a directory of the run, <run dir>/volumes/<claim>
 * (or the one --pvc maps it to), kept with the run (whenDeleted has nothing to delete
 * locally).  An existing one is reused. */
static int op_create_pvc(void *ctx, json_t *pvc, struct err *e)
{
    struct run_pass *ps = ctx;
    char *dir = vol_claim_dir(&ps->r->vr, jx_str(jx_obj(pvc, "metadata"), "name"));
    if (!dir)
        return err_oom(e);
    int rc = fs_mkdir_p(dir, 0700);
    if (rc < 0)
        err_set(e, rc, "%s: %s", dir, strerror(-rc));
    free(dir);
    return rc;
}

static const struct rec_ops run_ops = {
    .delete_job = op_delete_job,
    .create_service = op_create_service,
    .create_pvc = op_create_pvc,
    .create_job = op_create_job,
    .update_job = op_update_job,
    .write_status = op_write_status,
    .record_event = op_record_event,
    .delete_jobset = op_delete_jobset,
};

static int apply_plan(struct run *r, const struct rec_plan *p, int64_t now, bool *changed,
                      struct err *err)
{
    struct run_pass ps = {r, now};
    struct rec_exec_result res;
    r->held = false;
    r->held_until_ms = INT64_MAX;
    free(r->failure_event); /* a failure event is shown once a pass (runner_state.c) */
    r->failure_event = NULL;
    int rc = rec_plan_execute(p, &run_ops, &ps, &res, err);
    if (rc < 0)
        return rc;
    r->requeue_at_ms = p->requeue_after_ms >= 0 ? now + p->requeue_after_ms : INT64_MAX;
    /* creates held back by the gang backoff change nothing until it ends */
    *changed = r->held ? p->n_deletes || p->n_patches || res.status_written : res.changed;
    if (r->held && r->held_until_ms < r->requeue_at_ms)
        r->requeue_at_ms = r->held_until_ms;
    return 0;
}

static int reconcile_once(struct run *r, int64_t now, bool *changed, struct err *err)
{
    bool any = false;
    for (size_t i = 0; i < r->n_jobs; i++) {
        if (r->jobs[i]->deleting)
            continue;
        int rc = runner__job_sync(r, r->jobs[i], now, &any, err);
        if (rc < 0)
            return rc;
    }
    json_t *jobs = jobs_json(r), *pods = r->ipr ? runner__ipr_pods(r) : NULL;
    struct rec_plan plan;
    int rc = jobs && (pods || !r->ipr)
                 ? rec_reconcile_gated(r->js, jobs, pods, now, &r->m->gates, &plan, err)
                 : err_oom(err);
    json_decref(jobs);
    json_decref(pods);
    if (rc < 0)
        return rc;
    bool planned = false;
    rc = apply_plan(r, &plan, now, &planned, err);
    rec_plan_release(&plan);
    if (rc == 0)
        any |= runner__ipr_agents(r, now); /* the agents read the status just written */
    *changed = any || planned;
    return rc;
}

static const char *terminal(const struct run *r)
{
    return jx_str(jx_obj(r->js, "status"), "terminalState");
}

static int64_t next_deadline(const struct run *r)
{
    int64_t t = r->requeue_at_ms;
    for (size_t i = 0; i < r->n_jobs; i++)
        if (r->jobs[i]->wakeup_ms < t)
            t = r->jobs[i]->wakeup_ms;
    int64_t k = runner__next_kill(r);
    if (r->status_dirty && r->next_write_ms < t)
        t = r->next_write_ms;
    return k < t ? k : t;
}

/* `jaxset suspend|resume NAME` wrote the desired spec.suspend to the run's control file and
 * sent SIGUSR1: the JobSet's spec changes as `kubectl patch` would change it on a cluster. */
static void on_control(struct run *r)
{
    char path[PATH_MAX];
    json_t *ctl = json_load_file(rd_file(path, sizeof(path), r->o->run_dir, RD_CONTROL), 0, NULL);
    const json_t *want = json_object_get(ctl, "suspend");
    json_t *spec = jx_obj(r->js, "spec");
    if (json_is_boolean(want) && spec &&
        jx_bool_or(spec, "suspend", false) != json_is_true(want)) {
        jx_set_bool(spec, "suspend", json_is_true(want));
        r->status_dirty = true;
        bool on = json_is_true(want);
        runner__note(r, "%s requested: %s", on ? "suspend" : "resume",
                     on ? "every pod is stopped, the Jobs stay" : "pods start again");
    }
    json_decref(ctl);
}

static void on_signal(struct run *r, int64_t now)
{
    struct signalfd_siginfo si;
    while (read(r->sigfd, &si, sizeof(si)) == sizeof(si)) {
        if (si.ssi_signo == SIGUSR1) {
            on_control(r);
            continue;
        }
        bool second = r->signal != 0;
        const char *abbrev = sigabbrev_np((int)si.ssi_signo);
        r->signals++;
        if (!second)
            runner__note(r, "received SIG%s: stopping every pod (grace period applies; again to "
                            "force)", abbrev ? abbrev : "?");
        else if (r->signals == 2)
            runner__note(r, "received SIG%s again: killing every pod now (SIGKILL)",
                         abbrev ? abbrev : "?");
        else
            runner__note(r, "received SIG%s again: every pod is being killed already, waiting "
                            "for %zu to exit", abbrev ? abbrev : "?", runner__alive(r));
        r->signal = (int)si.ssi_signo;
        for (size_t i = 0; i < r->n_jobs; i++) {
            runner__kill_job(r, r->jobs[i], now);
            for (size_t k = 0; second && k < r->jobs[i]->n_pods; k++)
                r->jobs[i]->pods[k]->kill_at_ms = now;
        }
    }
}

static int wait_events(struct run *r, struct err *err)
{
    struct sup_exit exits[64];
    int64_t now = runner__now(r), dl = next_deadline(r);
    int timeout = dl == INT64_MAX ? 1000 : (int)(dl - now < 0 ? 0 : dl - now);
    if (r->o->live && timeout > 1000)
        timeout = 1000;
    int fd = -1, n = sup_poll(r->sup, timeout, exits, 64, &fd);
    if (n < 0)
        return err_set(err, n, "supervisor: %s", strerror(-n));
    now = runner__now(r);
    for (int i = 0; i < n; i++)
        runner__pod_exited(r, exits[i].id, exits[i].status, exits[i].msg, now);
    if (fd == r->sigfd)
        on_signal(r, now);
    if (fd >= 0 && fd == r->status_out && runner__status_read(r) < 0) {
        runner__note(r, "the status server ended: progress reports are no longer taken");
        runner__status_stop(r);
    }
    runner__escalate_kills(r, now);
    return 0;
}

/* Reconciles until nothing changes (a plan converges in a few passes); none once a signal
 * has stopped the run. */
static int settle(struct run *r, int64_t now, struct err *err)
{
    bool changed = !r->signal;
    for (int pass = 0; changed && pass < RUN_MAX_PASSES; pass++) {
        int rc = reconcile_once(r, now, &changed, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Why a run waits with nothing running and nothing due. */
static const char *idle_reason(const struct run *r)
{
    long long replicas = 0;
    if (jx_bool_or(jx_obj(r->js, "spec"), "suspend", false))
        return "the JobSet is suspended (spec.suspend): nothing starts until `jaxset resume "
               "NAME` (interrupt to stop)";
    for (size_t i = 0; i < r->m->view.n_rj; i++)
        replicas += r->m->view.rj[i].replicas;
    if (replicas == 0)
        return "every replicated job has replicas: 0, so there is nothing to run; the JobSet "
               "waits as it would on a cluster (interrupt to stop)";
    return "nothing runs and nothing is due: the JobSet waits for a change, as it would on a "
           "cluster (interrupt to stop)";
}

/* Says once, each time the run comes to wait with nothing running and nothing due, why. */
static void note_idle(struct run *r)
{
    int64_t due = r->requeue_at_ms;
    for (size_t i = 0; i < r->n_jobs; i++)
        due = r->jobs[i]->wakeup_ms < due ? r->jobs[i]->wakeup_ms : due;
    bool idle = !terminal(r) && !r->signal && runner__alive(r) == 0 && due == INT64_MAX;
    if (idle && !r->idle_noted)
        runner__note(r, "%s", idle_reason(r));
    r->idle_noted = idle;
}

static int loop(struct run *r, struct err *err)
{
    for (;;) {
        int rc = settle(r, runner__now(r), err);
        if (rc < 0)
            return rc;
        if (reap_deleted(r) && !r->signal)
            continue; /* the names are free again: the next pass may recreate them */
        int64_t now = runner__now(r);
        if (r->status_dirty && now >= r->next_write_ms) {
            runner__state_write(r, store_state_name(STORE_RUNNING), -1);
            r->next_write_ms = now + RUN_WRITE_MS;
        }
        runner__live(r, false);
        if ((terminal(r) || r->signal) && runner__alive(r) == 0)
            break;
        note_idle(r);
        if ((rc = wait_events(r, err)) < 0)
            return rc;
    }
    if (r->signal)
        return 128 + r->signal;
    return !strcmp(terminal(r), "Completed") ? 0 : 1;
}

/* Every container runs locally only with a command and env sources one machine can give (an
 * in-place restart agent with the command runner_agent.c gives it); with --images (`images`)
 * the image may give the command (checked when the image is resolved: runner_images.c). */
static int precheck_list(const struct manifest *m, const json_t *tmpl, const char *field,
                         size_t rj, bool images, struct err *err)
{
    const json_t *list = jx_arr(jx_path(tmpl, "spec.template.spec"), field);
    struct podenv_pod pod = {.meta = jx_path(tmpl, "spec.template.metadata"),
                             .objects = m->objects, .ns = m->view.ns};
    for (size_t k = 0; k < json_array_size(list); k++) {
        struct podenv_strv env = {0}, argv = {0};
        json_t *c = runner__agent_container(json_array_get(list, k));
        if (c && images && !json_array_size(jx_arr(c, "command")))
            json_object_set_new(c, "command", json_pack("[s]", "(the image's entrypoint)"));
        int rc = c ? podenv_build(c, &pod, NULL, NULL, &env, &argv, err)
                   : err_oom(err);
        json_decref(c);
        podenv_strv_free(&env);
        podenv_strv_free(&argv);
        if (rc < 0) {
            char where[FPATH_MAX];
            snprintf(where, sizeof(where),
                     "spec.replicatedJobs[%zu].template.spec.template.spec.%s[%zu]", rj, field,
                     k);
            err_prefix(err, where);
            return rc;
        }
    }
    return 0;
}

static int check_run(const struct manifest *m, bool images, struct err *err)
{
    if (runner__total_pods(&m->view) > RUNNER_MAX_PODS)
        return err_set(err, -E2BIG,
                       "spec.replicatedJobs: the job has %lld pods; jaxset runs at most %d on "
                       "one machine",
                       runner__total_pods(&m->view), RUNNER_MAX_PODS);
    for (size_t i = 0; i < m->view.n_rj; i++) {
        struct jobctl_spec js;
        int rc = precheck_list(m, m->view.rj[i].tmpl, "initContainers", i, images, err);
        if (rc == 0)
            rc = precheck_list(m, m->view.rj[i].tmpl, "containers", i, images, err);
        /* what the Job API would refuse when the Job is created (successPolicy, FailIndex
         * without backoffLimitPerIndex...): the template is a Job's metadata and spec */
        struct err job_err = {{0}}; /* "spec.<field>: ...", a path inside the template */
        if (rc == 0 && (rc = jobctl_spec_parse(m->view.rj[i].tmpl, &js, &job_err)) < 0)
            err_set(err, rc, "spec.replicatedJobs[%zu].template.%s", i, job_err.msg);
        if (rc < 0)
            return rc;
    }
    return vol_check(m, err);
}

int runner_check(const struct manifest *m, bool images, struct err *err)
{
    return check_run(m, images, err);
}

static void clear_live(void *ctx)
{
    runner__live_clear(ctx);
}

/* a + b and a * b of counts >= 0, LLONG_MAX past 64 bits (a count no machine has). */
static long long count_add(long long a, long long b)
{
    long long r;
    return __builtin_add_overflow(a, b, &r) ? LLONG_MAX : r;
}

static long long count_mul(long long a, long long b)
{
    long long r;
    return __builtin_mul_overflow(a, b, &r) ? LLONG_MAX : r;
}

/* Pods asking for GPUs get disjoint ones; more than the machine has cannot all run. */
static int check_gpus(const struct run *r, struct err *err)
{
    const struct js_view *v = &r->m->view;
    long long want = 0;
    for (size_t i = 0; i < v->n_rj; i++) {
        const json_t *spec = jx_path(v->rj[i].tmpl, "spec.template.spec");
        long long per = 0;
        for (size_t k = 0; k < json_array_size(jx_arr(spec, "containers")); k++)
            per = count_add(per, runner__gpu_request(json_array_get(jx_arr(spec, "containers"),
                                                                    k)));
        want = count_add(want, count_mul(per, count_mul(v->rj[i].replicas,
                                                        v->rj[i].parallelism)));
    }
    if (want > r->n_gpus)
        return err_set(err, -EINVAL,
                       "the pods request %s%lld nvidia.com/gpu in all, this machine has %d "
                       "(--gpus N overrides the count)",
                       want == LLONG_MAX ? "at least " : "", want, r->n_gpus);
    return 0;
}

/* Open files a container holds while it runs: its output pipe and its log file. */
#define RUN_FDS_PER_CONTAINER 2
#define RUN_FDS_SPARE 64 /* the run directory's files, the signalfd, epoll, the watchdog... */

/* Containers that may run at once: every pod's containers and sidecars, plus one init. */
static long long max_containers(const struct js_view *v)
{
    long long n = 0;
    for (size_t i = 0; i < v->n_rj; i++) {
        const json_t *spec = jx_path(v->rj[i].tmpl, "spec.template.spec");
        long long per = (long long)json_array_size(jx_arr(spec, "containers")) +
                        (long long)json_array_size(jx_arr(spec, "initContainers"));
        n += per * v->rj[i].replicas * v->rj[i].parallelism;
    }
    return n;
}

/* Raises the soft open-file limit to the hard one, and refuses a job whose pipes and logs
 * would not fit: a log must never be lost to EMFILE. */
static int check_fds(const struct js_view *v, struct err *err)
{
    struct rlimit rl;
    long long need = max_containers(v) * RUN_FDS_PER_CONTAINER + RUN_FDS_SPARE;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return err_set(err, -errno, "getrlimit: %s", strerror(errno));
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    if (rl.rlim_cur != RLIM_INFINITY && (rlim_t)need > rl.rlim_cur)
        return err_set(err, -EMFILE,
                       "the job runs up to %lld containers at once, which need %lld open "
                       "files (an output pipe and a log each); this process may open %llu "
                       "(ulimit -n; the hard limit is %llu)",
                       max_containers(v), need, (unsigned long long)rl.rlim_cur,
                       (unsigned long long)rl.rlim_max);
    return 0;
}

/* What says the run is going, for `get`, `suspend`, `delete` and retention: the run's lock,
 * held from before the first pod starts until this process has recorded the end (teardown)
 * or dies (local/store/store_run.h store_lock_take). */
static int take_lock(struct run *r, struct err *err)
{
    int rc = store_lock_take(r->o->run_dir);
    if (rc < 0)
        return err_set(err, rc, "%s: cannot lock the run directory: %s", r->o->run_dir,
                       rc == -EAGAIN ? "another process runs a run there" : strerror(-rc));
    return 0;
}

static int setup(struct run *r, const struct manifest *m, const struct runner_opts *o,
                 struct err *err)
{
    sigset_t ss;
    r->m = m;
    r->o = o;
    r->sigfd = -1;
    r->status_in = r->status_out = -1;
    r->requeue_at_ms = INT64_MAX;
    kt_steady_init(&r->clock);
    r->started_ms = runner__now(r);
    r->attempt_started_ms = r->started_ms;
    r->rng = (uint64_t)r->started_ms * 2654435761u ^ (uint64_t)getpid();
    r->n_gpus = o->gpus >= 0 ? o->gpus : runner_detect_gpus();
    r->n_gpus = r->n_gpus > RUN_MAX_GPUS ? RUN_MAX_GPUS : r->n_gpus;
    r->js = json_deep_copy(m->jobset);
    json_t **own = !m->doc ? NULL : !strcmp(m->kind, "JAXJob") ? &r->jaxjob
                                 : !strcmp(m->kind, "TrainJob") ? &r->trainjob : NULL;
    if (own && (!(*own = json_deep_copy(m->doc)) ||
                jx_set_str(jx_obj(*own, "metadata"), "namespace",
                           jx_str(jx_obj(r->js, "metadata"), "namespace")) < 0))
        return err_set(err, -ENOMEM, "cannot set up the run (memory)");
    r->coord_port = free_port();
    r->ipr = runner__ipr_active(m);
    r->ipr_noted = -1;
    if (!r->js || r->coord_port < 0)
        return err_set(err, -ENOMEM, "cannot set up the run (memory or a free port)");
    int rc = check_run(m, o->images, err);
    if (rc == 0)
        rc = check_gpus(r, err);
    if (rc == 0)
        rc = check_fds(&m->view, err);
    if (rc == 0)
        rc = runner__volumes_setup(r, err);
    if (rc == 0 && o->images)
        rc = runner__images_setup(r, err);
    if (rc == 0)
        rc = take_lock(r, err);
    if (rc < 0 || (rc = runner__state_open(r, err)) < 0 || (rc = runner__hosts_setup(r, err)) < 0)
        return rc;
    if (o->images && (rc = runner__images_hosts(r, err)) < 0)
        return rc;
    sigemptyset(&ss);
    sigaddset(&ss, SIGINT);
    sigaddset(&ss, SIGTERM);
    sigaddset(&ss, SIGHUP); /* the terminal went away: stop as for SIGTERM */
    sigaddset(&ss, SIGUSR1); /* jaxset suspend|resume: read the control file */
    sigprocmask(SIG_BLOCK, &ss, NULL);
    signal(SIGPIPE, SIG_IGN); /* a closed stdout ends forwarding, not the run (sup.c) */
    r->sigfd = signalfd(-1, &ss, SFD_CLOEXEC | SFD_NONBLOCK);
    if (r->sigfd < 0)
        return err_set(err, -errno, "signalfd: %s", strerror(errno));
    if ((rc = sup_new(&r->sup, o->out_fd, err)) < 0)
        return rc;
    if (o->live)
        sup_set_output_hook(r->sup, clear_live, r);
    if ((rc = sup_watch_fd(r->sup, r->sigfd)) < 0)
        return rc;
    return runner__status_start(r, err);
}

static void teardown(struct run *r)
{
    runner__status_stop(r);
    json_decref(r->trainer_status);
    sup_free(r->sup);
    for (size_t i = 0; i < r->n_jobs; i++)
        runner__job_free(r->jobs[i]);
    free(r->jobs);
    if (r->sigfd >= 0)
        close(r->sigfd);
    if (r->events)
        fclose(r->events);
    json_decref(r->js);
    json_decref(r->jaxjob);
    json_decref(r->trainjob);
    json_decref(r->pod_history);
    json_decref(r->failure);
    free(r->failure_event);
    free(r->job_backoff);
    runner__volumes_release(r);
    runner__images_free(r);
    store_lock_release(); /* its end recorded, nothing of it left: the run is over */
}

/* The image of a container means nothing on one machine: say so once. */
static void note_images(struct run *r)
{
    const struct js_view *v = &r->m->view;
    for (size_t i = 0; i < v->n_rj; i++) {
        const json_t *cs = jx_arr(jx_path(v->rj[i].tmpl, "spec.template.spec"), "containers");
        for (size_t k = 0; k < json_array_size(cs); k++)
            if (jx_str(json_array_get(cs, k), "image")) {
                runner__note(r, "container images are ignored: commands run on this machine, "
                                "with its own programs and files");
                return;
            }
    }
}

/* Exclusive placement per topology domain (the JobSet's or a replicated job's
 * alpha.jobset.sigs.k8s.io/exclusive-topology) spreads Jobs over a cluster's domains; one
 * machine is one domain: say so once. */
static void note_placement(struct run *r)
{
    const struct js_view *v = &r->m->view;
    const char *topo = jx_get_meta(jx_obj(r->js, "metadata"), "annotations",
                                   ANN_EXCLUSIVE_TOPOLOGY);
    for (size_t i = 0; !topo && i < v->n_rj; i++)
        topo = jx_get_meta(jx_obj(v->rj[i].tmpl, "metadata"), "annotations",
                           ANN_EXCLUSIVE_TOPOLOGY);
    if (topo)
        runner__note(r, "exclusive placement (%s: %s) does not apply: this machine is one "
                        "topology domain, every Job's pods run on it",
                     ANN_EXCLUSIVE_TOPOLOGY, topo);
}

/* A run whose logs or state could not all be kept never ends as a plain success: the job's own
 * outcome is in the record (what could be written of it), the exit status says 1. */
static int record_lost(struct run *r, int rc)
{
    int e = r->sup ? sup_log_errno(r->sup) : 0;
    if (e)
        runner__state_failed(r, "logs", -e);
    if (rc == 0 && r->state_errno) {
        runner__note(r, "the job completed, but its record in %s is incomplete: exit status 1",
                     r->o->run_dir);
        return 1;
    }
    return rc;
}

static const char *final_state(int rc)
{
    if (rc < 0)
        return "Error";
    return store_state_name(store_state_of_exit(rc));
}

int runner_run(const struct manifest *m, const struct runner_opts *o, struct err *err)
{
    struct run r = {0};
    int rc = setup(&r, m, o, err);
    if (rc == 0) {
        r.status_dirty = true; /* first written once the first pods are started */
        if (!o->images)
            note_images(&r);
        note_placement(&r);
        runner__volumes_notes(&r);
        rc = loop(&r, err);
        runner__live_clear(&r);
    }
    if (r.sup) /* the last forwarded output goes out (or is counted as skipped) first */
        sup_finish_output(r.sup);
    int job_rc = rc; /* how the job itself ended */
    rc = record_lost(&r, rc);
    if (r.events) /* the run directory exists: record how it ended */
        runner__state_write(&r, final_state(job_rc), rc);
    if (rc >= 0)
        runner__summary(&r, job_rc);
    teardown(&r);
    return rc;
}
