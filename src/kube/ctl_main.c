/* The controller's setup and its one loop: informers feed the queue, the queue feeds
 * reconciles, kc_run waits for the network, the signal fd and (later) the HTTP endpoints. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "api/keys.h"
#include "kube/ctl_int.h"
#include "kube/klog.h"
#include "obj/jx.h"
#include "obj/ktime.h"

#define LOGGER "controller"

void ctl_opts_default(struct ctl_opts *o)
{
    memset(o, 0, sizeof(*o));
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
    o->webhook_secret_name = "jaxset-webhook-server-cert";
    o->webhook_service_name = "jaxset-webhook-service";
    o->webhook_mutating_name = "jaxset-mutating-webhook-configuration";
    o->webhook_validating_name = "jaxset-validating-webhook-configuration";
    o->webhook_cert_validity_ms = 10LL * 365 * 24 * 3600 * 1000;
}

static void log_line(void *arg, const char *msg)
{
    (void)arg;
    klog(KLOG_ERROR, "informer", NULL, "%s", msg);
}

static void enqueue(struct ctl *c, const char *ns, const char *name)
{
    char key[512];
    snprintf(key, sizeof(key), "%s/%s", ns ? ns : "", name);
    size_t before = kq_adds(c->q);
    kq_add(c->q, key);
    if (kq_adds(c->q) != before)
        ctl_obs_queued(c, false);
}

static void jobset_changed(void *arg, const char *type, const json_t *js)
{
    (void)type;
    const json_t *m = jx_obj(js, "metadata");
    enqueue(arg, jx_str(m, "namespace"), jx_str(m, "name"));
}

/* A Job or Service: its controlling JobSet is queued. */
static void owned_changed(void *arg, const char *type, const json_t *obj)
{
    (void)type;
    const json_t *m = jx_obj(obj, "metadata"), *ref;
    size_t i;
    json_array_foreach (jx_arr(m, "ownerReferences"), i, ref) {
        const char *kind = jx_str(ref, "kind");
        if (jx_bool_or(ref, "controller", false) && kind && strcmp(kind, "JobSet") == 0 &&
            jx_str(ref, "name"))
            enqueue(arg, jx_str(m, "namespace"), jx_str(ref, "name"));
    }
}

static int make_informers(struct ctl *c)
{
    struct kinf_opts js = {.name = "jobsets", .path = CTL_JOBSETS, .slim = ctl_slim_jobset,
                           .changed = jobset_changed, .log = log_line, .arg = c,
                           .resync_ms = c->o->resync_ms};
    struct kinf_opts jobs = js, svcs = js;
    jobs.name = "jobs";
    jobs.path = CTL_JOBS;
    jobs.selector = LBL_JOBSET_NAME;
    jobs.slim = ctl_slim_job;
    jobs.changed = owned_changed;
    svcs.name = "services";
    svcs.path = CTL_SERVICES;
    svcs.slim = ctl_slim_service;
    svcs.changed = owned_changed;
    c->jobsets = kinf_new(c->kc, &js);
    c->jobs = kinf_new(c->kc, &jobs);
    c->services = kinf_new(c->kc, &svcs);
    return c->jobsets && c->jobs && c->services ? 0 : -ENOMEM;
}

static void start_informers(struct ctl *c)
{
    struct kinf *all[] = {c->jobs, c->services, c->jobsets};
    for (size_t i = 0; i < 3; i++) {
        struct err e = {{0}};
        if (kinf_start(all[i], &e) < 0)
            klog(KLOG_ERROR, LOGGER, NULL, "listing: %s (retrying)", e.msg);
    }
}

static bool synced(const struct ctl *c)
{
    return kinf_synced(c->jobsets) && kinf_synced(c->jobs) && kinf_synced(c->services);
}

