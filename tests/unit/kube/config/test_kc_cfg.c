/* kubeconfig: loading rules and merging of several files, contexts and overrides, namespace
 * precedence, relative paths, inline data, validation errors, token files and the in-cluster
 * configuration (exec plugins: test_kubeconfig_exec.c).  Every test writes its files into a
 * fresh temporary directory that is also $HOME. */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kube/config/kc_cfg.h"
#include "obj/base/ktime.h"

struct fx {
    char *dir;
    char cwd[PATH_MAX];
};

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));
    f->dir = tu_tmpdir("kcfg");
    assert_non_null(getcwd(f->cwd, sizeof(f->cwd)));
    setenv("HOME", f->dir, 1);
    unsetenv("KUBECONFIG");
    unsetenv("KUBERNETES_SERVICE_HOST");
    unsetenv("KUBERNETES_SERVICE_PORT");
    unsetenv("POD_NAMESPACE");
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;
    assert_int_equal(chdir(f->cwd), 0);
    tu_rmtree(f->dir);
    free(f->dir);
    free(f);
    return 0;
}

static struct kc_cfg *load_ok(const struct kc_cfg_opts *o)
{
    struct kc_cfg *c = NULL;
    struct err e = {{0}};
    int rc = kc_cfg_load(o, &c, &e);
    if (rc < 0)
        fail_msg("kc_cfg_load: %d %s", rc, e.msg);
    return c;
}

#define load_fail(o, rc, needle) load_fail_(o, rc, needle, __LINE__)
static void load_fail_(const struct kc_cfg_opts *o, int want, const char *needle, int line)
{
    struct kc_cfg *c = NULL;
    struct err e = {{0}};
    int rc = kc_cfg_load(o, &c, &e);
    if (rc != want || !strstr(e.msg, needle))
        fail_msg("line %d: kc_cfg_load gave %d \"%s\", want %d with \"%s\"", line, rc, e.msg, want,
                 needle);
    assert_null(c);
}

/* The token kc_cfg_credentials gives now, or NULL. */
static const char *token_at(struct kc_cfg *c, int64_t now)
{
    struct kc_cfg_creds cr;
    struct err e = {{0}};
    if (kc_cfg_credentials(c, now, &cr, &e) < 0)
        fail_msg("kc_cfg_credentials: %s", e.msg);
    return cr.token;
}

/* Writes a kubeconfig file and makes it $KUBECONFIG. */
static const char *use(struct fx *f, const char *rel, const char *text)
{
    tu_write(f->dir, rel, text);
    const char *p = tu_path(f->dir, rel);
    setenv("KUBECONFIG", p, 1);
    return p;
}

static const char FILE_A[] =
    "apiVersion: v1\n"
    "kind: Config\n"
    "clusters:\n"
    "- name: shared\n"
    "  cluster: {server: 'https://a.example:6443', tls-server-name: a.internal}\n"
    "- name: only-a\n"
    "  cluster: {server: 'https://only-a:443/'}\n"
    "users:\n"
    "- name: u\n"
    "  user: {token: token-a}\n"
    "contexts:\n"
    "- name: ctx-a\n"
    "  context: {cluster: shared, user: u, namespace: ns-a}\n";

static const char FILE_B[] =
    "current-context: ctx-b\n"
    "clusters:\n"
    "- name: shared\n"
    "  cluster: {server: 'https://b.example:6443'}\n"
    "- name: only-b\n"
    "  cluster: {server: 'https://only-b:443/'}\n"
    "users:\n"
    "- name: u\n"
    "  user: {token: token-b}\n"
    "- name: anon\n"
    "  user: {}\n"
    "contexts:\n"
    "- name: ctx-b\n"
    "  context: {cluster: shared, user: u}\n"
    "- name: ctx-a\n"
    "  context: {cluster: only-b, user: u}\n";

/* Entries come whole from the first file naming them, current-context from the first file that
 * sets one; missing files and repeats in $KUBECONFIG are skipped. */
