/* kc_cfg (kubeconfig): a cluster entry (client-go tools/clientcmd client_config.go getCluster and
 * getServerIdentificationPartialConfig, validation.go validateClusterInfo; rest url_utils.go
 * DefaultServerURL; transport/transport.go for CA + insecure). */
#include "kube/config/kc_cfg_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "obj/base/sbuf.h"

/* The CA: inline data or a file (both is an error, as clientcmd validateClusterInfo). */
static int cluster_ca(struct kc_cfg *c, const json_t *cl, const struct kc_cfg__file *f,
                      struct err *e)
{
    const char *file;
    int rc = kc_cfg__str(cl, "certificate-authority", &file, e);
    if (rc == 0)
        rc = kc_cfg__data(cl, "certificate-authority-data", &c->ca_pem, &c->ca_len, e);
    if (rc < 0 || !file)
        return rc;
    if (c->ca_pem)
        return err_set(e, -EINVAL, "certificate-authority-data and certificate-authority are "
                                   "both given: keep one");
    char *path = kc_cfg__resolve(f->dir, file);
    if (!path)
        return err_oom(e);
    rc = kc_cfg__read_file(path, &c->ca_pem, &c->ca_len);
    if (rc < 0)
        err_set(e, rc, "certificate-authority %s: %s", path, strerror(-rc));
    free(path);
    return rc;
}

/* proxy-url: http, https or socks5 (clientcmd parseProxyURL). */
static int check_proxy(const char *url, struct err *e)
{
    static const char *const schemes[] = {"http://", "https://", "socks5://"};
    for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++)
        if (!strncmp(url, schemes[i], strlen(schemes[i])) && url[strlen(schemes[i])])
            return 0;
    return err_set(e, -EINVAL, "proxy-url \"%s\": unsupported scheme, must be http, https, or "
                               "socks5", url);
}

int kc_cfg__cluster(struct kc_cfg *c, const json_t *cl, const struct kc_cfg__file *f,
                  const struct kc_cfg_opts *o, struct err *e)
{
    const char *server = NULL, *sni = NULL, *proxy = NULL;
    bool ok = true;
    int rc = 0;
    if (cl) {
        rc = kc_cfg__str(cl, "server", &server, e);
        if (rc == 0)
            rc = kc_cfg__str(cl, "tls-server-name", &sni, e);
        if (rc == 0)
            rc = kc_cfg__str(cl, "proxy-url", &proxy, e);
        if (rc == 0)
            rc = kc_cfg__bool(cl, "insecure-skip-tls-verify", &c->insecure, e);
        if (rc == 0)
            rc = kc_cfg__bool(cl, "disable-compression", &c->disable_compression, e);
        if (rc == 0)
            rc = cluster_ca(c, cl, f, e);
        if (rc == 0 && proxy)
            rc = check_proxy(proxy, e);
        if (rc < 0)
            return rc;
    }
    if (o->server) { /* --server drops the file's tls-server-name (clientcmd getCluster) */
        server = o->server;
        sni = NULL;
    }
    if (!server)
        return err_set(e, -EINVAL, "no server");
    if (c->insecure && c->ca_pem)
        return err_set(e, -EINVAL, "insecure-skip-tls-verify with a certificate-authority: "
                                   "specifying a root certificates file with the insecure flag "
                                   "is not allowed");
    c->server = kc_cfg__dup(server, &ok);
    c->tls_server_name = kc_cfg__dup(sni, &ok);
    c->proxy_url = kc_cfg__dup(proxy, &ok);
    return ok ? 0 : err_oom(e);
}

int kc_cfg__server_url(struct kc_cfg *c, struct err *e)
{
    char *s = c->server;
    const char *sep = strstr(s, "://");
    bool tls = c->ca_pem || c->cert_pem || c->insecure || c->tls_server_name;
    if (!sep || sep == s) { /* "host:port": the scheme TLS settings imply */
        s = sb_fmt("%s://%s", tls ? "https" : "http", c->server);
        if (!s)
            return err_oom(e);
        free(c->server);
        c->server = s;
        sep = strstr(s, "://");
    }
    size_t n = strlen(s);
    while (n > (size_t)(sep - s) + 3 && s[n - 1] == '/')
        s[--n] = '\0';
    bool http = !strncmp(s, "http://", 7), https = !strncmp(s, "https://", 8);
    if ((!http && !https) || !sep[3] || sep[3] == '/')
        return err_set(e, -EINVAL, "server \"%s\": not an http or https URL with a host", s);
    return 0;
}
