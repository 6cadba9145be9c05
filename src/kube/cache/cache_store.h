/* cache_store: an informer's cache of one kind, kept small.
 *
 * Objects are stored as the compact JSON text of what the controller reads of them (the
 * informer's `slim` transform, as controller-runtime's cache.TransformStripManagedFields and
 * per-object transforms do), not as parsed trees: a parsed jansson tree costs several times
 * its text, and a controller holding 50,000 Jobs must stay within tens of MiB.  The text is
 * kept packed (cache_pack.h: the keys every object of a kind repeats as one- or two-byte tokens,
 * about a quarter of its length).  Reads decode a fresh tree (a few microseconds for a slim
 * Job).  Objects are indexed by "namespace/name" and by the uid of their controller owner
 * reference. */
#ifndef JX_KUBE_CACHE_CACHE_STORE_H
#define JX_KUBE_CACHE_CACHE_STORE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct cache_store;

struct cache_store *cache_store_new(void);
void cache_store_free(struct cache_store *s);

/* Inserts or replaces the object (borrowed; its text is kept).  Returns 1 when the stored text
 * changed, 0 when identical, -ENOMEM. */
int cache_store_put(struct cache_store *s, const json_t *obj);
/* Removes "ns/name"; true when it was there. */
bool cache_store_del(struct cache_store *s, const char *ns, const char *name);

/* A new tree of the stored object (caller decrefs) or NULL. */
json_t *cache_store_get(const struct cache_store *s, const char *ns, const char *name);
/* A new array of the objects whose controller owner has `uid` (caller decrefs), NULL on OOM. */
json_t *cache_store_owned(const struct cache_store *s, const char *uid);
size_t cache_store_size(const struct cache_store *s);

/* Calls fn for every stored key ("ns/name"); fn must not change the store. */
void cache_store_each(const struct cache_store *s, void (*fn)(void *arg, const char *ns, const char *name),
                 void *arg);

/* "ns/name" of an object into buf (false when it has no name, when its name or namespace
 * holds a NUL or its namespace a '/', which no key could give back, or when it does not fit). */
bool cache_store_key(const json_t *obj, char *buf, size_t n);
/* The uid of the object's controller owner reference (controller: true), or NULL. */
const char *cache_store_owner_uid(const json_t *obj);

#endif