static void test_merge_order(void **state)
{
    struct fx *f = *state;
    tu_write(f->dir, "a.yaml", FILE_A);
    tu_write(f->dir, "b.yaml", FILE_B);
    tu_write(f->dir, "c.yaml", "current-context: ctx-a\n");
    char list[8192], src[8192];
    snprintf(list, sizeof(list), "%s::%s:%s:%s", tu_path(f->dir, "a.yaml"),
             tu_path(f->dir, "missing.yaml"), tu_path(f->dir, "b.yaml"), tu_path(f->dir, "a.yaml"));
    setenv("KUBECONFIG", list, 1);
    struct kc_cfg_opts o = {0};
    struct kc_cfg *c = load_ok(&o);
    assert_string_equal(c->context, "ctx-b");             /* b sets it, a does not */
    assert_string_equal(c->server, "https://a.example:6443"); /* "shared" of a, the first */
    assert_string_equal(c->tls_server_name, "a.internal");
    assert_string_equal(c->cluster_name, "shared");
    assert_string_equal(c->user_name, "u");
    assert_string_equal(c->namespace_, "default");
    assert_false(c->in_cluster);
    assert_string_equal(token_at(c, kt_now_ms()), "token-a");
    snprintf(src, sizeof(src), "%s:%s", tu_path(f->dir, "a.yaml"), tu_path(f->dir, "b.yaml"));
    assert_string_equal(c->source, src);
    kc_cfg_free(c);

    /* c.yaml first: its current-context (ctx-a) wins, and without a.yaml in the list ctx-a is
     * b's (cluster only-b). */
    snprintf(list, sizeof(list), "%s:%s", tu_path(f->dir, "c.yaml"), tu_path(f->dir, "b.yaml"));
    setenv("KUBECONFIG", list, 1);
    c = load_ok(&o);
    assert_string_equal(c->context, "ctx-a");
    assert_string_equal(c->server, "https://only-b:443"); /* trailing '/' dropped */
    assert_null(c->tls_server_name);
    assert_string_equal(token_at(c, kt_now_ms()), "token-b");
    kc_cfg_free(c);

    /* b before c: b's current-context */
    snprintf(list, sizeof(list), "%s:%s", tu_path(f->dir, "b.yaml"), tu_path(f->dir, "c.yaml"));
    setenv("KUBECONFIG", list, 1);
    c = load_ok(&o);
    assert_string_equal(c->context, "ctx-b");
    kc_cfg_free(c);

    /* --kubeconfig: that file only, $KUBECONFIG ignored */
    o.kubeconfig = tu_path(f->dir, "a.yaml");
    o.context = "ctx-a";
    c = load_ok(&o);
    assert_string_equal(c->source, tu_path(f->dir, "a.yaml"));
    assert_string_equal(c->namespace_, "ns-a");
    kc_cfg_free(c);
}

