/* The controller's setup and its one loop: informers feed the queue, the queue feeds
 * reconciles, kc_run waits for the network, the signal fd and (later) the HTTP endpoints. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "api/schema/keys.h"
#include "kube/ctl/ctl_int.h"
#include "kube/client/kc_log.h"
#include "obj/tree/jx.h"
#include "obj/base/ktime.h"

#define LOGGER "controller"
#define CTL_TRAINER "/apis/trainer.kubeflow.org/v1alpha1"

void ctl_opts_default(struct ctl_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->kinds = CTL_KIND_ALL;
    o->qps = 500;
    o->burst = 500;
    o->max_parallel = 50;
    o->workers = 16;
    o->lease_name = "6d4f6a47.x-k8s.io"; /* upstream JobSet's LeaderElectionID */
    o->lease_ms = 15000;
    o->renew_ms = 10000;
    o->retry_ms = 2000;
    o->metrics_addr = ":8080";
    o->probe_addr = ":8081";
    o->resync_ms = 10LL * 3600 * 1000;
    o->webhook_port = 9443;
    o->status_port = 10443;
    o->placement_gates = true;
    o->webhook_secret_name = "jaxset-webhook-server-cert";
    o->webhook_service_name = "jaxset-webhook-service";
    o->webhook_mutating_name = "jaxset-mutating-webhook-configuration";
    o->webhook_validating_name = "jaxset-validating-webhook-configuration";
    o->webhook_cert_validity_ms = 10LL * 365 * 24 * 3600 * 1000;
}

static void log_line(void *arg, const char *msg)
{
    (void)arg;
    kc_log(KC_LOG_ERROR, "informer", NULL, "%s", msg);
}

static void enqueue(struct ctl *c, const char *ns, const char *name)
{
    ctl__enqueue(c, "", ns, name);
}

/* A JobSet: queued itself (when this process runs the JobSet controller), and the JAXJob or
 * TrainJob that controls it. */
static void jobset_changed(void *arg, const char *type, const json_t *js)
{
    (void)type;
    struct ctl *c = arg;
    const json_t *m = jx_obj(js, "metadata");
    if (c->kinds & CTL_KIND_JOBSET)
        enqueue(c, jx_str(m, "namespace"), jx_str(m, "name"));
    ctl__owner_changed(c, js);
}

/* The JAXJob or TrainJob named as a JobSet is, when there is one: it counts the Jobs' pods. */
static void owner_kinds(struct ctl *c, const char *ns, const char *name)
{
    struct { struct cache_inf *inf; const char *prefix; } kinds[] = {
        {c->jaxjobs, CTL_KEY_JAXJOB}, {c->trainjobs, CTL_KEY_TRAINJOB}};
    for (size_t i = 0; i < 2; i++) {
        json_t *o = kinds[i].inf ? cache_store_get(cache_inf_store(kinds[i].inf), ns, name) : NULL;
        if (o)
            ctl__enqueue(c, kinds[i].prefix, ns, name);
        json_decref(o);
    }
}

/* A Job or Service: its controlling JobSet is queued (and that JobSet's JAXJob or TrainJob). */
static void owned_changed(void *arg, const char *type, const json_t *obj)
{
    (void)type;
    struct ctl *c = arg;
    const json_t *m = jx_obj(obj, "metadata"), *ref;
    size_t i;
    json_array_foreach (jx_arr(m, "ownerReferences"), i, ref) {
        const char *kind = jx_str(ref, "kind"), *name = jx_str(ref, "name");
        if (!jx_bool_or(ref, "controller", false) || !kind || strcmp(kind, "JobSet") != 0 ||
            !name)
            continue;
        if (c->kinds & CTL_KIND_JOBSET)
            enqueue(c, jx_str(m, "namespace"), name);
        owner_kinds(c, jx_str(m, "namespace"), name);
    }
}

/* A Job: as owned_changed; a Job that goes also queues the JobSets that wanted its name
 * (ctl_ops.c). */
static void job_changed(void *arg, const char *type, const json_t *obj)
{
    owned_changed(arg, type, obj);
    if (type && strcmp(type, "DELETED") == 0)
        ctl__conflict_gone(arg, obj);
}

