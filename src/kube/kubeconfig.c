/* TEMPORARY minimal kubeconfig reader (first cluster and user of one file). */
#include "kube/kubeconfig.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "obj/jx.h"
#include "obj/yaml.h"

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

int kcfg_load(const struct kcfg_opts *o, struct kcfg **out, struct err *e)
{
    const char *path = o->kubeconfig ? o->kubeconfig : getenv("KUBECONFIG");
    json_t *docs = NULL;
    if (!path)
        return err_set(e, -ENOENT, "no kubeconfig");
    int rc = yaml_decode_file(path, &docs, e);
    if (rc < 0)
        return rc;
    json_t *d = json_array_get(docs, 0);
    json_t *cl = jx_obj(json_array_get(jx_arr(d, "clusters"), 0), "cluster");
    json_t *us = jx_obj(json_array_get(jx_arr(d, "users"), 0), "user");
    struct kcfg *c = calloc(1, sizeof(*c));
    c->server = dup_or_null(o->server ? o->server : jx_str(cl, "server"));
    c->insecure = jx_bool_or(cl, "insecure-skip-tls-verify", false);
    c->token = dup_or_null(jx_str(us, "token"));
    c->namespace_ = strdup(o->namespace_ ? o->namespace_ : "default");
    c->source = strdup(path);
    json_decref(docs);
    *out = c;
    return 0;
}

void kcfg_free(struct kcfg *c)
{
    if (!c)
        return;
    free(c->server);
    free(c->namespace_);
    free(c->source);
    free(c->token);
    free(c);
}

int kcfg_credentials(struct kcfg *c, int64_t now_ms, struct kcfg_creds *out, struct err *e)
{
    (void)now_ms;
    (void)e;
    memset(out, 0, sizeof(*out));
    out->token = c->token;
    return 0;
}

void kcfg_credentials_invalidate(struct kcfg *c)
{
    (void)c;
}
