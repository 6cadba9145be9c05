/* kc_cfg (kubeconfig): exec credential plugins (client-go plugin/pkg/client/auth/exec/exec.go
 * newAuthenticator, isInteractive, getCreds, refreshCredsLocked; tools/clientcmd validation.go
 * validateAuthInfo and api/v1 defaults.go SetDefaults_ExecConfig; rest/exec.go
 * ConfigToExecCluster for KUBERNETES_EXEC_INFO's spec.cluster). */
#include "kube/config/kc_cfg_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "obj/base/b64.h"
#include "obj/tree/jx.h"
#include "obj/base/ktime.h"
#include "obj/base/sbuf.h"
#include "obj/tree/yaml.h"

#define API_V1 "client.authentication.k8s.io/v1"
#define API_V1BETA1 "client.authentication.k8s.io/v1beta1"
/* The cluster extension handed to the plugin as spec.cluster.config (clientcmd
 * clusterExtensionKey). */
#define EXEC_EXTENSION "client.authentication.k8s.io/exec"
/* A credential is run for again this long before it expires (at most half its life). */
#define EXEC_LEEWAY_MS 10000

/* A NULL-terminated copy of strings; NULL on OOM. */
static char **strv_new(size_t n)
{
    return calloc(n + 1, sizeof(char *));
}

static void strv_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

/* argv: the command (resolved against the file's directory when it contains '/', clientcmd
 * GetAuthInfoFileReferences) and args. */
static int exec_argv(struct kc_cfg__exec *x, const json_t *ex, const struct kc_cfg__file *f,
                     struct err *e)
{
    const char *cmd;
    const json_t *args = json_object_get(ex, "args"), *a;
    size_t i;
    int rc = kc_cfg__str(ex, "command", &cmd, e);
    if (rc < 0)
        return rc;
    if (!cmd)
        return err_set(e, -EINVAL, "command must be given");
    if (args && !json_is_null(args) && !json_is_array(args))
        return err_set(e, -EINVAL, "args: must be a list of strings");
    if (!(x->argv = strv_new(json_array_size(args) + 1)))
        return -ENOMEM;
    x->argv[0] = strchr(cmd, '/') ? kc_cfg__resolve(f->dir, cmd) : strdup(cmd);
    if (!x->argv[0])
        return -ENOMEM;
    json_array_foreach (args, i, a) {
        if (!json_is_string(a))
            return err_set(e, -EINVAL, "args[%zu]: must be a string", i);
        if (!(x->argv[i + 1] = strdup(json_string_value(a))))
            return -ENOMEM;
    }
    return 0;
}

/* env: a list of {name, value}, names not empty. */
static int exec_env(struct kc_cfg__exec *x, const json_t *ex, struct err *e)
{
    const json_t *env = json_object_get(ex, "env"), *v;
    size_t i;
    if (env && !json_is_null(env) && !json_is_array(env))
        return err_set(e, -EINVAL, "env: must be a list of {name, value}");
    if (!(x->env = strv_new(json_array_size(env))))
        return -ENOMEM;
    json_array_foreach (env, i, v) {
        const char *name = jx_str(v, "name"), *val = jx_str(v, "value");
        const json_t *jv = json_object_get(v, "value");
        if (!name || !*name || strchr(name, '='))
            return err_set(e, -EINVAL, "env[%zu].name: must be a non-empty name", i);
        if (jv && !json_is_null(jv) && !val)
            return err_set(e, -EINVAL, "env[%zu].value: must be a string", i);
        if (!(x->env[i] = sb_fmt("%s=%s", name, val ? val : "")))
            return -ENOMEM;
    }
    return 0;
}

/* apiVersion and interactiveMode: plugins run without a terminal here, so Always cannot be
 * met (exec.go isInteractive: "standard input is not a terminal"). */
static int exec_mode(struct kc_cfg__exec *x, const json_t *ex, struct err *e)
{
    const char *api, *mode;
    int rc = kc_cfg__str(ex, "apiVersion", &api, e);
    if (rc == 0)
        rc = kc_cfg__str(ex, "interactiveMode", &mode, e);
    if (rc < 0)
        return rc;
    if (!api)
        return err_set(e, -EINVAL, "apiVersion must be given (%s)", API_V1);
    if (strcmp(api, API_V1) && strcmp(api, API_V1BETA1))
        return err_set(e, -EINVAL, "apiVersion \"%s\" is not supported (%s or %s)", api, API_V1,
                       API_V1BETA1);
    if (!mode && !strcmp(api, API_V1))
        return err_set(e, -EINVAL, "interactiveMode must be given for %s (Never or "
                                   "IfAvailable)", API_V1);
    if (mode && !strcmp(mode, "Always"))
        return err_set(e, -EINVAL, "interactiveMode Always needs a terminal, and jaxset runs "
                                   "plugins without one (stdin /dev/null): set Never or "
                                   "IfAvailable if the plugin can get credentials without "
                                   "input");
    if (mode && strcmp(mode, "Never") && strcmp(mode, "IfAvailable"))
        return err_set(e, -EINVAL, "interactiveMode \"%s\" is not Never, IfAvailable or Always",
                       mode);
    return (x->api_version = strdup(api)) ? 0 : -ENOMEM;
}

