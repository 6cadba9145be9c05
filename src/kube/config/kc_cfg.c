/* kc_cfg (kubeconfig): choosing the context, cluster and user (client-go tools/clientcmd
 * client_config.go DirectClientConfig, merged_client_builder.go DeferredLoadingClientConfig).
 * See kc_cfg.h. */
#include "kube/config/kc_cfg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/config/kc_cfg_int.h"
#include "obj/tree/jx.h"

/* Prefixes the message of an entry's field error: "kubeconfig F: cluster "x": ...". */
static int entry_err(struct err *e, int rc, const struct kc_cfg__file *f, const char *what,
                     const char *name)
{
    if (e && rc != -ENOMEM) {
        char pre[512];
        snprintf(pre, sizeof(pre), "%s \"%s\"", what, name);
        err_prefix(e, pre);
        kc_cfg__err_in(e, f->path);
    }
    return rc;
}

/* The context: --context, else current-context.  *ctx stays NULL when neither names one. */
static int pick_context(const struct kc_cfg_opts *o, const struct kc_cfg__set *s, const char **name,
                        const json_t **ctx, struct err *e)
{
    const struct kc_cfg__file *f;
    *name = o->context ? o->context : kc_cfg__current_context(s);
    *ctx = NULL;
    if (!*name)
        return 0;
    *ctx = kc_cfg__find(s, "contexts", *name, &f);
    if (!*ctx) {
        err_set(e, -ENOENT, "context \"%s\"%s not found", *name,
                o->context ? "" : " (the current-context)");
        kc_cfg__err_in(e, s->source);
        return -ENOENT;
    }
    const char *v;
    int rc = 0;
    static const char *const fields[] = {"cluster", "user", "namespace"};
    for (size_t i = 0; i < 3 && rc == 0; i++)
        rc = kc_cfg__str(*ctx, fields[i], &v, e);
    return rc < 0 ? entry_err(e, rc, f, "context", *name) : 0;
}

/* An entry named by an override or by the context; -ENOENT with a message when missing. */
static int find_named(const struct kc_cfg__set *s, const char *list, const char *what,
                      const char *name, const char *ctx, const json_t **out,
                      const struct kc_cfg__file **f, struct err *e)
{
    *out = kc_cfg__find(s, list, name, f);
    if (*out)
        return 0;
    if (ctx)
        err_set(e, -ENOENT, "%s \"%s\" (of context \"%s\") not found", what, name, ctx);
    else
        err_set(e, -ENOENT, "%s \"%s\" not found", what, name);
    kc_cfg__err_in(e, s->source);
    return -ENOENT;
}

/* The namespace: -n, the context's, the pod's when in a cluster, "default". */
static int pick_namespace(const struct kc_cfg_opts *o, const json_t *ctx, struct kc_cfg *c)
{
    const char *ns = o->namespace_ ? o->namespace_ : jx_str(ctx, "namespace");
    if (ns && *ns) {
        c->namespace_ = strdup(ns);
    } else {
        int rc = kc_cfg__in_cluster_env() ? kc_cfg__pod_namespace(o->sa_dir, true, &c->namespace_) : 0;
        if (rc < 0)
            return rc;
        if (!c->namespace_)
            c->namespace_ = strdup("default");
    }
    return c->namespace_ ? 0 : -ENOMEM;
}

