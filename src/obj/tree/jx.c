#include "obj/tree/jx.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "obj/base/sha1.h"

json_t *jx_obj(const json_t *o, const char *key)
{
    json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
    return json_is_object(v) ? v : NULL;
}

json_t *jx_arr(const json_t *o, const char *key)
{
    json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
    return json_is_array(v) ? v : NULL;
}

const char *jx_str(const json_t *o, const char *key)
{
    json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
    return json_is_string(v) ? json_string_value(v) : NULL;
}

json_t *jx_named(const json_t *arr, const char *name)
{
    size_t i;
    json_t *e;
    json_array_foreach (json_is_array(arr) ? arr : NULL, i, e) {
        const char *n = jx_str(e, "name");
        if (name && n && strcmp(n, name) == 0)
            return e;
    }
    return NULL;
}

json_t *jx_path(const json_t *root, const char *dotted)
{
    const json_t *cur = root;
    const char *p = dotted;
    while (cur && *p) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        cur = json_is_object(cur) ? json_object_getn(cur, p, n) : NULL;
        p += n + (dot ? 1 : 0);
    }
    return (json_t *)cur;
}

int jx_int(const json_t *o, const char *key, long long *out)
{
    json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
    if (!v || json_is_null(v))
        return -ENOENT;
    if (json_is_integer(v)) {
        *out = json_integer_value(v);
        return 0;
    }
    if (json_is_real(v)) {
        double d = json_real_value(v);
        if (d == floor(d) && fabs(d) < 9.2e18) {
            *out = (long long)d;
            return 0;
        }
    }
    return -EINVAL;
}

long long jx_int_or(const json_t *o, const char *key, long long def)
{
    long long v;
    return jx_int(o, key, &v) == 0 ? v : def;
}

bool jx_bool_or(const json_t *o, const char *key, bool def)
{
    json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
    return json_is_boolean(v) ? json_is_true(v) : def;
}

static json_t *ensure(json_t *o, const char *key, bool arr)
{
    if (!json_is_object(o))
        return NULL;
    json_t *v = json_object_get(o, key);
    if (arr ? json_is_array(v) : json_is_object(v))
        return v;
    v = arr ? json_array() : json_object();
    if (!v || json_object_set_new(o, key, v) < 0)
        return NULL;
    return v;
}

json_t *jx_ensure_obj(json_t *o, const char *key)
{
    return ensure(o, key, false);
}

json_t *jx_ensure_arr(json_t *o, const char *key)
{
    return ensure(o, key, true);
}

int jx_set_new(json_t *o, const char *key, json_t *v)
{
    if (!json_is_object(o)) {
        json_decref(v);
        return -EINVAL;
    }
    return v && json_object_set_new(o, key, v) == 0 ? 0 : -ENOMEM;
}

int jx_set_str(json_t *o, const char *key, const char *v)
{
    return jx_set_new(o, key, json_string(v));
}

int jx_set_int(json_t *o, const char *key, long long v)
{
    return jx_set_new(o, key, json_integer(v));
}

int jx_set_bool(json_t *o, const char *key, bool v)
{
    return jx_set_new(o, key, json_boolean(v));
}

int jx_set_meta(json_t *meta, const char *field, const char *k, const char *v)
{
    json_t *m = jx_ensure_obj(meta, field);
    return m ? jx_set_str(m, k, v) : -ENOMEM;
}

const char *jx_get_meta(const json_t *meta, const char *field, const char *k)
{
    return jx_str(jx_obj(meta, field), k);
}

bool jx_covers(const json_t *big, const json_t *small)
{
    const char *k;
    const json_t *v;
    size_t i;
    if (json_is_object(small)) {
        if (!json_is_object(big))
            return false;
        json_object_foreach((json_t *)small, k, v) {
            if (!jx_covers(json_object_get(big, k), v))
                return false;
        }
        return true;
    }
    if (json_is_array(small)) {
        if (!json_is_array(big) || json_array_size(big) != json_array_size(small))
            return false;
        json_array_foreach(small, i, v) {
            if (!jx_covers(json_array_get(big, i), v))
                return false;
        }
        return true;
    }
    if (!small || json_is_null(small))
        return !big || !small || json_is_null(big); /* the API server drops a null */
    return big && json_equal(big, small);
}

int jx_sha1(const json_t *v, char out[41])
{
    char *text = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    if (!text)
        return -ENOMEM;
    sha1_hex(text, strlen(text), out);
    free(text);
    return 0;
}
