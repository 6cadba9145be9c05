/* Exclusive placement in the pod webhook (api/child/placement.h place_default, place_validate and
 * the leader lookup): the tables of kubernetes-sigs/jobset pkg/webhooks/pod_webhook_test.go,
 * one case per row, named as upstream names them. */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#include "api/child/placement.h"
#include "place_fake.h"

#define ZONE "'alpha.jobset.sigs.k8s.io/exclusive-topology':'topology.kubernetes.io/zone'"
#define JSLBL "'jobset.sigs.k8s.io/jobset-name':'js','jobset.sigs.k8s.io/replicatedjob-name':" \
              "'rjob','jobset.sigs.k8s.io/job-index':'0'"
#define OWNER(uid) "'ownerReferences':[{'uid':'" uid "','kind':'Job','controller':true}]"
#define FOLLOWER "{'metadata':{'name':'js-rjob-0-1-follower','namespace':'default','labels':{" \
                 JSLBL "},'annotations':{'jobset.sigs.k8s.io/jobset-name':'js'," ZONE ","   \
                 "'batch.kubernetes.io/job-completion-index':'1'}," OWNER("job-uid-1") "},"   \
                 "'spec':{'priority':100}}"
#define FOLLOWER_WANT(extra) "{'metadata':{'name':'js-rjob-0-1-follower','namespace':'default'," \
                 "'labels':{" JSLBL ",'jobset.sigs.k8s.io/priority':'100'},'annotations':{"    \
                 "'jobset.sigs.k8s.io/jobset-name':'js'," ZONE ","                             \
                 "'batch.kubernetes.io/job-completion-index':'1'}," OWNER("job-uid-1") "},"     \
                 "'spec':{'priority':100" extra "}}"
#define LEADER(node) "{'metadata':{'name':'js-rjob-0-0-leader','namespace':'default','labels':{" \
                     JSLBL "},'annotations':{" ZONE ",'batch.kubernetes.io/job-completion-index':" \
                     "'0'}," OWNER("job-uid-1") "},'spec':{" node "}}"

struct default_case {
    const char *name, *pod, *pods, *nodes, *want, *err;
};

static const struct default_case defaults[] = {
    {"not a jobset pod", "{'metadata':{'name':'p'}}", "[]", "{}", "{'metadata':{'name':'p'}}",
     NULL},
    {"using node selector strategy",
     "{'metadata':{'name':'p','annotations':{'jobset.sigs.k8s.io/jobset-name':'js',"
     "'alpha.jobset.sigs.k8s.io/node-selector':''}},'spec':{'priority':100}}", "[]", "{}",
     "{'metadata':{'name':'p','annotations':{'jobset.sigs.k8s.io/jobset-name':'js',"
     "'alpha.jobset.sigs.k8s.io/node-selector':''}},'spec':{'priority':100}}", NULL},
    {"jobset pod, no exclusive placement, no priority",
     "{'metadata':{'name':'p','annotations':{'jobset.sigs.k8s.io/jobset-name':'js'}}}", "[]",
     "{}", "{'metadata':{'name':'p','annotations':{'jobset.sigs.k8s.io/jobset-name':'js'}}}",
     NULL},
    {"jobset pod, no exclusive placement, with priority",
     "{'metadata':{'name':'p','annotations':{'jobset.sigs.k8s.io/jobset-name':'js'}},"
     "'spec':{'priority':100}}", "[]", "{}",
     "{'metadata':{'name':'p','annotations':{'jobset.sigs.k8s.io/jobset-name':'js'},"
     "'labels':{'jobset.sigs.k8s.io/priority':'100'}},'spec':{'priority':100}}", NULL},
    {"leader pod with exclusive placement",
     "{'metadata':{'name':'p-leader','labels':{'jobset.sigs.k8s.io/job-key':'js-rjob-0'},"
     "'annotations':{'jobset.sigs.k8s.io/jobset-name':'js'," ZONE ","
     "'batch.kubernetes.io/job-completion-index':'0','jobset.sigs.k8s.io/replicatedjob-name':"
     "'rjob','jobset.sigs.k8s.io/job-index':'0'}},'spec':{'priority':100}}", "[]", "{}",
     "{'metadata':{'name':'p-leader','labels':{'jobset.sigs.k8s.io/job-key':'js-rjob-0',"
     "'jobset.sigs.k8s.io/priority':'100'},"
     "'annotations':{'jobset.sigs.k8s.io/jobset-name':'js'," ZONE ","
     "'batch.kubernetes.io/job-completion-index':'0','jobset.sigs.k8s.io/replicatedjob-name':"
     "'rjob','jobset.sigs.k8s.io/job-index':'0'}},'spec':{'priority':100,'affinity':{"
     "'podAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':[{'labelSelector':{"
     "'matchExpressions':[{'key':'jobset.sigs.k8s.io/job-key','operator':'In','values':"
     "['js-rjob-0']}]},'topologyKey':'topology.kubernetes.io/zone','namespaceSelector':{}}]},"
     "'podAntiAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':[{'labelSelector':{"
     "'matchExpressions':[{'key':'jobset.sigs.k8s.io/job-key','operator':'Exists'},"
     "{'key':'jobset.sigs.k8s.io/job-key','operator':'NotIn','values':['js-rjob-0']},"
     "{'key':'jobset.sigs.k8s.io/priority','operator':'In','values':['100']}]},"
     "'topologyKey':'topology.kubernetes.io/zone','namespaceSelector':{}}]}}}}", NULL},
    {"follower pod, leader not scheduled", FOLLOWER, "[" LEADER("") "]", "{}", FOLLOWER_WANT(""),
     NULL},
    {"follower pod, leader scheduled", FOLLOWER, "[" LEADER("'nodeName':'node-a'") "]",
     "{'node-a':{'metadata':{'name':'node-a','labels':{'topology.kubernetes.io/zone':"
     "'zone-a'}}}}", FOLLOWER_WANT(",'nodeSelector':{'topology.kubernetes.io/zone':'zone-a'}"),
     NULL},
    {"follower pod, leader scheduled on missing node", FOLLOWER,
     "[" LEADER("'nodeName':'node-a'") "]", "{}", NULL, "nodes \"node-a\" not found"},
};

