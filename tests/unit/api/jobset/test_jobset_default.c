/* js_default: every webhook and CRD default, user values kept, wrong types left alone. */
#include "api/jobset/jobset.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

struct dcase {
    const char *name;
    const char *in;   /* JSON */
    const char *want; /* JSON after js_default */
};

#define RJ_DEFAULTED(name)                                                                         \
    "{\"name\":\"" name "\",\"replicas\":1,\"groupName\":\"default\",\"template\":{\"spec\":"      \
    "{\"completionMode\":\"Indexed\",\"template\":{\"spec\":{\"restartPolicy\":\"OnFailure\","     \
    "\"containers\":[{\"name\":\"c\"}]}}}}}"
#define RJ_PLAIN(name)                                                                             \
    "{\"name\":\"" name                                                                            \
    "\",\"template\":{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\"}]}}}}}"
#define SPEC_DEFAULTS                                                                              \
    "\"successPolicy\":{\"operator\":\"All\"},\"startupPolicy\":{\"startupPolicyOrder\":"          \
    "\"AnyOrder\"},\"network\":{\"enableDNSHostnames\":true,\"publishNotReadyAddresses\":true}"

static const struct dcase cases[] = {
    {"all webhook and CRD defaults",
     "{\"metadata\":{\"name\":\"js\"},\"spec\":{\"replicatedJobs\":[" RJ_PLAIN("a") "," RJ_PLAIN(
         "b") "]}}",
     "{\"metadata\":{\"name\":\"js\",\"namespace\":\"default\"},\"spec\":{\"replicatedJobs\":"
     "[" RJ_DEFAULTED("a") "," RJ_DEFAULTED("b") "]," SPEC_DEFAULTS "}}"},
    {"user values survive",
     "{\"metadata\":{\"name\":\"js\",\"namespace\":\"team\"},\"spec\":{"
     "\"successPolicy\":{\"operator\":\"Any\",\"targetReplicatedJobs\":[\"a\"]},"
     "\"startupPolicy\":{\"startupPolicyOrder\":\"InOrder\"},"
     "\"network\":{\"enableDNSHostnames\":false,\"publishNotReadyAddresses\":false,"
     "\"subdomain\":\"sd\"},"
     "\"failurePolicy\":{\"restartStrategy\":\"BlockingRecreate\",\"rules\":[{\"name\":\"mine\","
     "\"action\":\"FailJobSet\"}]},"
     "\"volumeClaimPolicies\":[{\"templates\":[],\"retentionPolicy\":{\"whenDeleted\":"
     "\"Retain\"}}],"
     "\"replicatedJobs\":[{\"name\":\"a\",\"replicas\":0,\"groupName\":\"g\",\"template\":{"
     "\"spec\":{\"completionMode\":\"NonIndexed\",\"template\":{\"spec\":{\"restartPolicy\":"
     "\"Never\"}}}}}]}}",
     NULL},
    {"network partly set",
     "{\"metadata\":{\"name\":\"js\"},\"spec\":{\"network\":{\"enableDNSHostnames\":false}}}",
     "{\"metadata\":{\"name\":\"js\",\"namespace\":\"default\"},\"spec\":{\"network\":{"
     "\"enableDNSHostnames\":false,\"publishNotReadyAddresses\":true},"
     "\"successPolicy\":{\"operator\":\"All\"},\"startupPolicy\":{\"startupPolicyOrder\":"
     "\"AnyOrder\"}}}"},
    {"null means unset",
     "{\"metadata\":{\"name\":\"js\",\"namespace\":null},\"spec\":{\"successPolicy\":null,"
     "\"startupPolicy\":null,\"network\":null,\"replicatedJobs\":[{\"name\":\"a\",\"replicas\":"
     "null,\"groupName\":null,\"template\":{\"spec\":{\"completionMode\":null,\"template\":{"
     "\"spec\":{\"restartPolicy\":null,\"containers\":[{\"name\":\"c\"}]}}}}}]}}",
     "{\"metadata\":{\"name\":\"js\",\"namespace\":\"default\"},\"spec\":{\"replicatedJobs\":"
     "[" RJ_DEFAULTED("a") "]," SPEC_DEFAULTS "}}"},
    {"empty restartPolicy and namespace are defaulted",
     "{\"metadata\":{\"name\":\"js\",\"namespace\":\"\"},\"spec\":{\"replicatedJobs\":[{"
     "\"name\":\"a\",\"template\":{\"spec\":{\"template\":{\"spec\":{\"restartPolicy\":\"\","
     "\"containers\":[{\"name\":\"c\"}]}}}}}]}}",
     "{\"metadata\":{\"name\":\"js\",\"namespace\":\"default\"},\"spec\":{\"replicatedJobs\":"
     "[" RJ_DEFAULTED("a") "]," SPEC_DEFAULTS "}}"},
    {"failure policy rule names and restartStrategy",
     "{\"metadata\":{},\"spec\":{\"failurePolicy\":{\"maxRestarts\":2,\"rules\":[{\"action\":"
     "\"FailJobSet\"},{\"name\":\"keep\",\"action\":\"RestartJobSet\"},{\"name\":\"\","
     "\"action\":\"RestartJobSet\"}]}}}",
     "{\"metadata\":{\"namespace\":\"default\"},\"spec\":{\"failurePolicy\":{\"maxRestarts\":2,"
     "\"restartStrategy\":\"Recreate\",\"rules\":[{\"action\":\"FailJobSet\",\"name\":"
     "\"failurePolicyRule0\"},{\"name\":\"keep\",\"action\":\"RestartJobSet\"},{\"name\":"
     "\"failurePolicyRule2\",\"action\":\"RestartJobSet\"}]}," SPEC_DEFAULTS "}}"},
    {"volume claim retention policy",
     "{\"metadata\":{},\"spec\":{\"volumeClaimPolicies\":[{\"templates\":[]},{\"templates\":[],"
     "\"retentionPolicy\":{}}]}}",
     "{\"metadata\":{\"namespace\":\"default\"},\"spec\":{\"volumeClaimPolicies\":[{"
     "\"templates\":[],\"retentionPolicy\":{\"whenDeleted\":\"Delete\"}},{\"templates\":[],"
     "\"retentionPolicy\":{\"whenDeleted\":\"Delete\"}}]," SPEC_DEFAULTS "}}"},
    {"missing metadata is created for the namespace", "{\"spec\":{}}",
     "{\"metadata\":{\"namespace\":\"default\"},\"spec\":{" SPEC_DEFAULTS "}}"},
    {"no spec: nothing invented", "{\"metadata\":{\"name\":\"x\"}}",
     "{\"metadata\":{\"name\":\"x\",\"namespace\":\"default\"}}"},
    {"empty template gets the template defaults",
     "{\"metadata\":{\"namespace\":\"n\"},\"spec\":{\"replicatedJobs\":[{\"name\":\"a\","
     "\"template\":{}}]}}",
     "{\"metadata\":{\"namespace\":\"n\"},\"spec\":{\"replicatedJobs\":[{\"name\":\"a\","
     "\"replicas\":1,\"groupName\":\"default\",\"template\":{\"spec\":{\"completionMode\":"
     "\"Indexed\",\"template\":{\"spec\":{\"restartPolicy\":\"OnFailure\"}}}}}]," SPEC_DEFAULTS
     "}}"},
    {"missing template is left for validation",
     "{\"metadata\":{\"namespace\":\"n\"},\"spec\":{\"replicatedJobs\":[{\"name\":\"a\"}]}}",
     "{\"metadata\":{\"namespace\":\"n\"},\"spec\":{\"replicatedJobs\":[{\"name\":\"a\","
     "\"replicas\":1,\"groupName\":\"default\"}]," SPEC_DEFAULTS "}}"},
    {"wrong types are left alone",
     "{\"metadata\":{\"namespace\":7},\"spec\":{\"successPolicy\":\"x\",\"startupPolicy\":[],"
     "\"network\":true,\"failurePolicy\":{\"restartStrategy\":1,\"rules\":[{\"name\":3},\"r\"]},"
     "\"volumeClaimPolicies\":[{\"retentionPolicy\":\"keep\"},5],"
     "\"replicatedJobs\":[{\"name\":\"a\",\"replicas\":\"two\",\"groupName\":false,\"template\":"
     "{\"spec\":{\"completionMode\":1,\"template\":{\"spec\":{\"restartPolicy\":[]}}}}},"
     "{\"name\":\"b\",\"template\":{\"spec\":{\"template\":\"t\"}}},{\"name\":\"c\","
     "\"template\":{\"spec\":3}},\"x\"]}}",
     "{\"metadata\":{\"namespace\":7},\"spec\":{\"successPolicy\":\"x\",\"startupPolicy\":[],"
     "\"network\":true,\"failurePolicy\":{\"restartStrategy\":1,\"rules\":[{\"name\":3},\"r\"]},"
     "\"volumeClaimPolicies\":[{\"retentionPolicy\":\"keep\"},5],"
     "\"replicatedJobs\":[{\"name\":\"a\",\"replicas\":\"two\",\"groupName\":false,\"template\":"
     "{\"spec\":{\"completionMode\":1,\"template\":{\"spec\":{\"restartPolicy\":[]}}}}},"
     "{\"name\":\"b\",\"replicas\":1,\"groupName\":\"default\",\"template\":{\"spec\":{"
     "\"completionMode\":\"Indexed\",\"template\":\"t\"}}},{\"name\":\"c\",\"replicas\":1,"
     "\"groupName\":\"default\",\"template\":{\"spec\":3}},\"x\"]}}"},
    {"wrong replicatedJobs type", "{\"metadata\":[],\"spec\":{\"replicatedJobs\":{}}}",
     "{\"metadata\":[],\"spec\":{\"replicatedJobs\":{}," SPEC_DEFAULTS "}}"},
};

