/* kubeconfig: exec credential plugins, with tests/unit/data/kc_cfg_exec_plugin.py as the plugin
 * (it counts its runs in a file and dumps what it was given): v1 and v1beta1, a token kept
 * until shortly before its expiry and fetched again after it and after an invalidation, a
 * certificate/key pair kept without expiry, args, env and KUBERNETES_EXEC_INFO passed, stdin
 * empty, failures with stderr quoted, bad output, the time limit, the plugin not found, and the
 * configurations refused when loading. */
#include "testutil.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kube/config/kc_cfg.h"
#include "obj/base/ktime.h"
#include "obj/base/sbuf.h"

struct fx {
    char *dir;
    char plugin[PATH_MAX];
};

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));
    f->dir = tu_tmpdir("kcfg-exec");
    snprintf(f->plugin, sizeof(f->plugin), "%s", tu_src("tests/unit/data/kc_cfg_exec_plugin.py"));
    setenv("HOME", f->dir, 1);
    unsetenv("KUBERNETES_SERVICE_HOST");
    unsetenv("KUBERNETES_SERVICE_PORT");
    setenv("PLUGIN_EXTRA", "from-parent", 1);     /* the config's env wins */
    setenv("KUBERNETES_EXEC_INFO", "stale", 1);   /* replaced */
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;
    tu_rmtree(f->dir);
    free(f->dir);
    free(f);
    return 0;
}

/* A kubeconfig whose users run the plugin; `users` is the YAML of the users list, where @P
 * stands for the plugin and @D for the test's directory. */
static void write_config(struct fx *f, const char *users)
{
    char *u = NULL;
    struct sbuf b = SBUF_INIT;
    for (const char *p = users; *p; p++) {
        if (p[0] == '@' && (p[1] == 'P' || p[1] == 'D')) {
            sb_puts(&b, p[1] == 'P' ? f->plugin : f->dir);
            p++;
        } else {
            sb_append(&b, p, 1);
        }
    }
    u = sb_detach(&b);
    char *text = sb_fmt("current-context: c\n"
                        "clusters:\n"
                        "- name: k\n"
                        "  cluster:\n"
                        "    server: https://k.example:6443\n"
                        "    certificate-authority-data: SU5MSU5FLUNBCg==\n"
                        "    extensions:\n"
                        "    - {name: other, extension: {x: 1}}\n"
                        "    - name: client.authentication.k8s.io/exec\n"
                        "      extension: {audience: jaxset}\n"
                        "contexts: [{name: c, context: {cluster: k, user: v1}}]\n"
                        "users:\n%s",
                        u);
    tu_write(f->dir, "config", text);
    setenv("KUBECONFIG", tu_path(f->dir, "config"), 1);
    free(text);
    free(u);
}

static struct kc_cfg *load_user(const char *user, int timeout_ms)
{
    struct kc_cfg_opts o = {.user = user, .exec_timeout_ms = timeout_ms};
    struct kc_cfg *c = NULL;
    struct err e = {{0}};
    if (kc_cfg_load(&o, &c, &e) < 0)
        fail_msg("kc_cfg_load: %s", e.msg);
    return c;
}

/* How many times the plugin ran. */
static int runs(struct fx *f)
{
    FILE *fp = fopen(tu_path(f->dir, "count"), "r");
    int n = 0, ch;
    if (!fp)
        return 0;
    while ((ch = fgetc(fp)) != EOF)
        n += ch == '\n';
    fclose(fp);
    return n;
}

static const char *token_at(struct kc_cfg *c, const char *rfc3339)
{
    int64_t now;
    struct kc_cfg_creds cr;
    struct err e = {{0}};
    assert_int_equal(kt_parse(rfc3339, &now), 0);
    if (kc_cfg_credentials(c, now, &cr, &e) < 0)
        fail_msg("kc_cfg_credentials: %s", e.msg);
    return cr.token;
}

