/* plan_exec: the order of a plan's steps and what a failure suppresses, with a recording
 * backend whose operations can be made to fail one by one. */
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/plan_exec.h"
#include "obj/tree/jx.h"

/* ---- a recording backend ------------------------------------------------------------------ */

struct rec_backend {
    char log[4096];       /* one line per call */
    const char *fail[4];  /* calls (as logged, without the newline) that fail with -EIO */
};

static int record(struct rec_backend *b, const char *line, struct err *e)
{
    size_t n = strlen(b->log);
    snprintf(b->log + n, sizeof(b->log) - n, "%s\n", line);
    for (size_t i = 0; i < 4 && b->fail[i]; i++)
        if (!strcmp(b->fail[i], line))
            return err_set(e, -EIO, "%s refused", line);
    return 0;
}

static int rb_call(void *ctx, const char *verb, const char *name, struct err *e)
{
    char line[256];
    snprintf(line, sizeof(line), "%s %s", verb, name);
    return record(ctx, line, e);
}

static const char *meta_name(const json_t *o)
{
    return jx_str(jx_obj(o, "metadata"), "name");
}

static int rb_delete_job(void *ctx, const char *name, bool fg, struct err *e)
{
    return rb_call(ctx, fg ? "delete-job(fg)" : "delete-job", name, e);
}

static int rb_create_service(void *ctx, json_t *svc, struct err *e)
{
    return rb_call(ctx, "create-service", meta_name(svc), e);
}

static int rb_create_pvc(void *ctx, json_t *pvc, struct err *e)
{
    return rb_call(ctx, "create-pvc", meta_name(pvc), e);
}

static int rb_create_job(void *ctx, json_t *job, struct err *e)
{
    return rb_call(ctx, "create-job", meta_name(job), e);
}

static int rb_update_job(void *ctx, const struct rec_patch *p, struct err *e)
{
    return rb_call(ctx, p->suspend ? "suspend-job" : "resume-job", p->name, e);
}

static int rb_write_status(void *ctx, json_t *status, struct err *e)
{
    return rb_call(ctx, "write-status", jx_str(status, "terminalState"), e);
}

static void rb_record_event(void *ctx, enum rec_event_type t, const char *reason,
                            const char *msg)
{
    char line[512];
    snprintf(line, sizeof(line), "event %s %s: %s", t == REC_EVENT_WARNING ? "Warning" : "Normal",
             reason, msg);
    record(ctx, line, NULL);
}

static int rb_delete_jobset(void *ctx, struct err *e)
{
    return rb_call(ctx, "delete-jobset", "js", e);
}

static const struct rec_ops rb_ops = {
    .delete_job = rb_delete_job,
    .create_service = rb_create_service,
    .create_pvc = rb_create_pvc,
    .create_job = rb_create_job,
    .update_job = rb_update_job,
    .write_status = rb_write_status,
    .record_event = rb_record_event,
    .delete_jobset = rb_delete_jobset,
};

/* ---- plans -------------------------------------------------------------------------------- */

static json_t *named(const char *kind, const char *name)
{
    return json_pack("{s:s,s:{s:s}}", "kind", kind, "metadata", "name", name);
}

/* Two deletes, a Service, two creates, one patch, a changed status, two events, TTL expired. */
static void full_plan(struct rec_plan *p)
{
    memset(p, 0, sizeof(*p));
    p->requeue_after_ms = -1;
    p->deletes = calloc(2, sizeof(*p->deletes));
    p->deletes[0] = (struct rec_delete){strdup("js-old-0"), true};
    p->deletes[1] = (struct rec_delete){strdup("js-old-1"), true};
    p->n_deletes = 2;
    p->service = named("Service", "js");
    p->pvcs = json_pack("[o]", named("PersistentVolumeClaim", "data-js"));
    p->creates = calloc(2, sizeof(*p->creates));
    p->creates[0] = named("Job", "js-w-0");
    p->creates[1] = named("Job", "js-w-1");
    p->n_creates = 2;
    p->patches = calloc(1, sizeof(*p->patches));
    p->patches[0] =
        (struct rec_patch){strdup("js-l-0"), true, false, named("Job", "js-l-0"), false};
    p->n_patches = 1;
    p->status = json_pack("{s:s}", "terminalState", "Failed");
    p->status_changed = true;
    p->events = calloc(2, sizeof(*p->events));
    p->events[0] = (struct rec_event){REC_EVENT_NORMAL, strdup("A"), strdup("first")};
    p->events[1] = (struct rec_event){REC_EVENT_WARNING, strdup("B"), strdup("second")};
    p->n_events = 2;
    p->delete_jobset = true;
}

