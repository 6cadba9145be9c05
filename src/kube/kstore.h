/* kstore: an informer's cache of one kind, kept small.
 *
 * Objects are stored as the compact JSON text of what the controller reads of them (the
 * informer's `slim` transform, as controller-runtime's cache.TransformStripManagedFields and
 * per-object transforms do), not as parsed trees: a parsed jansson tree costs several times
 * its text, and a controller holding 50,000 Jobs must stay within tens of MiB.  Reads decode a
 * fresh tree (a few microseconds for a slim Job).  Objects are indexed by "namespace/name" and
 * by the uid of their controller owner reference. */
#ifndef JX_KSTORE_H
#define JX_KSTORE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct kstore;

struct kstore *kstore_new(void);
void kstore_free(struct kstore *s);

/* Inserts or replaces the object (borrowed; its text is kept).  Returns 1 when the stored text
 * changed, 0 when identical, -ENOMEM. */
int kstore_put(struct kstore *s, const json_t *obj);
/* Removes "ns/name"; true when it was there. */
bool kstore_del(struct kstore *s, const char *ns, const char *name);

/* A new tree of the stored object (caller decrefs) or NULL. */
json_t *kstore_get(const struct kstore *s, const char *ns, const char *name);
/* A new array of the objects whose controller owner has `uid` (caller decrefs), NULL on OOM. */
json_t *kstore_owned(const struct kstore *s, const char *uid);
size_t kstore_size(const struct kstore *s);

/* Calls fn for every stored key ("ns/name"); fn must not change the store. */
void kstore_each(const struct kstore *s, void (*fn)(void *arg, const char *ns, const char *name),
                 void *arg);

/* "ns/name" of an object into buf (false when it has no name, when its name or namespace
 * holds a NUL or its namespace a '/', which no key could give back, or when it does not fit). */
bool kstore_key(const json_t *obj, char *buf, size_t n);
/* The uid of the object's controller owner reference (controller: true), or NULL. */
const char *kstore_owner_uid(const json_t *obj);

#endif
