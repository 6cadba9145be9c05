/* Environment from ConfigMaps and Secrets given in the manifest files (see podenv.h): what the
 * kubelet reads from the API server, locally read from the objects beside the job. */
#include "local/podenv/podenv.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "obj/base/b64.h"
#include "obj/tree/jx.h"

const json_t *podenv_object(const json_t *objects, const char *kind, const char *ns,
                           const char *name)
{
    size_t i;
    const json_t *o;
    json_array_foreach (objects, i, o) {
        const json_t *meta = jx_obj(o, "metadata");
        const char *k = jx_str(o, "kind"), *n = jx_str(meta, "name"), *ons = jx_str(meta, "namespace");
        if (k && n && !strcmp(k, kind) && !strcmp(n, name) &&
            !strcmp(ons ? ons : "default", ns ? ns : "default"))
            return o;
    }
    return NULL;
}

/* A Secret's data is Go's StdEncoding (obj/base/b64.h). */
char *podenv_b64_decode(const char *in, size_t *len)
{
    char *out = NULL;
    size_t n = 0;
    if (b64_decode(in, strlen(in), &out, &n) < 0)
        return NULL;
    if (len)
        *len = n;
    return out;
}

/* The value of `key` in the object: a ConfigMap's data, a Secret's data (base64) or
 * stringData.  Returns 0 with *out (malloc'd), -JX_EMISSINGKEY, -EINVAL (bad base64) or -ENOMEM. */
static int object_value(const json_t *o, bool secret, const char *key, char **out)
{
    const char *v = jx_str(jx_obj(o, "data"), key);
    if (secret && !v && (v = jx_str(jx_obj(o, "stringData"), key)))
        secret = false;
    if (!v)
        return -JX_EMISSINGKEY;
    *out = secret ? podenv_b64_decode(v, NULL) : strdup(v);
    return *out ? 0 : secret ? -EINVAL : -ENOMEM;
}

int podenv_ref_value(const json_t *objects, const char *ns, const json_t *ref, bool secret,
                     char **out)
{
    const char *kind = secret ? "Secret" : "ConfigMap";
    const char *name = jx_str(ref, "name"), *key = jx_str(ref, "key");
    const json_t *o = name ? podenv_object(objects, kind, ns, name) : NULL;
    if (!o)
        return -ENOENT;
    return key ? object_value(o, secret, key, out) : -JX_EMISSINGKEY;
}

int podenv_ref_each(const json_t *objects, const char *ns, const json_t *src, bool secret,
                    int (*fn)(void *ctx, const char *key, const char *value), void *ctx)
{
    const char *name = jx_str(src, "name");
    const json_t *o = name ? podenv_object(objects, secret ? "Secret" : "ConfigMap", ns, name)
                           : NULL;
    if (!o)
        return -ENOENT;
    const char *k;
    json_t *v;
    json_object_foreach (jx_obj(o, "data"), k, v) {
        const char *raw = json_string_value(v) ? json_string_value(v) : "";
        char *val = secret ? podenv_b64_decode(raw, NULL) : strdup(raw);
        int rc = val ? fn(ctx, k, val) : secret ? -EINVAL : -ENOMEM;
        free(val);
        if (rc < 0)
            return rc;
    }
    json_object_foreach (secret ? jx_obj(o, "stringData") : NULL, k, v) {
        int rc = fn(ctx, k, json_string_value(v) ? json_string_value(v) : "");
        if (rc < 0)
            return rc;
    }
    return 0;
}
