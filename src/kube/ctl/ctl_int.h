/* ctl (the controller) internals shared by the ctl_*.c files, sectioned by the file that
 * defines what follows.  The sections follow the files' stack, lowest first: a file calls
 * only the files of the sections above its own (no circles: tests/layers/check_layers.py
 * files).  ctl_metrics.c and ctl_slim.c, lower still, have headers of their own. */
#ifndef JX_KUBE_CTL_CTL_INT_H
#define JX_KUBE_CTL_CTL_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "api/kubeflow/trainjob_podgroup.h"
#include "kube/ctl/ctl.h"
#include "kube/ctl/ctl_slim.h"
#include "kube/client/kc.h"
#include "kube/cache/cache_inf.h"
#include "kube/cache/cache_queue.h"
#include "core/plan_exec.h"
#include "kube/serve/srv_health.h"
#include "kube/serve/srv_http.h"
#include "kube/ctl/ctl_metrics.h"
#include "kube/serve/srv_mx.h"

#define CTL_JOBSETS "/apis/jobset.x-k8s.io/v1alpha2/jobsets"
#define CTL_JOBS "/apis/batch/v1/jobs"
#define CTL_SERVICES "/api/v1/services"
#define CTL_JS_PREFIX "/apis/jobset.x-k8s.io/v1alpha2"
#define CTL_KEY_JAXJOB "jaxjob:"     /* queue keys of the other kinds: "<prefix>ns/name" */
#define CTL_KEY_TRAINJOB "trainjob:"
#define CTL_KEY_POD "pod:"           /* a leader pod of exclusive placement (ctl_pods.c) */
#define CTL_MAX_INFORMERS 12

struct ctl; /* the controller's state (ctl_main.c, last) */

/* ---- ctl_obs.c: metrics, /metrics, /healthz, /readyz */
int ctl__obs_start(struct ctl *c, struct err *e);
void ctl__obs_stop(struct ctl *c);
size_t ctl__obs_fds(const struct ctl *c, int *fds, int64_t *next_ms); /* at most 2 */
void ctl__obs_serve(struct ctl *c, bool ready, bool leading);
void ctl__obs_reconciled(struct ctl *c, int rc, bool requeue_after, double seconds);
void ctl__obs_queued(struct ctl *c, bool delayed);
void ctl__obs_finished(struct ctl *c, const char *ns, const char *name, bool failed);
struct srv_mx *ctl__obs_registry(struct ctl *c); /* the /metrics registry (borrowed) */

/* ---- ctl_key.c: where the objects are: the kinds written, their REST paths, the work
 * queue's keys. */
struct ctl_kind {
    const char *api_version, *kind;   /* "kubeflow.org/v1", "JAXJob" */
    const char *prefix, *resource;    /* "/apis/kubeflow.org/v1", "jaxjobs" */
    const char *component;            /* the events' source ("jaxjob-controller") */
    const char *key;                  /* queue key prefix (CTL_KEY_JAXJOB) */
};
/* ctl__kind_js: the JobSet itself (its events) */
extern const struct ctl_kind ctl__kind_js, ctl__kind_jaxjob, ctl__kind_trainjob;

/* "<prefix>/namespaces/<ns>/<resource>[/<name>[/<sub>]]" ("/apis/batch/v1", "jobs", ...);
 * caller frees; NULL on OOM */
char *ctl__path(const char *prefix, const char *resource, const char *ns, const char *name,
                const char *sub);
/* Splits "ns/name" (a key less its kind prefix); false when malformed. */
bool ctl__split_key(const char *key, char *ns, size_t ns_n, const char **name);
/* The objects of informer `inf` in namespace `ns` whose controller owner reference has `uid`
 * (a new array, NULL on OOM).  An owner reference names an owner in the object's own
 * namespace (apimachinery OwnerReference: "the referent must be in the same namespace"), so an
 * object of another namespace that carries the uid is not that owner's, whatever it says. */
json_t *ctl__owned(const struct cache_inf *inf, const char *ns, const char *uid);
/* Queues "<prefix>ns/name" (prefix "" for a JobSet, CTL_KEY_* for the other kinds); a key
 * not queued already counts in the queue's metrics. */
void ctl__enqueue(struct ctl *c, const char *prefix, const char *ns, const char *name);
/* Queues the JAXJob or TrainJob that controls this JobSet (borrowed), if any. */
void ctl__owner_changed(struct ctl *c, const json_t *js);

/* ---- ctl_event.c: core/v1 Events.  new: one about the object of kind `k` whose metadata is
 * `m`, as client-go's EventRecorder writes it ("<name>.<unix nanoseconds in hex>", source
 * component k->component), also logged; new reference (NULL on OOM).  send: POSTs it without
 * waiting (`ev` borrowed; NULL does nothing). */
json_t *ctl__event_new(struct ctl *c, const struct ctl_kind *k, const json_t *m,
                       const char *type, const char *reason, const char *message);
void ctl__event_send(struct ctl *c, json_t *ev);

