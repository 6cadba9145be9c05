/* Exclusive placement in the pod reconciler (api/child/placement.h place_validate_placements,
 * place_pods_for_job, place_reconcile_plan, place_condition_add): the tables of
 * kubernetes-sigs/jobset pkg/controllers/pod_controller_test.go, one case per row, named as
 * upstream names them. */
#include "testutil.h"

#include <errno.h>
#include <string.h>

#include "api/child/placement.h"
#include "place_fake.h"

#define TOPO "test-node-topologyKey"
#define OWNED(uid) "'ownerReferences':[{'apiVersion':'batch/v1','kind':'Job','name':"          \
                   "'test-jobset-replicated-job-1-test-job-0','uid':'" uid "','controller':true}]"
#define POD(name, index, extra_meta, spec) "{'metadata':{'name':'" name "','namespace':"      \
    "'default','labels':{'jobset.sigs.k8s.io/jobset-name':'test-jobset',"                      \
    "'jobset.sigs.k8s.io/replicatedjob-name':'replicated-job-1','jobset.sigs.k8s.io/job-key':" \
    "'jk-0'},'annotations':{'alpha.jobset.sigs.k8s.io/exclusive-topology':'" TOPO "',"         \
    "'batch.kubernetes.io/job-completion-index':'" index "'}" extra_meta "},'spec':{" spec "}}"
#define LEADER POD("test-jobset-replicated-job-1-test-job-0-0", "0", "," OWNED("job-uid-1"), \
                   "'nodeName':'test-node'")
#define FOLLOWER(sel) POD("test-jobset-replicated-job-1-test-job-0-1", "1",                  \
                          "," OWNED("job-uid-1"), sel)
#define NODE(labels) "{'test-node':{'metadata':{'name':'test-node'" labels "}}}"

static void test_validate_pod_placements(void **state)
{
    (void)state;
    static const struct {
        const char *name, *follower, *nodes, *err;
        int node_err;
        bool matched;
    } cases[] = {
        {"topology node label not found", FOLLOWER("'nodeSelector':{'" TOPO "':'topologyDomain'}"),
         NODE(""), "node does not have topology label: " TOPO, 0, false},
        {"valid pod placements", FOLLOWER("'nodeSelector':{'" TOPO "':'topologyDomain'}"),
         NODE(",'labels':{'" TOPO "':'topologyDomain'}"), NULL, 0, true},
        {"follower pod nodeSelector is nil", FOLLOWER(""),
         NODE(",'labels':{'" TOPO "':'topologyDomain'}"), NULL, 0, false},
        {"follower pod nodeSelector is empty", FOLLOWER("'nodeSelector':{}"),
         NODE(",'labels':{'" TOPO "':'topologyDomain'}"), NULL, 0, false},
        {"followerTopology != leaderTopology",
         FOLLOWER("'nodeSelector':{'" TOPO "':'topologyDomain1'}"),
         NODE(",'labels':{'" TOPO "':'topologyDomain'}"), NULL, 0, false},
        {"leader topology unknown retries instead of deleting followers",
         FOLLOWER("'nodeSelector':{'" TOPO "':'topologyDomain'}"), "{}",
         "leader topology is unknown (node not found)", 0, false},
        {"get node error", FOLLOWER("'nodeSelector':{'" TOPO "':'topologyDomain'}"), "{}",
         "getting node test-node: Input/output error", -EIO, false},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char list[4096];
        snprintf(list, sizeof(list), "[%s,%s]", LEADER, cases[i].follower);
        struct place_fake f = {tu_qjson(list), tu_qjson(cases[i].nodes), cases[i].node_err};
        struct place_src src = fake_src(&f);
        struct place_err pe = {0};
        json_t *leader = tu_qjson(LEADER);
        bool matched = true;
        int rc = place_validate_placements(leader, f.pods, &src, &matched, &pe);
        bool ok = cases[i].err ? rc == PLACE_NO && strcmp(pe.msg, cases[i].err) == 0
                               : rc == 0 && matched == cases[i].matched;
        if (!ok)
            fail_msg("TestValidatePodPlacements/%s: rc %d matched %d, %s", cases[i].name, rc,
                     matched, pe.msg);
        json_decref(leader);
        json_decref(f.pods);
        json_decref(f.nodes);
    }
}

/* TestReconcileDeletesMismatchedFollowerPods: the follower on the wrong domain is deleted, with
 * its status written first; the leader is neither. */