static void jaxjob_changed(void *arg, const char *type, const json_t *obj)
{
    (void)type;
    const json_t *m = jx_obj(obj, "metadata");
    ctl__enqueue(arg, CTL_KEY_JAXJOB, jx_str(m, "namespace"), jx_str(m, "name"));
}

static void trainjob_changed(void *arg, const char *type, const json_t *obj)
{
    (void)type;
    const json_t *m = jx_obj(obj, "metadata");
    ctl__enqueue(arg, CTL_KEY_TRAINJOB, jx_str(m, "namespace"), jx_str(m, "name"));
}

static void enqueue_trainjob(void *arg, const char *ns, const char *name)
{
    ctl__enqueue(arg, CTL_KEY_TRAINJOB, ns, name);
}

/* A runtime: every TrainJob is looked at again (one may have been waiting for it). */
static void runtime_changed(void *arg, const char *type, const json_t *obj)
{
    (void)type;
    (void)obj;
    struct ctl *c = arg;
    cache_store_each(cache_inf_store(c->trainjobs), enqueue_trainjob, c);
}

/* A SIGTERM or SIGINT waiting on the signalfd stops the controller. */
static void take_signal(struct ctl *c)
{
    struct signalfd_siginfo si;
    if (c->sfd < 0 || read(c->sfd, &si, sizeof(si)) != sizeof(si))
        return;
    kc_log(KC_LOG_INFO, LOGGER, NULL, "received SIG%s: stopping",
           sigabbrev_np((int)si.ssi_signo) ? sigabbrev_np((int)si.ssi_signo) : "?");
    c->stop = true;
}

static bool synced(const struct ctl *c);

/* What the loop serves beside the client: the signalfd, the probes' and metrics' servers, the
 * webhooks' (at most 5 descriptors). */
static size_t serve_fds(void *arg, int *fds, size_t max, int64_t *next)
{
    struct ctl *c = arg;
    if (max < 5)
        return 0;
    fds[0] = c->sfd;
    size_t n = 1 + ctl__obs_fds(c, fds + 1, next);
    return n + ctl__wh_fds(c, fds + n, next);
}

static void serve(void *arg, bool ready)
{
    struct ctl *c = arg;
    if (c->serving) /* a webhook's own call waiting: the servers are not re-entered */
        return;
    c->serving = true;
    ctl__obs_serve(c, synced(c), !c->o->leader_elect || c->lease.leading);
    ctl__wh_serve(c);
    if (ready)
        take_signal(c);
    c->serving = false;
}

/* A list runs in the loop's stead, page by page (the pods of a large cluster take seconds, a
 * loaded kube-apiserver took minutes): while it waits the webhooks and probes are answered,
 * or kube-apiserver's webhook calls would time out (failurePolicy Fail: the pods of every
 * JobSet refused meanwhile), and a SIGTERM ends it at the next page. */
static void list_hook(struct ctl *c, bool on)
{
    kc_set_wait_hook(c->kc, on ? &(struct kc_wait_hook){serve_fds, serve, c} : NULL);
}

static bool between_pages(void *arg)
{
    struct ctl *c = arg;
    take_signal(c);
    return !c->stop;
}

static struct cache_inf *add_informer(struct ctl *c, const struct cache_inf_opts *o)
{
    struct cache_inf *i = c->n_all < CTL_MAX_INFORMERS ? cache_inf_new(c->kc, o) : NULL;
    if (i)
        c->all[c->n_all++] = i;
    return i;
}

/* A PodGroup a TrainJob controls (deleted, say): that TrainJob is queued. */
static void pod_group_changed(void *arg, const char *type, const json_t *obj)
{
    (void)type;
    ctl__owner_changed(arg, obj);
}

/* [yields] The PodGroups of each scheduler plugin whose CRD is served now, watched as
 * upstream's coscheduling and volcano plugins watch those their TrainJobs own when the CRD is
 * installed at start (ReconcilerBuilders), so a deleted one is created again. */
