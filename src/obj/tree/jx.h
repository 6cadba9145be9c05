/* jx: small helpers over jansson trees (Kubernetes objects are kept as JSON trees).
 *
 * Getters return borrowed references (valid while the parent lives) and tolerate NULL or
 * wrongly-typed parents by returning NULL / the default.  Setters return 0 or -ENOMEM (or
 * -EINVAL when the target is not an object). */
#ifndef JX_JX_H
#define JX_JX_H

#include <jansson.h>
#include <stdbool.h>

json_t *jx_obj(const json_t *o, const char *key);      /* child object or NULL */
json_t *jx_arr(const json_t *o, const char *key);      /* child array or NULL */
const char *jx_str(const json_t *o, const char *key);  /* child string or NULL */

/* The element of array `arr` whose "name" is `name` (containers, env, replicated jobs...), or
 * NULL (also when `name` is NULL or `arr` is no array). */
json_t *jx_named(const json_t *arr, const char *name);

/* Dotted lookup of plain keys ("spec.template.spec"); no escaping, no indexes. */
json_t *jx_path(const json_t *root, const char *dotted);

/* Reads an integer child: 0 and *out on success; -ENOENT when absent or null; -EINVAL when
 * present but not an integer (a real with an integral value is accepted). */
int jx_int(const json_t *o, const char *key, long long *out);

/* Integer child or `def` when absent/invalid. */
long long jx_int_or(const json_t *o, const char *key, long long def);

/* Boolean child or `def` when absent or not a boolean. */
bool jx_bool_or(const json_t *o, const char *key, bool def);

/* Child object, created (or replacing a non-object) when needed; NULL on OOM or when `o` is not
 * an object.  Borrowed. */
json_t *jx_ensure_obj(json_t *o, const char *key);
json_t *jx_ensure_arr(json_t *o, const char *key);

int jx_set_str(json_t *o, const char *key, const char *v);
int jx_set_int(json_t *o, const char *key, long long v);
int jx_set_bool(json_t *o, const char *key, bool v);
/* Steals `v` (also on failure). */
int jx_set_new(json_t *o, const char *key, json_t *v);

/* metadata.<field>[k] = v where field is "labels" or "annotations"; creates maps as needed. */
int jx_set_meta(json_t *meta, const char *field, const char *k, const char *v);
const char *jx_get_meta(const json_t *meta, const char *field, const char *k);

/* Whether `big` holds everything `small` holds: objects member by member (big may have more),
 * arrays of the same length item by item, a null by an absent member, other values equal;
 * anything covers NULL.  (A stored object covers what was sent for it when the server only
 * added defaults.) */
bool jx_covers(const json_t *big, const json_t *small);

/* The SHA-1 (40 hex digits and a NUL) of `v` as compact JSON with sorted keys, so that equal
 * trees hash alike; 0 or -ENOMEM. */
int jx_sha1(const json_t *v, char out[41]);

#endif
