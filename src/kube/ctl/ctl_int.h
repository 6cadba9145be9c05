/* ctl (the controller) internals shared by the ctl_*.c files. */
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

/* ctl_lease.c: leader election */
struct ctl_lease {
    char ns[256], name[256], id[300];
    int64_t lease_ms, renew_ms, retry_ms;
    bool leading;
    int64_t next_try, renewed_at;
    char observed[512];   /* holder|renewTime|duration last read */
    int64_t observed_at, observed_ms;
};

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
    struct ctl_lease lease;
    int exit_rc; /* nonzero: the loop stopped for this reason (leadership lost) */
    const char *identity;
    json_t *invalid_seen; /* "ns/name" -> "uid@generation" of invalid JobSets logged */
    json_t *status_inflight; /* "ns/name" of JobSets whose status write is in flight */
    unsigned long reconciles, reconcile_errors;
    struct ctl_obs *obs;
    struct ctl_wh *wh;          /* ctl_webhook.c; NULL without --enable-webhooks */
    struct ctl_worker *workers; /* ctl_workers.c */
    size_t n_workers;
    bool taking;                /* workers may take keys (caches synced, leading) */
    json_t *busy, *dirty;       /* keys in a pass; keys popped meanwhile */
};

/* ctl_workers.c: the reconcile workers (fibers).  start: 0 or -1 (out of memory; what was made
 * is freed by ctl_workers_free).  run: resumes the workers that can go on, once each, taking
 * due keys when `taking`.  stop: after the loop, lets the passes under way finish. */
int ctl_workers_start(struct ctl *c);
void ctl_workers_run(struct ctl *c, bool taking);
/* [yields] */
void ctl_workers_stop(struct ctl *c);
void ctl_workers_free(struct ctl *c);

/* ctl_obs.c: metrics, /metrics, /healthz, /readyz */
int ctl_obs_start(struct ctl *c, struct err *e);
void ctl_obs_stop(struct ctl *c);
size_t ctl_obs_fds(const struct ctl *c, int *fds, int64_t *next_ms); /* at most 2 */
void ctl_obs_serve(struct ctl *c, bool ready, bool leading);
void ctl_obs_reconciled(struct ctl *c, int rc, bool requeue_after, double seconds);
void ctl_obs_queued(struct ctl *c, bool delayed);
void ctl_obs_finished(struct ctl *c, const char *ns, const char *name, bool failed);
struct srv_mx *ctl_obs_registry(struct ctl *c); /* the /metrics registry (borrowed) */


/* ctl_kinds.c: what the JAXJob and TrainJob controllers share. */
struct ctl_kind {
    const char *api_version, *kind;   /* "kubeflow.org/v1", "JAXJob" */
    const char *prefix, *resource;    /* "/apis/kubeflow.org/v1", "jaxjobs" */
    const char *component;            /* the events' source ("jaxjob-controller") */
    const char *key;                  /* queue key prefix (CTL_KEY_JAXJOB) */
};
/* ctl_kind_js: the JobSet itself (its events) */
extern const struct ctl_kind ctl_kind_js, ctl_kind_jaxjob, ctl_kind_trainjob;

/* A core/v1 Event about the object of kind `k` whose metadata is `m`, as client-go's
 * EventRecorder writes it ("<name>.<unix nanoseconds in hex>", source component k->component),
 * also logged; new reference (NULL on OOM).  ctl_event_send: POSTs it without waiting (`ev`
 * borrowed; NULL does nothing). */
json_t *ctl_event_new(struct ctl *c, const struct ctl_kind *k, const json_t *m,
                      const char *type, const char *reason, const char *message);
void ctl_event_send(struct ctl *c, json_t *ev);

/* Queues `key` (less its kind prefix) of kind `k` again in `ms`; sets *requeued. */
void ctl_kind_requeue(struct ctl *c, const struct ctl_kind *k, const char *key, int64_t ms,
                      bool *requeued);
/* Splits "ns/name" (a key less its kind prefix); false when malformed. */
bool ctl_split_key(const char *key, char *ns, size_t ns_n, const char **name);
/* The JobSet ns/name when `owner_uid` controls it (a new reference); NULL when there is none;
 * *foreign: one of that name exists and is not controlled by owner_uid. */
json_t *ctl_kind_jobset(struct ctl *c, const char *ns, const char *name, const char *owner_uid,
                        bool *foreign);
/* [yields] POSTs `js` (borrowed) with a controller owner reference to `owner`; *out: the JobSet created
 * (new reference, also put in the JobSet cache).  0 or -errno with `e`. */
int ctl_kind_create_jobset(struct ctl *c, const struct ctl_kind *k, const json_t *owner,
                           const json_t *js, json_t **out, struct err *e);
/* [yields] POSTs `obj` (borrowed) to prefix/namespaces/<owner's>/resource with a controller
 * owner reference to `owner`; *out: the object created (new reference).  0 or -errno with `e`
 * (-EEXIST: one of that name exists; -ENOENT: the resource is not served). */
