/* The runner's pods: jobctl decisions executed on the supervisor. */
#include "local/run/runner_int.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "api/kubeflow/jaxjob_status.h"
#include "api/schema/keys.h"
#include "local/podenv/podenv.h"
#include "local/store/rundir.h"
#include "obj/tree/jx.h"
#include "obj/base/qty.h"
#include "obj/base/sbuf.h"

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

/* Pod metadata as the Job controller and API server give it. */
static json_t *pod_meta(const struct rjob *j, const struct rpod *p)
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
    int rc = jx_set_str(labels, LBL_K8S_JOB_NAME, j->name) |
             jx_set_str(labels, LBL_K8S_JOB_NAME_LEGACY, j->name) |
             jx_set_str(labels, LBL_K8S_CONTROLLER_UID, uid ? uid : "") |
             jx_set_str(labels, LBL_K8S_CONTROLLER_UID_LEGACY, uid ? uid : "");
    if (p->jp.index >= 0) {
        char idx[24]; /* an int */
        snprintf(idx, sizeof(idx), "%d", p->jp.index);
        rc |= jx_set_str(labels, ANN_JOB_COMPLETION_INDEX, idx) |
              jx_set_str(ann, ANN_JOB_COMPLETION_INDEX, idx);
    }
    rc |= jx_set_new(meta, "labels", labels) | jx_set_new(meta, "annotations", ann);
    /* a JAXJob's pods: each its replica-index (and job-role), as the Training Operator's */
    json_t *kf = rc ? NULL : jjs_pod_index_labels(meta);
    rc |= kf ? json_object_update(jx_obj(meta, "labels"), kf) : -1;
    json_decref(kf);
    if (rc) { /* out of memory: no pod with half its labels */
        json_decref(meta);
        return NULL;
    }
    return meta;
}

long long runner__gpu_request(const json_t *c)
{
    const json_t *res = jx_obj(c, "resources");
    const json_t *v = json_object_get(jx_obj(res, "limits"), "nvidia.com/gpu");
    struct qty q;
    long long n;
    if (!v)
        v = json_object_get(jx_obj(res, "requests"), "nvidia.com/gpu");
    /* a quantity ("2k" is 2000, "1e1" 10), as the device plugin is given Quantity.Value();
     * validation refused what is none, negative or not whole (kubernetes pkg/apis/core/
     * validation ValidateResourceQuantityValue): none of it counts, nothing cancels a count */
    if (!v || qty_parse(v, &q) < 0 || qty_sign(&q) <= 0)
        return 0;
    return qty_scaled_value(&q, 0, &n) < 0 ? LLONG_MAX : n;
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

int runner__env_add(json_t *extra, const char *name, const char *value)
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
    return runner__env_add(extra, "CUDA_VISIBLE_DEVICES", list);
}

/* The variables the manifest cannot set: completion index, JAX wiring, GPUs, host names.
 * Returns 0 with *out (new array) or a negative errno with e set. */