int kc_cfg__exec_new(const json_t *ex, const struct kc_cfg__file *f, const char *user,
                   int timeout_ms, struct kc_cfg__exec **out, struct err *e)
{
    const char *hint;
    struct kc_cfg__exec *x = calloc(1, sizeof(*x));
    int rc = x ? 0 : -ENOMEM;
    if (rc == 0 && !json_is_object(ex))
        rc = err_set(e, -EINVAL, "must be a mapping");
    if (rc == 0)
        rc = exec_mode(x, ex, e);
    if (rc == 0)
        rc = exec_argv(x, ex, f, e);
    if (rc == 0)
        rc = exec_env(x, ex, e);
    if (rc == 0)
        rc = kc_cfg__str(ex, "installHint", &hint, e);
    if (rc == 0 && ((hint && !(x->install_hint = strdup(hint))) || !(x->user = strdup(user))))
        rc = -ENOMEM;
    if (rc == 0)
        rc = kc_cfg__bool(ex, "provideClusterInfo", &x->provide_cluster, e);
    if (rc < 0) {
        kc_cfg__exec_free(x);
        if (rc == -ENOMEM)
            return err_set(e, rc, ERR_OOM_MSG);
        err_prefix(e, "exec");
        return rc;
    }
    x->timeout_ms = timeout_ms;
    x->fresh_until_ms = KT_ZERO;
    *out = x;
    return 0;
}