static void test_context_and_overrides(void **state)
{
    struct fx *f = *state;
    tu_write(f->dir, "a.yaml", FILE_A);
    tu_write(f->dir, "b.yaml", FILE_B);
    char list[8192], msg[8300];
    snprintf(list, sizeof(list), "%s:%s", tu_path(f->dir, "a.yaml"), tu_path(f->dir, "b.yaml"));
    setenv("KUBECONFIG", list, 1);

    struct kc_cfg_opts o = {.context = "ctx-a"};
    struct kc_cfg *c = load_ok(&o);
    assert_string_equal(c->context, "ctx-a");
    assert_string_equal(c->server, "https://a.example:6443");
    assert_string_equal(c->namespace_, "ns-a");
    kc_cfg_free(c);

    o = (struct kc_cfg_opts){.context = "ctx-a", .cluster = "only-a", .user = "anon",
                           .namespace_ = "team"};
    c = load_ok(&o);
    assert_string_equal(c->server, "https://only-a:443");
    assert_string_equal(c->cluster_name, "only-a");
    assert_string_equal(c->user_name, "anon");
    assert_string_equal(c->namespace_, "team");
    assert_null(token_at(c, kt_now_ms()));
    kc_cfg_free(c);

    /* --server replaces the cluster's server and drops its tls-server-name */
    o = (struct kc_cfg_opts){.context = "ctx-a", .server = "https://10.1.2.3:6443/"};
    c = load_ok(&o);
    assert_string_equal(c->server, "https://10.1.2.3:6443");
    assert_null(c->tls_server_name);
    assert_string_equal(c->cluster_name, "shared");
    kc_cfg_free(c);

    o = (struct kc_cfg_opts){.context = "nope"};
    snprintf(msg, sizeof(msg), "kubeconfig %s: context \"nope\" not found", list);
    load_fail(&o, -ENOENT, msg);
    o = (struct kc_cfg_opts){.user = "nobody"};
    snprintf(msg, sizeof(msg), "kubeconfig %s: user \"nobody\" not found", list);
    load_fail(&o, -ENOENT, msg);
    o = (struct kc_cfg_opts){.cluster = "nowhere"};
    load_fail(&o, -ENOENT, "cluster \"nowhere\" not found");

    const char *p = use(f, "ghost.yaml",
                        "current-context: ghost\n"
                        "contexts:\n"
                        "- {name: no-cluster, context: {namespace: x}}\n"
                        "- {name: lost, context: {cluster: gone, user: u}}\n"
                        "- {name: lost-user, context: {cluster: k, user: gone}}\n"
                        "clusters:\n"
                        "- {name: k, cluster: {server: 'https://k'}}\n");
    o = (struct kc_cfg_opts){0};
    snprintf(msg, sizeof(msg), "kubeconfig %s: context \"ghost\" (the current-context) not found",
             p);
    load_fail(&o, -ENOENT, msg);
    o.context = "lost";
    load_fail(&o, -ENOENT, "cluster \"gone\" (of context \"lost\") not found");
    o.context = "lost-user";
    load_fail(&o, -ENOENT, "user \"gone\" (of context \"lost-user\") not found");
    o.context = "no-cluster";
    load_fail(&o, -EINVAL, "context \"no-cluster\" names no cluster");
    o.server = "https://direct:443"; /* --server stands in for the missing cluster */
    c = load_ok(&o);
    assert_string_equal(c->server, "https://direct:443");
    assert_null(c->cluster_name);
    kc_cfg_free(c);
}

/* -n > the context's namespace > the pod's (in a cluster) > "default". */
static void test_namespace(void **state)
{
    struct fx *f = *state;
    use(f, "k.yaml",
        "current-context: plain\n"
        "clusters: [{name: k, cluster: {server: 'https://k:6443'}}]\n"
        "contexts:\n"
        "- {name: plain, context: {cluster: k}}\n"
        "- {name: with-ns, context: {cluster: k, namespace: ctx-ns}}\n");
    tu_write(f->dir, "sa/namespace", "  pod-ns\n");
    struct kc_cfg_opts o = {.sa_dir = tu_path(f->dir, "sa")};
    struct kc_cfg *c = load_ok(&o);
    assert_string_equal(c->namespace_, "default");
    kc_cfg_free(c);

    setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1", 1);
    setenv("KUBERNETES_SERVICE_PORT", "443", 1);
    c = load_ok(&o); /* no token in sa_dir: not in a pod (inClusterClientConfig.Possible) */
    assert_string_equal(c->namespace_, "default");
    kc_cfg_free(c);

    tu_write(f->dir, "sa/token", "t\n");
    c = load_ok(&o);
    assert_string_equal(c->namespace_, "pod-ns");
    assert_false(c->in_cluster); /* the kubeconfig still chooses the server */
    kc_cfg_free(c);
    setenv("POD_NAMESPACE", "env-ns", 1);
    c = load_ok(&o);
    assert_string_equal(c->namespace_, "env-ns");
    kc_cfg_free(c);

    o.context = "with-ns";
    c = load_ok(&o);
    assert_string_equal(c->namespace_, "ctx-ns");
    kc_cfg_free(c);
    o.namespace_ = "flag-ns";
    c = load_ok(&o);
    assert_string_equal(c->namespace_, "flag-ns");
    kc_cfg_free(c);
}

