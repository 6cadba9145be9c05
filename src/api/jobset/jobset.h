/* jobset: the JobSet kind (jobset.x-k8s.io/v1alpha2): defaulting, create validation and a typed
 * read-only view.  Objects stay JSON trees (docs/design.md).  Upstream: kubernetes-sigs/jobset
 * api/jobset/v1alpha2/jobset_types.go and pkg/webhooks/jobset_webhook.go. */
#ifndef JX_JOBSET_H
#define JX_JOBSET_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "obj/tree/ferr.h"

/* Applies the mutating-webhook defaults (jobSetWebhook.Default) and the CRD structural defaults
 * (replicas 1, groupName "default", restartStrategy Recreate, whenDeleted Delete) in place.
 * Fields of the wrong type are left alone for validation to report.  Also sets
 * metadata.namespace to "default" when absent.  Returns 0 or -ENOMEM. */
int js_default(json_t *js);

/* Create validation of a defaulted JobSet: every rule of jobSetWebhook.ValidateCreate and the
 * CRD-level rules (types, enums, required fields, minimums, maxItems, InOrder/dependsOn
 * exclusivity), plus the batch/v1 Job-template rules a real API server would reject a child
 * Job for (so that nothing half-starts).  Appends to `errs` with exact field paths.  Returns the
 * number of errors added (0 = valid) or -ENOMEM. */
int js_validate(const json_t *js, struct ferr_list *errs);

struct feature_gates;
/* js_validate with the controller's feature gates `g` (api/jobset/features.h; NULL: defaults,
 * which is what js_validate uses): a gated feature is refused while its gate is off, with
 * upstream's message and how to turn the gate on, and has its own requirements checked once it is
 * on. */
int js_validate_gated(const json_t *js, const struct feature_gates *g, struct ferr_list *errs);

/* js_validate_gated as a cluster admits: what the JobSet webhook and CRD let through and only
 * the API server's batch/v1 validation of a child Job refuses (a pod restartPolicy "Always",
 * an Indexed Job with parallelism but no completions)
 * goes to `later`, each saying that creating the Jobs will fail, instead of `errs`.  Returns
 * the number of errors added to `errs` or -ENOMEM. */
int js_validate_cluster(const json_t *js, const struct feature_gates *g, struct ferr_list *errs,
                        struct ferr_list *later);

/* Update validation of `new_js` against the stored `old_js` (both as stored: defaulted at
 * creation): the webhook's immutability rules of spec.replicatedJobs and spec.managedBy, with
 * the exceptions for suspended JobSets and, gate `g` allowing, elastic Indexed jobs (api
 * jobset_validate_update.c).  Returns the number of errors added or -ENOMEM. */
int js_validate_update(const json_t *old_js, const json_t *new_js, const struct feature_gates *g,
                       struct ferr_list *errs);

struct js_rj {
    const char *name;
    const char *group;      /* groupName, "default" when unset */
    long long replicas;     /* >= 0 */
    long long parallelism;  /* effective: template.spec.parallelism, default 1 */
    long long completions;  /* effective: template.spec.completions, or 1 when both are unset
                             * (Kubernetes' Job default); -1 when unset (work queue) */
    bool indexed;           /* completionMode Indexed */
    long long pods_per_job; /* completions when >= 0, else parallelism */
    const json_t *tmpl;     /* replicatedJobs[i].template (JobTemplateSpec), borrowed */
};

struct js_view {
    const char *name;
    const char *ns;         /* metadata.namespace, "default" when unset */
    const char *uid;        /* metadata.uid or NULL */
    const char *subdomain;  /* network.subdomain, else metadata.name */
    bool dns_hostnames;     /* network.enableDNSHostnames (nil = true after defaulting) */
    bool publish_not_ready; /* network.publishNotReadyAddresses (nil = true) */
    bool suspend;
    long long restarts;     /* status.restarts, 0 when absent */
    long long global_replicas;
    size_t n_rj;
    struct js_rj *rj;       /* owned by the view */
    bool has_coordinator;   /* spec.coordinator set */
    const char *coord_rj;
    long long coord_job, coord_pod;
};

/* Builds a view of a defaulted, valid JobSet.  `js` is borrowed and must outlive the view.
 * Returns 0, -EINVAL (not a JobSet shape a view can be made of) or -ENOMEM. */
int js_view_init(struct js_view *v, const json_t *js);
void js_view_release(struct js_view *v);

/* status.replicatedJobsStatus[name == rj].jobRestarts[job] of JobSet `js`: how many times the
 * RestartJob actions recreated that one Job (RestartJob gate); 0 when absent. */
long long js_job_restarts(const json_t *js, const char *rj, long long job);

/* Index of the replicated job named `name`, or -1. */
long js_view_find(const struct js_view *v, const char *name);

/* Job name "<js>-<rj>-<jobIdx>" and pod hostname "<js>-<rj>-<jobIdx>-<podIdx>" into out. */
void js_job_name(const struct js_view *v, size_t rj, long long job, char *out, size_t n);
void js_pod_hostname(const struct js_view *v, size_t rj, long long job, long long pod, char *out,
                     size_t n);

#endif
