/* ctl_metrics: the series the JobSet controller exposes on /metrics, with the names, help texts,
 * labels and buckets of the Go controller they replace, so that dashboards and alerts written
 * for it keep working:
 *
 *   - kubernetes-sigs/jobset pkg/metrics/metrics.go: jobset_failed_total and
 *     jobset_completed_total, {jobset_name, namespace}, incremented once when a JobSet gets its
 *     terminal Failed or Completed condition;
 *   - controller-runtime (v0.24, the version JobSet builds with) pkg/internal/controller/metrics:
 *     controller_runtime_*, {controller} (and {controller, result});
 *   - controller-runtime pkg/internal/metrics/workqueue.go: workqueue_*, {name, controller}
 *     (both the controller's name), workqueue_depth also {priority};
 *   - controller-runtime pkg/metrics/client_go_adapter.go: rest_client_requests_total
 *     {code, method, host}; and Kubernetes component-base's restclient
 *     rest_client_request_duration_seconds {verb, host} (controller-runtime leaves it out; kept
 *     here because request latency is worth having);
 *   - controller-runtime pkg/metrics/leaderelection.go: leader_election_master_status {name};
 *   - client_golang's process collector: process_* read from /proc at every render.
 * Families are registered in name order, so the text comes out in client_golang's order.
 * (Go runtime series, go_*, have no counterpart here.)
 *
 * The controller calls srv_mx_add/srv_mx_set/srv_mx_observe on the families below (single thread).
 */
#ifndef JX_KUBE_CTL_CTL_METRICS_H
#define JX_KUBE_CTL_CTL_METRICS_H

#include "kube/serve/srv_mx.h"

struct ctl_metrics {
    /* JobSet: {jobset_name, namespace} */
    struct srv_mx_fam *jobset_failed_total;    /* counter */
    struct srv_mx_fam *jobset_completed_total; /* counter */

    /* controller-runtime's controller: {controller} ("jobset") */
    struct srv_mx_fam *reconcile_total;  /* counter {controller, result}: result one of "success",
                                        "error", "requeue", "requeue_after" */
    struct srv_mx_fam *reconcile_errors_total;          /* counter: reconciles returning an error */
    struct srv_mx_fam *terminal_reconcile_errors_total; /* counter: errors not retried */
    struct srv_mx_fam *reconcile_panics_total;          /* counter */
    struct srv_mx_fam *reconcile_timeouts_total;        /* counter */
    struct srv_mx_fam *reconcile_time_seconds;          /* histogram: one reconcile's duration */
    struct srv_mx_fam *max_concurrent_reconciles;       /* gauge */
    struct srv_mx_fam *active_workers;                  /* gauge: reconciles running now */

    /* controller-runtime's work queue: {name, controller}, both the controller's name */
    struct srv_mx_fam *workqueue_depth;      /* gauge {name, controller, priority}: items waiting,
                                            priority the item's as a decimal ("0"; upstream's
                                            initial list is "-100") */
    struct srv_mx_fam *workqueue_adds_total; /* counter: adds */
    struct srv_mx_fam *workqueue_retries_total; /* counter: adds with a delay (rate-limited
                                               requeues, RequeueAfter, AddAfter) */
    struct srv_mx_fam *workqueue_queue_duration_seconds; /* histogram: added -> taken */
    struct srv_mx_fam *workqueue_work_duration_seconds;  /* histogram: taken -> done */
    struct srv_mx_fam *workqueue_unfinished_work_seconds; /* gauge: seconds of work in progress */
    struct srv_mx_fam *workqueue_longest_running_processor_seconds; /* gauge */

    /* API requests */
    struct srv_mx_fam *rest_client_requests_total; /* counter {code, method, host}: code "200",
                                                  "404"... or "<error>" without a response;
                                                  method "GET", "POST"...; host "h:port" */
    struct srv_mx_fam *rest_client_request_duration_seconds; /* histogram {verb, host} */

    /* leader election: {name} the Lease's name; 1 leading, 0 standing by */
    struct srv_mx_fam *leader_election_master_status; /* gauge */

    /* the process (set from /proc by the registry's collector) */
    struct srv_mx_fam *process_cpu_seconds_total;
    struct srv_mx_fam *process_max_fds;
    struct srv_mx_fam *process_open_fds;
    struct srv_mx_fam *process_resident_memory_bytes;
    struct srv_mx_fam *process_start_time_seconds;
    struct srv_mx_fam *process_virtual_memory_bytes;
    struct srv_mx_fam *process_virtual_memory_max_bytes;
};

/* Registers every family in `m`, fills `out` and sets m's collector to refresh the process
 * series (`out` must outlive m's renders).  0, or -ENOMEM (some families may be NULL then). */
int ctl_metrics_register(struct srv_mx *m, struct ctl_metrics *out);

/* The series controller-runtime creates when a controller starts (Controller.initMetrics):
 * reconcile_total for each result, the error, panic and timeout counters at 0,
 * max_concurrent_reconciles = workers, active_workers = 0. */
void ctl_metrics_init_controller(struct ctl_metrics *k, const char *controller, int workers);

/* The series a work queue has from its creation (every workqueue_* but depth, which appears
 * with the first item of each priority). */
void ctl_metrics_init_queue(struct ctl_metrics *k, const char *name);

/* Reads the process series from /proc/self (what the collector runs before each render). */
void ctl_metrics_collect_process(struct ctl_metrics *k);

#endif