static const char full_log[] = "delete-job(fg) js-old-0\n"
                               "delete-job(fg) js-old-1\n"
                               "create-service js\n"
                               "create-pvc data-js\n"
                               "create-job js-w-0\n"
                               "create-job js-w-1\n"
                               "suspend-job js-l-0\n"
                               "write-status Failed\n"
                               "event Normal A: first\n"
                               "event Warning B: second\n"
                               "delete-jobset js\n";

/* Runs the full plan with the given failing calls; returns the result code. */
static int run_full(struct rec_backend *b, struct rec_exec_result *res, struct err *e)
{
    struct rec_plan p;
    full_plan(&p);
    int rc = rec_plan_execute(&p, &rb_ops, b, res, e);
    rec_plan_release(&p);
    return rc;
}

/* ---- tests -------------------------------------------------------------------------------- */

static void test_order(void **state)
{
    (void)state;
    struct rec_backend b = {0};
    struct rec_exec_result res = {0};
    struct err e = {{0}};
    assert_int_equal(run_full(&b, &res, &e), 0);
    assert_string_equal(b.log, full_log);
    assert_true(res.changed);
    assert_true(res.status_written);
}

/* Upstream emits the queued events only after the status write succeeded. */
static void test_failed_status_write_suppresses_events(void **state)
{
    (void)state;
    struct rec_backend b = {.fail = {"write-status Failed"}};
    struct rec_exec_result res = {.changed = true};
    struct err e = {{0}};
    assert_int_equal(run_full(&b, &res, &e), -EIO);
    assert_string_equal(b.log, "delete-job(fg) js-old-0\n"
                               "delete-job(fg) js-old-1\n"
                               "create-service js\n"
                               "create-pvc data-js\n"
                               "create-job js-w-0\n"
                               "create-job js-w-1\n"
                               "suspend-job js-l-0\n"
                               "write-status Failed\n");
    assert_string_equal(e.msg, "writing status: write-status Failed refused");
    assert_true(res.changed); /* untouched on failure */
}

/* Every create is attempted; the failures become one JobCreationFailed event, joined as Go's
 * errors.Join joins them, and nothing after the creates runs. */
static void test_create_failures_joined(void **state)
{
    (void)state;
    struct rec_backend b = {.fail = {"create-job js-w-0", "create-job js-w-1"}};
    struct err e = {{0}};
    assert_int_equal(run_full(&b, NULL, &e), -EIO);
    assert_string_equal(b.log,
                        "delete-job(fg) js-old-0\n"
                        "delete-job(fg) js-old-1\n"
                        "create-service js\n"
                        "create-pvc data-js\n"
                        "create-job js-w-0\n"
                        "create-job js-w-1\n"
                        "event Warning JobCreationFailed: job \"js-w-0\" creation failed with "
                        "error: create-job js-w-0 refused\n"
                        "job \"js-w-1\" creation failed with error: create-job js-w-1 refused\n");
    assert_string_equal(e.msg, "creating jobs: create-job js-w-0 refused");
}

