/* The runner's pods: jobctl decisions executed on the supervisor. */
#include "local/runner_int.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "api/keys.h"
#include "local/podenv.h"
#include "obj/jx.h"

extern char **environ;

static const char *const colors[] = {"\033[36m", "\033[32m", "\033[33m", "\033[35m",
                                     "\033[34m", "\033[91m", "\033[92m", "\033[96m"};

static void rand5(struct run *r, char out[6])
{
    static const char alnum[] = "bcdfghjklmnpqrstvwxz2456789"; /* as Kubernetes' rand.String */
    for (int i = 0; i < 5; i++) {
        r->rng ^= r->rng << 13;
        r->rng ^= r->rng >> 7;
        r->rng ^= r->rng << 17;
        out[i] = alnum[r->rng % (sizeof(alnum) - 1)];
    }
    out[5] = 0;
}

static const json_t *pod_template(const struct rjob *j)
{
    return jx_path(j->obj, "spec.template");
}

static const json_t *first_container(const struct rjob *j)
{
    return json_array_get(jx_arr(jx_obj(pod_template(j), "spec"), "containers"), 0);
}

/* Pod metadata as the Job controller and API server give it. */
static json_t *pod_meta(struct run *r, const struct rjob *j, const struct rpod *p)
{
    const json_t *tm = jx_obj(pod_template(j), "metadata");
    json_t *meta = json_pack("{s:s,s:s,s:s}", "name", p->name, "namespace", j->spec.ns,
                             "uid", p->name);
    json_t *labels = json_deep_copy(jx_obj(tm, "labels")), *ann;
    ann = json_deep_copy(jx_obj(tm, "annotations"));
    labels = labels ? labels : json_object();
    ann = ann ? ann : json_object();
    if (!meta || !labels || !ann) {
        json_decref(meta);
        json_decref(labels);
        json_decref(ann);
        return NULL;
    }
    const char *uid = jx_str(jx_obj(j->obj, "metadata"), "uid");
    jx_set_str(labels, "batch.kubernetes.io/job-name", j->name);
    jx_set_str(labels, "job-name", j->name);
    jx_set_str(labels, "batch.kubernetes.io/controller-uid", uid ? uid : "");
    jx_set_str(labels, "controller-uid", uid ? uid : "");
    if (p->jp.index >= 0) {
        char idx[24];
        snprintf(idx, sizeof(idx), "%d", p->jp.index);
        jx_set_str(labels, ANN_JOB_COMPLETION_INDEX, idx);
        jx_set_str(ann, ANN_JOB_COMPLETION_INDEX, idx);
    }
    jx_set_new(meta, "labels", labels);
    jx_set_new(meta, "annotations", ann);
    (void)r;
    return meta;
}

long long run__gpu_request(const json_t *c)
{
    const json_t *res = jx_obj(c, "resources");
    const json_t *v = json_object_get(jx_obj(res, "limits"), "nvidia.com/gpu");
    if (!v)
        v = json_object_get(jx_obj(res, "requests"), "nvidia.com/gpu");
    if (json_is_integer(v))
        return json_integer_value(v);
    return json_is_string(v) ? strtoll(json_string_value(v), NULL, 10) : 0;
}

static void gpus_take(struct run *r, struct rpod *p, long long want)
{
    for (int g = 0; g < r->n_gpus && p->n_gpus < want; g++) {
        if (!r->gpu_used[g]) {
            r->gpu_used[g] = true;
            p->gpus[p->n_gpus++] = g;
        }
    }
}

static void gpus_release(struct run *r, struct rpod *p)
{
    for (int i = 0; i < p->n_gpus; i++)
        r->gpu_used[p->gpus[i]] = false;
    p->n_gpus = 0;
}

static int add_env(json_t *extra, const char *name, const char *value)
{
    json_t *e = json_pack("{s:s,s:s}", "name", name, "value", value);
    return e && json_array_append_new(extra, e) == 0 ? 0 : -ENOMEM;
}

static int gpu_env(struct rpod *p, json_t *extra)
{
    char list[RUN_MAX_GPUS * 4] = "";
    size_t off = 0;
    for (int i = 0; i < p->n_gpus; i++)
        off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%d", i ? "," : "",
                                p->gpus[i]);
    return add_env(extra, "CUDA_VISIBLE_DEVICES", list);
}

/* The variables the manifest cannot set: completion index, JAX wiring, GPUs. */
static json_t *extra_env(struct run *r, const struct rjob *j, struct rpod *p)
{
    json_t *extra = json_array();
    char idx[24];
    int rc = extra ? 0 : -ENOMEM;
    if (!rc && p->jp.index >= 0) {
        snprintf(idx, sizeof(idx), "%d", p->jp.index);
        rc = add_env(extra, "JOB_COMPLETION_INDEX", idx);
    }
    const struct jaxrt *rt = &r->m->rt;
    if (!rc && rt->flavor != JAXRT_OFF && rt->is_jax[j->rj]) {
        json_t *jax = jaxrt_pod_env(rt, &r->m->view, j->rj, j->index,
                                    p->jp.index < 0 ? 0 : p->jp.index, "127.0.0.1",
                                    r->coord_port);
        rc = jax && json_array_extend(extra, jax) == 0 ? 0 : -ENOMEM;
        json_decref(jax);
    }
    if (!rc && r->n_gpus > 0)
        rc = gpu_env(p, extra);
    if (!rc)
        rc = run__hosts_env(r, extra);
    if (rc) {
        json_decref(extra);
        return NULL;
    }
    return extra;
}

