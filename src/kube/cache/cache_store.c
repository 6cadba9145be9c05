/* cache_store: objects as compact text keyed by "ns/name", with an owner-uid index (cache_store.h).
 *
 * Two chained hash tables of our own (a jansson object per map cost about 300 bytes of
 * bookkeeping per object, as much as a slim Job's text): entries keyed by "ns/name", each
 * holding its text (without metadata.name and metadata.namespace, which are the key; packed,
 * cache_pack.h) and linked into the list of its controller owner; owners keyed by uid, each
 * heading that list. */
#include "kube/cache/cache_store.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/cache/cache_pack.h"
#include "obj/tree/jx.h"

struct kowner;

struct kent {
    struct kent *next;         /* bucket chain */
    struct kent *onext, *oprev; /* the owner's list */
    struct kowner *owner;      /* or NULL */
    char *text;                /* compact JSON, packed (cache_pack.h), owned */
    uint32_t hash;
    char key[];                /* "ns/name" */
};

struct kowner {
    struct kowner *next; /* bucket chain */
    struct kent *first;
    uint32_t hash;
    char uid[];
};

struct cache_store {
    struct kent **b;
    size_t nb, n;
    struct kowner **ob;
    size_t nob, no;
};

static uint32_t hash_of(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

struct cache_store *cache_store_new(void)
{
    struct cache_store *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->nb = s->nob = 64;
    s->b = calloc(s->nb, sizeof(*s->b));
    s->ob = calloc(s->nob, sizeof(*s->ob));
    if (!s->b || !s->ob) {
        cache_store_free(s);
        return NULL;
    }
    return s;
}

void cache_store_free(struct cache_store *s)
{
    if (!s)
        return;
    for (size_t i = 0; s->b && i < s->nb; i++)
        for (struct kent *e = s->b[i], *next; e; e = next) {
            next = e->next;
            free(e->text);
            free(e);
        }
    for (size_t i = 0; s->ob && i < s->nob; i++)
        for (struct kowner *o = s->ob[i], *next; o; o = next) {
            next = o->next;
            free(o);
        }
    free(s->b);
    free(s->ob);
    free(s);
}

/* A name or namespace the key can hold and give back: no NUL (a C string would cut it), and
 * for the namespace no '/' (the key's separator).  The API server allows neither. */
static bool key_part_ok(const json_t *s, bool is_ns)
{
    const char *v = json_string_value(s);
    return !v || (strlen(v) == json_string_length(s) && (!is_ns || !strchr(v, '/')));
}

bool cache_store_key(const json_t *obj, char *buf, size_t n)
{
    const json_t *m = jx_obj(obj, "metadata");
    const char *ns = jx_str(m, "namespace"), *name = jx_str(m, "name");
    if (!name || !key_part_ok(json_object_get(m, "name"), false) ||
        !key_part_ok(json_object_get(m, "namespace"), true))
        return false;
    int w = snprintf(buf, n, "%s/%s", ns ? ns : "", name);
    return w > 0 && (size_t)w < n;
}

const char *cache_store_owner_uid(const json_t *obj)
{
    size_t i;
    const json_t *ref;
    json_array_foreach (jx_arr(jx_obj(obj, "metadata"), "ownerReferences"), i, ref)
        if (jx_bool_or(ref, "controller", false))
            return jx_str(ref, "uid");
    return NULL;
}

/* Doubles a table of chains when it holds more items than buckets. */
#define REHASH(type, tab, nb, n)                                                               \
    do {                                                                                       \
        if ((n) < (nb))                                                                        \
            break;                                                                             \
        size_t nnb = (nb) * 2;                                                                 \
        type **nt = calloc(nnb, sizeof(*nt));                                                  \
        if (!nt)                                                                               \
            break;                                                                             \
        for (size_t i_ = 0; i_ < (nb); i_++)                                                   \
            for (type *x_ = (tab)[i_], *nx_; x_; x_ = nx_) {                                   \
                nx_ = x_->next;                                                                \
                x_->next = nt[x_->hash & (nnb - 1)];                                           \
                nt[x_->hash & (nnb - 1)] = x_;                                                 \
            }                                                                                  \
        free(tab);                                                                             \
        (tab) = nt;                                                                            \
        (nb) = nnb;                                                                            \
    } while (0)

static struct kent **find(const struct cache_store *s, const char *key, uint32_t h)
{
    struct kent **p = &s->b[h & (s->nb - 1)];
    while (*p && ((*p)->hash != h || strcmp((*p)->key, key)))
        p = &(*p)->next;
    return p;
}

static struct kowner *owner(struct cache_store *s, const char *uid, bool create)
{
    uint32_t h = hash_of(uid);
    struct kowner **p = &s->ob[h & (s->nob - 1)];
    while (*p && ((*p)->hash != h || strcmp((*p)->uid, uid)))
        p = &(*p)->next;
    if (*p || !create)
        return *p;
    size_t len = strlen(uid);
    struct kowner *o = calloc(1, sizeof(*o) + len + 1);
    if (!o)
        return NULL;
    memcpy(o->uid, uid, len + 1);
    o->hash = h;
    o->next = s->ob[h & (s->nob - 1)];
    s->ob[h & (s->nob - 1)] = o;
    s->no++;
    REHASH(struct kowner, s->ob, s->nob, s->no);
    return o;
}

static void owner_drop(struct cache_store *s, struct kowner *o)
{
    struct kowner **p = &s->ob[o->hash & (s->nob - 1)];
    while (*p != o)
        p = &(*p)->next;
    *p = o->next;
    s->no--;
    free(o);
}

static void unlink_owner(struct cache_store *s, struct kent *e)
{
    struct kowner *o = e->owner;
    if (!o)
        return;
    if (e->oprev)
        e->oprev->onext = e->onext;
    else
        o->first = e->onext;
    if (e->onext)
        e->onext->oprev = e->oprev;
    e->owner = NULL;
    e->onext = e->oprev = NULL;
    if (!o->first)
        owner_drop(s, o);
}

static int link_owner(struct cache_store *s, struct kent *e, const char *uid)
{
    struct kowner *o = owner(s, uid, true);
    if (!o)
        return -ENOMEM;
    e->owner = o;
    e->onext = o->first;
    e->oprev = NULL;
    if (o->first)
        o->first->oprev = e;
    o->first = e;
    return 0;
}

/* The object's text without metadata.name/namespace (the key holds them), packed. */
static char *text_of(const json_t *obj)
{
    json_t *copy = json_copy((json_t *)obj), *m = json_deep_copy(jx_obj(obj, "metadata"));
    char *text = NULL, *packed = NULL;
    if (copy && m) {
        json_object_del(m, "name");
        json_object_del(m, "namespace");
        json_object_set(copy, "metadata", m);
        text = json_dumps(copy, JSON_COMPACT);
    }
    if (text)
        packed = cache_pack(text);
    json_decref(copy);
    json_decref(m);
    free(text);
    return packed;
}

static struct kent *new_entry(struct cache_store *s, const char *key, uint32_t h, char *text)
{
    size_t len = strlen(key);
    struct kent *e = calloc(1, sizeof(*e) + len + 1);
    if (!e)
        return NULL;
    memcpy(e->key, key, len + 1);
    e->hash = h;
    e->text = text;
    e->next = s->b[h & (s->nb - 1)];
    s->b[h & (s->nb - 1)] = e;
    s->n++;
    REHASH(struct kent, s->b, s->nb, s->n);
    return e;
}

int cache_store_put(struct cache_store *s, const json_t *obj)
{
    char key[512];
    if (!cache_store_key(obj, key, sizeof(key)))
        return -EINVAL;
    char *text = text_of(obj);
    if (!text)
        return -ENOMEM;
    uint32_t h = hash_of(key);
    struct kent *e = *find(s, key, h);
    if (e && strcmp(e->text, text) == 0) {
        free(text);
        return 0;
    }
    if (e) {
        free(e->text);
        e->text = text;
        unlink_owner(s, e);
    } else if (!(e = new_entry(s, key, h, text))) {
        free(text);
        return -ENOMEM;
    }
    const char *uid = cache_store_owner_uid(obj);
    return uid && link_owner(s, e, uid) < 0 ? -ENOMEM : 1;
}

bool cache_store_del(struct cache_store *s, const char *ns, const char *name)
{
    char key[512];
    snprintf(key, sizeof(key), "%s/%s", ns ? ns : "", name);
    struct kent **p = find(s, key, hash_of(key)), *e = *p;
    if (!e)
        return false;
    unlink_owner(s, e);
    *p = e->next;
    s->n--;
    free(e->text);
    free(e);
    return true;
}

/* A new tree of the entry, metadata.name and metadata.namespace put back from its key. */
static json_t *decode(const struct kent *e)
{
    size_t len = 0;
    char *text = cache_unpack(e->text, &len);
    json_t *o = text ? json_loadb(text, len, JSON_ALLOW_NUL, NULL) : NULL;
    json_t *m = jx_obj(o, "metadata");
    free(text);
    const char *slash = strchr(e->key, '/');
    if (!m || !slash)
        return o;
    json_object_set_new(m, "name", json_string(slash + 1));
    if (slash > e->key)
        json_object_set_new(m, "namespace", json_stringn(e->key, (size_t)(slash - e->key)));
    return o;
}

json_t *cache_store_get(const struct cache_store *s, const char *ns, const char *name)
{
    char key[512];
    snprintf(key, sizeof(key), "%s/%s", ns ? ns : "", name);
    struct kent *e = *find(s, key, hash_of(key));
    return e ? decode(e) : NULL;
}

json_t *cache_store_owned(const struct cache_store *s, const char *uid)
{
    json_t *out = json_array();
    struct kowner *o = owner((struct cache_store *)s, uid, false);
    for (struct kent *e = o ? o->first : NULL; out && e; e = e->onext) {
        json_t *v = decode(e);
        if (!v || json_array_append_new(out, v) < 0) {
            json_decref(out);
            return NULL;
        }
    }
    return out;
}

size_t cache_store_size(const struct cache_store *s)
{
    return s->n;
}

void cache_store_each(const struct cache_store *s, void (*fn)(void *arg, const char *ns, const char *name),
                 void *arg)
{
    for (size_t i = 0; i < s->nb; i++)
        for (const struct kent *e = s->b[i]; e; e = e->next) {
            char buf[512];
            snprintf(buf, sizeof(buf), "%s", e->key);
            char *slash = strchr(buf, '/');
            if (!slash)
                continue;
            *slash = '\0';
            fn(arg, buf, slash + 1);
        }
}
