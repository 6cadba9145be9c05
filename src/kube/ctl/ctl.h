/* ctl (the controller): `jaxset controller`, the JobSet controller for a Kubernetes cluster.
 *
 * One thread: informers for JobSets (whole objects) and for the Jobs and Services they own (the
 * fields the reconcile core reads), a rate-limited work queue of JobSet keys, and for each key
 * the pure core (core/reconcile.h) whose plan is executed through this backend's operations
 * (core/plan_exec.h): Jobs created with controller owner references (in parallel), previous
 * attempts deleted with Foreground propagation, the headless Service ensured, status written
 * through the status subresource with optimistic concurrency, core/v1 Events recorded.
 * Upstream: kubernetes-sigs/jobset pkg/controllers/jobset_controller.go. */
#ifndef JX_KUBE_CTL_CTL_H
#define JX_KUBE_CTL_CTL_H

#include <stdbool.h>
#include <stdint.h>

#include "api/jobset/features.h"
#include "kube/config/kc_cfg.h"
#include "obj/base/err.h"

/* The controllers `jaxset controller` runs (--controllers). */
enum {
    CTL_KIND_JOBSET = 1 << 0,   /* jobset.x-k8s.io/v1alpha2 JobSets */
    CTL_KIND_JAXJOB = 1 << 1,   /* kubeflow.org/v1 JAXJobs */
    CTL_KIND_TRAINJOB = 1 << 2, /* trainer.kubeflow.org/v1alpha1 TrainJobs */
    CTL_KIND_ALL = 7,
};

struct ctl_opts {
    unsigned kinds;        /* CTL_KIND_* (default all) */
    struct kc_cfg_opts kcfg;
    double qps;            /* --kube-api-qps (upstream JobSet: 500) */
    int burst;             /* --kube-api-burst (500) */
    int max_parallel;      /* writes in flight for one JobSet (upstream MaxParallelism: 50) */
    int workers;           /* JobSets reconciled at once (--max-concurrent-reconciles, 16) */
    bool leader_elect;     /* --leader-elect */
    const char *lease_namespace;   /* --leader-election-namespace (default: the config's) */
    const char *lease_name;        /* --leader-election-id */
    int64_t lease_ms, renew_ms, retry_ms; /* 15 s, 10 s, 2 s as controller-runtime */
    const char *identity;  /* lease holder identity (default: hostname_uuid) */
    const char *metrics_addr;      /* --metrics-bind-address (":8080"; "0" disables) */
    const char *probe_addr;        /* --health-probe-bind-address (":8081"; "0" disables) */
    int64_t resync_ms;     /* informer resync (controller-runtime: 10 h) */
    struct feature_gates gates; /* --feature-gates (upstream's featureGates) */
    /* admission webhooks (kube/ctl_webhook.c), off unless --enable-webhooks */
    bool webhooks;                 /* --enable-webhooks */
    int webhook_port;              /* --webhook-port (9443, as controller-runtime) */
    const char *webhook_host;      /* --webhook-host (every interface) */
    const char *webhook_cert_dir;  /* --webhook-cert-dir: also write ca.crt, tls.crt, tls.key */
    const char *webhook_url_base;  /* --webhook-url-base: register by url, not by Service */
    const char *webhook_secret_name;       /* --webhook-secret-name */
    const char *webhook_secret_namespace;  /* --webhook-secret-namespace (the config's) */
    const char *webhook_service_name;      /* --webhook-service-name */
    const char *webhook_service_namespace; /* --webhook-service-namespace (the secret's) */
    const char *webhook_mutating_name;     /* --webhook-mutating-configuration */
    const char *webhook_validating_name;   /* --webhook-validating-configuration */
    int64_t webhook_cert_validity_ms;      /* --webhook-cert-validity (10 years) */
    /* Trainer's status server (kube/status), with --enable-webhooks and the TrainJobStatus
     * gate */
    int status_port;                       /* --status-server-port (Trainer's 10443) */
    /* exclusive placement's order (api/child/placement.h): --exclusive-placement=gates (the
     * default: followers admitted behind a scheduling gate) or =webhook (upstream's refusals) */
    bool placement_gates;
};

/* Fills the defaults above. */
void ctl_opts_default(struct ctl_opts *o);

/* Runs until SIGTERM or SIGINT.  Returns 0 after a clean stop, or a negative errno with a
 * message (no configuration, the server unreachable at start, a bad address...). */
int ctl_main(const struct ctl_opts *o, struct err *e);

#endif