static bool forwarded(const struct run *r, const struct rjob *j, const struct rpod *p)
{
    const char *f = r->o->filter;
    if (r->o->quiet)
        return false;
    if (!f)
        return true;
    return !strcmp(f, r->m->view.rj[j->rj].name) || !strncmp(p->hostname, f, strlen(f)) ||
           !strcmp(f, p->name);
}

static void make_prefix(const struct run *r, const struct rpod *p, size_t ordinal, char *out,
                        size_t n)
{
    if (r->o->color)
        snprintf(out, n, "%s[%s]\033[0m ", colors[ordinal % 8], p->hostname);
    else
        snprintf(out, n, "[%s] ", p->hostname);
}

/* Starts (or restarts) the pod's process.  A failure to start is the container failing to
 * start: it is reported and counted as an exit with status 127. */
static void pod_spawn(struct run *r, struct rjob *j, struct rpod *p, int64_t now)
{
    struct podenv_pod pod = {.meta = p->meta, .hostname = p->hostname, .pod_ip = "127.0.0.1",
                             .host_ip = "127.0.0.1", .node_name = "localhost",
                             .pod_spec = jx_obj(pod_template(j), "spec")};
    const json_t *c = first_container(j);
    struct podenv_strv env = {0}, argv = {0};
    struct err e = {{0}};
    char log[1024], prefix[RUN_NAME_MAX + 32];
    json_t *extra = extra_env(r, j, p);
    int rc = extra ? podenv_build(c, &pod, (const char *const *)environ, extra, &env, &argv, &e)
                   : err_set(&e, -ENOMEM, "out of memory");
    snprintf(log, sizeof(log), "%s/logs/%s.log", r->o->run_dir, p->name);
    make_prefix(r, p, (size_t)(j->index * 131 + (p->jp.index > 0 ? p->jp.index : 0)), prefix,
                sizeof(prefix));
    struct sup_spec spec = {.argv = (const char *const *)argv.v,
                            .envp = (const char *const *)env.v, .cwd = jx_str(c, "workingDir"),
                            .log_path = log, .prefix = forwarded(r, j, p) ? prefix : NULL};
    if (rc == 0)
        rc = sup_spawn(r->sup, &spec, &p->sup_id, &e);
    json_decref(extra);
    podenv_strv_free(&env);
    podenv_strv_free(&argv);
    if (rc == 0) {
        p->alive = true;
        p->jp.start_ms = now;
        return;
    }
    run__note(r, "pod %s failed to start: %s", p->name, e.msg);
    jobctl_pod_exited(&p->jp, j->spec.restart_policy, 127, 0, now);
}

static int pod_start(struct run *r, struct rjob *j, int index, int64_t now)
{
    struct rpod *p = calloc(1, sizeof(*p));
    struct rpod **np = realloc(j->pods, (j->n_pods + 1) * sizeof(*np));
    char rnd[6];
    if (!p || !np) {
        free(p);
        return -ENOMEM;
    }
    j->pods = np;
    rand5(r, rnd);
    if (index >= 0) {
        snprintf(p->hostname, sizeof(p->hostname), "%s-%d", j->name, index);
        snprintf(p->name, sizeof(p->name), "%s-%d-%s", j->name, index, rnd);
    } else {
        snprintf(p->name, sizeof(p->name), "%s-%s", j->name, rnd);
        snprintf(p->hostname, sizeof(p->hostname), "%s", p->name);
    }
    p->jp.name = p->name;
    p->jp.index = index;
    p->jp.phase = JOBCTL_RUNNING;
    p->jp.ready = true;
    p->meta = pod_meta(r, j, p);
    if (!p->meta) {
        free(p);
        return -ENOMEM;
    }
    j->pods[j->n_pods++] = p;
    gpus_take(r, p, run__gpu_request(first_container(j)));
    pod_spawn(r, j, p, now);
    return 0;
}

static int grace_ms(const struct run *r, const struct rjob *j)
{
    if (r->o->grace_s >= 0)
        return r->o->grace_s * 1000;
    long long g = jx_int_or(jx_obj(pod_template(j), "spec"), "terminationGracePeriodSeconds", 30);
    return (int)(g < 0 ? 0 : g * 1000);
}

static void pod_kill(struct run *r, struct rjob *j, struct rpod *p, int64_t now)
{
    p->jp.terminating = true;
    if (p->alive) {
        int g = grace_ms(r, j);
        if (p->kill_at_ms == 0) {
            sup_kill(r->sup, p->sup_id, g ? SIGTERM : SIGKILL);
            p->kill_at_ms = now + g;
        }
        return;
    }
    if (p->jp.phase == JOBCTL_RUNNING) { /* waiting for an in-place restart: it ends here */
        p->jp.phase = JOBCTL_FAILED;
        p->jp.waiting = false;
        gpus_release(r, p);
    }
}