static int make_pod_group_informers(struct ctl *c, struct cache_inf_opts o)
{
    char path[128];
    o.slim = ctl_slim_pod_group;
    o.changed = pod_group_changed;
    o.path = path;
    for (size_t i = 0; i < TJPG_KINDS; i++) {
        const struct tjpg_kind *k = tjpg_kind_at(i);
        if (!ctl__kind_served(c, k->prefix, "podgroups"))
            continue;
        o.name = k->crd;
        snprintf(path, sizeof(path), "%s/podgroups", k->prefix);
        if (!(c->podgroups[i] = add_informer(c, &o)))
            return -ENOMEM;
    }
    return 0;
}

static int make_kind_informers(struct ctl *c, const struct cache_inf_opts *base)
{
    struct cache_inf_opts o = *base;
    o.slim = ctl_slim_jobset; /* whole objects, less managedFields */
    if (c->kinds & CTL_KIND_JAXJOB) {
        o.name = "jaxjobs";
        o.path = "/apis/kubeflow.org/v1/jaxjobs";
        o.changed = jaxjob_changed;
        if (!(c->jaxjobs = add_informer(c, &o)))
            return -ENOMEM;
    }
    if (!(c->kinds & CTL_KIND_TRAINJOB))
        return 0;
    o.name = "trainjobs";
    o.path = CTL_TRAINER "/trainjobs";
    o.changed = trainjob_changed;
    c->trainjobs = add_informer(c, &o);
    o.name = "trainingruntimes";
    o.path = CTL_TRAINER "/trainingruntimes";
    o.changed = runtime_changed;
    c->runtimes = add_informer(c, &o);
    o.name = "clustertrainingruntimes";
    o.path = CTL_TRAINER "/clustertrainingruntimes";
    c->cruntimes = add_informer(c, &o);
    if (!c->trainjobs || !c->runtimes || !c->cruntimes)
        return -ENOMEM;
    return make_pod_group_informers(c, o);
}

/* Jobs and Services first, JobSets next, then the other kinds: the first passes see them all. */
static int make_informers(struct ctl *c)
{
    struct cache_inf_opts js = {.name = "jobsets", .path = CTL_JOBSETS, .slim = ctl_slim_jobset,
                           .changed = jobset_changed, .log = log_line,
                           .between_pages = between_pages, .arg = c,
                           .resync_ms = c->o->resync_ms};
    struct cache_inf_opts jobs = js, svcs = js;
    jobs.name = "jobs";
    jobs.path = CTL_JOBS;
    jobs.selector = LBL_JOBSET_NAME;
    jobs.slim = ctl_slim_job;
    jobs.changed = job_changed;
    svcs.name = "services";
    svcs.path = CTL_SERVICES;
    svcs.slim = ctl_slim_service;
    svcs.changed = owned_changed;
    c->jobs = add_informer(c, &jobs);
    c->services = add_informer(c, &svcs);
    c->jobsets = add_informer(c, &js);
    if (!c->jobsets || !c->jobs || !c->services)
        return -ENOMEM;
    /* exclusive placement: the pod reconciler (with the JobSet controller) and the pod
     * webhook read pods and Nodes; the JAXJob controller labels its pods (ctl_pods.c) */
    if (((c->kinds & (CTL_KIND_JOBSET | CTL_KIND_JAXJOB)) || c->o->webhooks) &&
        ctl__pods_informers(c, &js) < 0)
        return -ENOMEM;
    return make_kind_informers(c, &js);
}

/* A controller whose kind is not served (its CRD not installed) is off, said once. */
static void probe_kinds(struct ctl *c)
{
    static const char *const trainer[] = {"trainjobs", "trainingruntimes",
                                          "clustertrainingruntimes"};
    if ((c->kinds & CTL_KIND_JAXJOB) && !ctl__kind_served(c, "/apis/kubeflow.org/v1", "jaxjobs")) {
        kc_log(KC_LOG_INFO, LOGGER, NULL, "the JAXJob controller is off: kubeflow.org/v1 jaxjobs "
             "are not served (CRD jaxjobs.kubeflow.org not installed)");
        c->kinds &= ~(unsigned)CTL_KIND_JAXJOB;
    }
    for (size_t i = 0; i < 3 && (c->kinds & CTL_KIND_TRAINJOB); i++) {
        if (ctl__kind_served(c, CTL_TRAINER, trainer[i]))
            continue;
        kc_log(KC_LOG_INFO, LOGGER, NULL, "the TrainJob controller is off: trainer.kubeflow.org/"
             "v1alpha1 %s are not served (CRD %s.trainer.kubeflow.org not installed)",
             trainer[i], trainer[i]);
        c->kinds &= ~(unsigned)CTL_KIND_TRAINJOB;
    }
}