static void test_default(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
        const struct default_case *c = &defaults[i];
        struct place_fake f = {tu_qjson(c->pods), tu_qjson(c->nodes), 0};
        struct place_src src = fake_src(&f);
        struct place_err pe = {0};
        json_t *pod = tu_qjson(c->pod);
        int rc = place_default(pod, &src, &pe);
        if (c->err) {
            if (rc != PLACE_NO || strcmp(pe.msg, c->err) != 0)
                fail_msg("TestDefault/%s: rc %d, error %s", c->name, rc, pe.msg);
        } else {
            json_t *want = tu_qjson(c->want);
            if (rc != 0 || !json_equal(pod, want)) {
                char *got = json_dumps(pod, JSON_COMPACT | JSON_SORT_KEYS);
                fail_msg("TestDefault/%s: rc %d (%s), got %s", c->name, rc, pe.msg, got);
            }
            json_decref(want);
        }
        json_decref(pod);
        json_decref(f.pods);
        json_decref(f.nodes);
    }
}

static void test_leader_pod_name(void **state)
{
    (void)state;
    struct place_err pe = {0};
    char name[256];
    json_t *valid = tu_qjson("{'metadata':{'name':'pod','labels':{" JSLBL "}}}");
    json_t *missing = tu_qjson("{'metadata':{'name':'pod','labels':{"
                               "'jobset.sigs.k8s.io/jobset-name':'js',"
                               "'jobset.sigs.k8s.io/replicatedjob-name':'rjob'}}}");
    /* TestLeaderPodName/valid pod */
    assert_int_equal(place_leader_name(valid, name, sizeof(name), &pe), 0);
    assert_string_equal(name, "js-rjob-0-0");
    /* TestLeaderPodName/pod missing labels */
    assert_int_equal(place_leader_name(missing, name, sizeof(name), &pe), PLACE_NO);
    json_decref(valid);
    json_decref(missing);
}

static json_t *owned(const char *name, const char *uid)
{
    char text[512];
    if (*uid)
        snprintf(text, sizeof(text), "{'metadata':{'name':'%s'," OWNER("%s") "}}", name, uid);
    else
        snprintf(text, sizeof(text), "{'metadata':{'name':'%s'}}", name);
    return tu_qjson(text);
}

