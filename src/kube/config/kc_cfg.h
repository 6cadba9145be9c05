/* kc_cfg (kubeconfig): where and how to reach a Kubernetes API server, found as kubectl finds it
 * (client-go tools/clientcmd: loading rules, merging, overrides, validation;
 * rest.InClusterConfig; plugin/pkg/client/auth/exec; transport/token_source.go).
 *
 * Loading rules (clientcmd loader.go, merged_client_builder.go):
 *   - --kubeconfig FILE: that file only; a missing file is an error; never in-cluster.
 *   - else $KUBECONFIG, ':'-separated (empty items and repeats dropped; missing files skipped),
 *     else ~/.kube/config.  The files are merged as clientcmd merges them: a cluster, user or
 *     context comes whole from the FIRST file that names it, current-context from the first
 *     file that sets it.
 *   - when no file exists, or the files choose nothing (no current-context, no --context,
 *     --cluster or --server), the in-cluster config is used if KUBERNETES_SERVICE_HOST and
 *     KUBERNETES_SERVICE_PORT are set; otherwise an error names the files looked at.
 *   - relative paths in a file (certificate-authority, client-certificate, client-key,
 *     tokenFile, an exec command containing '/') are relative to that file's directory.
 * Overrides: --context, --cluster, --user, --server (which also drops tls-server-name, as
 * clientcmd), -n.  Validation as clientcmd's ConfirmUsable: a file and inline data both given
 * for the CA, the client certificate or the key is an error, so are a certificate without a
 * key, token together with username/password, an exec plugin together with an auth-provider,
 * and insecure-skip-tls-verify together with a CA ("specifying a root certificates file with
 * the insecure flag is not allowed", client-go transport).  Stricter than kubectl: a context
 * naming a user or cluster that no file has is an error (kubectl goes on anonymously), and
 * legacy auth-provider (gcp, azure, oidc) and impersonation (as, as-groups...) are refused by
 * name rather than ignored.
 *
 * Secrets (inline data, tokens, keys, passwords, exec plugin output) stay in memory only and
 * are wiped (explicit_bzero) before they are freed; nothing is written to disk.
 *
 * Credentials (kc_cfg_credentials), in client-go's order: a token or tokenFile, basic auth or a
 * client certificate of the user win over its exec plugin, which then runs only when no other
 * way is given.  A token file (the user's tokenFile, the in-cluster service-account token) is
 * re-read when its inode, size or mtime changes and at least once a minute (projected tokens
 * rotate); a failed re-read keeps the last good token.  An exec plugin's credential is kept
 * until shortly before its expirationTimestamp (forever without one) or until
 * kc_cfg_credentials_invalidate.
 *
 * Not thread-safe: one thread owns a struct kc_cfg. */
#ifndef JX_KUBE_CLIENT_KC_CFG_H
#define JX_KUBE_CLIENT_KC_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "obj/base/err.h"

/* Default of kc_cfg_opts.sa_dir. */
#define KC_CFG_SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"
/* Default time an exec credential plugin may run. */
#define KC_CFG_EXEC_TIMEOUT_MS 30000

struct kc_cfg_opts {
    const char *kubeconfig;  /* --kubeconfig FILE (only that file), or NULL */
    const char *context;     /* --context, or NULL = current-context */
    const char *cluster;     /* --cluster override, or NULL */
    const char *user;        /* --user override, or NULL */
    const char *server;      /* --server override, or NULL */
    const char *namespace_;  /* -n/--namespace, or NULL */
    const char *sa_dir;      /* in-cluster service-account dir, NULL = KC_CFG_SA_DIR */
    bool in_cluster_only;    /* skip kubeconfig files (the controller's --in-cluster) */
    int exec_timeout_ms;     /* exec plugin time limit; 0 = KC_CFG_EXEC_TIMEOUT_MS */
};

struct kc_cfg_auth; /* token, token file and exec plugin state (kc_cfg_int.h) */

/* Everything owned by the struct; read-only for callers. */
struct kc_cfg {
    char *server;            /* base URL, no trailing slash ("https://10.0.0.1:443") */
    char *namespace_;        /* opts > context's > in-cluster ($POD_NAMESPACE, sa_dir/namespace)
                                > "default" */
    char *context;           /* context name used; NULL in cluster or with no context */
    char *cluster_name;      /* cluster entry used; NULL in cluster or with --server alone */
    char *user_name;         /* user entry used; NULL in cluster or with no user */
    char *source;            /* for messages: the file(s) read, ':'-joined, or "in-cluster" */
    bool in_cluster;
    char *tls_server_name;   /* or NULL */
    bool insecure;           /* insecure-skip-tls-verify: true only when set */
    bool disable_compression; /* cluster disable-compression */
    char *ca_pem; size_t ca_len;     /* CA bundle bytes, NULL = system CAs */
    char *cert_pem; size_t cert_len; /* static client certificate, or NULL */
    char *key_pem; size_t key_len;   /* its key, or NULL */
    char *proxy_url;         /* cluster proxy-url, or NULL (then the environment's proxies apply,
                                as kubectl's http.ProxyFromEnvironment) */
    char *username, *password; /* basic auth, or NULL */
    struct kc_cfg_auth *auth;  /* private */
};

/* Finds and reads the configuration as described above.  0 with *out (free with kc_cfg_free),
 * or a negative errno (-ENOENT for a missing file, context, cluster or user; -EINVAL for
 * invalid content; -ENOMEM) with a message naming the file(s) and the entry, e.g.
 * `kubeconfig /x/config: context "foo" not found`. */
int kc_cfg_load(const struct kc_cfg_opts *o, struct kc_cfg **out, struct err *e);

/* NULL-safe; wipes the secrets before freeing them. */
void kc_cfg_free(struct kc_cfg *c);

/* The credentials to put on a request now.  Borrowed pointers, valid until the next call of
 * kc_cfg_credentials, kc_cfg_credentials_invalidate or kc_cfg_free. */
struct kc_cfg_creds {
    const char *token;                      /* bearer token or NULL */
    const char *cert_pem; size_t cert_len;  /* client cert (static or from the exec plugin) or NULL */
    const char *key_pem; size_t key_len;
};

/* Fills *out (all NULL: anonymous, or basic auth from c->username/password) at wall-clock time
 * `now_ms` (kt_now_ms(); compared with exec credentials' expirationTimestamp).  May run the
 * exec plugin (blocking, up to the exec timeout) or read the token file.  0, or a negative
 * errno with a message (a failed plugin quotes its exit status and the first lines of its
 * stderr). */
int kc_cfg_credentials(struct kc_cfg *c, int64_t now_ms, struct kc_cfg_creds *out, struct err *e);

/* After a 401: the next kc_cfg_credentials runs the exec plugin again and re-reads the token
 * file. */
void kc_cfg_credentials_invalidate(struct kc_cfg *c);

#endif
