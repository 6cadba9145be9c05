#include "local/podenv/podenv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj/tree/jx.h"

void podenv_strv_free(struct podenv_strv *s)
{
    for (size_t i = 0; s && s->v && i < s->n; i++)
        free(s->v[i]);
    if (s) {
        free(s->v);
        s->v = NULL;
        s->n = 0;
    }
}

static const char *lookup(const struct podenv_strv *env, const char *name, size_t len)
{
    for (size_t i = env->n; i-- > 0;) {
        const char *e = env->v[i];
        if (!strncmp(e, name, len) && e[len] == '=')
            return e + len + 1;
    }
    return NULL;
}

/* Appends n bytes to a growing string; false on OOM or past PODENV_VALUE_MAX (errno E2BIG). */
static bool grow(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n > PODENV_VALUE_MAX) {
        errno = E2BIG;
        return false;
    }
    if (*len + n + 1 > *cap) {
        size_t c = (*len + n + 1) * 2;
        char *nb = realloc(*buf, c);
        if (!nb)
            return false;
        *buf = nb;
        *cap = c;
    }
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[*len] = 0;
    return true;
}

char *podenv_expand(const char *in, const struct podenv_strv *env)
{
    errno = 0;
    char *out = NULL;
    size_t len = 0, cap = 0;
    bool ok = grow(&out, &len, &cap, "", 0);
    while (ok && *in) {
        if (in[0] == '$' && in[1] == '$') {
            ok = grow(&out, &len, &cap, "$", 1);
            in += 2;
            continue;
        }
        const char *close = in[0] == '$' && in[1] == '(' ? strchr(in + 2, ')') : NULL;
        const char *val = close ? lookup(env, in + 2, (size_t)(close - in - 2)) : NULL;
        if (val) {
            ok = grow(&out, &len, &cap, val, strlen(val));
            in = close + 1;
        } else {
            ok = grow(&out, &len, &cap, in, 1);
            in++;
        }
    }
    if (!ok) {
        free(out);
        return NULL;
    }
    return out;
}

/* Sets NAME=value, replacing an existing entry of that name. Takes `entry`. */
static int set_entry(struct podenv_strv *env, char *entry)
{
    if (!entry)
        return -ENOMEM;
    size_t nlen = strcspn(entry, "=");
    for (size_t i = 0; i < env->n; i++) {
        if (!strncmp(env->v[i], entry, nlen) && env->v[i][nlen] == '=') {
            free(env->v[i]);
            env->v[i] = entry;
            return 0;
        }
    }
    char **nv = realloc(env->v, (env->n + 2) * sizeof(*nv));
    if (!nv) {
        free(entry);
        return -ENOMEM;
    }
    env->v = nv;
    env->v[env->n++] = entry;
    env->v[env->n] = NULL;
    return 0;
}

static int set_kv(struct podenv_strv *env, const char *name, const char *value)
{
    char *e = NULL;
    return set_entry(env, asprintf(&e, "%s=%s", name, value) < 0 ? NULL : e);
}

/* metadata.labels['k'] -> the key k (into out), or NULL when `path` is not of that form. */
static const char *map_key(const char *path, const char *prefix, char *out, size_t n)
{
    size_t pl = strlen(prefix);
    if (strncmp(path, prefix, pl) || path[pl] != '[')
        return NULL;
    const char *k = path + pl + 1;
    char q = (*k == '\'' || *k == '"') ? *k++ : 0;
    size_t kl = strcspn(k, q ? (q == '\'' ? "'" : "\"") : "]");
    if (kl >= n)
        return NULL; /* longer than any valid key: an unsupported fieldPath */
    memcpy(out, k, kl);
    out[kl] = '\0';
    return out;
}

int podenv_field(const char *path, const struct podenv_pod *pod, const char **out)
{
    char key[320]; /* a label or annotation key: at most 253 + "/" + 63 bytes */
    const json_t *meta = pod->meta;
    const char *k;
    if ((k = map_key(path, "metadata.labels", key, sizeof(key))))
        *out = jx_get_meta(meta, "labels", k);
    else if ((k = map_key(path, "metadata.annotations", key, sizeof(key))))
        *out = jx_get_meta(meta, "annotations", k);
    else if (!strcmp(path, "metadata.name"))
        *out = jx_str(meta, "name");
    else if (!strcmp(path, "metadata.namespace"))
        *out = jx_str(meta, "namespace");
    else if (!strcmp(path, "metadata.uid"))
        *out = jx_str(meta, "uid");
    else if (!strcmp(path, "spec.nodeName"))
        *out = pod->node_name;
    else if (!strcmp(path, "spec.serviceAccountName"))
        *out = jx_str(pod->pod_spec, "serviceAccountName");
    else if (!strcmp(path, "status.podIP") || !strcmp(path, "status.podIPs"))
        *out = pod->pod_ip;
    else if (!strcmp(path, "status.hostIP") || !strcmp(path, "status.hostIPs"))
        *out = pod->host_ip;
    else
        return -EINVAL;
    if (!*out)
        *out = "";
    return 0;
}