static void test_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *in = tu_json(cases[i].in);
        json_t *want = tu_json(cases[i].want ? cases[i].want : cases[i].in);
        assert_int_equal(js_default(in), 0);
        if (!json_equal(in, want)) {
            char *got = json_dumps(in, JSON_SORT_KEYS | JSON_COMPACT);
            char *w = json_dumps(want, JSON_SORT_KEYS | JSON_COMPACT);
            fail_msg("%s:\n got  %s\n want %s", cases[i].name, got, w);
        }
        json_decref(in);
        json_decref(want);
    }
}

/* The "user values survive" case compares against its own input; spot-check it too. */
static void test_user_values_exact(void **state)
{
    (void)state;
    json_t *js = tu_json(cases[1].in);
    assert_int_equal(js_default(js), 0);
    const json_t *rj =
        json_array_get(json_object_get(json_object_get(js, "spec"), "replicatedJobs"), 0);
    assert_int_equal(json_integer_value(json_object_get(rj, "replicas")), 0);
    assert_string_equal(json_string_value(json_object_get(rj, "groupName")), "g");
    json_decref(js);
}

static void test_not_an_object(void **state)
{
    (void)state;
    json_t *v = json_string("x");
    assert_int_equal(js_default(v), 0);
    assert_int_equal(js_default(NULL), 0);
    json_decref(v);
}

static void test_idempotent(void **state)
{
    (void)state;
    json_t *js = tu_json(cases[0].in);
    assert_int_equal(js_default(js), 0);
    json_t *once = json_deep_copy(js);
    assert_int_equal(js_default(js), 0);
    assert_true(json_equal(js, once));
    json_decref(once);
    json_decref(js);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_user_values_exact),
        cmocka_unit_test(test_not_an_object),
        cmocka_unit_test(test_idempotent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