/* Everything from the files, once a context, --cluster or --server chose something. */
static int from_files(const struct kc_cfg_opts *o, const struct kc_cfg__set *s, struct kc_cfg *c,
                      struct err *e)
{
    const char *ctx_name, *cname, *uname;
    const json_t *ctx, *cl = NULL, *u = NULL;
    const struct kc_cfg__file *cf = NULL, *uf = NULL;
    int rc = pick_context(o, s, &ctx_name, &ctx, e);
    if (rc < 0)
        return rc;
    cname = o->cluster ? o->cluster : jx_str(ctx, "cluster");
    uname = o->user ? o->user : jx_str(ctx, "user");
    cname = cname && *cname ? cname : NULL;
    uname = uname && *uname ? uname : NULL;
    if (cname)
        rc = find_named(s, "clusters", "cluster", cname, o->cluster ? NULL : ctx_name, &cl, &cf, e);
    else if (!o->server)
        rc = err_set(e, -EINVAL, "context \"%s\" names no cluster", ctx_name);
    if (rc == -EINVAL)
        kc_cfg__err_in(e, s->source);
    if (rc == 0 && uname)
        rc = find_named(s, "users", "user", uname, o->user ? NULL : ctx_name, &u, &uf, e);
    if (rc < 0)
        return rc;
    bool ok = true;
    c->context = kc_cfg__dup(ctx_name, &ok);
    c->cluster_name = kc_cfg__dup(cname, &ok);
    c->user_name = kc_cfg__dup(uname, &ok);
    c->source = kc_cfg__dup(s->n ? s->source : "--server", &ok);
    if (!ok || pick_namespace(o, ctx, c) < 0)
        return err_oom(e);
    rc = kc_cfg__cluster(c, cl, cf, o, e);
    if (rc < 0)
        return cf ? entry_err(e, rc, cf, "cluster", cname) : rc;
    rc = u ? kc_cfg__user(c, u, uf, o, e) : 0;
    if (rc < 0)
        return entry_err(e, rc, uf, "user", uname);
    rc = kc_cfg__server_url(c, e);
    if (rc < 0 && cf)
        return entry_err(e, rc, cf, "cluster", cname);
    if (rc == 0 && c->auth->exec)
        rc = kc_cfg__exec_info(c->auth->exec, c, cl, e);
    return rc;
}

/* When the files choose nothing: in-cluster when possible, else an error naming the files. */
static int nothing_chosen(const struct kc_cfg_opts *o, const struct kc_cfg__set *s, struct kc_cfg *c,
                          struct err *e)
{
    if (!o->kubeconfig && kc_cfg__in_cluster_env())
        return kc_cfg__in_cluster(o, c, e);
    if (s->n == 0)
        return err_set(e, -ENOENT, "no kubeconfig: set KUBECONFIG or --kubeconfig (looked in %s)",
                       s->looked ? s->looked : "nothing: $HOME is not set");
    err_set(e, -EINVAL, "no current-context: pass --context (kubectl config get-contexts lists "
                        "them) or set one (kubectl config use-context)");
    kc_cfg__err_in(e, s->source);
    return -EINVAL;
}

int kc_cfg_load(const struct kc_cfg_opts *o, struct kc_cfg **out, struct err *e)
{
    struct kc_cfg__set s = {0};
    struct kc_cfg *c = calloc(1, sizeof(*c));
    int rc = 0;
    if (!c || !(c->auth = calloc(1, sizeof(*c->auth)))) {
        rc = err_oom(e);
        goto out;
    }
    if (o->in_cluster_only) {
        rc = kc_cfg__in_cluster(o, c, e);
        goto out;
    }
    rc = kc_cfg__set_load(o, &s, e);
    if (rc < 0)
        goto out;
    if (!o->context && !o->cluster && !o->server && !kc_cfg__current_context(&s))
        rc = nothing_chosen(o, &s, c, e);
    else
        rc = from_files(o, &s, c, e);
out:
    kc_cfg__set_free(&s);
    if (rc < 0) {
        kc_cfg_free(c);
        return rc;
    }
    *out = c;
    return 0;
}

void kc_cfg_free(struct kc_cfg *c)
{
    if (!c)
        return;
    if (c->auth) {
        kc_cfg__wipe_str(c->auth->token);
        kc_cfg__tokfile_free(c->auth->tf);
        kc_cfg__exec_free(c->auth->exec);
        free(c->auth);
    }
    free(c->server);
    free(c->namespace_);
    free(c->context);
    free(c->cluster_name);
    free(c->user_name);
    free(c->source);
    free(c->tls_server_name);
    free(c->ca_pem);
    free(c->cert_pem);
    kc_cfg__wipe_free(c->key_pem, c->key_len);
    free(c->proxy_url);
    kc_cfg__wipe_str(c->username);
    kc_cfg__wipe_str(c->password);
    free(c);
}
