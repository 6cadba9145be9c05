/* kstore: put/get/del by key, the owner index, change detection, and the controller's slim
 * transforms keeping what the reconcile core reads. */
#include "testutil.h"

#include <errno.h>
#include <string.h>

#include "kube/ctl/ctl_slim.h"
#include "kube/cache/cache_store.h"
#include "obj/tree/jx.h"

static json_t *job(const char *name, const char *owner, int succeeded)
{
    char text[1024];
    snprintf(text, sizeof(text),
             "{'metadata':{'name':'%s','namespace':'ns','uid':'u-%s','resourceVersion':'7',"
             "'managedFields':[{'manager':'x'}],"
             "'labels':{'jobset.sigs.k8s.io/replicatedjob-name':'w',"
             "'jobset.sigs.k8s.io/restart-attempt':'0','other':'x'},"
             "'ownerReferences':[{'kind':'Other','uid':'o2','controller':false},"
             "{'kind':'JobSet','name':'js','uid':'%s','controller':true}]},"
             "'spec':{'suspend':false,'parallelism':2,'completions':2,"
             "'template':{'metadata':{'labels':{'a':'b'}},'spec':{'nodeSelector':{'n':'1'},"
             "'containers':[{'name':'c','image':'i','env':[{'name':'BIG','value':'xxxx'}]}]}}},"
             "'status':{'succeeded':%d,'uncountedTerminatedPods':{},'conditions':[{'type':"
             "'Complete','status':'True','lastProbeTime':'t','lastTransitionTime':'t'}]}}",
             name, name, owner, succeeded);
    return tu_qjson(text);
}

static void put_get_owner_index(void **state)
{
    (void)state;
    struct cache_store *s = cache_store_new();
    json_t *a = job("a", "js1", 0), *b = job("b", "js1", 0), *c = job("c", "js2", 0);
    assert_int_equal(cache_store_put(s, a), 1);
    assert_int_equal(cache_store_put(s, a), 0); /* unchanged */
    assert_int_equal(cache_store_put(s, b), 1);
    assert_int_equal(cache_store_put(s, c), 1);
    assert_int_equal(cache_store_size(s), 3);
    json_t *got = cache_store_get(s, "ns", "b");
    assert_true(json_equal(got, b));
    json_decref(got);
    json_t *own = cache_store_owned(s, "js1");
    assert_int_equal(json_array_size(own), 2);
    json_decref(own);
    /* re-owned: the index follows */
    json_t *b2 = job("b", "js2", 1);
    assert_int_equal(cache_store_put(s, b2), 1);
    own = cache_store_owned(s, "js1");
    assert_int_equal(json_array_size(own), 1);
    json_decref(own);
    own = cache_store_owned(s, "js2");
    assert_int_equal(json_array_size(own), 2);
    json_decref(own);
    assert_true(cache_store_del(s, "ns", "c"));
    assert_false(cache_store_del(s, "ns", "c"));
    own = cache_store_owned(s, "js2");
    assert_int_equal(json_array_size(own), 1);
    json_decref(own);
    assert_null(cache_store_get(s, "ns", "c"));
    json_decref(a);
    json_decref(b);
    json_decref(b2);
    json_decref(c);
    cache_store_free(s);
}

static void slim_job_keeps_what_the_core_reads(void **state)
{
    (void)state;
    json_t *j = job("a", "js1", 2), *s = ctl_slim_job(j);
    const json_t *m = jx_obj(s, "metadata");
    assert_string_equal(jx_str(m, "uid"), "u-a");
    assert_string_equal(jx_get_meta(m, "labels", "jobset.sigs.k8s.io/restart-attempt"), "0");
    assert_null(jx_get_meta(m, "labels", "other"));
    assert_null(json_object_get(m, "managedFields"));
    assert_int_equal(json_array_size(jx_arr(m, "ownerReferences")), 1);
    assert_string_equal(cache_store_owner_uid(s), "js1");
    assert_int_equal(jx_int_or(jx_obj(s, "spec"), "parallelism", 0), 2);
    assert_null(jx_path(s, "spec.template")); /* a resume reads the whole Job */
    assert_null(jx_get_meta(m, "labels", "jobset.sigs.k8s.io/job-key"));
    assert_int_equal(jx_int_or(jx_obj(s, "status"), "succeeded", 0), 2);
    assert_null(json_object_get(jx_obj(s, "status"), "uncountedTerminatedPods"));
    assert_string_equal(jx_str(json_array_get(jx_arr(jx_obj(s, "status"), "conditions"), 0),
                               "type"),
                        "Complete");
    char *a = json_dumps(j, JSON_COMPACT), *b = json_dumps(s, JSON_COMPACT);
    assert_true(strlen(b) < strlen(a));
    free(a);
    free(b);
    json_decref(s);
    json_decref(j);
}