/* Relative paths in a file are relative to its directory, also for a relative $KUBECONFIG. */
static void test_relative_paths(void **state)
{
    struct fx *f = *state;
    tu_write(f->dir, "sub/ca.crt", "CA-FILE\n");
    tu_write(f->dir, "sub/certs/client.crt", "CERT-FILE\n");
    tu_write(f->dir, "sub/certs/client.key", "KEY-FILE\n");
    tu_write(f->dir, "sub/tok", "file-token\n");
    tu_write(f->dir, "sub/config",
             "current-context: c\n"
             "clusters:\n"
             "- name: k\n"
             "  cluster: {server: 'k.example:6443', certificate-authority: ca.crt}\n"
             "users:\n"
             "- name: u\n"
             "  user: {client-certificate: certs/client.crt, client-key: ./certs/client.key}\n"
             "- name: t\n"
             "  user: {tokenFile: tok}\n"
             "contexts:\n"
             "- {name: c, context: {cluster: k, user: u}}\n"
             "- {name: t, context: {cluster: k, user: t}}\n");
    assert_int_equal(chdir(f->dir), 0);
    setenv("KUBECONFIG", "sub/config", 1);
    struct kc_cfg_opts o = {0};
    struct kc_cfg *c = load_ok(&o);
    assert_string_equal(c->server, "https://k.example:6443"); /* a CA: https by default */
    assert_int_equal(c->ca_len, 8);
    assert_memory_equal(c->ca_pem, "CA-FILE\n", 8);
    assert_int_equal(c->cert_len, 10);
    assert_memory_equal(c->cert_pem, "CERT-FILE\n", 10);
    assert_int_equal(c->key_len, 9);
    assert_memory_equal(c->key_pem, "KEY-FILE\n", 9);
    struct kc_cfg_creds cr;
    struct err e = {{0}};
    assert_int_equal(kc_cfg_credentials(c, kt_now_ms(), &cr, &e), 0);
    assert_null(cr.token);
    assert_ptr_equal(cr.cert_pem, c->cert_pem);
    assert_ptr_equal(cr.key_pem, c->key_pem);
    assert_int_equal(cr.key_len, 9);
    kc_cfg_free(c);

    o.context = "t";
    c = load_ok(&o);
    assert_string_equal(token_at(c, kt_now_ms()), "file-token");
    kc_cfg_free(c);
}

static void test_inline_data(void **state)
{
    struct fx *f = *state;
    tu_write(f->dir, "ca.crt", "CA-FILE\n");
    /* "INLINE-CA\n", "CERT\n", "KEY\n" */
    use(f, "k.yaml",
        "current-context: c\n"
        "clusters:\n"
        "- {name: k, cluster: {server: 'https://k', certificate-authority-data: SU5MSU5FLUNBCg==}}\n"
        "- {name: both, cluster: {server: 'https://k', certificate-authority: ca.crt,\n"
        "                         certificate-authority-data: SU5MSU5FLUNBCg==}}\n"
        "- {name: bad, cluster: {server: 'https://k', certificate-authority-data: 'not base64!'}}\n"
        "- {name: nofile, cluster: {server: 'https://k', certificate-authority: missing.crt}}\n"
        "users:\n"
        "- {name: u, user: {client-certificate-data: \"Q0VS\\nVAo=\", client-key-data: S0VZCg==}}\n"
        "- {name: nokey, user: {client-certificate-data: Q0VSVAo=}}\n"
        "- {name: keys, user: {client-key-data: S0VZCg==, client-key: x.key,\n"
        "                      client-certificate-data: Q0VSVAo=}}\n"
        "contexts:\n"
        "- {name: c, context: {cluster: k, user: u}}\n");
    struct kc_cfg_opts o = {0};
    struct kc_cfg *c = load_ok(&o);
    assert_int_equal(c->ca_len, 10);
    assert_memory_equal(c->ca_pem, "INLINE-CA\n", 10);
    assert_int_equal(c->cert_len, 5);
    assert_memory_equal(c->cert_pem, "CERT\n", 5);
    assert_int_equal(c->key_len, 4);
    assert_memory_equal(c->key_pem, "KEY\n", 4);
    kc_cfg_free(c);

    o.cluster = "both";
    load_fail(&o, -EINVAL,
              "cluster \"both\": certificate-authority-data and certificate-authority are both "
              "given");
    o.cluster = "bad";
    load_fail(&o, -EINVAL, "cluster \"bad\": certificate-authority-data: invalid base64");
    o.cluster = "nofile";
    char msg[8300];
    snprintf(msg, sizeof(msg), "certificate-authority %s: No such file or directory",
             tu_path(f->dir, "missing.crt"));
    load_fail(&o, -ENOENT, msg);
    o = (struct kc_cfg_opts){.user = "nokey"};
    load_fail(&o, -EINVAL, "user \"nokey\": client-key-data or client-key must be given");
    o.user = "keys";
    load_fail(&o, -EINVAL, "client-key-data and client-key are both given");
}