static const char V1_USER[] =
    "- name: v1\n"
    "  user:\n"
    "    exec:\n"
    "      apiVersion: client.authentication.k8s.io/v1\n"
    "      command: @P\n"
    "      args: [--flag, two words]\n"
    "      env:\n"
    "      - {name: PLUGIN_COUNT, value: @D/count}\n"
    "      - {name: PLUGIN_DUMP, value: @D/dump.json}\n"
    "      - {name: PLUGIN_EXPIRY, value: '2030-01-01T00:00:00Z'}\n"
    "      - {name: PLUGIN_EXTRA, value: from-config}\n"
    "      interactiveMode: Never\n"
    "      provideClusterInfo: true\n";

static void test_v1_token_expiry(void **state)
{
    struct fx *f = *state;
    write_config(f, V1_USER);
    struct kc_cfg *c = load_user(NULL, 0);
    assert_int_equal(runs(f), 0); /* nothing runs before credentials are asked for */
    assert_string_equal(token_at(c, "2029-12-31T23:00:00Z"), "tok-1");
    assert_string_equal(token_at(c, "2029-12-31T23:59:40Z"), "tok-1");
    assert_int_equal(runs(f), 1);
    /* within 10 s of the expiry: run again */
    assert_string_equal(token_at(c, "2029-12-31T23:59:55Z"), "tok-2");
    /* 5 s of life left: kept for half of it */
    assert_string_equal(token_at(c, "2029-12-31T23:59:56Z"), "tok-2");
    assert_int_equal(runs(f), 2);
    kc_cfg_credentials_invalidate(c);
    assert_string_equal(token_at(c, "2029-12-31T23:00:00Z"), "tok-3");
    assert_int_equal(runs(f), 3);
    kc_cfg_free(c);

    json_error_t je;
    json_t *d = json_load_file(tu_path(f->dir, "dump.json"), 0, &je);
    assert_non_null(d);
    json_t *want = tu_qjson("{'args': ['--flag', 'two words'], 'extra': 'from-config', 'stdin': '',"
                            " 'info': {'kind': 'ExecCredential',"
                            "  'apiVersion': 'client.authentication.k8s.io/v1',"
                            "  'spec': {'interactive': false, 'cluster': {"
                            "   'server': 'https://k.example:6443',"
                            "   'certificate-authority-data': 'SU5MSU5FLUNBCg==',"
                            "   'config': {'audience': 'jaxset'}}}}}");
    if (!json_equal(d, want))
        fail_msg("plugin saw %s", json_dumps(d, JSON_SORT_KEYS));
    json_decref(want);
    json_decref(d);
}

/* v1beta1 defaults interactiveMode; a command with '/' is relative to the kubeconfig; a
 * certificate without expiry is kept until invalidated; no cluster info unless asked. */
