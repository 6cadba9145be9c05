/* The controller's series (see ctl_metrics.h): names, help texts, labels and buckets as upstream
 * declares them, and the process collector reading /proc as prometheus/procfs does
 * (client_golang prometheus/process_collector_procfsenabled.go). */
#include "kube/ctl/ctl_metrics.h"

#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

enum { C, G, H }; /* counter, gauge, histogram */

static const char *const l_jobset[] = {"jobset_name", "namespace", NULL};
static const char *const l_ctl[] = {"controller", NULL};
static const char *const l_ctl_result[] = {"controller", "result", NULL};
static const char *const l_queue[] = {"name", "controller", NULL};
static const char *const l_depth[] = {"name", "controller", "priority", NULL};
static const char *const l_request[] = {"code", "method", "host", NULL};
static const char *const l_verb_host[] = {"verb", "host", NULL};
static const char *const l_name[] = {"name", NULL};

/* controller-runtime's ReconcileTime buckets. */
static const double b_reconcile[] = {
    0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6,
    0.7,   0.8,  0.9,   1.0,  1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5,
    6,     7,    8,     9,    10,  15,  20,  25,  30,  40,  50,  60};
/* component-base's rest_client_request_duration_seconds buckets. */
static const double b_request[] = {0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0,
                                   30.0, 60.0};
/* The work queue's: prometheus.ExponentialBuckets(10e-9, 10, 12), computed at registration as
 * Go computes them (repeated products, which is why 1e-05 prints as 9.999999999999999e-06). */
#define N_EXP_BUCKETS 12

struct spec {
    size_t off; /* offsetof(struct ctl_metrics, ...) */
    int type;
    const char *name;
    const char *const *labels;
    const double *buckets; /* NULL with n_buckets N_EXP_BUCKETS: the work queue's */
    size_t n_buckets;
    const char *help;
};

#define F(field) offsetof(struct ctl_metrics, field)
#define N(a) (sizeof(a) / sizeof((a)[0]))