static void test_insecure_and_server(void **state)
{
    struct fx *f = *state;
    use(f, "k.yaml",
        "current-context: c\n"
        "clusters:\n"
        "- {name: k, cluster: {server: 'k:6443', insecure-skip-tls-verify: true}}\n"
        "- {name: plain, cluster: {server: 'localhost:8080'}}\n"
        "- {name: both, cluster: {server: 'https://k', insecure-skip-tls-verify: true,\n"
        "                         certificate-authority-data: SU5MSU5FLUNBCg==}}\n"
        "- {name: ftp, cluster: {server: 'ftp://k'}}\n"
        "- {name: noserver, cluster: {insecure-skip-tls-verify: false}}\n"
        "- {name: str, cluster: {server: 'https://k', insecure-skip-tls-verify: 'yes please'}}\n"
        "- {name: proxied, cluster: {server: 'https://k', proxy-url: 'socks5://p:1080',\n"
        "                            disable-compression: true}}\n"
        "- {name: badproxy, cluster: {server: 'https://k', proxy-url: 'ftp://p'}}\n"
        "contexts:\n"
        "- {name: c, context: {cluster: k}}\n");
    struct kc_cfg_opts o = {0};
    struct kc_cfg *c = load_ok(&o);
    assert_true(c->insecure);
    assert_null(c->ca_pem);
    assert_null(c->proxy_url);
    assert_string_equal(c->server, "https://k:6443");
    kc_cfg_free(c);
    o.cluster = "plain";
    c = load_ok(&o);
    assert_false(c->insecure);
    assert_string_equal(c->server, "http://localhost:8080"); /* no TLS settings: http */
    kc_cfg_free(c);
    o.cluster = "proxied";
    c = load_ok(&o);
    assert_string_equal(c->proxy_url, "socks5://p:1080");
    assert_true(c->disable_compression);
    kc_cfg_free(c);
    o.cluster = "both";
    load_fail(&o, -EINVAL,
              "specifying a root certificates file with the insecure flag is not allowed");
    o.cluster = "ftp";
    load_fail(&o, -EINVAL, "cluster \"ftp\": server \"ftp://k\": not an http or https URL");
    o.cluster = "noserver";
    load_fail(&o, -EINVAL, "cluster \"noserver\": no server");
    o.cluster = "str";
    load_fail(&o, -EINVAL, "cluster \"str\": insecure-skip-tls-verify: must be a boolean");
    o.cluster = "badproxy";
    load_fail(&o, -EINVAL, "proxy-url \"ftp://p\": unsupported scheme");
}

/* Writes a token file keeping its inode, size and mtime when `keep_stat`. */
static void rewrite(const char *path, const char *text, bool keep_stat)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
    if (keep_stat) {
        struct timespec ts[2] = {st.st_atim, st.st_mtim};
        assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
    }
}

