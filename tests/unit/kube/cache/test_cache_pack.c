/* cache_pack: the packed text of cached objects gives back the compact JSON byte for byte,
 * is shorter where the known keys are, and refuses what is not compact JSON. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "kube/cache/cache_pack.h"

static void roundtrip(const char *text, size_t *packed_len)
{
    char *p = cache_pack(text);
    assert_non_null(p);
    assert_true(strlen(p) <= strlen(text)); /* a token is never longer than its word */
    size_t len = 0;
    char *back = cache_unpack(p, &len);
    assert_non_null(back);
    assert_string_equal(back, text);
    assert_int_equal(len, strlen(text));
    if (packed_len)
        *packed_len = strlen(p);
    free(back);
    free(p);
}

/* A slim Job as kube-apiserver gives it and ctl_slim_job keeps it. */
static const char job[] =
    "{\"metadata\":{\"uid\":\"9c89842b-1d4c-46f8-af35-77eb0b7ce567\",\"resourceVersion\":\"201\","
    "\"labels\":{\"jobset.sigs.k8s.io/job-index\":\"0\",\"jobset.sigs.k8s.io/replicatedjob-name\":"
    "\"w\",\"jobset.sigs.k8s.io/restart-attempt\":\"0\"},\"ownerReferences\":[{\"kind\":\"JobSet\","
    "\"name\":\"r1\",\"uid\":\"e49297d6-a1cb-4939-aa55-7e5a8dee2c47\",\"controller\":true}]},"
    "\"spec\":{\"suspend\":false,\"parallelism\":1,\"completions\":1},\"status\":{\"conditions\":"
    "[]}}";

static void slim_job_shrinks_to_a_third(void **state)
{
    (void)state;
    size_t n = 0;
    roundtrip(job, &n);
    assert_true(n * 3 < sizeof(job) - 1);
}

/* Words inside values, next to each other, cut short, at the very end; escapes, UTF-8. */
static void any_compact_json_comes_back(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "",
        "{}",
        "{\"metadata\":{",
        "\"uid\":\"\"uid\":\"",
        "{\"a\":\"\\\"metadata\\\":{\\\"uid\\\":\\\"\",\"b\":\"\\u0001\\u001f\\n\\t\"}",
        "{\"name\":\"\xc3\xa9t\xc3\xa9 \xe2\x82\xac\",\"jobset.sigs.k8s.io/\":\"jobset.sigs.k8s.io/\"}",
        "{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\",\"kind\":\"JobSet\",\"metadata\":{\"uid\":\"u\"}}",
        "\"terminationMessagePath\":\"/dev/termination-log\",\"terminationMessagePolicy\":\"Fil",
        ",\"failed\":,\"ready\":,\"succeeded\":,\"suspended\":\"alpha.jobset.sigs.k8s.io/",
    };
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
        roundtrip(texts[i], NULL);
}

static void control_bytes_are_refused(void **state)
{
    (void)state;
    assert_null(cache_pack("{\"a\":\"\x01\"}"));
    assert_null(cache_pack("{\"a\":\"\n\"}"));
    assert_null(cache_unpack("\x1f", NULL));     /* a long token cut short */
    assert_null(cache_unpack("\x1f\xff", NULL)); /* a long token no word has */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(slim_job_shrinks_to_a_third),
        cmocka_unit_test(any_compact_json_comes_back),
        cmocka_unit_test(control_bytes_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