static void test_reconcile_deletes_mismatched_follower_pods(void **state)
{
    (void)state;
    struct place_fake f = {
        tu_qjson("[" LEADER "," FOLLOWER("'nodeSelector':{'" TOPO "':'wrong-topology'}") "]"),
        tu_qjson(NODE(",'labels':{'" TOPO "':'expected-topology'}")), 0};
    struct place_src src = fake_src(&f);
    struct place_err pe = {0};
    json_t *leader = json_array_get(f.pods, 0), *del = NULL;
    assert_int_equal(place_reconcile_plan(leader, f.pods, &src, "2026-01-01T00:00:00Z", &del,
                                          &pe), 0);
    assert_int_equal(json_array_size(del), 1);
    const json_t *d = json_array_get(del, 0);
    assert_string_equal(jx_str(jx_obj(jx_obj(d, "pod"), "metadata"), "name"),
                        "test-jobset-replicated-job-1-test-job-0-1");
    assert_true(jx_bool_or(d, "updateStatus", false));
    const json_t *c = json_array_get(jx_arr(jx_obj(jx_obj(d, "pod"), "status"), "conditions"), 0);
    assert_string_equal(jx_str(c, "type"), "DisruptionTarget");
    assert_string_equal(jx_str(c, "status"), "True");
    assert_string_equal(jx_str(c, "reason"), "ExclusivePlacementViolation");
    assert_string_equal(jx_str(c, "message"), "Pod violated JobSet exclusive placement policy");
    json_decref(del);
    /* and one that agrees is left alone */
    json_array_set_new(f.pods, 1, tu_qjson(FOLLOWER("'nodeSelector':{'" TOPO
                                                    "':'expected-topology'}")));
    assert_int_equal(place_reconcile_plan(leader, f.pods, &src, "t", &del, &pe), 0);
    assert_int_equal(json_array_size(del), 0);
    json_decref(del);
    json_decref(f.pods);
    json_decref(f.nodes);
}

/* TestDeleteFollowerPods: only followers; the status is written when the condition is absent
 * or False, not when it is True already. */
static void test_delete_follower_pods(void **state)
{
    (void)state;
    static const struct { const char *name, *conds; bool update; } cases[] = {
        {"delete follower pods", "", true},
        {"delete follower pods with pod conditions status is false",
         ",'status':{'conditions':[{'type':'DisruptionTarget','status':'False','reason':"
         "'ExclusivePlacementViolation'}]}", true},
        /* upstream's row "with delete error" (its pod has the condition True already: no
         * status write); the forced client errors are the controller's (ctl_pods.c) */
        {"delete follower pods with delete error",
         ",'status':{'conditions':[{'type':'DisruptionTarget','status':'True','reason':"
         "'ExclusivePlacementViolation'}]}", false},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char list[4096];
        snprintf(list, sizeof(list), "[%s,%.*s%s}]", LEADER,
                 (int)strlen(FOLLOWER("'nodeSelector':{'" TOPO "':'x'}")) - 1,
                 FOLLOWER("'nodeSelector':{'" TOPO "':'x'}"), cases[i].conds);
        struct place_fake f = {tu_qjson(list), tu_qjson(NODE(",'labels':{'" TOPO "':'y'}")), 0};
        struct place_src src = fake_src(&f);
        struct place_err pe = {0};
        json_t *del = NULL;
        int rc = place_reconcile_plan(json_array_get(f.pods, 0), f.pods, &src, "t", &del, &pe);
        if (rc != 0 || json_array_size(del) != 1 ||
            jx_bool_or(json_array_get(del, 0), "updateStatus", !cases[i].update) !=
                cases[i].update)
            fail_msg("TestDeleteFollowerPods/%s: rc %d, %s", cases[i].name, rc, pe.msg);
        json_decref(del);
        json_decref(f.pods);
        json_decref(f.nodes);
    }
}

static void test_list_pods_for_job(void **state)
{
    (void)state;
    json_t *all = tu_qjson("[" POD("leader-pod", "0", "," OWNED("job-uid-1"), "") ","
                           POD("follower-pod", "1", "," OWNED("job-uid-1"), "") ","
                           POD("inconsistent-pod", "1", ",'ownerReferences':[{'kind':'Job',"
                               "'name':'other-job','uid':'job-uid-2','controller':true}]", "") ","
                           POD("unowned-pod", "1", "", "") "]");
    json_t *legit = json_array();
    json_array_append(legit, json_array_get(all, 0));
    json_array_append(legit, json_array_get(all, 1));
    const json_t *inputs[2] = {legit, all};
    const char *names[2] = {"all legitimate pods", "with inconsistent and unowned pods"};
    for (size_t i = 0; i < 2; i++) {
        json_t *got = place_pods_for_job(inputs[i], "jk-0", "job-uid-1");
        if (json_array_size(got) != 2)
            fail_msg("TestListPodsForJob/%s: %zu pods", names[i], json_array_size(got));
        json_decref(got);
    }
    json_decref(legit);
    json_decref(all);
}

/* jaxset's own rule (issue 20, not jobset#1269): leaders of the node-selector strategy are not
 * reconciled, so their followers (whose nodeSelector names the Job, not the topology) stay. */
static void test_node_selector_strategy_leaders_not_reconciled(void **state)
{
    (void)state;
    json_t *l = tu_qjson(LEADER);
    assert_true(place_reconcile_wanted(l));
    jx_set_meta(jx_obj(l, "metadata"), "annotations", ANN_NODE_SELECTOR, "true");
    assert_false(place_reconcile_wanted(l));
    json_decref(l);
    json_t *unscheduled = tu_qjson(POD("p-0-0-0-0-x", "0", "", ""));
    json_t *follower = tu_qjson(FOLLOWER(""));
    assert_false(place_reconcile_wanted(unscheduled));
    assert_false(place_reconcile_wanted(follower));
    json_decref(unscheduled);
    json_decref(follower);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_validate_pod_placements),
        cmocka_unit_test(test_reconcile_deletes_mismatched_follower_pods),
        cmocka_unit_test(test_delete_follower_pods),
        cmocka_unit_test(test_list_pods_for_job),
        cmocka_unit_test(test_node_selector_strategy_leaders_not_reconciled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
