/* metrics: registration rules, numbers as Go formats them, label escaping and order, histogram
 * buckets, the rendered text byte for byte (golden strings checked against client_golang's
 * output), many series. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "kube/ctl/ctl_metrics.h"
#include "kube/serve/srv_mx.h"

static const char *num(double v)
{
    static char buf[SRV_MX_NUM_MAX];
    return srv_mx_format_number(v, buf);
}

/* Go: strconv.FormatFloat(v, 'g', -1, 64), with expfmt's 0, 1, -1, NaN and Inf cases. */
static void test_numbers(void **state)
{
    (void)state;
    assert_string_equal(num(0), "0");
    assert_string_equal(num(-0.0), "0");
    assert_string_equal(num(1), "1");
    assert_string_equal(num(-1), "-1");
    assert_string_equal(num(0.5), "0.5");
    assert_string_equal(num(2), "2");
    assert_string_equal(num(42), "42");
    assert_string_equal(num(-2.5), "-2.5");
    assert_string_equal(num(0.1), "0.1");
    assert_string_equal(num(0.005), "0.005");
    assert_string_equal(num(0.0001), "0.0001");
    assert_string_equal(num(0.00001), "1e-05");
    assert_string_equal(num(123456), "123456");
    assert_string_equal(num(123456.5), "123456.5");
    assert_string_equal(num(999999), "999999");
    assert_string_equal(num(1e6), "1e+06");
    assert_string_equal(num(1234567), "1.234567e+06");
    assert_string_equal(num(4.4462080e+07), "4.446208e+07");
    assert_string_equal(num(1.7e9), "1.7e+09");
    assert_string_equal(num(1e100), "1e+100");
    assert_string_equal(num(-1.5e-7), "-1.5e-07");
    assert_string_equal(num(0.1 + 0.2), "0.30000000000000004");
    assert_string_equal(num(18446744073709551615.0), "1.8446744073709552e+19");
    assert_string_equal(num(INFINITY), "+Inf");
    assert_string_equal(num(-INFINITY), "-Inf");
    assert_string_equal(num(NAN), "NaN");
    /* client_golang's ExponentialBuckets(10e-9, 10, 12) computes these by repeated *10. */
    double b = 10e-9;
    const char *want[] = {"1e-08", "1e-07", "1e-06", "9.999999999999999e-06",
                          "9.999999999999999e-05", "0.001", "0.01", "0.1", "1", "10", "100",
                          "1000"};
    for (size_t i = 0; i < 12; i++, b *= 10)
        assert_string_equal(num(b), want[i]);
}

static void test_registration(void **state)
{
    (void)state;
    struct srv_mx *m = srv_mx_new();
    assert_non_null(m);
    const char *const l2[] = {"jobset_name", "namespace", NULL};
    const char *const l2b[] = {"namespace", "jobset_name", NULL};
    struct srv_mx_fam *c = srv_mx_counter(m, "jobset_failed_total", "help", l2);
    assert_non_null(c);
    assert_ptr_equal(srv_mx_counter(m, "jobset_failed_total", "other help", l2), c);
    assert_null(srv_mx_gauge(m, "jobset_failed_total", "help", l2));   /* other type */
    assert_null(srv_mx_counter(m, "jobset_failed_total", "help", l2b)); /* other labels */
    assert_null(srv_mx_counter(m, "jobset_failed_total", "help", NULL));
    /* invalid names */
    assert_null(srv_mx_counter(m, "", "h", NULL));
    assert_null(srv_mx_counter(m, "1abc", "h", NULL));
    assert_null(srv_mx_counter(m, "a-b", "h", NULL));
    assert_non_null(srv_mx_counter(m, "a:b_c", "h", NULL));
    const char *const bad1[] = {"a:b", NULL}, *const bad2[] = {"__x", NULL},
                      *const dup[] = {"a", "a", NULL}, *const le[] = {"le", NULL};
    assert_null(srv_mx_counter(m, "x1", "h", bad1));
    assert_null(srv_mx_counter(m, "x2", "h", bad2));
    assert_null(srv_mx_counter(m, "x3", "h", dup));
    assert_non_null(srv_mx_counter(m, "x4", "h", le)); /* "le" only matters to histograms */
    double bounds[] = {1, 2, 2};
    assert_null(srv_mx_histogram(m, "h1", "h", le, bounds, 2));
    assert_null(srv_mx_histogram(m, "h2", "h", NULL, bounds, 3)); /* not increasing */
    double inf[] = {INFINITY};
    assert_null(srv_mx_histogram(m, "h3", "h", NULL, inf, 1)); /* nothing but +Inf */
    struct srv_mx_fam *h = srv_mx_histogram(m, "h4", "h", NULL, bounds, 2);
    assert_non_null(h);
    assert_ptr_equal(srv_mx_histogram(m, "h4", "h", NULL, bounds, 2), h);
    assert_null(srv_mx_histogram(m, "h4", "h", NULL, bounds, 1)); /* other buckets */
    /* Operations on NULL or on the wrong type do nothing. */
    srv_mx_add(NULL, 1);
    srv_mx_observe(c, 1, "a", "b");
    srv_mx_set(h, 1);
    assert_int_equal(srv_mx_series_count(c), 0);
    assert_true(srv_mx_value(h) == 0);
    srv_mx_free(m);
    srv_mx_free(NULL);
}