static int64_t tick(struct ctl *c)
{
    int64_t now = kt_mono_ms(), next = 1000, t;
    struct kinf *all[] = {c->jobs, c->services, c->jobsets};
    for (size_t i = 0; i < 3; i++)
        if ((t = kinf_tick(all[i], now)) < next)
            next = t;
    if (synced(c) && (t = kq_next_ms(c->q, now)) < next)
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

/* Without --leader-elect this process always leads.  A new leader queues every JobSet. */
static bool leading(struct ctl *c, int64_t *next)
{
    if (!c->o->leader_elect)
        return true;
    bool was = c->lease.leading, lost = false;
    int64_t t = ctl_lease_tick(c, &c->lease, kt_mono_ms(), &lost);
    if (t < *next)
        *next = t;
    if (lost) {
        c->exit_rc = -ENOLCK;
        c->stop = true;
    }
    if (c->lease.leading && !was)
        kstore_each(kinf_store(c->jobsets), enqueue_one, c);
    return c->lease.leading;
}

static void loop(struct ctl *c, int sfd)
{
    while (!c->stop) {
        int64_t next = tick(c);
        bool taking = synced(c) && leading(c, &next);
        ctl_workers_run(c, taking);
        if (taking && kq_next_ms(c->q, kt_mono_ms()) == 0)
            next = 0;
        int64_t t = ctl_wh_tick(c);
        if (t < next)
            next = t < 0 ? 0 : t;
        bool ready = false;
        int fds[4] = {sfd};
        size_t n = 1 + ctl_obs_fds(c, fds + 1, &next);
        n += ctl_wh_fds(c, fds + n, &next);
        kc_run(c->kc, (int)(next > 1000 ? 1000 : next), fds, n, &ready);
        ctl_obs_serve(c, synced(c), !c->o->leader_elect || c->lease.leading);
        ctl_wh_serve(c);
        struct signalfd_siginfo si;
        if (ready && read(sfd, &si, sizeof(si)) == sizeof(si)) {
            klog(KLOG_INFO, LOGGER, NULL, "received SIG%s: stopping",
                 sigabbrev_np((int)si.ssi_signo) ? sigabbrev_np((int)si.ssi_signo) : "?");
            c->stop = true;
        }
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
    ctl_wh_stop(c);
    ctl_obs_stop(c);
    kinf_free(c->jobsets);
    kinf_free(c->jobs);
    kinf_free(c->services);
    ctl_workers_free(c);
    kq_free(c->q);
    kc_free(c->kc);
    json_decref(c->invalid_seen);
    json_decref(c->status_inflight);
}

int ctl_main(const struct ctl_opts *o, struct err *e)
{
    struct ctl c = {.o = o, .identity = o->identity};
    struct kcfg *cfg = NULL;
    sigset_t old;
    int sfd = -1;
    int rc = kcfg_load(&o->kcfg, &cfg, e);
    if (rc < 0)
        return rc;
    struct kc_opts ko = {.qps = o->qps, .burst = o->burst, .timeout_ms = 60000};
    if ((rc = kc_new(cfg, &ko, &c.kc, e)) < 0)
        return rc;
    c.q = kq_new();
    c.invalid_seen = json_object();
    c.status_inflight = json_object();
    if (!c.q || !c.invalid_seen || !c.status_inflight || make_informers(&c) < 0) {
        rc = err_set(e, -ENOMEM, "out of memory");
        goto out;
    }
    if ((sfd = signal_fd(&old)) < 0) {
        rc = err_set(e, -errno, "signalfd: %s", strerror(errno));
        goto out;
    }
    if (ctl_workers_start(&c) < 0) {
        rc = err_set(e, -ENOMEM, "out of memory");
        goto out;
    }
    if ((rc = ctl_obs_start(&c, e)) < 0 || (rc = ctl_wh_start(&c, e)) < 0)
        goto out;
    lease_init(&c);
    klog(KLOG_INFO, LOGGER, NULL, "starting: server %s%s%s", kc_server(c.kc),
         o->leader_elect ? ", leader election as " : "", o->leader_elect ? c.lease.id : "");
    start_informers(&c);
    loop(&c, sfd);
    ctl_workers_stop(&c);
    ctl_lease_release(&c, &c.lease);
    kc_drain(c.kc);
    if (c.exit_rc)
        rc = err_set(e, c.exit_rc, "leader election lost");
    klog(KLOG_INFO, LOGGER, NULL, "stopped after %lu reconciles (%lu failed)", c.reconciles,
         c.reconcile_errors);
    sigprocmask(SIG_SETMASK, &old, NULL);
out:
    if (sfd >= 0)
        close(sfd);
    ctl_release(&c);
    return rc;
}