static void test_pods_owned_by_same_job(void **state)
{
    (void)state;
    static const struct { const char *name, *leader, *follower, *want; } cases[] = {
        {"pods owned by the same job", "job-uid-1", "job-uid-1", NULL},
        {"pods owned by different jobs", "job-uid-1", "job-uid-2",
         "follower pod owner UID (job-uid-2) != leader pod owner UID (job-uid-1)"},
        {"follower pod with no owner", "job-uid-1", "", "follower pod has no owner reference"},
        {"leader pod with no owner", "", "job-uid-2",
         "leader pod \"leader-pod\" has no owner reference"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *l = owned("leader-pod", cases[i].leader), *f = owned("follower-pod",
                                                                      cases[i].follower);
        struct place_err pe = {0};
        int rc = place_same_job(l, f, &pe);
        if (cases[i].want ? rc != PLACE_NO || strcmp(pe.msg, cases[i].want) != 0 : rc != 0)
            fail_msg("TestPodsOwnedBySameJob/%s: rc %d, %s", cases[i].name, rc, pe.msg);
        json_decref(l);
        json_decref(f);
    }
}

#define TESTPOD(name, uid, extra) "{'metadata':{'name':'" name "','namespace':'default',"    \
                                  "'labels':{" JSLBL "},'annotations':{" ZONE "}," OWNER(uid) \
                                  extra "}"
#define LEADER_XYZ TESTPOD("js-rjob-0-0-xyz", "job-uid-1", "}")
#define FOLLOWER_ABC TESTPOD("js-rjob-0-1-abc", "job-uid-1", "}")

static void test_leader_pod_for_follower(void **state)
{
    (void)state;
    static const struct { const char *name, *follower, *pods, *want, *err; } cases[] = {
        {"valid leader pod exists", FOLLOWER_ABC, "[" LEADER_XYZ "]", "js-rjob-0-0-xyz", NULL},
        {"follower pod missing labels", "{'metadata':{'name':'js-rjob-0-1-abc','namespace':"
         "'default','labels':{'jobset.sigs.k8s.io/jobset-name':'js',"
         "'jobset.sigs.k8s.io/replicatedjob-name':'rjob'},'annotations':{" ZONE "},"
         OWNER("job-uid-1") "}}", "[" LEADER_XYZ "]", NULL,
         "pod missing label: jobset.sigs.k8s.io/job-index"},
        {"no leader pod found", FOLLOWER_ABC, "[]", NULL,
         "expected 1 leader pod (js-rjob-0-0), but got 0"},
        {"multiple leader pods found", FOLLOWER_ABC,
         "[" LEADER_XYZ "," TESTPOD("js-rjob-0-0-uvw", "job-uid-1", "}") "]", NULL,
         "expected 1 leader pod (js-rjob-0-0), but got 2"},
        {"leader pod is terminating", FOLLOWER_ABC,
         "[" TESTPOD("js-rjob-0-0-xyz", "job-uid-1", ",'deletionTimestamp':"
                     "'2026-01-01T00:00:00Z','finalizers':['batch.kubernetes.io/job-tracking']}")
         "]", NULL, "expected 1 leader pod (js-rjob-0-0), but got 0"},
        {"active leader alongside failed leader pod", FOLLOWER_ABC,
         "[" LEADER_XYZ "," TESTPOD("js-rjob-0-0-failed", "job-uid-1",
                                    "},'status':{'phase':'Failed'}") "]", "js-rjob-0-0-xyz", NULL},
        {"active leader alongside succeeded leader pod", FOLLOWER_ABC,
         "[" LEADER_XYZ "," TESTPOD("js-rjob-0-0-succeeded", "job-uid-1",
                                    "},'status':{'phase':'Succeeded'}") "]", "js-rjob-0-0-xyz",
         NULL},
        {"leader and follower owned by different jobs", FOLLOWER_ABC,
         "[" TESTPOD("js-rjob-0-0-xyz", "job-uid-2", "}") "]", NULL,
         "follower pod owner UID (job-uid-1) != leader pod owner UID (job-uid-2)"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct place_fake f = {tu_qjson(cases[i].pods), json_object(), 0};
        struct place_src src = fake_src(&f);
        struct place_err pe = {0};
        json_t *pod = tu_qjson(cases[i].follower), *leader = NULL;
        int rc = place_leader_for_follower(&src, pod, &leader, &pe);
        const char *got = jx_str(jx_obj(leader, "metadata"), "name");
        bool ok = cases[i].err ? rc == PLACE_NO && strstr(pe.msg, cases[i].err)
                               : rc == 0 && got && strcmp(got, cases[i].want) == 0;
        if (!ok)
            fail_msg("TestLeaderPodForFollower/%s: rc %d, %s", cases[i].name, rc, pe.msg);
        json_decref(leader);
        json_decref(pod);
        json_decref(f.pods);
        json_decref(f.nodes);
    }
}

#define SLICE_META(name, extra) "{'metadata':{'name':'" name "','namespace':'default',"       \
    "'labels':{'jobset.sigs.k8s.io/jobset-name':'test-jobset',"                                \
    "'jobset.sigs.k8s.io/replicatedjob-name':'slice','jobset.sigs.k8s.io/job-index':'0',"      \
    "'jobset.sigs.k8s.io/restart-attempt':'0'" extra "},'annotations':{" ZONE ","              \
    "'jobset.sigs.k8s.io/jobset-name':'test-jobset'},'ownerReferences':[{'apiVersion':"        \
    "'batch/v1','kind':'Job','name':'test-jobset-slice-0','uid':'uid-123','controller':true}]}"

/* TestPodWebhook_DuplicateLeaderPods: a Failed old leader beside the new one does not count. */
static void test_pod_webhook_duplicate_leader_pods(void **state)
{
    (void)state;
    struct place_fake f = {
        tu_qjson("[" SLICE_META("test-jobset-slice-0-0-oldhash",
                                ",'batch.kubernetes.io/job-completion-index':'0'")
                 ",'status':{'phase':'Failed'}},"
                 SLICE_META("test-jobset-slice-0-0-newhash",
                            ",'batch.kubernetes.io/job-completion-index':'0'")
                 ",'spec':{'nodeName':'node-a'},'status':{'phase':'Pending'}}]"),
        json_object(), 0};
    struct place_src src = fake_src(&f);
    struct place_err pe = {0};
    json_t *follower = tu_qjson(SLICE_META("test-jobset-slice-0-1-randomhash",
                                           ",'batch.kubernetes.io/job-completion-index':'1'")
                                ",'spec':{'nodeSelector':{'topology.kubernetes.io/zone':"
                                "'zone-a'}}}");
    if (place_validate(follower, &src, &pe) != 0)
        fail_msg("expected no error, got %s", pe.msg);
    json_decref(follower);
    json_decref(f.pods);
    json_decref(f.nodes);
}

/* ValidateCreate's refusals of a follower, with upstream's messages. */
static void test_validate_create_follower_refusals(void **state)
{
    (void)state;
    static const struct { const char *pod, *pods, *err; } cases[] = {
        {FOLLOWER, "[]", "follower pod node selector not set"},
        {FOLLOWER_WANT(",'nodeSelector':{'other':'x'}"), "[]",
         "follower pod node selector for topology domain not found. missing selector: "
         "topology.kubernetes.io/zone"},
        {FOLLOWER_WANT(",'nodeSelector':{'topology.kubernetes.io/zone':'zone-a'}"), "[]",
         "expected 1 leader pod (js-rjob-0-0), but got 0. this is an expected, transient error"},
        {FOLLOWER_WANT(",'nodeSelector':{'topology.kubernetes.io/zone':'zone-a'}"),
         "[" LEADER("") "]", "leader pod not yet scheduled, not creating follower pod. this is an "
         "expected, transient error"},
        {FOLLOWER_WANT(",'nodeSelector':{'topology.kubernetes.io/zone':'zone-a'}"),
         "[" LEADER("'nodeName':'node-a'") "]", NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct place_fake f = {tu_qjson(cases[i].pods), json_object(), 0};
        struct place_src src = fake_src(&f);
        struct place_err pe = {0};
        json_t *pod = tu_qjson(cases[i].pod);
        int rc = place_validate(pod, &src, &pe);
        bool ok = cases[i].err ? rc == PLACE_NO && pe.code == 403 &&
                                     strcmp(pe.msg, cases[i].err) == 0
                               : rc == 0;
        if (!ok)
            fail_msg("case %zu: rc %d, %s", i, rc, pe.msg);
        json_decref(pod);
        json_decref(f.pods);
        json_decref(f.nodes);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default),
        cmocka_unit_test(test_leader_pod_name),
        cmocka_unit_test(test_pods_owned_by_same_job),
        cmocka_unit_test(test_leader_pod_for_follower),
        cmocka_unit_test(test_pod_webhook_duplicate_leader_pods),
        cmocka_unit_test(test_validate_create_follower_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
