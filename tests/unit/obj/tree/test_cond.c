/* cond: status conditions found, tested, written and set by the three update rules
 * (meta.SetStatusCondition, JobSet's updateCondition, Kubeflow's setCondition), key order
 * included: the lists are compared as compact JSON text. */
#include "testutil.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "obj/tree/cond.h"

#define T0 "2026-01-01T00:00:00Z"
#define T1 "2026-01-01T01:00:00Z"

/* A holder {"conditions": <list>} from a quoted JSON list (NULL: an empty holder). */
static json_t *holder(const char *list)
{
    json_t *h = json_object();
    assert_non_null(h);
    if (list)
        assert_int_equal(json_object_set_new(h, "conditions", tu_qjson(list)), 0);
    return h;
}

/* The holder's list as compact text equals `want` (quoted JSON; NULL: no list at all). */
static void expect_list(const json_t *h, const char *want)
{
    if (!want) {
        assert_null(json_object_get(h, "conditions"));
        return;
    }
    json_t *w = tu_qjson(want);
    char *got = json_dumps(json_object_get(h, "conditions"), JSON_COMPACT);
    char *exp = json_dumps(w, JSON_COMPACT);
    assert_non_null(got);
    if (strcmp(got, exp) != 0)
        fail_msg("want %s\n got %s", exp, got);
    free(got);
    free(exp);
    json_decref(w);
}

static void reading(void **state)
{
    (void)state;
    json_t *h = holder("[{'status':'True'},{'type':'A','status':'False'},"
                       "{'type':'B','status':'True','lastTransitionTime':'" T0 "'},"
                       "{'type':'A','status':'True'}]");
    size_t i = 99;
    assert_ptr_equal(cond_list(h), json_object_get(h, "conditions"));
    assert_ptr_equal(cond_find(h, "A", &i), json_array_get(cond_list(h), 1));
    assert_int_equal(i, 1); /* the first of its type */
    assert_null(cond_find(h, "C", NULL));
    assert_null(cond_find(h, NULL, NULL));
    assert_true(cond_is(h, "A", COND_FALSE));
    assert_false(cond_true(h, "A"));
    assert_true(cond_true(h, "B"));
    assert_false(cond_true(h, "C"));
    assert_string_equal(cond_transition(cond_find(h, "B", NULL)), T0);
    assert_null(cond_transition(cond_find(h, "A", NULL)));
    json_decref(h);

    h = tu_qjson("{'conditions':{'type':'A'}}"); /* not a list: no conditions */
    assert_null(cond_list(h));
    assert_null(cond_find(h, "A", NULL));
    assert_false(cond_true(NULL, "A"));
    json_decref(h);
}

/* cond_new as each kind lays its conditions out. */
static void layouts(void **state)
{
    (void)state;
    static const struct {
        struct cond c;
        const char *want;
    } rows[] = {
        {{"A", "True", "R", "m", T0, NULL, NULL, true},
         "{'type':'A','status':'True','lastTransitionTime':'" T0 "','reason':'R','message':'m'}"},
        {{"A", "True", "R", "m", T0, NULL, NULL, false},
         "{'type':'A','status':'True','reason':'R','message':'m','lastTransitionTime':'" T0 "'}"},
        {{"A", "False", "R", "m", T0, T1, NULL, false},
         "{'type':'A','status':'False','reason':'R','message':'m','lastUpdateTime':'" T1
         "','lastTransitionTime':'" T0 "'}"},
        {{"A", "True", NULL, NULL, T0, NULL, T0, false},
         "{'type':'A','status':'True','lastProbeTime':'" T0 "','lastTransitionTime':'" T0 "'}"},
        {{"A", "Unknown", "R", NULL, NULL, NULL, NULL, true},
         "{'type':'A','status':'Unknown','reason':'R'}"},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        json_t *c = cond_new(&rows[i].c), *w = tu_qjson(rows[i].want);
        char *got = json_dumps(c, JSON_COMPACT), *exp = json_dumps(w, JSON_COMPACT);
        assert_string_equal(got, exp);
        free(got);
        free(exp);
        json_decref(c);
        json_decref(w);
    }
    assert_null(cond_new(&(struct cond){.type = "A"}));
    assert_null(cond_new(&(struct cond){.status = "True"}));
}

