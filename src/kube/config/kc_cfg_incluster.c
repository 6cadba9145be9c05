/* kc_cfg (kubeconfig): the in-cluster configuration (client-go rest/config.go InClusterConfig;
 * tools/clientcmd client_config.go inClusterClientConfig for the overrides and the
 * namespace). */
#include "kube/config/kc_cfg_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "obj/base/sbuf.h"

bool kc_cfg__in_cluster_env(void)
{
    const char *h = getenv("KUBERNETES_SERVICE_HOST"), *p = getenv("KUBERNETES_SERVICE_PORT");
    return h && *h && p && *p;
}

int kc_cfg__pod_namespace(const char *sa_dir, bool need_token, char **out)
{
    const char *env = getenv("POD_NAMESPACE");
    char *tok = NULL, *path = NULL, *buf = NULL;
    size_t len;
    int rc = 0;
    *out = NULL;
    if (!sa_dir)
        sa_dir = KC_CFG_SA_DIR;
    if (need_token) {
        struct stat st;
        if (!(tok = sb_fmt("%s/token", sa_dir)))
            return -ENOMEM;
        bool possible = stat(tok, &st) == 0 && !S_ISDIR(st.st_mode);
        free(tok);
        if (!possible)
            return 0;
    }
    if (env && *env) {
        *out = strdup(env);
        return *out ? 0 : -ENOMEM;
    }
    if (!(path = sb_fmt("%s/namespace", sa_dir)))
        return -ENOMEM;
    rc = kc_cfg__read_file(path, &buf, &len);
    free(path);
    if (rc < 0) /* no namespace file: the caller's default */
        return rc == -ENOMEM ? rc : 0;
    size_t a = 0, b = len;
    while (a < b && isspace((unsigned char)buf[a]))
        a++;
    while (b > a && isspace((unsigned char)buf[b - 1]))
        b--;
    if (b > a && !(*out = strndup(buf + a, b - a)))
        rc = -ENOMEM;
    free(buf);
    return rc;
}

/* https://HOST:PORT, an IPv6 host in brackets (net.JoinHostPort). */
static char *service_url(void)
{
    const char *h = getenv("KUBERNETES_SERVICE_HOST"), *p = getenv("KUBERNETES_SERVICE_PORT");
    bool v6 = strchr(h, ':') != NULL;
    return sb_fmt("https://%s%s%s:%s", v6 ? "[" : "", h, v6 ? "]" : "", p);
}

/* sa_dir/ca.crt; missing, the system CAs (InClusterConfig logs and goes on). */
static int in_cluster_ca(struct kc_cfg *c, const char *sa_dir, struct err *e)
{
    char *path = sb_fmt("%s/ca.crt", sa_dir);
    if (!path)
        return err_oom(e);
    int rc = kc_cfg__read_file(path, &c->ca_pem, &c->ca_len);
    if (rc < 0 && rc != -ENOENT)
        err_set(e, rc, "in-cluster config: %s: %s", path, strerror(-rc));
    free(path);
    return rc == -ENOENT ? 0 : rc;
}

int kc_cfg__in_cluster(const struct kc_cfg_opts *o, struct kc_cfg *c, struct err *e)
{
    const char *sa = o->sa_dir ? o->sa_dir : KC_CFG_SA_DIR;
    if (!kc_cfg__in_cluster_env())
        return err_set(e, -ENOENT, "in-cluster config: KUBERNETES_SERVICE_HOST and "
                                   "KUBERNETES_SERVICE_PORT are not set (not running in a pod?)");
    c->in_cluster = true;
    c->source = strdup("in-cluster");
    c->server = o->server ? strdup(o->server) : service_url();
    char *tok = sb_fmt("%s/token", sa);
    if (!c->source || !c->server || !tok) {
        free(tok);
        return err_oom(e);
    }
    int rc = kc_cfg__tokfile_new(tok, &c->auth->tf, e);
    free(tok);
    if (rc < 0) {
        err_prefix(e, "in-cluster config");
        return rc;
    }
    rc = in_cluster_ca(c, sa, e);
    if (rc < 0)
        return rc;
    if (o->namespace_)
        c->namespace_ = strdup(o->namespace_);
    else if (kc_cfg__pod_namespace(sa, false, &c->namespace_) < 0)
        return err_oom(e);
    if (!c->namespace_)
        c->namespace_ = strdup("default");
    if (!c->namespace_)
        return err_oom(e);
    rc = kc_cfg__server_url(c, e);
    if (rc < 0)
        err_prefix(e, "in-cluster config");
    return rc;
}
