/* kc_cfg (kubeconfig): a user entry (client-go tools/clientcmd client_config.go
 * getUserIdentificationPartialConfig, validation.go validateAuthInfo). */
#include "kube/config/kc_cfg_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "obj/tree/jx.h"

/* A client certificate or key: a file or inline data, not both. */
static int pem_of(const json_t *u, const struct kc_cfg__file *f, const char *file_key,
                  const char *data_key, char **out, size_t *len, struct err *e)
{
    const char *file;
    int rc = kc_cfg__str(u, file_key, &file, e);
    if (rc == 0)
        rc = kc_cfg__data(u, data_key, out, len, e);
    if (rc < 0 || !file)
        return rc;
    if (*out)
        return err_set(e, -EINVAL, "%s and %s are both given: keep one", data_key, file_key);
    char *path = kc_cfg__resolve(f->dir, file);
    if (!path)
        return err_oom(e);
    rc = kc_cfg__read_file(path, out, len);
    if (rc < 0)
        err_set(e, rc, "%s %s: %s", file_key, path, strerror(-rc));
    free(path);
    return rc;
}

/* Client certificate and key: both or neither. */
static int user_cert(struct kc_cfg *c, const json_t *u, const struct kc_cfg__file *f, struct err *e)
{
    int rc = pem_of(u, f, "client-certificate", "client-certificate-data", &c->cert_pem,
                    &c->cert_len, e);
    if (rc < 0 || !c->cert_pem)
        return rc;
    rc = pem_of(u, f, "client-key", "client-key-data", &c->key_pem, &c->key_len, e);
    if (rc == 0 && !c->key_pem)
        rc = err_set(e, -EINVAL, "client-key-data or client-key must be given with a client "
                                 "certificate");
    return rc;
}

/* What jaxset refuses by name rather than ignore: legacy auth providers, impersonation. */
static int unsupported(const json_t *u, struct err *e)
{
    static const char *const imp[] = {"as", "as-uid", "as-groups", "as-user-extra"};
    const json_t *ap = json_object_get(u, "auth-provider");
    if (ap && !json_is_null(ap)) {
        const char *name = jx_str(ap, "name");
        return err_set(e, -EINVAL, "auth-provider \"%s\" is not supported (client-go removed "
                                   "the gcp and azure providers; use their exec credential "
                                   "plugins, e.g. gke-gcloud-auth-plugin, kubelogin)",
                       name ? name : "");
    }
    for (size_t i = 0; i < sizeof(imp) / sizeof(imp[0]); i++) {
        const json_t *v = json_object_get(u, imp[i]);
        bool empty = !v || json_is_null(v) || (json_is_string(v) && !json_string_length(v)) ||
                     (json_is_array(v) && !json_array_size(v)) ||
                     (json_is_object(v) && !json_object_size(v));
        if (!empty)
            return err_set(e, -EINVAL, "%s: impersonation is not supported", imp[i]);
    }
    return 0;
}

/* token, tokenFile, username and password. */
static int user_token(struct kc_cfg *c, const json_t *u, const struct kc_cfg__file *f,
                      struct err *e)
{
    const char *tok, *file, *user, *pass;
    int rc = kc_cfg__str(u, "token", &tok, e);
    if (rc == 0)
        rc = kc_cfg__str(u, "tokenFile", &file, e);
    if (rc == 0)
        rc = kc_cfg__str(u, "username", &user, e);
    if (rc == 0)
        rc = kc_cfg__str(u, "password", &pass, e);
    if (rc < 0)
        return rc;
    if (tok && (user || pass))
        return err_set(e, -EINVAL, "more than one authentication method found (token and "
                                   "username/password), only one is allowed");
    bool ok = true;
    c->auth->token = kc_cfg__dup(tok, &ok);
    c->username = kc_cfg__dup(user, &ok);
    c->password = kc_cfg__dup(pass, &ok);
    if (!ok)
        return err_oom(e);
    if (!file)
        return 0;
    char *path = kc_cfg__resolve(f->dir, file);
    if (!path)
        return err_oom(e);
    rc = kc_cfg__tokfile_new(path, &c->auth->tf, e);
    free(path);
    if (rc == -ENOMEM || !c->auth->token) /* a token given too stands in for an unreadable file */
        return rc;
    return 0;
}

int kc_cfg__user(struct kc_cfg *c, const json_t *u, const struct kc_cfg__file *f,
               const struct kc_cfg_opts *o, struct err *e)
{
    int rc = unsupported(u, e);
    if (rc == 0)
        rc = user_token(c, u, f, e);
    if (rc == 0)
        rc = user_cert(c, u, f, e);
    const json_t *ex = json_object_get(u, "exec");
    if (rc == 0 && ex && !json_is_null(ex))
        rc = kc_cfg__exec_new(ex, f, c->user_name,
                            o->exec_timeout_ms > 0 ? o->exec_timeout_ms : KC_CFG_EXEC_TIMEOUT_MS,
                            &c->auth->exec, e);
    return rc;
}