static void test_values(void **state)
{
    (void)state;
    struct srv_mx *m = srv_mx_new();
    const char *const l[] = {"name", "controller", NULL};
    struct srv_mx_fam *c = srv_mx_counter(m, "adds_total", "h", l);
    struct srv_mx_fam *g = srv_mx_gauge(m, "depth", "h", l);
    srv_mx_add(c, 1, "q", "ctl");
    srv_mx_add(c, 2.5, "q", "ctl");
    srv_mx_add(c, -1, "q", "ctl"); /* counters never go down */
    srv_mx_add(c, NAN, "q", "ctl");
    srv_mx_add(c, 1, "other", "ctl");
    assert_true(srv_mx_value(c, "q", "ctl") == 3.5);
    assert_true(srv_mx_value(c, "other", "ctl") == 1);
    assert_true(srv_mx_value(c, "ctl", "q") == 0); /* order matters */
    assert_int_equal(srv_mx_series_count(c), 2);
    srv_mx_add(g, 5, "q", "ctl");
    srv_mx_add(g, -2, "q", "ctl");
    assert_true(srv_mx_value(g, "q", "ctl") == 3);
    srv_mx_set(g, -7, "q", "ctl");
    assert_true(srv_mx_value(g, "q", "ctl") == -7);
    srv_mx_set(c, 10, "q", "ctl");
    assert_true(srv_mx_value(c, "q", "ctl") == 10);
    srv_mx_touch(g, "new", "ctl");
    assert_int_equal(srv_mx_series_count(g), 2);
    assert_true(srv_mx_value(g, "new", "ctl") == 0);
    srv_mx_add(g, 1, NULL, "ctl"); /* NULL is "" */
    assert_true(srv_mx_value(g, "", "ctl") == 1);
    srv_mx_free(m);
}

static void check_render(struct srv_mx *m, const char *want)
{
    char *got = srv_mx_render(m);
    assert_non_null(got);
    if (strcmp(got, want) != 0)
        fail_msg("rendered:\n%s\nwanted:\n%s", got, want);
    free(got);
}

/* Series sorted by label values, labels by name; a labelled family without series is left
 * out; one without labels shows 0. */
static void test_render_counter_gauge(void **state)
{
    (void)state;
    struct srv_mx *m = srv_mx_new();
    const char *const l[] = {"name", "controller", NULL};
    struct srv_mx_fam *c = srv_mx_counter(m, "workqueue_adds_total", "Total number of adds", l);
    srv_mx_gauge(m, "empty", "never set", l);
    struct srv_mx_fam *g = srv_mx_gauge(m, "up", "Multi\nline \\ help \"quoted\"", NULL);
    srv_mx_add(c, 3, "zeta", "b");
    srv_mx_add(c, 1234567, "alpha", "b");
    srv_mx_add(c, 1, "alpha", "a");
    srv_mx_set(g, 0.25);
    check_render(m, "# HELP workqueue_adds_total Total number of adds\n"
                    "# TYPE workqueue_adds_total counter\n"
                    "workqueue_adds_total{controller=\"a\",name=\"alpha\"} 1\n"
                    "workqueue_adds_total{controller=\"b\",name=\"alpha\"} 1.234567e+06\n"
                    "workqueue_adds_total{controller=\"b\",name=\"zeta\"} 3\n"
                    "# HELP up Multi\\nline \\\\ help \"quoted\"\n"
                    "# TYPE up gauge\n"
                    "up 0.25\n");
    srv_mx_free(m);
}