/* ---- ctl_lease.c: leader election */
struct ctl_lease {
    char ns[256], name[256], id[300];
    int64_t lease_ms, renew_ms, retry_ms;
    bool leading;
    int64_t next_try, renewed_at;
    char observed[512];   /* holder|renewTime|duration last read */
    int64_t observed_at, observed_ms;
};
/* [yields] Tries to acquire or renew when due; ms until the next try.  *lost: leadership just
 * lost. */
int64_t ctl__lease_tick(struct ctl *c, struct ctl_lease *l, int64_t mono_ms, bool *lost);
/* [yields] */
void ctl__lease_release(struct ctl *c, struct ctl_lease *l);

/* ---- ctl_kinds.c: what the JAXJob and TrainJob controllers share. */
/* Queues `key` (less its kind prefix) of kind `k` again in `ms`; sets *requeued. */
void ctl__kind_requeue(struct ctl *c, const struct ctl_kind *k, const char *key, int64_t ms,
                       bool *requeued);
/* The JobSet ns/name when `owner_uid` controls it (a new reference); NULL when there is none;
 * *foreign: one of that name exists and is not controlled by owner_uid. */
json_t *ctl__kind_jobset(struct ctl *c, const char *ns, const char *name, const char *owner_uid,
                         bool *foreign);
/* [yields] POSTs `js` (borrowed) with a controller owner reference to `owner`; *out: the JobSet
 * created (new reference, also put in the JobSet cache).  0 or -errno with `e`. */
int ctl__kind_create_jobset(struct ctl *c, const struct ctl_kind *k, const json_t *owner,
                            const json_t *js, json_t **out, struct err *e);
/* [yields] POSTs `obj` (borrowed) to prefix/namespaces/<owner's>/resource with a controller
 * owner reference to `owner`; *out: the object created (new reference).  0 or -errno with `e`
 * (-EEXIST: one of that name exists; -ENOENT: the resource is not served). */
int ctl__kind_create_owned(struct ctl *c, const struct ctl_kind *k, const json_t *owner,
                           const char *prefix, const char *resource, const json_t *obj,
                           json_t **out, struct err *e);
/* [yields] PUTs `obj` (borrowed, with its metadata.resourceVersion) to its place under
 * prefix/resource; *out: the answer (new reference; a JobSet also goes into the cache).  0 or
 * -errno with `e` (-JX_ECONFLICT, -EINVAL: refused by validation). */
int ctl__kind_put(struct ctl *c, const char *prefix, const char *resource, const json_t *obj,
                  json_t **out, struct err *e);
/* [yields] Merge-patches the JobSet's (`js`, may be NULL) spec.suspend to `want` unless it is so
 * already; a failure is logged under `logger` and `key`.  0 or -errno. */
int ctl__kind_sync_suspend(struct ctl *c, const char *logger, const char *key,
                           const json_t *js, bool want);
/* [yields] PUTs `obj` (borrowed) with `status` to its status subresource (optimistic concurrency
 * on its resourceVersion); the answer goes into `inf`.  0 or -errno (-JX_ECONFLICT: a Conflict). */
int ctl__kind_put_status(struct ctl *c, const struct ctl_kind *k, struct cache_inf *inf,
                         const json_t *obj, const json_t *status, struct err *e);
/* Records core/v1 Events {"type","reason","message"} (borrowed) about `obj`, not waiting. */
void ctl__kind_events(struct ctl *c, const struct ctl_kind *k, const json_t *obj,
                      const json_t *events);
/* [yields] DELETE of prefix/namespaces/ns/resource/name with a uid precondition (when `uid`) and
 * `propagation` ("Background", "Foreground"); a missing object is not an error. */
int ctl__kind_delete(struct ctl *c, const char *prefix, const char *resource, const char *ns,
                     const char *name, const char *uid, const char *propagation, struct err *e);
/* [yields] Deletes the pods of JobSet ns/jobset: all of them, or (running_only) the Running and
 * Pending ones; pods already terminating are left.  0 or -errno. */
int ctl__kind_clean_pods(struct ctl *c, const char *ns, const char *jobset, bool running_only,
                         struct err *e);
/* [yields] Whether the kind's resource is served (its CRD installed): false only on a 404. */
bool ctl__kind_served(struct ctl *c, const char *prefix, const char *resource);

/* ---- ctl_ops.c: the rec_ops of this backend (the JobSet controller) */
struct ctl_pass {
    struct ctl *c;
    const json_t *raw;  /* the JobSet as stored (not defaulted) */
    const char *ns, *name, *uid;
    long long grace;    /* jaxset.dev/restart-grace-seconds, -1 when absent */
    const char *key;    /* "ns/name" */
    struct ctl_pstatus *pending; /* the status write in flight, which the pass's later events
                                  * wait for (ctl_ops.c) */
};
/* [yields] each operation sends its request and waits for the answer (kc_call): a plan
 * executed with these yields at every write. */
extern const struct rec_ops ctl__ops;
/* Job `job` (the Job informer's object) went: the JobSets that wanted its name, which another
 * owner's Job held, are queued (their creates failed; ctl_ops.c "jobs whose name is taken"). */
void ctl__conflict_gone(struct ctl *c, const json_t *job);

