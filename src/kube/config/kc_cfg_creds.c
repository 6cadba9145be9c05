/* kc_cfg (kubeconfig): the credentials of a request (client-go transport/round_trippers.go
 * NewBearerAuthWithRefreshRoundTripper, transport/token_source.go NewCachedFileTokenSource and
 * fileTokenSource; plugin/pkg/client/auth/exec UpdateTransportConfig for when the exec plugin
 * runs at all). */
#include "kube/config/kc_cfg_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "obj/base/ktime.h"

/* Reads the file now: the token trimmed of surrounding white space (fileTokenSource.Token). */
static int tokfile_read(struct kc_cfg__tokfile *t, const struct stat *st, int64_t now_ms,
                        struct err *e)
{
    char *buf;
    size_t len;
    int rc = kc_cfg__read_file(t->path, &buf, &len);
    if (rc < 0)
        return err_set(e, rc, "token file %s: %s", t->path, strerror(-rc));
    size_t a = 0, b = len;
    while (a < b && isspace((unsigned char)buf[a]))
        a++;
    while (b > a && isspace((unsigned char)buf[b - 1]))
        b--;
    if (a == b) {
        kc_cfg__wipe_free(buf, len);
        return err_set(e, -EINVAL, "token file %s: empty", t->path);
    }
    memmove(buf, buf + a, b - a);
    explicit_bzero(buf + (b - a), len - (b - a));
    buf[b - a] = '\0';
    kc_cfg__wipe_str(t->tok);
    t->tok = buf;
    t->stale = false;
    t->read_ms = now_ms;
    t->have_stat = st != NULL;
    if (st) {
        t->dev = st->st_dev;
        t->ino = st->st_ino;
        t->size = st->st_size;
        t->mtime = st->st_mtim;
    }
    return 0;
}

int kc_cfg__tokfile_new(const char *path, struct kc_cfg__tokfile **out, struct err *e)
{
    struct kc_cfg__tokfile *t = calloc(1, sizeof(*t));
    if (!t || !(t->path = strdup(path))) {
        free(t);
        return err_oom(e);
    }
    *out = t;
    struct stat st;
    return tokfile_read(t, stat(path, &st) == 0 ? &st : NULL, kt_now_ms(), e);
}

void kc_cfg__tokfile_free(struct kc_cfg__tokfile *t)
{
    if (!t)
        return;
    kc_cfg__wipe_str(t->tok);
    free(t->path);
    free(t);
}

/* The token now: re-read when the file changed, once a minute, or after an invalidation; a
 * failed re-read keeps the last good token (cachingTokenSource). */
static int tokfile_get(struct kc_cfg__tokfile *t, int64_t now_ms, const char **tok, struct err *e)
{
    struct stat st;
    bool have = stat(t->path, &st) == 0;
    bool changed = !have || !t->have_stat || st.st_dev != t->dev || st.st_ino != t->ino ||
                   st.st_size != t->size || st.st_mtim.tv_sec != t->mtime.tv_sec ||
                   st.st_mtim.tv_nsec != t->mtime.tv_nsec;
    if (t->tok && !t->stale && !changed && now_ms - t->read_ms < KC_CFG_TOKEN_PERIOD_MS) {
        *tok = t->tok;
        return 0;
    }
    int rc = tokfile_read(t, have ? &st : NULL, now_ms, e);
    if (rc < 0 && !t->tok)
        return rc;
    *tok = t->tok;
    return 0;
}

int kc_cfg_credentials(struct kc_cfg *c, int64_t now_ms, struct kc_cfg_creds *out, struct err *e)
{
    struct kc_cfg_auth *a = c->auth;
    *out = (struct kc_cfg_creds){.token = a->token, .cert_pem = c->cert_pem,
                               .cert_len = c->cert_len, .key_pem = c->key_pem,
                               .key_len = c->key_len};
    if (a->tf) {
        const char *tok;
        int rc = tokfile_get(a->tf, now_ms, &tok, e);
        if (rc < 0 && !a->token)
            return rc;
        if (rc == 0)
            out->token = tok;
    }
    /* The exec plugin only when the user gives no other way (exec UpdateTransportConfig). */
    if (!a->exec || out->token || c->username || c->password || c->cert_pem)
        return 0;
    int rc = kc_cfg__exec_get(a->exec, now_ms, e);
    if (rc < 0)
        return rc;
    out->token = a->exec->token;
    out->cert_pem = a->exec->cert;
    out->cert_len = a->exec->cert_len;
    out->key_pem = a->exec->key;
    out->key_len = a->exec->key_len;
    return 0;
}

void kc_cfg_credentials_invalidate(struct kc_cfg *c)
{
    if (!c || !c->auth)
        return;
    if (c->auth->tf)
        c->auth->tf->stale = true;
    if (c->auth->exec)
        kc_cfg__exec_drop(c->auth->exec);
}