/* spec.cluster (ConfigToExecCluster), fields as clientauthentication/v1 Cluster writes them. */
static json_t *exec_cluster(const struct kc_cfg *c, const json_t *cl)
{
    json_t *o = json_pack("{s:s}", "server", c->server), *ext;
    size_t i;
    bool ok = o != NULL;
    if (ok && c->tls_server_name)
        ok = jx_set_str(o, "tls-server-name", c->tls_server_name) == 0;
    if (ok && c->insecure)
        ok = jx_set_bool(o, "insecure-skip-tls-verify", true) == 0;
    if (ok && c->ca_pem) {
        char *b = b64_encode(c->ca_pem, c->ca_len);
        ok = b && jx_set_str(o, "certificate-authority-data", b) == 0;
        free(b);
    }
    if (ok && c->proxy_url)
        ok = jx_set_str(o, "proxy-url", c->proxy_url) == 0;
    if (ok && c->disable_compression)
        ok = jx_set_bool(o, "disable-compression", true) == 0;
    json_array_foreach (json_object_get(cl, "extensions"), i, ext) {
        const char *name = jx_str(ext, "name");
        const json_t *v = json_object_get(ext, "extension");
        if (ok && name && !strcmp(name, EXEC_EXTENSION) && v && !json_is_null(v))
            ok = json_object_set(o, "config", (json_t *)v) == 0;
    }
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

int kc_cfg__exec_info(struct kc_cfg__exec *x, const struct kc_cfg *c, const json_t *cl, struct err *e)
{
    json_t *spec = json_pack("{s:b}", "interactive", 0), *cluster = NULL;
    json_t *info = json_pack("{s:s,s:s,s:o}", "kind", "ExecCredential", "apiVersion",
                             x->api_version, "spec", spec);
    bool ok = info != NULL;
    if (ok && x->provide_cluster)
        ok = (cluster = exec_cluster(c, cl)) && jx_set_new(spec, "cluster", cluster) == 0;
    if (ok)
        ok = (x->info = json_dumps(info, JSON_COMPACT | JSON_PRESERVE_ORDER)) != NULL;
    json_decref(info);
    return ok ? 0 : err_oom(e);
}

void kc_cfg__exec_drop(struct kc_cfg__exec *x)
{
    kc_cfg__wipe_str(x->token);
    kc_cfg__wipe_free(x->cert, x->cert_len);
    kc_cfg__wipe_free(x->key, x->key_len);
    x->token = x->cert = x->key = NULL;
    x->cert_len = x->key_len = 0;
    x->have = false;
    x->fresh_until_ms = KT_ZERO;
}

void kc_cfg__exec_free(struct kc_cfg__exec *x)
{
    if (!x)
        return;
    kc_cfg__exec_drop(x);
    strv_free(x->argv);
    strv_free(x->env);
    free(x->api_version);
    free(x->install_hint);
    free(x->info);
    free(x->user);
    free(x);
}

/* status of the plugin's ExecCredential into the cache (refreshCredsLocked). */
static int take_status(struct kc_cfg__exec *x, const json_t *st, int64_t now_ms, struct err *e)
{
    const char *tok, *cert, *key, *exp;
    int64_t exp_ms = KT_ZERO;
    int rc = kc_cfg__str(st, "token", &tok, e);
    if (rc == 0)
        rc = kc_cfg__str(st, "clientCertificateData", &cert, e);
    if (rc == 0)
        rc = kc_cfg__str(st, "clientKeyData", &key, e);
    if (rc == 0)
        rc = kc_cfg__str(st, "expirationTimestamp", &exp, e);
    if (rc < 0)
        return rc;
    if (!tok && !cert && !key)
        return err_set(e, -EINVAL, "no token and no client certificate/key in its status");
    if (!cert != !key)
        return err_set(e, -EINVAL, "only one of clientCertificateData and clientKeyData");
    if (exp && kt_parse(exp, &exp_ms) < 0)
        return err_set(e, -EINVAL, "status.expirationTimestamp \"%s\": not an RFC 3339 time",
                       exp);
    kc_cfg__exec_drop(x);
    bool ok = true;
    x->token = kc_cfg__dup(tok, &ok);
    x->cert = kc_cfg__dup(cert, &ok);
    x->key = kc_cfg__dup(key, &ok);
    if (!ok) {
        kc_cfg__exec_drop(x);
        return -ENOMEM;
    }
    x->cert_len = cert ? strlen(cert) : 0;
    x->key_len = key ? strlen(key) : 0;
    x->have = true;
    if (exp_ms == KT_ZERO) {
        x->fresh_until_ms = INT64_MAX;
    } else {
        int64_t life = exp_ms - now_ms, leeway = life / 2 < EXEC_LEEWAY_MS ? life / 2 : EXEC_LEEWAY_MS;
        x->fresh_until_ms = exp_ms - (leeway > 0 ? leeway : 0);
    }
    return 0;
}

/* The plugin's stdout: one ExecCredential of the configured apiVersion. */
static int take_output(struct kc_cfg__exec *x, const char *out, size_t len, int64_t now_ms,
                       struct err *e)
{
    json_t *docs = NULL;
    int rc = yaml_decode(out, len, &docs, e);
    if (rc < 0)
        return rc == -ENOMEM ? rc : (err_prefix(e, "decoding its output"), rc);
    const json_t *cred = json_array_get(docs, 0);
    const char *kind = jx_str(cred, "kind"), *api = jx_str(cred, "apiVersion");
    const json_t *st = json_object_get(cred, "status");
    if (json_array_size(docs) != 1 || !json_is_object(cred))
        rc = err_set(e, -EINVAL, "decoding its output: not one ExecCredential object");
    else if (!kind || strcmp(kind, "ExecCredential"))
        rc = err_set(e, -EINVAL, "it printed kind \"%s\", not ExecCredential", kind ? kind : "");
    else if (!api || strcmp(api, x->api_version))
        rc = err_set(e, -EINVAL, "it is configured to use API version %s, it returned \"%s\"",
                     x->api_version, api ? api : "");
    else if (!json_is_object(st))
        rc = err_set(e, -EINVAL, "it didn't return a status field");
    else
        rc = take_status(x, st, now_ms, e);
    kc_cfg__json_wipe(docs);
    json_decref(docs);
    return rc;
}

/* The environment of the plugin: ours, less what its env sets, then its env, then
 * KUBERNETES_EXEC_INFO (exec.go refreshCredsLocked, with Go's last-one-wins dedup). */
static char **exec_envp(const struct kc_cfg__exec *x)
{
    size_t n = 0, k = 0;
    while (environ[n])
        n++;
    for (size_t i = 0; x->env[i]; i++)
        n++;
    char **v = calloc(n + 2, sizeof(char *));
    if (!v)
        return NULL;
    for (size_t i = 0; environ[i]; i++) {
        size_t nl = strcspn(environ[i], "=");
        bool drop = !strncmp(environ[i], "KUBERNETES_EXEC_INFO=", 21);
        for (size_t j = 0; x->env[j] && !drop; j++)
            drop = !strncmp(environ[i], x->env[j], nl + 1);
        if (!drop)
            v[k++] = environ[i];
    }
    for (size_t i = 0; x->env[i]; i++)
        v[k++] = x->env[i];
    v[k] = sb_fmt("KUBERNETES_EXEC_INFO=%s", x->info); /* freed by the caller: v[k] */
    if (!v[k]) {
        free(v);
        return NULL;
    }
    return v;
}

int kc_cfg__exec_get(struct kc_cfg__exec *x, int64_t now_ms, struct err *e)
{
    if (x->have && now_ms < x->fresh_until_ms)
        return 0;
    char **envp = exec_envp(x), *out = NULL;
    size_t len = 0, last = 0;
    if (!envp)
        return err_oom(e);
    while (envp[last + 1])
        last++;
    int rc = kc_cfg__exec_run(x, envp, &out, &len, e);
    free(envp[last]);
    free(envp);
    if (rc == 0)
        rc = take_output(x, out, len, now_ms, e);
    kc_cfg__wipe_free(out, len);
    if (rc == -ENOMEM)
        return err_set(e, rc, ERR_OOM_MSG);
    if (rc < 0) {
        char pre[600];
        snprintf(pre, sizeof(pre), "exec plugin %s of user \"%s\"", x->argv[0], x->user);
        err_prefix(e, pre);
    }
    return rc;
}
