/* kubeconfig: where and how to reach a Kubernetes API server (TEMPORARY minimal version; the
 * full loader replaces it). */
#ifndef JX_KUBECONFIG_H
#define JX_KUBECONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "obj/err.h"

struct kcfg_opts {
    const char *kubeconfig;
    const char *context;
    const char *cluster;
    const char *user;
    const char *server;
    const char *namespace_;
    const char *sa_dir;
    bool in_cluster_only;
};

struct kcfg {
    char *server;
    char *namespace_;
    char *context;
    char *source;
    char *tls_server_name;
    bool insecure;
    char *ca_pem;
    size_t ca_len;
    char *cert_pem;
    size_t cert_len;
    char *key_pem;
    size_t key_len;
    char *proxy_url;
    char *username, *password;
    char *token;
};

int kcfg_load(const struct kcfg_opts *o, struct kcfg **out, struct err *e);
void kcfg_free(struct kcfg *c);

struct kcfg_creds {
    const char *token;
    const char *cert_pem;
    size_t cert_len;
    const char *key_pem;
    size_t key_len;
};
int kcfg_credentials(struct kcfg *c, int64_t now_ms, struct kcfg_creds *out, struct err *e);
void kcfg_credentials_invalidate(struct kcfg *c);

#endif