static void test_token_file(void **state)
{
    struct fx *f = *state;
    tu_write(f->dir, "tok", "first\n");
    use(f, "k.yaml",
        "current-context: c\n"
        "clusters: [{name: k, cluster: {server: 'https://k'}}]\n"
        "users:\n"
        "- {name: u, user: {tokenFile: tok}}\n"
        "- {name: both, user: {token: static, tokenFile: gone}}\n"
        "- {name: missing, user: {tokenFile: gone}}\n"
        "- {name: basic, user: {username: alice, password: secret}}\n"
        "- {name: mixed, user: {token: t, username: alice}}\n"
        "contexts: [{name: c, context: {cluster: k, user: u}}]\n");
    struct kc_cfg_opts o = {0};
    struct kc_cfg *c = load_ok(&o);
    int64_t now = kt_now_ms();
    const char *path = tu_path(f->dir, "tok");
    assert_string_equal(token_at(c, now), "first");
    rewrite(path, "second-token\n", false); /* another size: read again at once */
    assert_string_equal(token_at(c, now), "second-token");
    rewrite(path, "third-token!\n", true); /* same inode, size and mtime: kept a minute */
    assert_string_equal(token_at(c, now + 1000), "second-token");
    assert_string_equal(token_at(c, now + 60001), "third-token!");
    rewrite(path, "fourth-tokn\n\n", true);
    assert_string_equal(token_at(c, now + 60002), "third-token!");
    kc_cfg_credentials_invalidate(c); /* after a 401: read again */
    assert_string_equal(token_at(c, now + 60003), "fourth-tokn");
    assert_int_equal(unlink(path), 0); /* gone: the last good token stays */
    assert_string_equal(token_at(c, now + 200000), "fourth-tokn");
    kc_cfg_free(c);

    o.user = "both"; /* an unreadable file falls back on the static token */
    c = load_ok(&o);
    assert_string_equal(token_at(c, kt_now_ms()), "static");
    kc_cfg_free(c);
    o.user = "missing";
    char msg[8300];
    snprintf(msg, sizeof(msg), "user \"missing\": token file %s: No such file or directory",
             tu_path(f->dir, "gone"));
    load_fail(&o, -ENOENT, msg);
    o.user = "basic";
    c = load_ok(&o);
    assert_string_equal(c->username, "alice");
    assert_string_equal(c->password, "secret");
    assert_null(token_at(c, kt_now_ms()));
    kc_cfg_free(c);
    o.user = "mixed";
    load_fail(&o, -EINVAL, "more than one authentication method found");
}

/* A fake service-account directory and KUBERNETES_SERVICE_HOST/PORT; its path (static). */
static const char *fake_pod(struct fx *f, const char *host)
{
    static char sa[PATH_MAX];
    tu_write(f->dir, "sa/token", "sa-token\n");
    tu_write(f->dir, "sa/ca.crt", "SA-CA\n");
    tu_write(f->dir, "sa/namespace", "kube-system");
    setenv("KUBERNETES_SERVICE_HOST", host, 1);
    setenv("KUBERNETES_SERVICE_PORT", "443", 1);
    snprintf(sa, sizeof(sa), "%s", tu_path(f->dir, "sa"));
    return sa;
}

static void test_in_cluster(void **state)
{
    struct fx *f = *state;
    struct kc_cfg_opts o = {.sa_dir = fake_pod(f, "10.0.0.1")};
    struct kc_cfg *c = load_ok(&o); /* no kubeconfig file at all */
    assert_true(c->in_cluster);
    assert_string_equal(c->source, "in-cluster");
    assert_null(c->context);
    assert_string_equal(c->server, "https://10.0.0.1:443");
    assert_int_equal(c->ca_len, 6);
    assert_memory_equal(c->ca_pem, "SA-CA\n", 6);
    assert_string_equal(c->namespace_, "kube-system");
    int64_t now = kt_now_ms();
    assert_string_equal(token_at(c, now), "sa-token");
    rewrite(tu_path(f->dir, "sa/token"), "rotated-sa-token\n", false);
    assert_string_equal(token_at(c, now), "rotated-sa-token");
    kc_cfg_free(c);

    setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
    o.namespace_ = "mine";
    o.server = NULL;
    c = load_ok(&o);
    assert_string_equal(c->server, "https://[fd00::1]:443");
    assert_string_equal(c->namespace_, "mine");
    kc_cfg_free(c);

    /* a kubeconfig that chooses nothing falls back on the pod too; --in-cluster skips files */
    use(f, "empty.yaml", "");
    c = load_ok(&o);
    assert_true(c->in_cluster);
    kc_cfg_free(c);
    use(f, "k.yaml", "current-context: c\nclusters: [{name: k, cluster: {server: 'https://k'}}]\n"
                     "contexts: [{name: c, context: {cluster: k}}]\n");
    c = load_ok(&o);
    assert_false(c->in_cluster);
    kc_cfg_free(c);
    o.in_cluster_only = true;
    o.server = "https://override:6443";
    c = load_ok(&o);
    assert_true(c->in_cluster);
    assert_string_equal(c->server, "https://override:6443");
    kc_cfg_free(c);

    unlink(tu_path(f->dir, "sa/ca.crt")); /* no CA file: the system CAs */
    c = load_ok(&o);
    assert_null(c->ca_pem);
    kc_cfg_free(c);
    unlink(tu_path(f->dir, "sa/token"));
    char msg[8300];
    snprintf(msg, sizeof(msg), "in-cluster config: token file %s: No such file or directory",
             tu_path(f->dir, "sa/token"));
    load_fail(&o, -ENOENT, msg);
    unsetenv("KUBERNETES_SERVICE_PORT");
    load_fail(&o, -ENOENT, "KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set");
}