static void test_v1beta1_cert(void **state)
{
    struct fx *f = *state;
    char link[PATH_MAX];
    snprintf(link, sizeof(link), "%s/bin", f->dir);
    assert_int_equal(mkdir(link, 0755), 0);
    snprintf(link, sizeof(link), "%s/bin/plugin", f->dir);
    assert_int_equal(symlink(f->plugin, link), 0);
    write_config(f, "- name: v1\n"
                    "  user:\n"
                    "    exec:\n"
                    "      apiVersion: client.authentication.k8s.io/v1beta1\n"
                    "      command: ./bin/plugin\n"
                    "      env:\n"
                    "      - {name: PLUGIN_COUNT, value: @D/count}\n"
                    "      - {name: PLUGIN_DUMP, value: @D/dump.json}\n"
                    "      - {name: PLUGIN_MODE, value: cert}\n");
    assert_int_equal(chdir("/"), 0);
    struct kc_cfg *c = load_user(NULL, 0);
    struct kc_cfg_creds cr;
    struct err e = {{0}};
    assert_int_equal(kc_cfg_credentials(c, kt_now_ms(), &cr, &e), 0);
    assert_null(cr.token);
    assert_string_equal(cr.cert_pem, "CERT-1\n");
    assert_int_equal(cr.cert_len, 7);
    assert_string_equal(cr.key_pem, "KEY-1\n");
    assert_int_equal(cr.key_len, 6);
    assert_int_equal(kc_cfg_credentials(c, kt_now_ms() + 10LL * 365 * 86400000, &cr, &e), 0);
    assert_string_equal(cr.cert_pem, "CERT-1\n");
    assert_int_equal(runs(f), 1);
    kc_cfg_credentials_invalidate(c);
    assert_int_equal(kc_cfg_credentials(c, kt_now_ms(), &cr, &e), 0);
    assert_string_equal(cr.key_pem, "KEY-2\n");
    kc_cfg_free(c);

    json_t *d = json_load_file(tu_path(f->dir, "dump.json"), 0, NULL);
    json_t *want = tu_qjson("{'kind': 'ExecCredential',"
                            " 'apiVersion': 'client.authentication.k8s.io/v1beta1',"
                            " 'spec': {'interactive': false}}");
    assert_true(json_equal(json_object_get(d, "info"), want));
    assert_true(json_is_array(json_object_get(d, "args")));
    assert_int_equal(json_array_size(json_object_get(d, "args")), 0);
    json_decref(want);
    json_decref(d);
}

/* A token of the user wins: the plugin is not run (client-go exec UpdateTransportConfig). */
static void test_static_token_wins(void **state)
{
    struct fx *f = *state;
    write_config(f, "- name: v1\n"
                    "  user:\n"
                    "    token: static\n"
                    "    exec:\n"
                    "      apiVersion: client.authentication.k8s.io/v1\n"
                    "      command: @P\n"
                    "      interactiveMode: IfAvailable\n"
                    "      env: [{name: PLUGIN_COUNT, value: @D/count}]\n");
    struct kc_cfg *c = load_user(NULL, 0);
    assert_string_equal(token_at(c, "2029-12-31T23:00:00Z"), "static");
    assert_int_equal(runs(f), 0);
    kc_cfg_free(c);
}

/* The user `name` runs the plugin in PLUGIN_MODE `mode`. */
static void plugin_user(struct sbuf *b, const char *name, const char *mode)
{
    sb_printf(b,
              "- name: %s\n"
              "  user:\n"
              "    exec:\n"
              "      apiVersion: client.authentication.k8s.io/v1\n"
              "      command: @P\n"
              "      interactiveMode: Never\n"
              "      installHint: |\n"
              "        install it with\n"
              "        apt-get install the-plugin\n"
              "      env: [{name: PLUGIN_MODE, value: %s}]\n",
              name, mode);
}

#define creds_fail(c, needle) creds_fail_(c, needle, __LINE__)
static void creds_fail_(struct kc_cfg *c, const char *needle, int line)
{
    struct kc_cfg_creds cr;
    struct err e = {{0}};
    int rc = kc_cfg_credentials(c, kt_now_ms(), &cr, &e);
    if (rc >= 0 || !strstr(e.msg, needle))
        fail_msg("line %d: kc_cfg_credentials gave %d \"%s\", want \"%s\"", line, rc, e.msg, needle);
}