int ctl_kind_create_owned(struct ctl *c, const struct ctl_kind *k, const json_t *owner,
                          const char *prefix, const char *resource, const json_t *obj,
                          json_t **out, struct err *e);
/* [yields] PUTs `obj` (borrowed, with its metadata.resourceVersion) to its place under
 * prefix/resource; *out: the answer (new reference; a JobSet also goes into the cache).  0 or
 * -errno with `e` (-JX_ECONFLICT, -EINVAL: refused by validation). */
int ctl_kind_put(struct ctl *c, const char *prefix, const char *resource, const json_t *obj,
                 json_t **out, struct err *e);
/* [yields] Merge-patches the JobSet's (`js`, may be NULL) spec.suspend to `want` unless it is so
 * already; a failure is logged under `logger` and `key`.  0 or -errno. */
int ctl_kind_sync_suspend(struct ctl *c, const char *logger, const char *key,
                          const json_t *js, bool want);
/* [yields] PUTs `obj` (borrowed) with `status` to its status subresource (optimistic concurrency on its
 * resourceVersion); the answer goes into `inf`.  0 or -errno (-JX_ECONFLICT: a Conflict). */
int ctl_kind_put_status(struct ctl *c, const struct ctl_kind *k, struct cache_inf *inf,
                        const json_t *obj, const json_t *status, struct err *e);
/* Records core/v1 Events {"type","reason","message"} (borrowed) about `obj`, not waiting. */
void ctl_kind_events(struct ctl *c, const struct ctl_kind *k, const json_t *obj,
                     const json_t *events);
/* [yields] DELETE of prefix/namespaces/ns/resource/name with a uid precondition (when `uid`) and
 * `propagation` ("Background", "Foreground"); a missing object is not an error. */
int ctl_kind_delete(struct ctl *c, const char *prefix, const char *resource, const char *ns,
                    const char *name, const char *uid, const char *propagation, struct err *e);
/* [yields] Deletes the pods of JobSet ns/jobset: all of them, or (running_only) the Running and Pending
 * ones; pods already terminating are left.  0 or -errno. */
int ctl_kind_clean_pods(struct ctl *c, const char *ns, const char *jobset, bool running_only,
                        struct err *e);
/* [yields] Whether the kind's resource is served (its CRD installed): false only on a 404. */
bool ctl_kind_served(struct ctl *c, const char *prefix, const char *resource);

/* ctl_main.c: queues the JAXJob or TrainJob that controls this JobSet (borrowed), if any. */
void ctl_owner_changed(struct ctl *c, const json_t *js);

/* [yields] ctl_jaxjob.c, ctl_trainjob.c: one JAXJob / TrainJob key (less its prefix); as
 * ctl_reconcile. */
int ctl_jaxjob_reconcile(struct ctl *c, const char *key, bool *requeued);
/* [yields] */
int ctl_trainjob_reconcile(struct ctl *c, const char *key, bool *requeued);

/* ctl_pods.c: exclusive placement.  informers: the pod and Node caches (0 or -ENOMEM);
 * pods_named and node_get: the struct place_src lookups over them (arg: the ctl). */
int ctl_pods_informers(struct ctl *c, const struct cache_inf_opts *base);
json_t *ctl_pods_named(void *arg, const char *ns, const char *base);
int ctl_node_get(void *arg, const char *name, json_t **out);
/* [yields] one leader pod key (less its prefix); as ctl_reconcile */
int ctl_pod_reconcile(struct ctl *c, const char *key, bool *requeued);

/* [yields] ctl_webhook.c: the admission webhooks and their certificates (nothing without
 * o->webhooks).  start: the first certificate sync (a failure is retried by tick); only
 * -ENOMEM or a bad flag fails.  tick: syncs when due; ms until the next.  fds: at most 1. */
int ctl_wh_start(struct ctl *c, struct err *e);
/* [yields] */
int64_t ctl_wh_tick(struct ctl *c);
size_t ctl_wh_fds(const struct ctl *c, int *fds, int64_t *next_ms);
void ctl_wh_serve(struct ctl *c);
void ctl_wh_stop(struct ctl *c);

/* [yields] ctl_reconcile.c: one key ("ns/name"); 0, or -errno when it must be retried; *requeued:
 * a timed requeue was asked for */
int ctl_reconcile(struct ctl *c, const char *key, bool *requeued);

/* ctl_ops.c: the rec_ops of this backend */
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
extern const struct rec_ops ctl_ops;

/* [yields] Tries to acquire or renew when due; ms until the next try.  *lost: leadership just lost. */
int64_t ctl_lease_tick(struct ctl *c, struct ctl_lease *l, int64_t mono_ms, bool *lost);
/* [yields] */
void ctl_lease_release(struct ctl *c, struct ctl_lease *l);

/* "<prefix>/namespaces/<ns>/<resource>[/<name>[/<sub>]]" ("/apis/batch/v1", "jobs", ...);
 * caller frees; NULL on OOM */
char *ctl_path(const char *prefix, const char *resource, const char *ns, const char *name,
               const char *sub);

#endif