/* What is missing or malformed is named with its file and entry. */
static void test_errors(void **state)
{
    struct fx *f = *state;
    char msg[8300];
    struct kc_cfg_opts o = {.kubeconfig = tu_path(f->dir, "nope")};
    snprintf(msg, sizeof(msg), "kubeconfig %s: No such file or directory", o.kubeconfig);
    load_fail(&o, -ENOENT, msg);
    o.kubeconfig = NULL;
    snprintf(msg, sizeof(msg), "no kubeconfig: set KUBECONFIG or --kubeconfig (looked in %s)",
             tu_path(f->dir, ".kube/config"));
    load_fail(&o, -ENOENT, msg);
    snprintf(msg, sizeof(msg), "%s:%s", tu_path(f->dir, "x"), tu_path(f->dir, "y"));
    setenv("KUBECONFIG", msg, 1);
    load_fail(&o, -ENOENT, "(looked in");
    load_fail(&o, -ENOENT, ", ");

    static const char *const bad[][2] = {
        {"clusters: [\n", "line "},
        {"kind: Pod\n", "kind: \"Pod\" is not Config"},
        {"apiVersion: v2\n", "apiVersion: \"v2\" is not v1"},
        {"- a\n- b\n", "not a kubeconfig"},
        {"clusters: {}\n", "clusters: must be a list"},
        {"users: [{user: {}}]\n", "users[0].name: must be a string"},
        {"contexts: [{name: a, context: []}]\n", "contexts[0].context: must be a mapping"},
        {"clusters: [{name: a}, {name: b}, {name: a}]\n", "clusters: duplicate name \"a\""},
        {"current-context: [a]\n", "current-context: must be a string"},
        {"clusters: []\n", "no current-context: pass --context"},
        {"current-context: c\ncontexts: [{name: c, context: {cluster: [k]}}]\n",
         "context \"c\": cluster: must be a string"},
        {"current-context: c\nclusters: [{name: k, cluster: {server: 6443}}]\n"
         "contexts: [{name: c, context: {cluster: k}}]\n",
         "cluster \"k\": server: must be a string"},
        {"current-context: c\nclusters: [{name: k, cluster: {server: 'https://k'}}]\n"
         "users: [{name: u, user: {auth-provider: {name: gcp}}}]\n"
         "contexts: [{name: c, context: {cluster: k, user: u}}]\n",
         "user \"u\": auth-provider \"gcp\" is not supported"},
        {"current-context: c\nclusters: [{name: k, cluster: {server: 'https://k'}}]\n"
         "users: [{name: u, user: {token: t, as-groups: [admins]}}]\n"
         "contexts: [{name: c, context: {cluster: k, user: u}}]\n",
         "user \"u\": as-groups: impersonation is not supported"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *p = use(f, "bad.yaml", bad[i][0]);
        snprintf(msg, sizeof(msg), "kubeconfig %s: %s", p, bad[i][1]);
        load_fail(&o, -EINVAL, msg);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_merge_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_context_and_overrides, setup, teardown),
        cmocka_unit_test_setup_teardown(test_namespace, setup, teardown),
        cmocka_unit_test_setup_teardown(test_relative_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_inline_data, setup, teardown),
        cmocka_unit_test_setup_teardown(test_insecure_and_server, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_in_cluster, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