static void writing(void **state)
{
    (void)state;
    const struct cond a = {.type = "A", .status = "True"}, b = {.type = "B", .status = "False"};
    json_t *h = tu_qjson("{'conditions':null}");
    assert_int_equal(cond_append(h, cond_new(&a)), 0); /* a list in place of what is not one */
    assert_int_equal(cond_append(h, cond_new(&a)), 0);
    assert_int_equal(cond_append(h, NULL), -ENOMEM);
    assert_int_equal(cond_append(NULL, cond_new(&a)), -ENOMEM);
    assert_int_equal(cond_replace(h, 0, cond_new(&b)), 0);
    expect_list(h, "[{'type':'B','status':'False'},{'type':'A','status':'True'}]");
    assert_int_equal(cond_remove(h, "C"), 0);
    assert_int_equal(cond_remove(h, "B"), 1);
    expect_list(h, "[{'type':'A','status':'True'}]");
    assert_int_equal(cond_list_set(h, json_array()), 0);
    expect_list(h, "[]");
    assert_int_equal(cond_list_set(h, NULL), -ENOMEM);
    json_decref(h);
}

/* ---- meta.SetStatusCondition -------------------------------------------------------------- */

static void set_meta(void **state)
{
    (void)state;
    struct cond c = {.type = "A", .status = "True", .reason = "R", .message = "m",
                     .transition = T1};
    json_t *h = holder(NULL);
    assert_int_equal(cond_set(h, &c), 1);
    expect_list(h, "[{'type':'A','status':'True','reason':'R','message':'m',"
                   "'lastTransitionTime':'" T1 "'}]");
    json_decref(h);

    /* in place: other keys kept, the time kept while the status stays */
    h = holder("[{'type':'A','observedGeneration':2,'status':'True','lastTransitionTime':'" T0
               "','reason':'R','message':'m'}]");
    assert_int_equal(cond_set(h, &c), 0);
    c.reason = "R2";
    assert_int_equal(cond_set(h, &c), 1);
    expect_list(h, "[{'type':'A','observedGeneration':2,'status':'True','lastTransitionTime':'"
                   T0 "','reason':'R2','message':'m'}]");
    c.status = "False";
    assert_int_equal(cond_set(h, &c), 1);
    expect_list(h, "[{'type':'A','observedGeneration':2,'status':'False','lastTransitionTime':'"
                   T1 "','reason':'R2','message':'m'}]");
    json_decref(h);

    /* keys the condition lacked are added after its own */
    h = holder("[{'type':'A','status':'False'}]");
    assert_int_equal(cond_set(h, &c), 1);
    expect_list(h, "[{'type':'A','status':'False','reason':'R2','message':'m'}]");
    json_decref(h);
}

/* ---- JobSet updateCondition --------------------------------------------------------------- */

#define M(type, st, r, t) \
    "{'type':'" type "','status':'" st "','lastTransitionTime':'" t "','reason':'" r \
    "','message':'m'}"