/* A value whose $(VAR) expansion outgrows what the kernel passes to a program. */
static int too_long(struct err *err, const char *field, size_t i, const char *name)
{
    return err_set(err, -E2BIG, "%s[%zu]%s%s%s: the expanded value is longer than %d bytes, the "
                   "most one argument or variable can be", field, i, name ? " (" : "",
                   name ? name : "", name ? ")" : "", PODENV_VALUE_MAX);
}

static const char *pod_ns(const struct podenv_pod *pod)
{
    const char *ns = pod->ns ? pod->ns : jx_str(pod->meta, "namespace");
    return ns ? ns : "default";
}

/* valueFrom.configMapKeyRef / secretKeyRef: from the objects of the manifest files. */
static int key_ref(const json_t *ref, bool secret, size_t i, const char *name,
                   const struct podenv_pod *pod, struct podenv_strv *env, struct err *err)
{
    char *val = NULL;
    const char *what = secret ? "Secret" : "ConfigMap", *obj = jx_str(ref, "name");
    int rc = podenv_ref_value(pod->objects, pod_ns(pod), ref, secret, &val);
    if (rc == 0) {
        rc = set_kv(env, name, val);
        free(val);
        return rc;
    }
    if ((rc == -ENOENT || rc == -JX_EMISSINGKEY) && jx_bool_or(ref, "optional", false))
        return 0; /* an optional reference that resolves to nothing sets nothing */
    if (rc == -ENOENT)
        return err_set(err, -EINVAL, "env[%zu] (%s): %s \"%s\" not found: only the %ss in the "
                                     "manifest files can be read on one machine",
                       i, name, what, obj ? obj : "", what);
    if (rc == -JX_EMISSINGKEY)
        return err_set(err, -EINVAL, "env[%zu] (%s): %s \"%s\" has no key \"%s\"", i, name,
                       what, obj ? obj : "", jx_str(ref, "key") ? jx_str(ref, "key") : "");
    return rc == -EINVAL ? err_set(err, rc, "env[%zu] (%s): Secret \"%s\": data is not base64",
                                   i, name, obj ? obj : "")
                         : rc;
}

struct from_ctx {
    struct podenv_strv *env;
    const char *prefix;
};

static int set_from(void *ctx, const char *key, const char *value)
{
    struct from_ctx *c = ctx;
    char *name = NULL;
    if (asprintf(&name, "%s%s", c->prefix, key) < 0)
        return -ENOMEM;
    int rc = set_kv(c->env, name, value);
    free(name);
    return rc;
}

/* envFrom: every key of each ConfigMap or Secret, before the env entries (as the kubelet). */
static int env_from(const json_t *c, const struct podenv_pod *pod, struct podenv_strv *env,
                    struct err *err)
{
    const json_t *list = jx_arr(c, "envFrom");
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *e = json_array_get(list, i), *cm = jx_obj(e, "configMapRef");
        const json_t *src = cm ? cm : jx_obj(e, "secretRef");
        struct from_ctx fc = {env, jx_str(e, "prefix") ? jx_str(e, "prefix") : ""};
        int rc = src ? podenv_ref_each(pod->objects, pod_ns(pod), src, !cm, set_from, &fc)
                     : -ENOENT;
        if (rc == -ENOENT && src && jx_bool_or(src, "optional", false))
            continue;
        if (rc == -ENOENT)
            return err_set(err, -EINVAL, "envFrom[%zu]: %s \"%s\" not found: only the "
                                         "ConfigMaps and Secrets in the manifest files can be "
                                         "read on one machine",
                           i, cm ? "ConfigMap" : "Secret", jx_str(src, "name") ? jx_str(src, "name") : "");
        if (rc < 0)
            return rc == -EINVAL ? err_set(err, rc, "envFrom[%zu]: data is not base64", i) : rc;
    }
    return 0;
}

