/* Exclusive placement in jaxset's gated order (api/child/placement.h, placement_gate.c): which
 * pods are gated and admitted, the ungating patch, and when a gated follower is let go. */
#include "testutil.h"

#include <string.h>

#include "api/child/placement.h"
#include "place_fake.h"

#define ZONE "'alpha.jobset.sigs.k8s.io/exclusive-topology':'topology.kubernetes.io/zone'"
#define JSLBL "'jobset.sigs.k8s.io/jobset-name':'js','jobset.sigs.k8s.io/replicatedjob-name':" \
              "'rjob','jobset.sigs.k8s.io/job-index':'0'"
#define OWNER "'ownerReferences':[{'uid':'job-uid-1','kind':'Job','controller':true}]"
/* A follower (completion index 1) with `ann` more annotations and `spec`. */
#define POD(idx, ann, spec)                                                                  \
    "{'metadata':{'name':'js-rjob-0-" idx "-abcde','namespace':'default','labels':{" JSLBL  \
    "},'annotations':{'jobset.sigs.k8s.io/jobset-name':'js'," ZONE                           \
    ",'batch.kubernetes.io/job-completion-index':'" idx "'" ann "}," OWNER "},'spec':{" spec \
    "}}"
#define GATE_JSON "{'name':'" PLACE_GATE "'}"
#define NODE_A "{'node-a':{'metadata':{'name':'node-a','labels':{'topology.kubernetes.io/zone':" \
               "'zone-a'}}}}"

static void test_gate_default(void **state)
{
    static const struct {
        const char *name, *pod;
        bool gated;
    } cases[] = {
        {"follower without a domain", POD("1", "", ""), true},
        {"follower with its domain", POD("1", "", "'nodeSelector':{'topology.kubernetes.io/zone':"
                                                  "'zone-a'}"), false},
        {"follower gated already", POD("1", "", "'schedulingGates':[" GATE_JSON "]"), true},
        {"leader", POD("0", "", ""), false},
        {"node-selector strategy", POD("1", ",'alpha.jobset.sigs.k8s.io/node-selector':''", ""),
         false},
        {"not exclusive", "{'metadata':{'annotations':{'jobset.sigs.k8s.io/jobset-name':'js',"
                          "'batch.kubernetes.io/job-completion-index':'1'}}}", false},
        {"not a jobset pod", "{'metadata':{'name':'p'}}", false},
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *pod = tu_qjson(cases[i].pod);
        assert_int_equal(place_gate_default(pod), 0);
        if (place_gated(pod) != cases[i].gated)
            fail_msg("%s: gated %d", cases[i].name, place_gated(pod));
        if (place_gate_admits(pod) != cases[i].gated)
            fail_msg("%s: admitted %d", cases[i].name, place_gate_admits(pod));
        /* once: a second pass adds no second gate */
        assert_int_equal(place_gate_default(pod), 0);
        assert_true(json_array_size(jx_arr(jx_obj(pod, "spec"), "schedulingGates")) <= 1);
        json_decref(pod);
    }
}

static void test_ungate_patch(void **state)
{
    (void)state;
    json_t *pod = tu_qjson(POD("1", "", "'nodeSelector':{'pool':'x'},'schedulingGates':["
                                        "{'name':'example.com/quota'}," GATE_JSON "]"));
    json_t *patch = place_ungate_patch(pod, "zone-a");
    json_t *want = tu_qjson(
        "[{'op':'test','path':'/spec/schedulingGates','value':[{'name':'example.com/quota'},"
        GATE_JSON "]},{'op':'replace','path':'/spec/schedulingGates','value':[{'name':"
        "'example.com/quota'}]},{'op':'add','path':'/spec/nodeSelector','value':{'pool':'x',"
        "'topology.kubernetes.io/zone':'zone-a'}}]");
    assert_true(json_equal(patch, want));
    json_decref(patch);
    json_decref(want);
    json_decref(pod);
    pod = tu_qjson(POD("1", "", "'schedulingGates':[" GATE_JSON "]"));
    patch = place_ungate_patch(pod, "zone-a");
    want = tu_qjson("[{'op':'test','path':'/spec/schedulingGates','value':[" GATE_JSON "]},"
                    "{'op':'remove','path':'/spec/schedulingGates'},{'op':'add','path':"
                    "'/spec/nodeSelector','value':{'topology.kubernetes.io/zone':'zone-a'}}]");
    assert_true(json_equal(patch, want));
    json_decref(patch);
    json_decref(want);
    json_decref(pod);
}

