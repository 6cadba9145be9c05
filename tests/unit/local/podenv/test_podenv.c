/* podenv: env order and overrides, $(VAR) expansion rules, fieldRefs, argv, errors. */
#include "testutil.h"

#include <errno.h>
#include <string.h>

#include "local/podenv/podenv.h"

static const char *get(const struct podenv_strv *e, const char *name)
{
    size_t n = strlen(name);
    const char *found = NULL;
    for (size_t i = 0; i < e->n; i++)
        if (!strncmp(e->v[i], name, n) && e->v[i][n] == '=')
            found = e->v[i] + n + 1;
    return found;
}

static const char META[] = "{\"name\":\"js-w-0-1-abcde\",\"namespace\":\"ns1\",\"uid\":\"u-1\","
                           "\"labels\":{\"jobset.sigs.k8s.io/restart-attempt\":\"2\"},"
                           "\"annotations\":{\"batch.kubernetes.io/job-completion-index\":\"1\"}}";

static int build(const char *container, const char *const *base, const char *extra,
                 struct podenv_strv *env, struct podenv_strv *argv, struct err *e)
{
    json_t *c = tu_json(container), *meta = tu_json(META), *x = extra ? tu_json(extra) : NULL;
    struct podenv_pod pod = {.meta = meta, .hostname = "js-w-0-1", .pod_ip = "127.0.1.2",
                             .host_ip = "127.0.0.1", .node_name = "localhost"};
    int rc = podenv_build(c, &pod, base, x, env, argv, e);
    json_decref(c);
    json_decref(meta);
    json_decref(x);
    return rc;
}

static void test_order_and_expansion(void **state)
{
    (void)state;
    const char *base[] = {"PATH=/bin", "HOSTNAME=laptop", "KEEP=1", NULL};
    struct podenv_strv env, argv;
    struct err e;
    assert_int_equal(
        build("{\"name\":\"c\",\"command\":[\"echo\",\"$(A)-$(B)\"],\"args\":[\"$$(A)\","
              "\"$(NOPE)\",\"$(JAX_PROCESS_ID)\"],\"env\":[{\"name\":\"A\",\"value\":\"x\"},"
              "{\"name\":\"B\",\"value\":\"$(A)$(A)\"},{\"name\":\"KEEP\",\"value\":\"2\"},"
              "{\"name\":\"C\",\"value\":\"$(D)\"},{\"name\":\"D\",\"value\":\"d\"}]}",
              base, "[{\"name\":\"JAX_PROCESS_ID\",\"value\":\"5\"}]", &env, &argv, &e),
        0);
    assert_string_equal(get(&env, "PATH"), "/bin");
    assert_string_equal(get(&env, "HOSTNAME"), "js-w-0-1");
    assert_string_equal(get(&env, "KEEP"), "2");
    assert_string_equal(get(&env, "B"), "xx");
    assert_string_equal(get(&env, "C"), "$(D)"); /* D is defined later: stays literal */
    assert_string_equal(get(&env, "JAX_PROCESS_ID"), "5");
    assert_int_equal(argv.n, 5);
    assert_string_equal(argv.v[0], "echo");
    assert_string_equal(argv.v[1], "x-xx");
    assert_string_equal(argv.v[2], "$(A)");
    assert_string_equal(argv.v[3], "$(NOPE)");
    assert_string_equal(argv.v[4], "5");
    assert_null(argv.v[5]);
    assert_null(env.v[env.n]);
    podenv_strv_free(&env);
    podenv_strv_free(&argv);
}

static void test_field_refs(void **state)
{
    (void)state;
    struct podenv_strv env, argv;
    struct err e;
    assert_int_equal(
        build("{\"name\":\"c\",\"command\":[\"true\"],\"env\":["
              "{\"name\":\"N\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":\"metadata.name\"}}},"
              "{\"name\":\"NS\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":\"metadata.namespace\"}}},"
              "{\"name\":\"R\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":"
              "\"metadata.labels['jobset.sigs.k8s.io/restart-attempt']\"}}},"
              "{\"name\":\"I\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":"
              "\"metadata.annotations['batch.kubernetes.io/job-completion-index']\"}}},"
              "{\"name\":\"IP\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":\"status.podIP\"}}},"
              "{\"name\":\"U\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":\"metadata.uid\"}}},"
              "{\"name\":\"X\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":"
              "\"metadata.labels['absent']\"}}}]}",
              NULL, NULL, &env, &argv, &e),
        0);
    assert_string_equal(get(&env, "N"), "js-w-0-1-abcde");
    assert_string_equal(get(&env, "NS"), "ns1");
    assert_string_equal(get(&env, "R"), "2");
    assert_string_equal(get(&env, "I"), "1");
    assert_string_equal(get(&env, "IP"), "127.0.1.2");
    assert_string_equal(get(&env, "U"), "u-1");
    assert_string_equal(get(&env, "X"), "");
    podenv_strv_free(&env);
    podenv_strv_free(&argv);
}