static void slim_service_only_jobset_owned(void **state)
{
    (void)state;
    json_t *mine = tu_qjson("{'metadata':{'name':'js','namespace':'ns','ownerReferences':["
                            "{'kind':'JobSet','name':'js','uid':'u','controller':true}]},"
                            "'spec':{'clusterIP':'None'}}");
    json_t *other = tu_qjson("{'metadata':{'name':'x','namespace':'ns'},'spec':{}}");
    json_t *s = ctl_slim_service(mine);
    assert_non_null(s);
    assert_null(json_object_get(s, "spec"));
    assert_null(ctl_slim_service(other));
    json_decref(s);
    json_decref(mine);
    json_decref(other);
}

/* Thousands of objects under hundreds of owners: the tables grow, the owner lists follow
 * replacements and deletions, and an owner with nothing left is gone. */
static void many_objects_and_owners(void **state)
{
    (void)state;
    struct cache_store *s = cache_store_new();
    char name[32], owner[32];
    for (int i = 0; i < 5000; i++) {
        snprintf(name, sizeof(name), "j%d", i);
        snprintf(owner, sizeof(owner), "js%d", i % 500);
        json_t *j = job(name, owner, 0);
        assert_int_equal(cache_store_put(s, j), 1);
        json_decref(j);
    }
    assert_int_equal(cache_store_size(s), 5000);
    json_t *own = cache_store_owned(s, "js7");
    assert_int_equal(json_array_size(own), 10);
    json_decref(own);
    for (int i = 0; i < 5000; i += 2) {
        snprintf(name, sizeof(name), "j%d", i);
        assert_true(cache_store_del(s, "ns", name));
    }
    own = cache_store_owned(s, "js7"); /* j7, j507, ...: all odd, all kept */
    assert_int_equal(json_array_size(own), 10);
    json_decref(own);
    own = cache_store_owned(s, "js8");
    assert_int_equal(json_array_size(own), 0);
    json_decref(own);
    json_t *got = cache_store_get(s, "ns", "j4999");
    assert_string_equal(jx_str(jx_obj(got, "metadata"), "name"), "j4999");
    assert_string_equal(jx_str(jx_obj(got, "metadata"), "namespace"), "ns");
    json_decref(got);
    assert_int_equal(cache_store_size(s), 2500);
    cache_store_free(s);
}

/* A key holds what it gives back: a namespace with a '/' (the separator) or a name or
 * namespace with a NUL (cut as a C string) is refused, not stored under another object's key
 * (found by fuzz_watch: "nt.sigs.k8s.io/jos" + "a" read back as "nt.sigs.k8s.io" + "jos/a"). */
static void keys_that_cannot_be_given_back_are_refused(void **state)
{
    (void)state;
    char key[512];
    json_t *slash = json_pack("{s:{s:s,s:s}}", "metadata", "namespace", "a/b", "name", "c");
    json_t *nul_ns = json_pack("{s:{s:s#,s:s}}", "metadata", "namespace", "a\0b", (size_t)3,
                               "name", "c");
    json_t *nul_name = json_pack("{s:{s:s,s:s#}}", "metadata", "namespace", "a", "name", "c\0d",
                                 (size_t)3);
    json_t *fine = json_pack("{s:{s:s,s:s}}", "metadata", "namespace", "a", "name", "b/c");
    assert_false(cache_store_key(slash, key, sizeof(key)));
    assert_false(cache_store_key(nul_ns, key, sizeof(key)));
    assert_false(cache_store_key(nul_name, key, sizeof(key)));
    assert_true(cache_store_key(fine, key, sizeof(key)));
    struct cache_store *s = cache_store_new();
    assert_int_equal(cache_store_put(s, slash), -EINVAL);
    assert_int_equal(cache_store_put(s, fine), 1);
    json_t *back = cache_store_get(s, "a", "b/c");
    assert_true(json_equal(back, fine));
    json_decref(back);
    cache_store_free(s);
    json_decref(slash);
    json_decref(nul_ns);
    json_decref(nul_name);
    json_decref(fine);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(many_objects_and_owners),
        cmocka_unit_test(put_get_owner_index),
        cmocka_unit_test(keys_that_cannot_be_given_back_are_refused),
        cmocka_unit_test(slim_job_keeps_what_the_core_reads),
        cmocka_unit_test(slim_service_only_jobset_owned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