static void start_informers(struct ctl *c)
{
    list_hook(c, true);
    for (size_t i = 0; i < c->n_all && !c->stop; i++) {
        struct err e = {{0}};
        if (cache_inf_start(c->all[i], &e) < 0 && !c->stop)
            kc_log(KC_LOG_ERROR, LOGGER, NULL, "listing: %s (retrying)", e.msg);
    }
    list_hook(c, false);
}

/* The pod and Node caches of exclusive placement are not waited for: a controller whose RBAC
 * lacks them still runs JobSets (placement then refuses followers and retries leaders until
 * they list, as upstream's lazily started caches would).  Nor are the PodGroup caches: the
 * TrainJob controller reads the server while they have not listed. */
static bool waited_for(const struct ctl *c, const struct cache_inf *inf)
{
    for (size_t i = 0; i < TJPG_KINDS; i++)
        if (inf == c->podgroups[i])
            return false;
    return inf != c->pods && inf != c->nodes;
}

static bool synced(const struct ctl *c)
{
    for (size_t i = 0; i < c->n_all; i++)
        if (waited_for(c, c->all[i]) && !cache_inf_synced(c->all[i]))
            return false;
    return true;
}

static int64_t tick(struct ctl *c)
{
    int64_t now = kt_mono_ms(), next = 1000, t;
    list_hook(c, true); /* a relist's pages */
    for (size_t i = 0; i < c->n_all && !c->stop; i++)
        if ((t = cache_inf_tick(c->all[i], now)) < next)
            next = t;
    list_hook(c, false);
    if (synced(c) && (t = cache_queue_next_ms(c->q, now)) < next)
        next = t;
    return next;
}