static void test_errors(void **state)
{
    (void)state;
    static const struct {
        const char *container, *want;
    } cases[] = {
        {"{\"name\":\"c\"}", "has no command"},
        {"{\"name\":\"c\",\"command\":[]}", "has no command"},
        {"{\"name\":\"c\",\"command\":[\"x\"],\"env\":[{\"name\":\"S\",\"valueFrom\":"
         "{\"secretKeyRef\":{\"name\":\"s\",\"key\":\"k\"}}}]}",
         "Secret \"s\" not found: only the Secrets in the manifest files"},
        {"{\"name\":\"c\",\"command\":[\"x\"],\"env\":[{\"name\":\"S\",\"valueFrom\":"
         "{\"resourceFieldRef\":{\"resource\":\"limits.cpu\"}}}]}",
         "only fieldRef, configMapKeyRef and secretKeyRef"},
        {"{\"name\":\"c\",\"command\":[\"x\"],\"env\":[{\"name\":\"S\",\"valueFrom\":"
         "{\"fieldRef\":{\"fieldPath\":\"spec.bogus\"}}}]}",
         "unsupported fieldPath spec.bogus"},
        {"{\"name\":\"c\",\"command\":[\"x\"],\"envFrom\":[{\"configMapRef\":{\"name\":\"m\"}}]}",
         "envFrom[0]: ConfigMap \"m\" not found"},
        {"{\"name\":\"c\",\"command\":[\"x\"],\"env\":[{\"value\":\"v\"}]}", "no name"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct podenv_strv env = {0}, argv = {0};
        struct err e = {{0}};
        assert_int_equal(build(cases[i].container, NULL, NULL, &env, &argv, &e), -EINVAL);
        if (!strstr(e.msg, cases[i].want))
            fail_msg("case %zu: got \"%s\", want \"%s\"", i, e.msg, cases[i].want);
        assert_null(env.v);
        assert_null(argv.v);
    }
}

/* An extra entry with "join" goes before the container's own value (or jaxset's), not over
 * it; without a value so far it is the value. */
static void test_extra_join(void **state)
{
    (void)state;
    const char *base[] = {"LD_PRELOAD=/base.so", "OTHER=/o.so", NULL};
    const char *extra = "[{\"name\":\"LD_PRELOAD\",\"value\":\"/nss.so\",\"join\":\":\"},"
                        "{\"name\":\"OTHER\",\"value\":\"/nss.so\",\"join\":\":\"},"
                        "{\"name\":\"NEW\",\"value\":\"/nss.so\",\"join\":\":\"}]";
    struct podenv_strv env, argv;
    struct err e;
    assert_int_equal(build("{\"name\":\"c\",\"command\":[\"x\"],\"env\":[{\"name\":"
                           "\"LD_PRELOAD\",\"value\":\"/mine.so\"}]}",
                           base, extra, &env, &argv, &e),
                     0);
    assert_string_equal(get(&env, "LD_PRELOAD"), "/nss.so:/mine.so");
    assert_string_equal(get(&env, "OTHER"), "/nss.so:/o.so");
    assert_string_equal(get(&env, "NEW"), "/nss.so");
    podenv_strv_free(&env);
    podenv_strv_free(&argv);
}

/* $(VAR) chains that double at every step stop at PODENV_VALUE_MAX instead of taking
 * 2^40 bytes; so does a command line. */
static void test_expansion_bomb(void **state)
{
    (void)state;
    char c[8192];
    size_t n = (size_t)snprintf(c, sizeof(c), "{\"name\":\"c\",\"command\":[\"x\"],"
                                              "\"env\":[{\"name\":\"V0\",\"value\":\"xx\"}");
    for (int k = 1; k <= 40; k++)
        n += (size_t)snprintf(c + n, sizeof(c) - n,
                              ",{\"name\":\"V%d\",\"value\":\"$(V%d)$(V%d)\"}", k, k - 1,
                              k - 1);
    snprintf(c + n, sizeof(c) - n, "]}");
    struct podenv_strv env = {0}, argv = {0};
    struct err e = {{0}};
    assert_int_equal(build(c, NULL, NULL, &env, &argv, &e), -E2BIG);
    assert_string_equal(e.msg, "env[17] (V17): the expanded value is longer than 131072 bytes, "
                               "the most one argument or variable can be");
    assert_int_equal(build("{\"name\":\"c\",\"command\":[\"x\",\"$(V)$(V)\"],\"env\":"
                           "[{\"name\":\"V\",\"value\":\"$(W)$(W)\"}]}",
                           NULL, NULL, &env, &argv, &e),
                     0); /* undefined references stay short */
    podenv_strv_free(&env);
    podenv_strv_free(&argv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_and_expansion),
        cmocka_unit_test(test_field_refs),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_extra_join),
        cmocka_unit_test(test_expansion_bomb),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