static void test_render_escaping(void **state)
{
    (void)state;
    struct srv_mx *m = srv_mx_new();
    const char *const l[] = {"v", NULL};
    struct srv_mx_fam *c = srv_mx_counter(m, "esc_total", "", l);
    srv_mx_add(c, 1, "a\\b\"c\nd");
    srv_mx_add(c, 2, "");
    srv_mx_add(c, 3, "é");
    check_render(m, "# HELP esc_total \n"
                    "# TYPE esc_total counter\n"
                    "esc_total{v=\"\"} 2\n"
                    "esc_total{v=\"a\\\\b\\\"c\\nd\"} 1\n"
                    "esc_total{v=\"é\"} 3\n");
    srv_mx_free(m);
}

static void test_render_histogram(void **state)
{
    (void)state;
    struct srv_mx *m = srv_mx_new();
    const char *const l[] = {"controller", NULL};
    double b[] = {0.005, 0.5, 1, 2.5, INFINITY};
    struct srv_mx_fam *h = srv_mx_histogram(m, "reconcile_time_seconds", "Length", l, b, 5);
    assert_non_null(h);
    srv_mx_observe(h, 0.001, "jobset");
    srv_mx_observe(h, 0.5, "jobset"); /* equal to a bound: in that bucket */
    srv_mx_observe(h, 0.75, "jobset");
    srv_mx_observe(h, 100, "jobset"); /* only +Inf */
    srv_mx_touch(h, "pod");
    struct srv_mx_fam *nolabel = srv_mx_histogram(m, "plain_seconds", "p", NULL, NULL, 0);
    srv_mx_observe(nolabel, 3);
    assert_true(srv_mx_value(h, "jobset") == 4);
    check_render(m, "# HELP reconcile_time_seconds Length\n"
                    "# TYPE reconcile_time_seconds histogram\n"
                    "reconcile_time_seconds_bucket{controller=\"jobset\",le=\"0.005\"} 1\n"
                    "reconcile_time_seconds_bucket{controller=\"jobset\",le=\"0.5\"} 2\n"
                    "reconcile_time_seconds_bucket{controller=\"jobset\",le=\"1\"} 3\n"
                    "reconcile_time_seconds_bucket{controller=\"jobset\",le=\"2.5\"} 3\n"
                    "reconcile_time_seconds_bucket{controller=\"jobset\",le=\"+Inf\"} 4\n"
                    "reconcile_time_seconds_sum{controller=\"jobset\"} 101.251\n"
                    "reconcile_time_seconds_count{controller=\"jobset\"} 4\n"
                    "reconcile_time_seconds_bucket{controller=\"pod\",le=\"0.005\"} 0\n"
                    "reconcile_time_seconds_bucket{controller=\"pod\",le=\"0.5\"} 0\n"
                    "reconcile_time_seconds_bucket{controller=\"pod\",le=\"1\"} 0\n"
                    "reconcile_time_seconds_bucket{controller=\"pod\",le=\"2.5\"} 0\n"
                    "reconcile_time_seconds_bucket{controller=\"pod\",le=\"+Inf\"} 0\n"
                    "reconcile_time_seconds_sum{controller=\"pod\"} 0\n"
                    "reconcile_time_seconds_count{controller=\"pod\"} 0\n"
                    "# HELP plain_seconds p\n"
                    "# TYPE plain_seconds histogram\n"
                    "plain_seconds_bucket{le=\"0.005\"} 0\n"
                    "plain_seconds_bucket{le=\"0.01\"} 0\n"
                    "plain_seconds_bucket{le=\"0.025\"} 0\n"
                    "plain_seconds_bucket{le=\"0.05\"} 0\n"
                    "plain_seconds_bucket{le=\"0.1\"} 0\n"
                    "plain_seconds_bucket{le=\"0.25\"} 0\n"
                    "plain_seconds_bucket{le=\"0.5\"} 0\n"
                    "plain_seconds_bucket{le=\"1\"} 0\n"
                    "plain_seconds_bucket{le=\"2.5\"} 0\n"
                    "plain_seconds_bucket{le=\"5\"} 1\n"
                    "plain_seconds_bucket{le=\"10\"} 1\n"
                    "plain_seconds_bucket{le=\"+Inf\"} 1\n"
                    "plain_seconds_sum 3\n"
                    "plain_seconds_count 1\n");
    srv_mx_free(m);
}