static void test_failures(void **state)
{
    struct fx *f = *state;
    static const char *const modes[] = {"fail", "badjson", "kind", "wrongversion", "nostatus",
                                        "sleep"};
    struct sbuf b = SBUF_INIT;
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
        plugin_user(&b, modes[i], modes[i]);
    sb_puts(&b, "- name: notfound\n"
                "  user:\n"
                "    exec:\n"
                "      apiVersion: client.authentication.k8s.io/v1\n"
                "      command: jaxset-no-such-plugin\n"
                "      interactiveMode: Never\n"
                "      installHint: \"install it with\\napt-get install the-plugin\"\n");
    write_config(f, sb_str(&b));
    sb_free(&b);

    struct kc_cfg *c = load_user("fail", 0);
    char msg[8192];
    snprintf(msg, sizeof(msg),
             "exec plugin %s of user \"fail\": failed with exit code 3; stderr: error: login "
             "required | run `plugin login` first | third ...",
             f->plugin);
    creds_fail(c, msg);
    kc_cfg_free(c);
    c = load_user("badjson", 0);
    creds_fail(c, "of user \"badjson\": decoding its output: line");
    kc_cfg_free(c);
    c = load_user("kind", 0);
    creds_fail(c, "it printed kind \"Status\", not ExecCredential");
    kc_cfg_free(c);
    c = load_user("wrongversion", 0);
    creds_fail(c, "it is configured to use API version client.authentication.k8s.io/v1, it "
                  "returned \"client.authentication.k8s.io/v1alpha1\"");
    kc_cfg_free(c);
    c = load_user("nostatus", 0);
    creds_fail(c, "it didn't return a status field");
    kc_cfg_free(c);
    c = load_user("notfound", 0);
    creds_fail(c, "exec plugin jaxset-no-such-plugin of user \"notfound\": executable not found: "
                  "install it with apt-get install the-plugin");
    kc_cfg_free(c);

    int64_t t0 = kt_mono_ms();
    c = load_user("sleep", 1500);
    creds_fail(c, "of user \"sleep\": timed out after 1500 ms and was killed");
    assert_true(kt_mono_ms() - t0 < 15000);
    kc_cfg_free(c);
}

/* Exec configurations refused when loading, as clientcmd validateAuthInfo refuses them (and
 * interactiveMode Always, which needs a terminal). */
static void test_refused(void **state)
{
    struct fx *f = *state;
    static const char *const bad[][2] = {
        {"{apiVersion: client.authentication.k8s.io/v1, command: x}",
         "exec: interactiveMode must be given for client.authentication.k8s.io/v1"},
        {"{apiVersion: client.authentication.k8s.io/v1, command: x, interactiveMode: Always}",
         "exec: interactiveMode Always needs a terminal"},
        {"{apiVersion: client.authentication.k8s.io/v1, command: x, interactiveMode: Sometimes}",
         "exec: interactiveMode \"Sometimes\" is not Never"},
        {"{apiVersion: client.authentication.k8s.io/v1alpha1, command: x}",
         "exec: apiVersion \"client.authentication.k8s.io/v1alpha1\" is not supported"},
        {"{command: x}", "exec: apiVersion must be given"},
        {"{apiVersion: client.authentication.k8s.io/v1beta1}", "exec: command must be given"},
        {"{apiVersion: client.authentication.k8s.io/v1beta1, command: x, env: [{value: v}]}",
         "exec: env[0].name: must be a non-empty name"},
        {"{apiVersion: client.authentication.k8s.io/v1beta1, command: x, args: [1]}",
         "exec: args[0]: must be a string"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char users[1024];
        snprintf(users, sizeof(users), "- name: v1\n  user:\n    exec: %s\n", bad[i][0]);
        write_config(f, users);
        struct kc_cfg_opts o = {0};
        struct kc_cfg *c = NULL;
        struct err e = {{0}};
        int rc = kc_cfg_load(&o, &c, &e);
        char want[2048];
        snprintf(want, sizeof(want), "kubeconfig %s: user \"v1\": %s", tu_path(f->dir, "config"),
                 bad[i][1]);
        if (rc != -EINVAL || !strstr(e.msg, want))
            fail_msg("%s: got %d \"%s\", want \"%s\"", bad[i][0], rc, e.msg, want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_v1_token_expiry, setup, teardown),
        cmocka_unit_test_setup_teardown(test_v1beta1_cert, setup, teardown),
        cmocka_unit_test_setup_teardown(test_static_token_wins, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failures, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