/* In name order: client_golang writes families sorted by name. */
static const struct spec specs[] = {
    {F(active_workers), G, "controller_runtime_active_workers", l_ctl, NULL, 0,
     "Number of currently used workers per controller"},
    {F(max_concurrent_reconciles), G, "controller_runtime_max_concurrent_reconciles", l_ctl,
     NULL, 0, "Maximum number of concurrent reconciles per controller"},
    {F(reconcile_errors_total), C, "controller_runtime_reconcile_errors_total", l_ctl, NULL, 0,
     "Total number of reconciliation errors per controller"},
    {F(reconcile_panics_total), C, "controller_runtime_reconcile_panics_total", l_ctl, NULL, 0,
     "Total number of reconciliation panics per controller"},
    {F(reconcile_time_seconds), H, "controller_runtime_reconcile_time_seconds", l_ctl,
     b_reconcile, N(b_reconcile), "Length of time per reconciliation per controller"},
    {F(reconcile_timeouts_total), C, "controller_runtime_reconcile_timeouts_total", l_ctl, NULL,
     0, "Total number of reconciliation timeouts per controller"},
    {F(reconcile_total), C, "controller_runtime_reconcile_total", l_ctl_result, NULL, 0,
     "Total number of reconciliations per controller"},
    {F(terminal_reconcile_errors_total), C, "controller_runtime_terminal_reconcile_errors_total",
     l_ctl, NULL, 0, "Total number of terminal reconciliation errors per controller"},
    {F(jobset_completed_total), C, "jobset_completed_total", l_jobset, NULL, 0,
     "The total number of completed JobSets"},
    {F(jobset_failed_total), C, "jobset_failed_total", l_jobset, NULL, 0,
     "The total number of failed JobSets"},
    {F(leader_election_master_status), G, "leader_election_master_status", l_name, NULL, 0,
     "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 "
     "indicates master. 'name' is the string used to identify the lease. Please make sure to "
     "group by name."},
    {F(process_cpu_seconds_total), C, "process_cpu_seconds_total", NULL, NULL, 0,
     "Total user and system CPU time spent in seconds."},
    {F(process_max_fds), G, "process_max_fds", NULL, NULL, 0,
     "Maximum number of open file descriptors."},
    {F(process_open_fds), G, "process_open_fds", NULL, NULL, 0,
     "Number of open file descriptors."},
    {F(process_resident_memory_bytes), G, "process_resident_memory_bytes", NULL, NULL, 0,
     "Resident memory size in bytes."},
    {F(process_start_time_seconds), G, "process_start_time_seconds", NULL, NULL, 0,
     "Start time of the process since unix epoch in seconds."},
    {F(process_virtual_memory_bytes), G, "process_virtual_memory_bytes", NULL, NULL, 0,
     "Virtual memory size in bytes."},
    {F(process_virtual_memory_max_bytes), G, "process_virtual_memory_max_bytes", NULL, NULL, 0,
     "Maximum amount of virtual memory available in bytes."},
    {F(rest_client_request_duration_seconds), H, "rest_client_request_duration_seconds",
     l_verb_host, b_request, N(b_request),
     "Request latency in seconds. Broken down by verb, and host."},
    {F(rest_client_requests_total), C, "rest_client_requests_total", l_request, NULL, 0,
     "Number of HTTP requests, partitioned by status code, method, and host."},
    {F(workqueue_adds_total), C, "workqueue_adds_total", l_queue, NULL, 0,
     "Total number of adds handled by workqueue"},
    {F(workqueue_depth), G, "workqueue_depth", l_depth, NULL, 0,
     "Current depth of workqueue by workqueue and priority"},
    {F(workqueue_longest_running_processor_seconds), G,
     "workqueue_longest_running_processor_seconds", l_queue, NULL, 0,
     "How many seconds has the longest running processor for workqueue been running."},
    {F(workqueue_queue_duration_seconds), H, "workqueue_queue_duration_seconds", l_queue, NULL,
     N_EXP_BUCKETS, "How long in seconds an item stays in workqueue before being requested"},
    {F(workqueue_retries_total), C, "workqueue_retries_total", l_queue, NULL, 0,
     "Total number of items added to the workqueue with a non-zero delay (rate-limited "
     "requeues, explicit RequeueAfter or AddAfter calls)"},
    {F(workqueue_unfinished_work_seconds), G, "workqueue_unfinished_work_seconds", l_queue, NULL,
     0,
     "How many seconds of work has been done that is in progress and hasn't been observed by "
     "work_duration. Large values indicate stuck threads. One can deduce the number of stuck "
     "threads by observing the rate at which this increases."},
    {F(workqueue_work_duration_seconds), H, "workqueue_work_duration_seconds", l_queue, NULL,
     N_EXP_BUCKETS, "How long in seconds processing an item from workqueue takes."},
};

static void collect(struct srv_mx *m, void *arg)
{
    (void)m;
    ctl_metrics_collect_process(arg);
}

int ctl_metrics_register(struct srv_mx *m, struct ctl_metrics *out)
{
    double exp_buckets[N_EXP_BUCKETS];
    double b = 10e-9;
    for (size_t i = 0; i < N_EXP_BUCKETS; i++, b *= 10)
        exp_buckets[i] = b;
    memset(out, 0, sizeof(*out));
    int rc = 0;
    for (size_t i = 0; i < N(specs); i++) {
        const struct spec *s = &specs[i];
        struct srv_mx_fam *f;
        if (s->type == C)
            f = srv_mx_counter(m, s->name, s->help, s->labels);
        else if (s->type == G)
            f = srv_mx_gauge(m, s->name, s->help, s->labels);
        else
            f = srv_mx_histogram(m, s->name, s->help, s->labels,
                             s->buckets ? s->buckets : exp_buckets, s->n_buckets);
        *(struct srv_mx_fam **)((char *)out + s->off) = f;
        if (!f)
            rc = -ENOMEM;
    }
    srv_mx_set_collector(m, collect, out);
    return rc;
}