static int collected;

static void collect(struct srv_mx *m, void *arg)
{
    (void)m;
    collected++;
    srv_mx_set(arg, collected);
}

static void test_collector_and_empty(void **state)
{
    (void)state;
    struct srv_mx *m = srv_mx_new();
    check_render(m, "");
    struct srv_mx_fam *g = srv_mx_gauge(m, "renders", "h", NULL);
    srv_mx_set_collector(m, collect, g);
    check_render(m, "# HELP renders h\n# TYPE renders gauge\nrenders 1\n");
    check_render(m, "# HELP renders h\n# TYPE renders gauge\nrenders 2\n");
    srv_mx_set_collector(m, NULL, NULL);
    check_render(m, "# HELP renders h\n# TYPE renders gauge\nrenders 2\n");
    assert_null(srv_mx_render(NULL));
    srv_mx_free(m);
}

/* Thousands of series: lookups find each one, the text is sorted. */
static void test_many_series(void **state)
{
    (void)state;
    struct srv_mx *m = srv_mx_new();
    const char *const l[] = {"jobset_name", "namespace", NULL};
    struct srv_mx_fam *c = srv_mx_counter(m, "jobset_completed_total", "h", l);
    enum { N = 20000 };
    char name[32];
    for (int round = 0; round < 2; round++)
        for (int i = N - 1; i >= 0; i--) {
            snprintf(name, sizeof(name), "js-%05d", i);
            srv_mx_add(c, 1, name, i % 2 ? "odd" : "even");
        }
    assert_int_equal(srv_mx_series_count(c), N);
    for (int i = 0; i < N; i += 997) {
        snprintf(name, sizeof(name), "js-%05d", i);
        assert_true(srv_mx_value(c, name, i % 2 ? "odd" : "even") == 2);
        assert_true(srv_mx_value(c, name, i % 2 ? "even" : "odd") == 0);
    }
    char *text = srv_mx_render(m);
    assert_non_null(text);
    const char *first = strstr(text, "jobset_completed_total{");
    assert_non_null(first);
    assert_memory_equal(first, "jobset_completed_total{jobset_name=\"js-00000\",namespace=\"even\"} 2\n",
                        66);
    size_t lines = 0;
    const char *prev = NULL;
    for (const char *p = first; *p; p = strchr(p, '\n') + 1, lines++) {
        if (prev)
            assert_true(strncmp(prev, p, 60) < 0);
        prev = p;
    }
    assert_int_equal(lines, N);
    free(text);
    srv_mx_free(m);
}

static bool has_line(const char *text, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = text; (p = strstr(p, line)); p++)
        if ((p == text || p[-1] == '\n') && p[n] == '\n')
            return true;
    return false;
}

/* The controller's series: every family registered, in name order, with upstream's labels and
 * buckets; the series controller-runtime creates at start; the process read from /proc. */