static int env_entry(const json_t *e, size_t i, const struct podenv_pod *pod,
                     struct podenv_strv *env, struct err *err)
{
    const char *name = jx_str(e, "name");
    const json_t *from = jx_obj(e, "valueFrom");
    if (!name)
        return err_set(err, -EINVAL, "env[%zu]: no name", i);
    if (!from) {
        const char *v = jx_str(e, "value");
        char *x = podenv_expand(v ? v : "", env);
        if (!x && errno == E2BIG)
            return too_long(err, "env", i, name);
        int rc = x ? set_kv(env, name, x) : -ENOMEM;
        free(x);
        return rc;
    }
    const json_t *cm = jx_obj(from, "configMapKeyRef"), *sec = jx_obj(from, "secretKeyRef");
    if (cm || sec)
        return key_ref(cm ? cm : sec, sec != NULL, i, name, pod, env, err);
    const char *path = jx_str(jx_obj(from, "fieldRef"), "fieldPath"), *val = NULL;
    if (!path)
        return err_set(err, -EINVAL,
                       "env[%zu] (%s): only fieldRef, configMapKeyRef and secretKeyRef can be "
                       "resolved on one machine",
                       i, name);
    if (podenv_field(path, pod, &val) < 0)
        return err_set(err, -EINVAL, "env[%zu] (%s): unsupported fieldPath %s", i, name, path);
    return set_kv(env, name, val);
}

/* An `extra` entry replaces the variable, or with "join" goes before the value it has so far
 * (LD_PRELOAD: jaxset's library first, the container's own after it). */
static int extra_entry(const json_t *e, struct podenv_strv *env)
{
    const char *name = jx_str(e, "name"), *val = jx_str(e, "value"), *join = jx_str(e, "join");
    const char *old = join ? lookup(env, name, strlen(name)) : NULL;
    if (!old || !*old)
        return set_kv(env, name, val ? val : "");
    char *joined = NULL;
    if (asprintf(&joined, "%s%s%s", val ? val : "", join, old) < 0)
        return -ENOMEM;
    int rc = set_kv(env, name, joined);
    free(joined);
    return rc;
}

static int build_env(const json_t *c, const struct podenv_pod *pod, const char *const *base,
                     const json_t *extra, struct podenv_strv *env, struct err *err)
{
    int rc = 0;
    for (size_t i = 0; !rc && base && base[i]; i++) {
        char *d = strdup(base[i]);
        rc = strchr(base[i], '=') ? set_entry(env, d) : (free(d), 0);
    }
    if (!rc)
        rc = set_kv(env, "HOSTNAME", pod->hostname ? pod->hostname : "");
    if (!rc)
        rc = env_from(c, pod, env, err);
    const json_t *arr = jx_arr(c, "env");
    for (size_t i = 0; !rc && i < json_array_size(arr); i++)
        rc = env_entry(json_array_get(arr, i), i, pod, env, err);
    for (size_t i = 0; !rc && i < json_array_size(extra); i++)
        rc = extra_entry(json_array_get(extra, i), env);
    return rc;
}

static int build_argv(const json_t *c, const struct podenv_strv *env, struct podenv_strv *argv,
                      struct err *err)
{
    const json_t *cmd = jx_arr(c, "command"), *args = jx_arr(c, "args");
    size_t n = json_array_size(cmd) + json_array_size(args);
    if (!json_array_size(cmd))
        return err_set(err, -EINVAL, "container %s has no command: there is no image "
                                     "entrypoint to fall back on locally",
                       jx_str(c, "name") ? jx_str(c, "name") : "?");
    argv->v = calloc(n + 1, sizeof(*argv->v));
    if (!argv->v)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const json_t *a = i < json_array_size(cmd) ? json_array_get(cmd, i)
                                                   : json_array_get(args, i - json_array_size(cmd));
        argv->v[i] = podenv_expand(json_is_string(a) ? json_string_value(a) : "", env);
        if (!argv->v[i] && errno == E2BIG)
            return too_long(err, i < json_array_size(cmd) ? "command" : "args",
                            i < json_array_size(cmd) ? i : i - json_array_size(cmd), NULL);
        if (!argv->v[i])
            return -ENOMEM;
        argv->n++;
    }
    return 0;
}

int podenv_build(const json_t *container, const struct podenv_pod *pod, const char *const *base,
                 const json_t *extra, struct podenv_strv *out_env, struct podenv_strv *out_argv,
                 struct err *err)
{
    struct podenv_strv env = {0}, argv = {0};
    int rc = build_env(container, pod, base, extra, &env, err);
    if (!rc)
        rc = build_argv(container, &env, &argv, err);
    if (rc == -ENOMEM)
        err_set(err, rc, ERR_OOM_MSG);
    if (rc < 0) {
        podenv_strv_free(&env);
        podenv_strv_free(&argv);
        return rc;
    }
    *out_env = env;
    *out_argv = argv;
    return 0;
}