static void test_service_failure(void **state)
{
    (void)state;
    struct rec_backend b = {.fail = {"create-service js"}};
    struct err e = {{0}};
    assert_int_equal(run_full(&b, NULL, &e), -EIO);
    assert_string_equal(b.log, "delete-job(fg) js-old-0\n"
                               "delete-job(fg) js-old-1\n"
                               "create-service js\n"
                               "event Warning HeadlessServiceCreationFailed: create-service js "
                               "refused\n");
    assert_string_equal(e.msg, "creating headless service: create-service js refused");
}

static void test_pvc_failure(void **state)
{
    (void)state;
    struct rec_backend b = {.fail = {"create-pvc data-js"}};
    struct err e = {{0}};
    assert_int_equal(run_full(&b, NULL, &e), -EIO);
    assert_string_equal(b.log, "delete-job(fg) js-old-0\n"
                               "delete-job(fg) js-old-1\n"
                               "create-service js\n"
                               "create-pvc data-js\n"
                               "event Warning PVCCreationFailed: create-pvc data-js refused\n");
    assert_string_equal(e.msg, "creating persistent volume claim: create-pvc data-js refused");
}

static void test_delete_failure_stops(void **state)
{
    (void)state;
    struct rec_backend b = {.fail = {"delete-job(fg) js-old-0"}};
    struct err e = {{0}};
    assert_int_equal(run_full(&b, NULL, &e), -EIO);
    assert_string_equal(b.log, "delete-job(fg) js-old-0\n");
    assert_string_equal(e.msg, "deleting job: delete-job(fg) js-old-0 refused");
}

static void test_patch_failure_stops(void **state)
{
    (void)state;
    struct rec_backend b = {.fail = {"suspend-job js-l-0"}};
    struct err e = {{0}};
    assert_int_equal(run_full(&b, NULL, &e), -EIO);
    assert_null(strstr(b.log, "write-status"));
    assert_null(strstr(b.log, "event"));
    assert_string_equal(e.msg, "updating job: suspend-job js-l-0 refused");
}

static void test_delete_jobset_failure(void **state)
{
    (void)state;
    struct rec_backend b = {.fail = {"delete-jobset js"}};
    struct err e = {{0}};
    assert_int_equal(run_full(&b, NULL, &e), -EIO);
    assert_string_equal(b.log, full_log); /* the events went out: the status was written */
    assert_string_equal(e.msg, "deleting jobset: delete-jobset js refused");
}

/* An unchanged status is not written, and the events (if any) still go out. */
static void test_unchanged_status(void **state)
{
    (void)state;
    struct rec_plan p = {.requeue_after_ms = -1};
    struct rec_backend b = {0};
    struct rec_exec_result res = {.changed = true, .status_written = true};
    p.status = json_object();
    p.events = calloc(1, sizeof(*p.events));
    p.events[0] = (struct rec_event){REC_EVENT_NORMAL, strdup("R"), strdup("m")};
    p.n_events = 1;
    assert_int_equal(rec_plan_execute(&p, &rb_ops, &b, &res, NULL), 0);
    assert_string_equal(b.log, "event Normal R: m\n");
    assert_false(res.changed);
    assert_false(res.status_written);
    rec_plan_release(&p);
}

static void test_skipped_plan(void **state)
{
    (void)state;
    struct rec_plan p = {.skipped = true, .requeue_after_ms = -1};
    struct rec_backend b = {0};
    struct rec_exec_result res;
    assert_int_equal(rec_plan_execute(&p, &rb_ops, &b, &res, NULL), 0);
    assert_string_equal(b.log, "");
    assert_false(res.changed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_failed_status_write_suppresses_events),
        cmocka_unit_test(test_create_failures_joined),
        cmocka_unit_test(test_service_failure),
        cmocka_unit_test(test_pvc_failure),
        cmocka_unit_test(test_delete_failure_stops),
        cmocka_unit_test(test_patch_failure_stops),
        cmocka_unit_test(test_delete_jobset_failure),
        cmocka_unit_test(test_unchanged_status),
        cmocka_unit_test(test_skipped_plan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