static void test_ungate_one(void **state)
{
    static const struct {
        const char *name, *pods, *nodes;
        int rc;
        bool patched;
    } cases[] = {
        {"no leader yet", "[]", "{}", 0, false},
        {"leader not scheduled", "[" POD("0", "", "") "]", "{}", 0, false},
        {"leader scheduled", "[" POD("0", "", "'nodeName':'node-a'") "]", NODE_A, 0, true},
        {"leader's Node without the label",
         "[" POD("0", "", "'nodeName':'node-a'") "]",
         "{'node-a':{'metadata':{'name':'node-a'}}}", PLACE_NO, false},
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct place_fake f = {tu_qjson(cases[i].pods), tu_qjson(cases[i].nodes), 0};
        struct place_src src = fake_src(&f);
        struct place_err pe = {0};
        json_t *pod = tu_qjson(POD("1", "", "'schedulingGates':[" GATE_JSON "]")), *patch;
        int rc = place_ungate_one(pod, &src, &patch, &pe);
        if (rc != cases[i].rc || (patch != NULL) != cases[i].patched)
            fail_msg("%s: rc %d, patch %p (%s)", cases[i].name, rc, (void *)patch, pe.msg);
        if (patch)
            assert_string_equal(jx_str(jx_obj(json_array_get(patch, 2), "value"),
                                       "topology.kubernetes.io/zone"), "zone-a");
        json_decref(patch);
        json_decref(pod);
        json_decref(f.pods);
        json_decref(f.nodes);
    }
}

/* A gated follower being deleted is not let go, whatever its leader. */
static void test_deleted_follower_stays_gated(void **state)
{
    (void)state;
    struct place_fake f = {tu_qjson("[" POD("0", "", "'nodeName':'node-a'") "]"),
                           tu_qjson(NODE_A), 0};
    struct place_src src = fake_src(&f);
    struct place_err pe = {0};
    json_t *pod = tu_qjson(POD("1", "", "'schedulingGates':[" GATE_JSON "]")), *patch;
    jx_set_str(jx_obj(pod, "metadata"), "deletionTimestamp", "2026-12-03T00:00:00Z");
    assert_int_equal(place_ungate_one(pod, &src, &patch, &pe), 0);
    assert_null(patch);
    json_decref(pod);
    json_decref(f.pods);
    json_decref(f.nodes);
}

/* A gated follower is not a violation: the reconciler gives it its domain instead of deleting
 * the Job's followers. */
static void test_gated_followers_are_no_violation(void **state)
{
    (void)state;
    struct place_fake f = {json_array(), tu_qjson(NODE_A), 0};
    struct place_src src = fake_src(&f);
    struct place_err pe = {0};
    json_t *leader = tu_qjson(POD("0", "", "'nodeName':'node-a'"));
    json_t *pods = tu_qjson("[" POD("0", "", "'nodeName':'node-a'") "," POD(
        "1", "", "'schedulingGates':[" GATE_JSON "]") "]");
    bool matched = false;
    assert_int_equal(place_validate_placements(leader, pods, &src, &matched, &pe), 0);
    assert_true(matched);
    json_decref(pods);
    json_decref(leader);
    json_decref(f.pods);
    json_decref(f.nodes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gate_default),
        cmocka_unit_test(test_ungate_patch),
        cmocka_unit_test(test_ungate_one),
        cmocka_unit_test(test_deleted_follower_stays_gated),
        cmocka_unit_test(test_gated_followers_are_no_violation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