void ctl_metrics_init_controller(struct ctl_metrics *k, const char *controller, int workers)
{
    static const char *const results[] = {"error", "requeue_after", "requeue", "success"};
    for (size_t i = 0; i < N(results); i++)
        srv_mx_add(k->reconcile_total, 0, controller, results[i]);
    srv_mx_add(k->reconcile_errors_total, 0, controller);
    srv_mx_add(k->terminal_reconcile_errors_total, 0, controller);
    srv_mx_add(k->reconcile_panics_total, 0, controller);
    srv_mx_add(k->reconcile_timeouts_total, 0, controller);
    srv_mx_set(k->max_concurrent_reconciles, workers, controller);
    srv_mx_set(k->active_workers, 0, controller);
}

void ctl_metrics_init_queue(struct ctl_metrics *k, const char *name)
{
    srv_mx_touch(k->workqueue_adds_total, name, name);
    srv_mx_touch(k->workqueue_queue_duration_seconds, name, name);
    srv_mx_touch(k->workqueue_work_duration_seconds, name, name);
    srv_mx_touch(k->workqueue_unfinished_work_seconds, name, name);
    srv_mx_touch(k->workqueue_longest_running_processor_seconds, name, name);
    srv_mx_touch(k->workqueue_retries_total, name, name);
}

/* ---- the process ------------------------------------------------------------------------ */

/* /proc/stat's btime: the boot time in seconds since the epoch; 0 if unreadable. */
static double boot_time(void)
{
    FILE *f = fopen("/proc/stat", "re");
    char line[256];
    double t = 0;
    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, "btime %lf", &t) == 1)
            break;
    if (f)
        fclose(f);
    return t;
}

/* /proc/self/stat (proc(5)): CPU seconds, start time, virtual and resident bytes. */
static void collect_stat(struct ctl_metrics *k)
{
    char buf[1024];
    FILE *f = fopen("/proc/self/stat", "re");
    size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the command name may hold anything */
    unsigned long long utime, stime, start, vsize;
    long long rss;
    /* After ") ": state (3), then fields 4-13 skipped, utime (14), stime (15), 16-21 skipped,
     * starttime (22), vsize (23), rss (24). */
    if (!p || sscanf(p + 1,
                     " %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu %llu %*s %*s %*s %*s %*s "
                     "%*s %llu %llu %lld",
                     &utime, &stime, &start, &vsize, &rss) != 5)
        return;
    double hz = (double)sysconf(_SC_CLK_TCK);
    srv_mx_set(k->process_cpu_seconds_total, (double)(utime + stime) / hz);
    srv_mx_set(k->process_start_time_seconds, boot_time() + (double)start / hz);
    srv_mx_set(k->process_virtual_memory_bytes, (double)vsize);
    srv_mx_set(k->process_resident_memory_bytes, (double)rss * (double)sysconf(_SC_PAGESIZE));
}

static double open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return 0;
    double n = 0;
    for (struct dirent *de; (de = readdir(d));)
        n += de->d_name[0] != '.';
    closedir(d);
    return n;
}

/* A soft limit as procfs reads /proc/self/limits: "unlimited" is 2^64-1. */
static double soft_limit(int resource)
{
    struct rlimit rl;
    if (getrlimit(resource, &rl) != 0)
        return 0;
    return rl.rlim_cur == RLIM_INFINITY ? 18446744073709551615.0 : (double)rl.rlim_cur;
}

void ctl_metrics_collect_process(struct ctl_metrics *k)
{
    collect_stat(k);
    srv_mx_set(k->process_open_fds, open_fds());
    srv_mx_set(k->process_max_fds, soft_limit(RLIMIT_NOFILE));
    srv_mx_set(k->process_virtual_memory_max_bytes, soft_limit(RLIMIT_AS));
}