static int signal_fd(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigprocmask(SIG_BLOCK, &set, old);
    signal(SIGPIPE, SIG_IGN);
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

static void enqueue_one(void *arg, const char *ns, const char *name)
{
    enqueue(arg, ns, name);
}

static void enqueue_jaxjob(void *arg, const char *ns, const char *name)
{
    ctl__enqueue(arg, CTL_KEY_JAXJOB, ns, name);
}

/* What a new leader looks at: every object of the kinds it runs. */
static void queue_all(struct ctl *c)
{
    if (c->kinds & CTL_KIND_JOBSET)
        cache_store_each(cache_inf_store(c->jobsets), enqueue_one, c);
    if (c->jaxjobs)
        cache_store_each(cache_inf_store(c->jaxjobs), enqueue_jaxjob, c);
    if (c->trainjobs)
        cache_store_each(cache_inf_store(c->trainjobs), enqueue_trainjob, c);
}

/* Without --leader-elect this process always leads.  A new leader queues every JobSet. */
static bool leading(struct ctl *c, int64_t *next)
{
    if (!c->o->leader_elect)
        return true;
    bool was = c->lease.leading, lost = false;
    int64_t t = ctl__lease_tick(c, &c->lease, kt_mono_ms(), &lost);
    if (t < *next)
        *next = t;
    if (lost) { /* the passes under way end at their next write: none is sent any more */
        c->exit_rc = -JX_ELEADERSHIP;
        c->stop = true;
        kc_refuse(c->kc, -ECANCELED, "leader election lost");
    }
    if (c->lease.leading && !was)
        queue_all(c);
    return c->lease.leading;
}

static void loop(struct ctl *c)
{
    while (!c->stop) {
        int64_t next = tick(c);
        bool taking = synced(c) && leading(c, &next);
        ctl__workers_run(c, taking);
        if (taking && cache_queue_next_ms(c->q, kt_mono_ms()) == 0)
            next = 0;
        int64_t t = ctl__wh_tick(c);
        if (t < next)
            next = t < 0 ? 0 : t;
        bool ready = false;
        int fds[5];
        size_t n = serve_fds(c, fds, 5, &next);
        kc_run(c->kc, (int)(next > 1000 ? 1000 : next), fds, n, &ready);
        serve(c, ready);
    }
}

/* client-go's identity: the host name and a random suffix (controller-runtime: hostname_UUID). */
static void lease_init(struct ctl *c)
{
    struct ctl_lease *l = &c->lease;
    const struct ctl_opts *o = c->o;
    snprintf(l->ns, sizeof(l->ns), "%s", o->lease_namespace ? o->lease_namespace
                                                            : kc_namespace(c->kc));
    snprintf(l->name, sizeof(l->name), "%s", o->lease_name);
    char host[256] = "jaxset";
    gethostname(host, sizeof(host) - 1);
    unsigned char r[8] = {0};
    FILE *f = fopen("/dev/urandom", "rb");
    if (f) {
        if (fread(r, 1, sizeof(r), f) != sizeof(r))
            memset(r, 0, sizeof(r));
        fclose(f);
    }
    if (o->identity)
        snprintf(l->id, sizeof(l->id), "%s", o->identity);
    else
        snprintf(l->id, sizeof(l->id), "%s_%02x%02x%02x%02x-%02x%02x-%02x%02x", host, r[0], r[1],
                 r[2], r[3], r[4], r[5], r[6], r[7]);
    c->identity = l->id;
    l->lease_ms = o->lease_ms;
    l->renew_ms = o->renew_ms;
    l->retry_ms = o->retry_ms;
}

static void ctl_release(struct ctl *c)
{
    ctl__wh_stop(c);
    ctl__obs_stop(c);
    for (size_t i = 0; i < c->n_all; i++)
        cache_inf_free(c->all[i]);
    ctl__workers_free(c);
    cache_queue_free(c->q);
    kc_free(c->kc);
    json_decref(c->invalid_seen);
    json_decref(c->status_inflight);
    json_decref(c->name_waiters);
    json_decref(c->pod_index);
}

int ctl_main(const struct ctl_opts *o, struct err *e)
{
    struct ctl c = {.o = o, .identity = o->identity};
    struct kc_cfg *cfg = NULL;
    sigset_t old;
    /* SIGTERM and SIGINT go to a signalfd from the start: one that comes while the controller
     * is still starting stops it cleanly once its loop runs */
    int sfd = c.sfd = signal_fd(&old);
    int rc = sfd < 0 ? err_set(e, -errno, "signalfd: %s", strerror(errno))
                     : kc_cfg_load(&o->kcfg, &cfg, e);
    struct kc_opts ko = {.qps = o->qps, .burst = o->burst, .timeout_ms = 60000};
    if (rc < 0 || (rc = kc_new(cfg, &ko, &c.kc, e)) < 0)
        goto out;
    c.kinds = o->kinds;
    probe_kinds(&c);
    c.q = cache_queue_new();
    c.invalid_seen = json_object();
    c.status_inflight = json_object();
    c.name_waiters = json_object();
    if (!c.q || !c.invalid_seen || !c.status_inflight || !c.name_waiters ||
        make_informers(&c) < 0 || ctl__workers_start(&c) < 0) {
        rc = err_oom(e);
        goto out;
    }
    if ((rc = ctl__obs_start(&c, e)) < 0 || (rc = ctl__wh_start(&c, e)) < 0)
        goto out;
    lease_init(&c);
    kc_log(KC_LOG_INFO, LOGGER, NULL, "starting: server %s%s%s", kc_server(c.kc),
         o->leader_elect ? ", leader election as " : "", o->leader_elect ? c.lease.id : "");
    start_informers(&c);
    loop(&c);
    ctl__workers_stop(&c);
    ctl__lease_release(&c, &c.lease);
    kc_drain(c.kc);
    if (c.exit_rc)
        rc = err_set(e, c.exit_rc, "leader election lost");
    kc_log(KC_LOG_INFO, LOGGER, NULL, "stopped after %lu reconciles (%lu failed)", c.reconciles,
         c.reconcile_errors);
out:
    if (sfd >= 0)
        close(sfd);
    ctl_release(&c);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return rc;
}