void run__kill_job(struct run *r, struct rjob *j, int64_t now)
{
    for (size_t i = 0; i < j->n_pods; i++)
        pod_kill(r, j, j->pods[i], now);
}

void run__escalate_kills(struct run *r, int64_t now)
{
    for (size_t k = 0; k < r->n_jobs; k++)
        for (size_t i = 0; i < r->jobs[k]->n_pods; i++) {
            struct rpod *p = r->jobs[k]->pods[i];
            if (p->alive && p->kill_at_ms && now >= p->kill_at_ms)
                sup_kill(r->sup, p->sup_id, SIGKILL);
        }
}

int64_t run__next_kill(const struct run *r)
{
    int64_t t = INT64_MAX;
    for (size_t k = 0; k < r->n_jobs; k++)
        for (size_t i = 0; i < r->jobs[k]->n_pods; i++) {
            const struct rpod *p = r->jobs[k]->pods[i];
            if (p->alive && p->kill_at_ms && p->kill_at_ms < t)
                t = p->kill_at_ms;
        }
    return t;
}

size_t run__alive(const struct run *r)
{
    size_t n = 0;
    for (size_t k = 0; k < r->n_jobs; k++)
        for (size_t i = 0; i < r->jobs[k]->n_pods; i++)
            n += r->jobs[k]->pods[i]->alive;
    return n;
}

void run__pod_exited(struct run *r, uint64_t sup_id, int status, int64_t now)
{
    for (size_t k = 0; k < r->n_jobs; k++) {
        struct rjob *j = r->jobs[k];
        for (size_t i = 0; i < j->n_pods; i++) {
            struct rpod *p = j->pods[i];
            if (!p->alive || p->sup_id != sup_id)
                continue;
            int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
            int code = sig ? 128 + sig : WEXITSTATUS(status);
            p->alive = false;
            p->kill_at_ms = 0;
            jobctl_pod_exited(&p->jp, j->spec.restart_policy, code, sig, now);
            if (p->jp.phase == JOBCTL_SUCCEEDED || p->jp.phase == JOBCTL_FAILED)
                gpus_release(r, p);
            return;
        }
    }
}

static int execute(struct run *r, struct rjob *j, const struct jobctl_result *res, int64_t now)
{
    for (size_t i = 0; i < res->nactions; i++) {
        const struct jobctl_action *a = &res->actions[i];
        struct rpod *p = a->kind == JOBCTL_START ? NULL : j->pods[a->pod];
        if (a->kind == JOBCTL_KILL) {
            pod_kill(r, j, p, now);
        } else if (a->kind == JOBCTL_RESTART) {
            jobctl_pod_restarted(&p->jp, now);
            pod_spawn(r, j, p, now);
        } else if (pod_start(r, j, a->index, now) < 0) {
            return -ENOMEM;
        }
    }
    return 0;
}

/* One jobctl step for a child Job: actions executed, status stored on the Job object. */
int run__job_sync(struct run *r, struct rjob *j, int64_t now, bool *changed, struct err *err)
{
    struct jobctl_config cfg = JOBCTL_CONFIG_DEFAULT;
    cfg.restart_base_ms = r->o->restart_base_ms;
    cfg.pod_base_ms = r->o->restart_base_ms;
    struct jobctl_pod *pods = calloc(j->n_pods ? j->n_pods : 1, sizeof(*pods));
    if (!pods)
        return err_set(err, -ENOMEM, "out of memory");
    for (size_t i = 0; i < j->n_pods; i++)
        pods[i] = j->pods[i]->jp;
    struct jobctl_input in = {.job = j->obj, .status = &j->st, .pods = pods,
                              .npods = j->n_pods, .now_ms = now, .cfg = &cfg};
    struct jobctl_result res;
    int rc = jobctl_sync(&in, &res, err);
    free(pods);
    if (rc < 0)
        return rc;
    json_t *st = NULL;
    rc = jobctl_status_to_json(&res.status, &st);
    if (rc == 0) {
        *changed |= res.nactions > 0 || !json_equal(st, json_object_get(j->obj, "status"));
        json_object_set_new(j->obj, "status", st);
        rc = execute(r, j, &res, now);
    }
    jobctl_status_release(&j->st);
    j->st = res.status;
    memset(&res.status, 0, sizeof(res.status));
    j->wakeup_ms = res.next_wakeup_ms;
    jobctl_result_release(&res);
    return rc < 0 ? err_set(err, rc, "out of memory") : 0;
}

void run__job_free(struct rjob *j)
{
    if (!j)
        return;
    for (size_t i = 0; i < j->n_pods; i++) {
        json_decref(j->pods[i]->meta);
        free(j->pods[i]);
    }
    free(j->pods);
    jobctl_status_release(&j->st);
    json_decref(j->obj);
    free(j);
}
