/* cluster: flags, configuration and requests of the verbs that act on a cluster (cluster.h). */
#include "cli/backend/cluster.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/util/cli.h"
#include "obj/tree/jx.h"

struct cluster cluster_new(const char *cmd)
{
    return (struct cluster){.cmd = cmd, .timeout_ms = CLUSTER_TIMEOUT_MS};
}

int cluster_opt(struct cluster *c, int code, const char *arg)
{
    long long ms;
    switch (code) {
    case CLUSTER_OPT_KUBECONFIG: c->k.kubeconfig = arg; break;
    case CLUSTER_OPT_CONTEXT: c->k.context = arg; break;
    case 'n':
        if (!*arg)
            return cli_usage_error(c->cmd, "-n/--namespace needs a non-empty value");
        c->k.namespace_ = arg;
        break;
    case CLUSTER_OPT_TIMEOUT:
        if ((ms = cli_duration_ms(arg)) < 0)
            return cli_usage_error(c->cmd, "--request-timeout takes a duration such as 30s, "
                                           "1m or 0 (none)");
        c->timeout_ms = (long)ms;
        break;
    case CLUSTER_OPT_LOCAL: c->local = true; return EXIT_OK;
    case CLUSTER_OPT_ERRORS:
        if (strcmp(arg, "json") && strcmp(arg, "text"))
            return cli_usage_error(c->cmd, "--errors must be text or json");
        c->errors_json = !strcmp(arg, "json");
        return EXIT_OK;
    default: return -1;
    }
    c->flags = true;
    return EXIT_OK;
}

static bool file_exists(const char *path)
{
    return path && *path && access(path, F_OK) == 0;
}

/* Whether $KUBECONFIG names an existing file, or (unset) ~/.kube/config exists. */
static bool kubeconfig_present(void)
{
    const char *env = getenv("KUBECONFIG");
    char path[4096];
    if (env && *env) {
        for (const char *p = env; *p;) {
            size_t n = strcspn(p, ":");
            if (n && n < sizeof(path)) {
                memcpy(path, p, n);
                path[n] = 0;
                if (file_exists(path))
                    return true;
            }
            p += n + (p[n] == ':');
        }
        return false;
    }
    const char *home = getenv("HOME");
    if (!home || snprintf(path, sizeof(path), "%s/.kube/config", home) >= (int)sizeof(path))
        return false;
    return file_exists(path);
}

bool cluster_wanted(const struct cluster *c)
{
    if (c->local)
        return false;
    /* in a cluster as client-go's InClusterConfig sees it: the service's address and the
     * service account's token */
    return c->flags || kubeconfig_present() ||
           (getenv("KUBERNETES_SERVICE_HOST") && getenv("KUBERNETES_SERVICE_PORT") &&
            file_exists(KC_CFG_SA_DIR "/token"));
}

int cluster_connect(struct cluster *c)
{
    struct kc_cfg *cfg = NULL;
    struct err e = {{0}};
    struct kc_opts o = {.qps = 0, .burst = 1, .timeout_ms = c->timeout_ms,
                        .no_connect_retry = true};
    if (kc_cfg_load(&c->k, &cfg, &e) < 0 || kc_new(cfg, &o, &c->kc, &e) < 0) {
        fprintf(stderr, "jaxset %s: %s\n", c->cmd, e.msg);
        return EXIT_CLUSTER;
    }
    c->ns = kc_namespace(c->kc);
    return EXIT_OK;
}

void cluster_close(struct cluster *c)
{
    kc_free(c->kc);
    c->kc = NULL;
}

int cluster_request(struct cluster *c, const char *method, const char *path,
                    const json_t *body, struct kc_cli_resp *out)
{
    return kc_cli_request(c->kc, method, path, body, NULL, out);
}

void cluster_status_line(const struct cluster *c, const struct kc_cli_resp *r)
{
    char buf[1024];
    json_t *st = NULL;
    if (!c->errors_json || r->code <= 0)
        return;
    if (json_is_object(r->body) && jx_str(r->body, "kind") &&
        !strcmp(jx_str(r->body, "kind"), "Status"))
        st = json_incref(r->body);
    else /* an answer that is no Status (a proxy's, plain text) */
        st = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I}", "kind", "Status", "apiVersion", "v1",
                       "status", "Failure", "message",
                       kc_cli_message(c->kc, r, buf, sizeof(buf)), "reason",
                       r->reason ? r->reason : "", "code", (json_int_t)r->code);
    if (st && json_dumpf(st, stderr, JSON_COMPACT) == 0)
        fputc('\n', stderr);
    json_decref(st);
}

int cluster_exit_status(const struct kc_cli_resp *r)
{
    return r->rc == -ENOENT || r->rc == -EEXIST || r->rc == -EINVAL ? EXIT_INVALID
                                                                    : EXIT_CLUSTER;
}

int cluster_fail(const struct cluster *c, const struct kc_cli_resp *r)
{
    char buf[1024];
    fprintf(stderr, "jaxset %s: %s\n", c->cmd, kc_cli_message(c->kc, r, buf, sizeof(buf)));
    cluster_status_line(c, r);
    return cluster_exit_status(r);
}

int cluster_get(struct cluster *c, const struct kc_res *r, const char *name, json_t **out)
{
    struct kc_cli_resp resp;
    char *path = kc_res_path(r, c->ns, name, NULL);
    int rc = EXIT_OK;
    *out = NULL;
    if (!path) {
        fprintf(stderr, "jaxset %s: " ERR_OOM_MSG "\n", c->cmd);
        return EXIT_CLUSTER;
    }
    if (cluster_request(c, "GET", path, NULL, &resp) < 0)
        rc = cluster_fail(c, &resp);
    else
        *out = json_incref(resp.body);
    kc_cli_resp_free(&resp);
    free(path);
    return rc;
}

int cluster_job_arg(const char *cmd, const char *arg, const struct kc_res **kind,
                    const char **name, char *buf, size_t len)
{
    const char *slash = strchr(arg, '/');
    *kind = kc_res_find("jobset");
    *name = arg;
    if (!slash)
        return *arg ? EXIT_OK : cli_usage_error(cmd, "an empty NAME");
    if ((size_t)(slash - arg) >= len)
        return cli_usage_error(cmd, "KIND/NAME: KIND is too long");
    memcpy(buf, arg, (size_t)(slash - arg));
    buf[slash - arg] = 0;
    *kind = kc_res_find(buf);
    *name = slash + 1;
    if (!*kind || (*kind)->family == JOB_KIND_OTHER) {
        char msg[256];
        snprintf(msg, sizeof(msg), "unknown kind \"%.64s\": one of %s", buf, kc_res_job_kinds());
        return cli_usage_error(cmd, msg);
    }
    return **name && !strchr(*name, '/') ? EXIT_OK : cli_usage_error(cmd, "KIND/NAME: bad NAME");
}

int cluster_job_args(const char *cmd, const char *const *args, size_t n,
                     const struct kc_res **kinds, const char **names)
{
    char buf[64];
    int rc = EXIT_OK;
    for (size_t i = 0; rc == EXIT_OK && i < n; i++)
        rc = cluster_job_arg(cmd, args[i], &kinds[i], &names[i], buf, sizeof(buf));
    return rc;
}