static void update_jobset(void **state)
{
    (void)state;
    static const struct {
        const char *name, *existing, *type, *status, *reason, *complement;
        int rc;
        const char *want; /* NULL: no list */
    } rows[] = {
        {"True appended", NULL, "A", "True", "R", NULL, 1, "[" M("A", "True", "R", T1) "]"},
        {"False not appended", NULL, "A", "False", "R", NULL, 0, NULL},
        {"status change: a new condition", "[" M("A", "True", "R", T0) "]", "A", "False", "R",
         NULL, 1, "[" M("A", "False", "R", T1) "]"},
        {"reason change keeps the time", "[" M("A", "True", "R", T0) "]", "A", "True", "S",
         NULL, 1, "[" M("A", "True", "S", T0) "]"},
        {"replacing drops other keys",
         "[{'type':'A','status':'True','observedGeneration':1,'reason':'R','message':'m'}]", "A",
         "True", "S", NULL, 1, "[{'type':'A','status':'True','reason':'S','message':'m'}]"},
        {"unchanged keeps other keys",
         "[{'type':'A','status':'True','observedGeneration':1,'reason':'R','message':'m'}]", "A",
         "True", "R", NULL, 0,
         "[{'type':'A','status':'True','observedGeneration':1,'reason':'R','message':'m'}]"},
        {"the complement turns False", "[" M("B", "True", "R", T0) "]", "A", "True", "R", "B", 1,
         "[" M("B", "False", "R", T0) "," M("A", "True", "R", T1) "]"},
        {"only for a True condition", "[" M("B", "True", "R", T0) "]", "A", "False", "R", "B", 0,
         "[" M("B", "True", "R", T0) "]"},
        {"no complement, no pairing", "[" M("B", "True", "R", T0) "]", "A", "True", "R", NULL, 1,
         "[" M("B", "True", "R", T0) "," M("A", "True", "R", T1) "]"},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        const struct cond c = {.type = rows[i].type, .status = rows[i].status,
                               .reason = rows[i].reason, .message = "m", .transition = T1,
                               .transition_first = true};
        json_t *h = holder(rows[i].existing);
        int rc = cond_update(h, &c, rows[i].complement);
        if (rc != rows[i].rc)
            fail_msg("%s: rc %d, want %d", rows[i].name, rc, rows[i].rc);
        expect_list(h, rows[i].want);
        json_decref(h);
    }
}

/* ---- Kubeflow setCondition ---------------------------------------------------------------- */

#define K(type, st, r, u, t) \
    "{'type':'" type "','status':'" st "','reason':'" r "','message':'m','lastUpdateTime':'" u \
    "','lastTransitionTime':'" t "'}"

static void set_kubeflow(void **state)
{
    (void)state;
    struct cond c = {.type = "Running", .status = "True", .reason = "Running", .message = "m",
                     .updated = T1, .transition = T1};
    json_t *h = holder("[" K("Created", "True", "Created", T0, T0) ",{'status':'True'},"
                       K("Restarting", "True", "Restarting", T0, T0) "]");
    assert_int_equal(cond_set_kubeflow(h, &c, "Restarting", NULL), 1);
    expect_list(h, "[" K("Created", "True", "Created", T0, T0) ","
                   K("Running", "True", "Running", T1, T1) "]");
    assert_int_equal(cond_set_kubeflow(h, &c, "Restarting", NULL), 0); /* same status, reason */

    c.type = c.reason = "Succeeded";
    assert_int_equal(cond_set_kubeflow(h, &c, NULL, "Running"), 1);
    expect_list(h, "[" K("Created", "True", "Created", T0, T0) ","
                   K("Running", "False", "Running", T1, T1) ","
                   K("Succeeded", "True", "Succeeded", T1, T1) "]");

    /* the status stays, the reason changes: moved last, transition time kept */
    c = (struct cond){.type = "Created", .status = "True", .reason = "Again", .message = "m",
                      .updated = T1, .transition = T1};
    assert_int_equal(cond_set_kubeflow(h, &c, NULL, NULL), 1);
    expect_list(h, "[" K("Running", "False", "Running", T1, T1) ","
                   K("Succeeded", "True", "Succeeded", T1, T1) ","
                   K("Created", "True", "Again", T1, T0) "]");
    json_decref(h);

    h = holder(NULL);
    assert_int_equal(cond_set_kubeflow(h, &c, NULL, NULL), 1);
    expect_list(h, "[" K("Created", "True", "Again", T1, T1) "]");
    json_decref(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reading),  cmocka_unit_test(layouts),       cmocka_unit_test(writing),
        cmocka_unit_test(set_meta), cmocka_unit_test(update_jobset), cmocka_unit_test(set_kubeflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