static int extra_env(struct run *r, const struct rjob *j, struct rpod *p, const struct rcont *c,
                     json_t **out, struct err *e)
{
    json_t *extra = json_array();
    char idx[24]; /* a completion index */
    int rc = extra ? 0 : -ENOMEM;
    if (!rc && p->jp.index >= 0) {
        snprintf(idx, sizeof(idx), "%d", p->jp.index);
        rc = runner__env_add(extra, "JOB_COMPLETION_INDEX", idx);
    }
    const struct jaxrt *rt = &r->m->rt;
    if (!rc && !c->init && rt->flavor != JAXRT_OFF && rt->is_jax[j->rj]) {
        json_t *jax = jaxrt_pod_env(rt, &r->m->view, j->rj, j->index,
                                    p->jp.index < 0 ? 0 : p->jp.index, "127.0.0.1",
                                    r->coord_port);
        rc = jax && json_array_extend(extra, jax) == 0 ? 0 : -ENOMEM;
        json_decref(jax);
    }
    if (!rc && r->n_gpus > 0)
        rc = gpu_env(p, extra);
    if (!rc && runner__status_for(r, j->rj, c))
        rc = runner__status_env(r, extra);
    if (!rc) /* where the manifest's own files are (a local extension, like the hosts file) */
        rc = runner__env_add(extra, "JAXSET_MANIFEST_DIR", r->m->dir);
    if (!rc && (rc = runner__hosts_env(r, c->spec, extra)) == -EINVAL)
        err_set(e, rc, "NSS_WRAPPER_HOSTS: the container's hosts file cannot be read");
    else if (rc)
        err_set(e, rc, ERR_OOM_MSG);
    if (rc) {
        json_decref(extra);
        return rc;
    }
    *out = extra;
    return 0;
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

/* "[host] ", or "[host/container] " when the pod has several containers; coloured on a tty. */
static void make_prefix(const struct run *r, const struct rpod *p, const struct rcont *c,
                        size_t ordinal, char *out, size_t n)
{
    char who[RUN_NAME_MAX + 80];
    if (p->n_c > 1)
        snprintf(who, sizeof(who), "%s/%s", p->hostname, jx_str(c->spec, "name"));
    else
        snprintf(who, sizeof(who), "%s", p->hostname);
    if (r->o->color)
        snprintf(out, n, "%s[%s]\033[0m ", colors[ordinal % 8], who);
    else
        snprintf(out, n, "[%s] ", who);
}

static void log_path(const struct run *r, const struct rpod *p, const struct rcont *c, char *out,
                     size_t n)
{
    rd_log(out, n, r->o->run_dir, p->name, p->n_c > 1 ? jx_str(c->spec, "name") : NULL);
}

static void cont_exited(struct run *r, struct rjob *j, struct rpod *p, struct rcont *c, int code,
                        int sig, int64_t now);

/* A container failing to start: reported, and counted as an exit with status 127. */
static void cont_not_started(struct run *r, struct rjob *j, struct rpod *p, struct rcont *c,
                             const char *why, int64_t now)
{
    runner__note(r, "pod %s container %s failed to start: %s", p->name, jx_str(c->spec, "name"),
                 why);
    cont_exited(r, j, p, c, 127, 0, now);
}

/* Where a container's process starts: its workingDir, a relative one taken from the manifest's
 * directory (the one place a manifest's own files are known to be, as an image's root); with
 * no workingDir the directory jaxset runs in, as torchrun.  NULL: inherit.  Malloc'd. */
static char *work_dir(const struct run *r, const json_t *container)
{
    const char *wd = jx_str(container, "workingDir");
    if (!wd || !*wd)
        return NULL;
    return wd[0] == '/' ? strdup(wd) : sb_fmt("%s/%s", r->m->dir, wd);
}

/* Starts one container's process.  A failure to start is the container failing to start: it
 * is reported and counted as an exit with status 127, here or, when the supervisor finds it
 * after sup_spawn returned, by runner__pod_exited. */
/* With --images: the container as its image makes it (command, env, workingDir) in *eff, and
 * its root in c->root, what the process enters in *enter. */
static int image_view(struct run *r, struct rjob *j, struct rpod *p, struct rcont *c,
                      const json_t *pod_spec, json_t **eff, const struct nsr_enter **enter,
                      struct err *e)
{
    const struct img *im = runner__image(r, jx_str(c->spec, "image"));
    runner__root_free(c->root);
    c->root = NULL;
    if (!im)
        return err_set(e, -ENOENT, "image %s was not resolved", jx_str(c->spec, "image"));
    if (!(*eff = img_container(c->spec, im->config, e)))
        return -EINVAL;
    int rc = runner__root_new(r, p, c, pod_spec, *enter, runner__status_for(r, j->rj, c),
                              &c->root, e);
    if (rc == 0)
        *enter = runner__root_enter(c->root);
    return rc;
}

/* Starts one container's process.  A failure to start is the container failing to start: it
 * is reported and counted as an exit with status 127, here or, when the supervisor finds it
 * after sup_spawn returned, by runner__pod_exited. */
static void cont_spawn(struct run *r, struct rjob *j, struct rpod *p, struct rcont *c, int64_t now)
{
    struct podenv_pod pod = {.meta = p->meta, .hostname = p->hostname, .pod_ip = "127.0.0.1",
                             .host_ip = "127.0.0.1", .node_name = "localhost",
                             .pod_spec = jx_obj(pod_template(j), "spec"),
                             .objects = r->m->objects, .ns = j->spec.ns};
    struct podenv_strv env = {0}, argv = {0};
    struct err e = {{0}};
    char log[PATH_MAX], prefix[RUN_NAME_MAX + 128]; /* run dir: at most RD_DIR_MAX */
    json_t *extra = NULL, *eff = NULL;
    const struct nsr_enter *enter = vol_pod_enter(p->vol, jx_str(c->spec, "name"));
    int rc = p->vol_err ? err_set(&e, -EINVAL, "%s", p->vol_err) : 0;
    if (rc == 0 && r->o->images && !runner__agent_image(jx_str(c->spec, "image")))
        rc = image_view(r, j, p, c, pod.pod_spec, &eff, &enter, &e);
    const json_t *spec_c = eff ? eff : c->spec;
    if (rc == 0)
        rc = extra_env(r, j, p, c, &extra, &e);
    /* in an image, nothing of this machine's environment: the runtime's PATH, then the image's
     * and the container's variables (containerd's defaults) */
    static const char *const image_base[] = {
        "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", NULL};
    const char *const *base = eff ? image_base : (const char *const *)environ;
    if (rc == 0)
        rc = podenv_build(spec_c, &pod, base, extra, &env, &argv, &e);
    log_path(r, p, c, log, sizeof(log));
    make_prefix(r, p, c, (size_t)(j->index * 131 + (p->jp.index > 0 ? p->jp.index : 0)), prefix,
                sizeof(prefix));
    char *cwd = work_dir(r, spec_c);
    struct sup_spec spec = {.argv = (const char *const *)argv.v,
                            .envp = (const char *const *)env.v, .cwd = cwd, .log_path = log,
                            .prefix = forwarded(r, j, p) ? prefix : NULL, .ns = enter};
    if (rc == 0)
        rc = sup_spawn(r->sup, &spec, &c->sup_id, &e);
    json_decref(extra);
    json_decref(eff);
    podenv_strv_free(&env);
    podenv_strv_free(&argv);
    free(cwd);
    c->done = false;
    free(c->message); /* what it said when it failed before */
    c->message = NULL;
    if (rc == 0) {
        c->alive = true;
        return;
    }
    cont_not_started(r, j, p, c, e.msg, now);
}

/* Runs the next initContainers (sidecars start and stay), then every container. */
void runner__pod_advance(struct run *r, struct rjob *j, struct rpod *p, int64_t now)
{
    while (p->next_init < p->n_c && p->c[p->next_init].init) {
        struct rcont *c = &p->c[p->next_init];
        if (!c->alive && !c->done)
            cont_spawn(r, j, p, c, now);
        if (!c->sidecar && !(c->done && c->code == 0))
            return; /* running, or failed: wait for it (or for its restart) */
        p->next_init++;
    }
    for (size_t i = 0; i < p->n_c; i++)
        if (!p->c[i].init && !p->c[i].alive && !p->c[i].done)
            cont_spawn(r, j, p, &p->c[i], now);
}

static int pod_containers(struct rpod *p, const json_t *spec)
{
    const json_t *inits = jx_arr(spec, "initContainers"), *main = jx_arr(spec, "containers");
    size_t ni = json_array_size(inits), nm = json_array_size(main);
    p->c = calloc(ni + nm ? ni + nm : 1, sizeof(*p->c));
    if (!p->c)
        return -ENOMEM;
    for (size_t i = 0; i < ni; i++) {
        const json_t *c = json_array_get(inits, i);
        const char *rp = jx_str(c, "restartPolicy");
        p->c[p->n_c++] = (struct rcont){.spec = c, .init = true,
                                        .sidecar = rp && !strcmp(rp, "Always")};
    }
    for (size_t i = 0; i < nm; i++)
        p->c[p->n_c++] = (struct rcont){.spec = json_array_get(main, i)};
    return 0;
}

static long long pod_gpus(const json_t *spec)
{
    long long n = 0;
    const json_t *main = jx_arr(spec, "containers");
    for (size_t i = 0; i < json_array_size(main); i++)
        if (__builtin_add_overflow(n, runner__gpu_request(json_array_get(main, i)), &n))
            n = LLONG_MAX; /* more than any machine has: check_gpus refused it */
    return n;
}

static void pod_free(struct rpod *p)
{
    if (!p)
        return;
    vol_pod_free(p->vol);
    free(p->vol_err);
    json_decref(p->meta);
    for (size_t i = 0; p->c && i < p->n_c; i++) {
        free(p->c[i].message);
        runner__root_free(p->c[i].root);
    }
    free(p->c);
    free(p);
}

/* "<job>-<index>-<random>" and hostname "<job>-<index>", as the Job controller names them.
 * Job names are validated (at most 63 bytes), so they fit RUN_NAME_MAX; -1 if not. */
static int pod_names(struct rpod *p, const struct rjob *j, int index, const char *rnd)
{
    int a, b;
    if (index >= 0) {
        a = snprintf(p->hostname, sizeof(p->hostname), "%s-%d", j->name, index);
        b = snprintf(p->name, sizeof(p->name), "%s-%d-%s", j->name, index, rnd);
    } else {
        a = snprintf(p->name, sizeof(p->name), "%s-%s", j->name, rnd);
        b = snprintf(p->hostname, sizeof(p->hostname), "%s", p->name);
    }
    return a < (int)sizeof(p->hostname) && b < (int)sizeof(p->name) ? 0 : -1;
}

/* The pod's volumes (none with --volumes=skip).  When they cannot be made, the pod's
 * containers fail to start, saying why.  0 or -ENOMEM. */
static int pod_volumes(struct run *r, const struct rjob *j, struct rpod *p, const json_t *spec)
{
    struct podenv_pod pod = {.meta = p->meta, .hostname = p->hostname, .pod_spec = spec,
                             .objects = r->m->objects, .ns = j->spec.ns};
    struct err e = {{0}};
    const struct vol_tmpl *t = r->vol_tmpl ? r->vol_tmpl[j->rj] : NULL;
    if (vol_pod_new(&r->vr, t, spec, &pod, p->name, &p->vol, &e) == 0)
        return 0;
    p->vol_err = strdup(e.msg);
    return p->vol_err ? 0 : -ENOMEM;
}

static int pod_start(struct run *r, struct rjob *j, int index, int64_t now)
{
    struct rpod *p = calloc(1, sizeof(*p));
    struct rpod **np = realloc(j->pods, (j->n_pods + 1) * sizeof(*np));
    const json_t *spec = jx_obj(pod_template(j), "spec");
    char rnd[6];
    if (np)
        j->pods = np;
    if (!p || !np || pod_containers(p, spec) < 0) {
        pod_free(p);
        return -ENOMEM;
    }
    rand5(r, rnd);
    if (pod_names(p, j, index, rnd) < 0) {
        pod_free(p);
        return -ENAMETOOLONG;
    }
    p->jp.name = p->name;
    p->jp.index = index;
    p->jp.phase = JOBCTL_RUNNING;
    p->jp.ready = true;
    p->jp.start_ms = now;
    p->meta = pod_meta(j, p);
    if (!p->meta) {
        pod_free(p);
        return -ENOMEM;
    }
    if (pod_volumes(r, j, p, spec) < 0) {
        pod_free(p);
        return -ENOMEM;
    }
    j->pods[j->n_pods++] = p;
    gpus_take(r, p, pod_gpus(spec));
    runner__ipr_pod_init(r, p); /* InPlaceRestart: the agent's barrier first */
    if (!p->ipr_held)
        runner__pod_advance(r, j, p, now);
    return 0;
}

static void pod_kill(struct run *r, struct rjob *j, struct rpod *p, int64_t now)
{
    p->jp.terminating = true;
    if (runner__pod_alive(p)) {
        int g = runner__grace_ms(r, j);
        if (p->kill_at_ms == 0) {
            runner__signal_pod(r, p, g ? SIGTERM : SIGKILL);
            p->kill_at_ms = now + g;
        } else if (now + g < p->kill_at_ms) { /* a restart's shorter grace cuts a longer one */
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

void runner__kill_job(struct run *r, struct rjob *j, int64_t now)
{
    for (size_t i = 0; i < j->n_pods; i++)
        pod_kill(r, j, j->pods[i], now);
}

/* The pod's verdict once its containers (sidecars aside) have all ended: the first non-zero
 * exit (and its container), else 0.  Returns false while one still runs or has yet to run. */
static bool pod_finished(const struct rpod *p, const struct rcont **who)
{
    *who = NULL;
    for (size_t i = 0; i < p->n_c; i++) {
        const struct rcont *c = &p->c[i];
        if (c->sidecar)
            continue;
        if (!c->done)
            return false;
        if (c->code && !*who)
            *who = c;
    }
    return true;
}

/* Tells jobctl how the pod stands after container `c` ended; false when nothing changed for
 * it (an init container succeeded: the next one runs; others still run).  With restartPolicy
 * OnFailure a failure makes the pod wait for an in-place restart at once, as the kubelet
 * restarts that container; otherwise the pod ends when all its containers have. */
static bool pod_verdict(struct run *r, struct rjob *j, struct rpod *p, const struct rcont *c,
                        int64_t now)
{
    enum jobctl_restart_policy rp = j->spec.restart_policy;
    const struct rcont *who = c;
    if (p->jp.terminating) { /* killed: the pod ends when its last process does */
        if (runner__pod_alive(p))
            return false;
        jobctl_pod_exited(&p->jp, rp, c->code, c->sig, now);
        return true;
    }
    if (c->sidecar)
        return false;
    if (c->init && c->code == 0) {
        runner__pod_advance(r, j, p, now);
        return false;
    }
    if (!c->code || (!c->init && rp != JOBCTL_RESTART_ON_FAILURE)) {
        if (!pod_finished(p, &who))
            return false;
    }
    p->jp.container = who ? jx_str(who->spec, "name") : p->jp.container;
    jobctl_pod_exited(&p->jp, rp, who ? who->code : 0, who ? who->sig : 0, now);
    return true;
}

static void cont_exited(struct run *r, struct rjob *j, struct rpod *p, struct rcont *c, int code,
                        int sig, int64_t now)
{
    c->alive = false;
    c->done = true;
    c->code = code;
    c->sig = sig;
    if (p->jp.phase != JOBCTL_RUNNING || p->jp.waiting)
        return;
    if (runner__ipr_exited(r, j, p, c, now))
        return; /* the in-place restart agent's: the pod restarts in place */
    p->jp.container = jx_str(c->spec, "name"); /* podFailurePolicy matches on it */
    if (!pod_verdict(r, j, p, c, now))
        return;
    if (p->jp.phase == JOBCTL_SUCCEEDED || p->jp.phase == JOBCTL_FAILED) {
        runner__signal_pod(r, p, SIGTERM); /* sidecars, and what a failed pod still runs */
        if (!p->kill_at_ms)
            p->kill_at_ms = now + runner__grace_ms(r, j);
        gpus_release(r, p);
    }
}

/* The pod and container a supervisor id belongs to. */
static bool find_cont(struct run *r, uint64_t sup_id, struct rjob **oj, struct rpod **op,
                      struct rcont **oc)
{
    for (size_t k = 0; k < r->n_jobs; k++)
        for (size_t i = 0; i < r->jobs[k]->n_pods; i++) {
            struct rpod *p = r->jobs[k]->pods[i];
            for (size_t c = 0; c < p->n_c; c++)
                if (p->c[c].alive && p->c[c].sup_id == sup_id) {
                    *oj = r->jobs[k];
                    *op = p;
                    *oc = &p->c[c];
                    return true;
                }
        }
    return false;
}

void runner__pod_exited(struct run *r, uint64_t sup_id, int status, const char *why, int64_t now)
{
    int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    struct rjob *j;
    struct rpod *p;
    struct rcont *c;
    if (!find_cont(r, sup_id, &j, &p, &c))
        return;
    if (why)
        cont_not_started(r, j, p, c, why, now);
    else
        cont_exited(r, j, p, c, sig ? 128 + sig : WEXITSTATUS(status), sig, now);
    if (!runner__pod_alive(p))
        p->kill_at_ms = 0;
    bool ended = p->jp.phase == JOBCTL_SUCCEEDED || p->jp.phase == JOBCTL_FAILED;
    if (!runner__pod_alive(p) && ended) {
        vol_pod_free(p->vol); /* as the kubelet tears a finished pod's volumes down */
        p->vol = NULL;
    }
}

/* OnFailure: the failed containers start again in place. */
static void pod_restart(struct run *r, struct rjob *j, struct rpod *p, int64_t now)
{
    jobctl_pod_restarted(&p->jp, now);
    for (size_t i = 0; i < p->n_c; i++) {
        struct rcont *c = &p->c[i];
        if (c->done && c->code != 0 && !c->sidecar && (!c->init || i == p->next_init)) {
            c->done = false;
            if (!c->init)
                cont_spawn(r, j, p, c, now);
        }
    }
    runner__pod_advance(r, j, p, now);
}

static int execute(struct run *r, struct rjob *j, const struct jobctl_result *res, int64_t now)
{
    for (size_t i = 0; i < res->nactions; i++) {
        const struct jobctl_action *a = &res->actions[i];
        struct rpod *p = a->kind == JOBCTL_START ? NULL : j->pods[a->pod];
        if (a->kind == JOBCTL_KILL) {
            pod_kill(r, j, p, now);
        } else if (a->kind == JOBCTL_RESTART) {
            pod_restart(r, j, p, now);
        } else if (pod_start(r, j, a->index, now) < 0) {
            return -ENOMEM;
        }
    }
    return 0;
}

/* One jobctl step for a child Job: actions executed, status stored on the Job object. */
int runner__job_sync(struct run *r, struct rjob *j, int64_t now, bool *changed, struct err *err)
{
    struct jobctl_config cfg = JOBCTL_CONFIG_DEFAULT;
    cfg.restart_base_ms = r->o->restart_base_ms;
    cfg.pod_base_ms = r->o->restart_base_ms;
    struct jobctl_pod *pods = calloc(j->n_pods ? j->n_pods : 1, sizeof(*pods));
    if (!pods)
        return err_oom(err);
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
        bool moved = res.nactions > 0 || !json_equal(st, json_object_get(j->obj, "status"));
        *changed |= moved;
        r->status_dirty |= moved; /* jobs.json and pods.json follow the pods */
        json_object_set_new(j->obj, "status", st);
        rc = execute(r, j, &res, now);
    }
    jobctl_status_release(&j->st);
    j->st = res.status;
    memset(&res.status, 0, sizeof(res.status));
    j->wakeup_ms = res.next_wakeup_ms;
    jobctl_result_release(&res);
    return rc < 0 ? err_set(err, rc, ERR_OOM_MSG) : 0;
}

void runner__job_free(struct rjob *j)
{
    if (!j)
        return;
    for (size_t i = 0; i < j->n_pods; i++)
        pod_free(j->pods[i]);
    free(j->pods);
    jobctl_status_release(&j->st);
    json_decref(j->obj);
    free(j);
}