/* ---- ctl_pods.c: exclusive placement.  informers: the pod and Node caches (0 or -ENOMEM);
 * pods_named and node_get: the struct place_src lookups over them (arg: the ctl). */
int ctl__pods_informers(struct ctl *c, const struct cache_inf_opts *base);
json_t *ctl__pods_named(void *arg, const char *ns, const char *base);
int ctl__node_get(void *arg, const char *name, json_t **out);
/* [yields] one leader pod key (less its prefix); as ctl__reconcile */
int ctl__pod_reconcile(struct ctl *c, const char *key, bool *requeued);

/* ---- ctl_jaxjob.c: the JAXJob controller */
/* [yields] One JAXJob key (less its prefix); as ctl__reconcile. */
int ctl__jaxjob_reconcile(struct ctl *c, const char *key, bool *requeued);

/* ---- ctl_trainjob.c: the TrainJob controller */
/* [yields] One TrainJob key (less its prefix); as ctl__reconcile. */
int ctl__trainjob_reconcile(struct ctl *c, const char *key, bool *requeued);

/* ---- ctl_webhook.c: the admission webhooks and their certificates (nothing without
 * o->webhooks).  start: the first certificate sync (a failure is retried by tick); only
 * -ENOMEM or a bad flag fails.  tick: syncs when due; ms until the next.  fds: at most 2 (the
 * webhooks', Trainer's status server's).  With the TrainJobStatus gate it serves the status
 * server too (kube/status), and sets c->status_base and c->status_ca once it does. */
/* [yields] */
int ctl__wh_start(struct ctl *c, struct err *e);
/* [yields] */
int64_t ctl__wh_tick(struct ctl *c);
size_t ctl__wh_fds(const struct ctl *c, int *fds, int64_t *next_ms);
void ctl__wh_serve(struct ctl *c);
void ctl__wh_stop(struct ctl *c);

/* ---- ctl_reconcile.c: the JobSet controller's pass; the other kinds' keys sent to theirs */
/* [yields] One key ("ns/name", or a kind's prefix and "ns/name"); 0, or -errno when it must be
 * retried; *requeued: a timed requeue was asked for. */
int ctl__reconcile(struct ctl *c, const char *key, bool *requeued);

/* ---- ctl_workers.c: the reconcile workers (fibers).  start: 0 or -1 (out of memory; what
 * was made is freed by ctl__workers_free).  run: resumes the workers that can go on, once
 * each, taking due keys when `taking`.  stop: after the loop, lets the passes under way
 * finish. */
int ctl__workers_start(struct ctl *c);
void ctl__workers_run(struct ctl *c, bool taking);
/* [yields] */
void ctl__workers_stop(struct ctl *c);
void ctl__workers_free(struct ctl *c);

/* ---- ctl_main.c: the controller's state, made and released by ctl_main (ctl.h). */
struct ctl {
    const struct ctl_opts *o;
    struct kc *kc;
    struct cache_inf *jobsets, *jobs, *services;
    struct cache_inf *jaxjobs, *trainjobs, *runtimes, *cruntimes; /* NULL: that controller is off */
    struct cache_inf *pods, *nodes;   /* exclusive placement (ctl_pods.c); NULL: off */
    /* the PodGroups TrainJobs control, by tjpg_kind_at index; NULL: that CRD was not served
     * at start (or the TrainJob controller is off) */
    struct cache_inf *podgroups[TJPG_KINDS];
    json_t *pod_index;                /* "ns/<pod name less suffix>" -> {pod name: true} */
    struct cache_inf *all[CTL_MAX_INFORMERS]; /* every informer made, for ticks, sync, release */
    size_t n_all;
    unsigned kinds;  /* CTL_KIND_* of the controllers running (ctl_opts.kinds less the kinds
                      * whose CRD is not served) */
    struct cache_queue *q;
    bool stop;
    int sfd; /* the signalfd of SIGTERM and SIGINT */
    bool serving; /* in the loop's serve (ctl_main.c): not re-entered from a webhook's call */
    struct ctl_lease lease;
    int exit_rc; /* nonzero: the loop stopped for this reason (leadership lost) */
    const char *identity;
    json_t *invalid_seen; /* "ns/name" -> "uid@generation" of invalid JobSets logged */
    json_t *status_inflight; /* "ns/name" of JobSets whose status write is in flight */
    json_t *name_waiters; /* "ns/job" -> {"ns/name": true}: the JobSets that want the name of a
                           * Job another owner controls, queued when it goes (ctl_ops.c) */
    unsigned long reconciles, reconcile_errors;
    struct ctl_obs *obs;
    struct ctl_wh *wh;          /* ctl_webhook.c; NULL without --enable-webhooks */
    /* Trainer's status server, once ctl_webhook.c serves it (TrainJobStatus): the
     * https://host:port the trainer pods report to and the CA of its certificate (borrowed
     * from c->wh); NULL: not served */
    const char *status_base, *status_ca;
    struct ctl_worker *workers; /* ctl_workers.c */
    size_t n_workers;
    bool taking;                /* workers may take keys (caches synced, leading) */
    json_t *busy, *dirty;       /* keys in a pass; keys popped meanwhile */
};

#endif
