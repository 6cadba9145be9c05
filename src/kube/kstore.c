/* kstore: objects as compact text keyed by "ns/name", with an owner-uid index (kstore.h).
 * Both maps are jansson objects (hash tables): key -> string (the text), and
 * owner uid -> object whose keys are the owned objects' keys. */
#include "kube/kstore.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj/jx.h"

struct kstore {
    json_t *by_key;   /* "ns/name" -> string: compact JSON text */
    json_t *by_owner; /* uid -> { "ns/name": null, ... } (the owner of a stored object is read
                       * from its text when it is replaced or removed: no third map) */
};

struct kstore *kstore_new(void)
{
    struct kstore *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->by_key = json_object();
    s->by_owner = json_object();
    if (!s->by_key || !s->by_owner) {
        kstore_free(s);
        return NULL;
    }
    return s;
}

void kstore_free(struct kstore *s)
{
    if (!s)
        return;
    json_decref(s->by_key);
    json_decref(s->by_owner);
    free(s);
}

bool kstore_key(const json_t *obj, char *buf, size_t n)
{
    const json_t *m = jx_obj(obj, "metadata");
    const char *ns = jx_str(m, "namespace"), *name = jx_str(m, "name");
    if (!name)
        return false;
    int w = snprintf(buf, n, "%s/%s", ns ? ns : "", name);
    return w > 0 && (size_t)w < n;
}

const char *kstore_owner_uid(const json_t *obj)
{
    size_t i;
    const json_t *ref;
    json_array_foreach (jx_arr(jx_obj(obj, "metadata"), "ownerReferences"), i, ref)
        if (jx_bool_or(ref, "controller", false))
            return jx_str(ref, "uid");
    return NULL;
}

static json_t *decode(const json_t *text)
{
    const char *t = json_string_value(text);
    return t ? json_loadb(t, json_string_length(text), 0, NULL) : NULL;
}

/* metadata.namespace and metadata.name are the key: not stored twice, put back on reads. */
static json_t *decode_key(const char *key, const json_t *text)
{
    json_t *o = decode(text), *m = jx_obj(o, "metadata");
    const char *slash = strchr(key, '/');
    if (!m || !slash)
        return o;
    json_object_set_new(m, "name", json_string(slash + 1));
    if (slash > key)
        json_object_set_new(m, "namespace", json_stringn(key, (size_t)(slash - key)));
    return o;
}

/* Drops `key` from its owner's set (the owner read from the stored text). */
static void unindex(struct kstore *s, const char *key)
{
    json_t *old = decode(json_object_get(s->by_key, key));
    const char *uid = kstore_owner_uid(old);
    json_t *set = uid ? json_object_get(s->by_owner, uid) : NULL;
    if (set) {
        json_object_del(set, key);
        if (json_object_size(set) == 0)
            json_object_del(s->by_owner, uid);
    }
    json_decref(old);
}

static int index_owner(struct kstore *s, const char *key, const char *uid)
{
    json_t *set = json_object_get(s->by_owner, uid);
    if (!set && json_object_set_new(s->by_owner, uid, set = json_object()) < 0)
        return -ENOMEM;
    return json_object_set_new(set, key, json_null()) < 0 ? -ENOMEM : 0;
}

int kstore_put(struct kstore *s, const json_t *obj)
{
    char key[512];
    if (!kstore_key(obj, key, sizeof(key)))
        return -EINVAL;
    json_t *copy = json_copy((json_t *)obj), *m = json_deep_copy(jx_obj(obj, "metadata"));
    if (copy && m) {
        json_object_del(m, "name");
        json_object_del(m, "namespace");
        json_object_set(copy, "metadata", m);
    }
    char *text = copy && m ? json_dumps(copy, JSON_COMPACT) : NULL;
    json_decref(copy);
    json_decref(m);
    if (!text)
        return -ENOMEM;
    const char *old = json_string_value(json_object_get(s->by_key, key));
    if (old && strcmp(old, text) == 0) {
        free(text);
        return 0;
    }
    unindex(s, key);
    int rc = json_object_set_new(s->by_key, key, json_string_nocheck(text)) < 0 ? -ENOMEM : 1;
    free(text);
    const char *uid = kstore_owner_uid(obj);
    if (rc > 0 && uid && index_owner(s, key, uid) < 0)
        rc = -ENOMEM;
    return rc;
}

bool kstore_del(struct kstore *s, const char *ns, const char *name)
{
    char key[512];
    snprintf(key, sizeof(key), "%s/%s", ns ? ns : "", name);
    unindex(s, key);
    return json_object_del(s->by_key, key) == 0;
}

json_t *kstore_get(const struct kstore *s, const char *ns, const char *name)
{
    char key[512];
    snprintf(key, sizeof(key), "%s/%s", ns ? ns : "", name);
    return decode_key(key, json_object_get(s->by_key, key));
}

json_t *kstore_owned(const struct kstore *s, const char *uid)
{
    json_t *out = json_array();
    const char *key;
    json_t *v;
    json_object_foreach (json_object_get(s->by_owner, uid), key, v) {
        json_t *o = decode_key(key, json_object_get(s->by_key, key));
        if (!o || json_array_append_new(out, o) < 0) {
            json_decref(out);
            return NULL;
        }
    }
    return out;
}

size_t kstore_size(const struct kstore *s)
{
    return json_object_size(s->by_key);
}

void kstore_each(const struct kstore *s, void (*fn)(void *arg, const char *ns, const char *name),
                 void *arg)
{
    const char *key;
    json_t *v;
    json_object_foreach (s->by_key, key, v) {
        char buf[512];
        snprintf(buf, sizeof(buf), "%s", key);
        char *slash = strchr(buf, '/');
        if (!slash)
            continue;
        *slash = '\0';
        fn(arg, buf, slash + 1);
    }
}