static void test_kmetrics(void **state)
{
    (void)state;
    struct srv_mx *m = srv_mx_new();
    struct ctl_metrics k;
    assert_int_equal(ctl_metrics_register(m, &k), 0);
    for (struct srv_mx_fam **f = (struct srv_mx_fam **)&k; f < (struct srv_mx_fam **)(&k + 1); f++)
        assert_non_null(*f);
    ctl_metrics_init_controller(&k, "jobset", 1);
    ctl_metrics_init_queue(&k, "jobset");
    srv_mx_add(k.jobset_failed_total, 1, "js", "ns");
    srv_mx_add(k.rest_client_requests_total, 1, "201", "POST", "10.0.0.1:6443");
    srv_mx_observe(k.rest_client_request_duration_seconds, 0.02, "POST", "10.0.0.1:6443");
    srv_mx_set(k.leader_election_master_status, 1, "6d4f6a47.x-k8s.io");
    srv_mx_add(k.workqueue_depth, 1, "jobset", "jobset", "0");
    srv_mx_observe(k.reconcile_time_seconds, 0.003, "jobset");
    char *text = srv_mx_render(m);
    assert_non_null(text);
    const char *want[] = {
        "controller_runtime_active_workers{controller=\"jobset\"} 0",
        "controller_runtime_max_concurrent_reconciles{controller=\"jobset\"} 1",
        "controller_runtime_reconcile_errors_total{controller=\"jobset\"} 0",
        "controller_runtime_reconcile_panics_total{controller=\"jobset\"} 0",
        "controller_runtime_reconcile_time_seconds_bucket{controller=\"jobset\",le=\"0.005\"} 1",
        "controller_runtime_reconcile_time_seconds_bucket{controller=\"jobset\",le=\"60\"} 1",
        "controller_runtime_reconcile_timeouts_total{controller=\"jobset\"} 0",
        "controller_runtime_reconcile_total{controller=\"jobset\",result=\"error\"} 0",
        "controller_runtime_reconcile_total{controller=\"jobset\",result=\"requeue\"} 0",
        "controller_runtime_reconcile_total{controller=\"jobset\",result=\"requeue_after\"} 0",
        "controller_runtime_reconcile_total{controller=\"jobset\",result=\"success\"} 0",
        "controller_runtime_terminal_reconcile_errors_total{controller=\"jobset\"} 0",
        "# HELP jobset_failed_total The total number of failed JobSets",
        "jobset_failed_total{jobset_name=\"js\",namespace=\"ns\"} 1",
        "leader_election_master_status{name=\"6d4f6a47.x-k8s.io\"} 1",
        "# TYPE process_cpu_seconds_total counter",
        "rest_client_request_duration_seconds_bucket{host=\"10.0.0.1:6443\",verb=\"POST\",le=\"0.025\"} 1",
        "rest_client_requests_total{code=\"201\",host=\"10.0.0.1:6443\",method=\"POST\"} 1",
        "workqueue_adds_total{controller=\"jobset\",name=\"jobset\"} 0",
        "workqueue_depth{controller=\"jobset\",name=\"jobset\",priority=\"0\"} 1",
        "workqueue_queue_duration_seconds_bucket{controller=\"jobset\",name=\"jobset\",le=\"9.999999999999999e-06\"} 0",
        "workqueue_work_duration_seconds_bucket{controller=\"jobset\",name=\"jobset\",le=\"1000\"} 0",
        "workqueue_work_duration_seconds_count{controller=\"jobset\",name=\"jobset\"} 0",
        "workqueue_retries_total{controller=\"jobset\",name=\"jobset\"} 0",
        "workqueue_unfinished_work_seconds{controller=\"jobset\",name=\"jobset\"} 0",
        "workqueue_longest_running_processor_seconds{controller=\"jobset\",name=\"jobset\"} 0",
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        if (!has_line(text, want[i]))
            fail_msg("missing line: %s\n%s", want[i], text);
    assert_null(strstr(text, "jobset_completed_total")); /* no series yet */
    /* Families in name order. */
    const char *prev = "";
    for (const char *p = text; (p = strstr(p, "# TYPE ")); p++) {
        assert_true(strncmp(prev, p + 7, strcspn(p + 7, " ")) < 0 || !*prev);
        prev = p + 7;
    }
    free(text);
    /* The process as /proc tells it. */
    assert_true(srv_mx_value(k.process_resident_memory_bytes) > 100000);
    assert_true(srv_mx_value(k.process_virtual_memory_bytes) >= srv_mx_value(k.process_resident_memory_bytes));
    assert_true(srv_mx_value(k.process_open_fds) >= 3);
    assert_true(srv_mx_value(k.process_max_fds) >= srv_mx_value(k.process_open_fds));
    assert_true(srv_mx_value(k.process_cpu_seconds_total) >= 0);
    struct rlimit as;
    if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur == RLIM_INFINITY)
        assert_true(srv_mx_value(k.process_virtual_memory_max_bytes) == 18446744073709551615.0);
    double start = srv_mx_value(k.process_start_time_seconds), now = (double)time(NULL);
    assert_true(start > now - 3600 && start < now + 5);
    srv_mx_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_registration),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_render_counter_gauge),
        cmocka_unit_test(test_render_escaping),
        cmocka_unit_test(test_render_histogram),
        cmocka_unit_test(test_collector_and_empty),
        cmocka_unit_test(test_many_series),
        cmocka_unit_test(test_kmetrics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
