/* check: the one checker behind the manifest converters (conv_*.c) and JobSet validation
 * (jobset_validate*.c, job_template_validate.c).  It reads JSON by field path and appends
 * Kubernetes-style field errors to a ferr_list: typed getters, required fields, enums, DNS
 * names, and a table-driven schema walker.  Private to src/api; not part of the public API.
 *
 * A checker runs in one of two modes:
 *  - CHK_REPORT (the converters, standing in for a webhook): each getter reports what it reads
 *    wrongly itself, a wrong type as "must be a string" and an absent (or "") `required` field
 *    as "Required value"; numbers in messages are shown as written in the input.
 *  - CHK_SCHEMA (JobSet validation, standing in for the API server): chk_walk first checks the
 *    whole object against a CRD-style schema table ("must be of type string", "Required
 *    value"), so the getters then skip wrong types and missing fields quietly; numbers in
 *    messages are the decoded integers, as the API server prints them.
 *
 * A checker remembers how many errors its list held at chk_init and whether an allocation
 * failed, so a caller ends with one chk_result().  Paths are FPATH_MAX buffers (obj/tree/ferr.h);
 * `parent` "" names a top-level field. */
#ifndef JX_CHECK_H
#define JX_CHECK_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "obj/tree/dns.h"
#include "obj/tree/ferr.h"

enum chk_mode { CHK_REPORT, CHK_SCHEMA };

struct chk {
    struct ferr_list *errs; /* borrowed */
    size_t n0;              /* errors in the list at chk_init */
    int rc; /* 0, or -ENOMEM once an allocation outside the list failed (the list has its own) */
    enum chk_mode mode;
};

void chk_init(struct chk *c, struct ferr_list *errs, enum chk_mode mode);
/* -ENOMEM once an allocation failed, else the number of errors added since chk_init. */
int chk_result(const struct chk *c);

/* ---- values ---------------------------------------------------------------------------- */

/* The types a field may have; CHK_INT* accept integral reals, CHK_STRMAP is an object of
 * strings. */
enum chk_type { CHK_STR, CHK_INT32, CHK_INT64, CHK_BOOL, CHK_OBJ, CHK_ARR, CHK_STRMAP };

/* Invalid(path, v) for a value of the wrong type: "must be of type array" in CHK_SCHEMA mode,
 * "must be a list" in CHK_REPORT mode. */
void chk_type_error(struct chk *c, const char *path, const json_t *v, enum chk_type t);

/* Whether o[key] is there and not null (false when o is not an object). */
bool chk_present(const json_t *o, const char *key);

/* o[key] when it is an object / an array / a string (borrowed), else NULL.  `required` makes
 * an absent or null field (and a "" string) "Required value".  In CHK_REPORT mode a wrong type
 * and a missing required field are reported; in CHK_SCHEMA mode neither is. */
const json_t *chk_obj(struct chk *c, const json_t *o, const char *key, const char *parent,
                      bool required);
const json_t *chk_arr(struct chk *c, const json_t *o, const char *key, const char *parent,
                      bool required);
const char *chk_str(struct chk *c, const json_t *o, const char *key, const char *parent,
                    bool required);

/* Optional integer o[key] >= min: true and *out (when out is not NULL) when set and valid;
 * false when absent or invalid (a value below min is reported; a wrong type as above). */
bool chk_int(struct chk *c, const json_t *o, const char *key, const char *parent, long long min,
             long long *out);
/* Optional boolean o[key]: true and *out when set; false when absent or of a wrong type. */
bool chk_bool(struct chk *c, const json_t *o, const char *key, const char *parent, bool *out);
/* String o[key] (as chk_str) that must be one of `allowed` (NULL-terminated): it, or NULL when
 * absent, of a wrong type or not allowed ("Unsupported value"). */
const char *chk_enum(struct chk *c, const json_t *o, const char *key, const char *parent,
                     const char *const *allowed, bool required);

/* Integer o[key] when present and valid, else `def`, without any error; *set (may be NULL)
 * tells whether it was present and valid. */
long long chk_int_or(const json_t *o, const char *key, long long def, bool *set);

/* Whether `s` is in the NULL-terminated `list`. */
bool chk_in(const char *const *list, const char *s);

/* The first of the first `limit` entries of array `arr` whose "name" is `name` (borrowed;
 * NULL when none or name is NULL); *idx (may be NULL) is its index. */
json_t *chk_named(const json_t *arr, const char *name, size_t limit, size_t *idx);

/* The indices of array `arr`'s entries by their "name": {name: [i, j, ...]} in order, so that
 * uniqueness checks and look-ups stay linear in the array (a request of 40,000 replicated jobs
 * is validated as fast per job as one of 4).  NULL on OOM. */
json_t *chk_name_index(const json_t *arr);
/* The n-th (0: first) index of `name` in an index of chk_name_index, or -1 when none. */
long long chk_name_nth(const json_t *index, const char *name, size_t n);

/* ---- errors ---------------------------------------------------------------------------- */

/* Appends an error whose value is an integer. */
void chk_add_int(struct chk *c, enum ferr_type t, const char *path, long long v, const char *fmt,
                 ...) __attribute__((format(printf, 5, 6)));

/* Invalid(path, value, msg) for each message of `m`; DNS_MAXLEN63_MSG is replaced by
 * `too_long` when that is not NULL (the JobSet webhook's own wording). */
void chk_dns(struct chk *c, const char *path, const char *value, const struct dns_msgs *m,
             const char *too_long);
/* A DNS-1035 label check of `name` at `path` ("Required value" when NULL or ""); `hint` (may
 * be NULL) is appended to each message. */
void chk_dns1035(struct chk *c, const char *path, const char *name, const char *hint);

/* ---- schema walker --------------------------------------------------------------------- */

#define CHK_REQUIRED 1u /* absent, null (or "" for a string) is "Required value" */

/* One field of an object's (CRD schema) description. */
struct chk_field {
    const char *key; /* NULL ends a list */
    enum chk_type type;
    unsigned flags;
    const struct chk_field *sub; /* CHK_OBJ: its fields; CHK_ARR of objects: the items' fields */
    enum chk_type item;          /* CHK_ARR: type of the items */
    unsigned max_items;          /* CHK_ARR: 0 = unlimited */
};

/* Table rows: a plain field, a required one, an object, an array, the end of a list. */
#define CHK_F(k, t)                                                                                \
    {                                                                                              \
        k, t, 0, NULL, 0, 0                                                                        \
    }
#define CHK_F_REQ(k, t)                                                                            \
    {                                                                                              \
        k, t, CHK_REQUIRED, NULL, 0, 0                                                             \
    }
#define CHK_F_OBJ(k, flags, sub)                                                                   \
    {                                                                                              \
        k, CHK_OBJ, flags, sub, 0, 0                                                               \
    }
#define CHK_F_ARR(k, flags, item, sub, max)                                                        \
    {                                                                                              \
        k, CHK_ARR, flags, sub, item, max                                                          \
    }
#define CHK_F_END                                                                                  \
    {                                                                                              \
        NULL, 0, 0, NULL, 0, 0                                                                     \
    }

/* Checks object `o` at `path` against `fields`, recursively: types ("must be of type ..."),
 * required fields, 32-bit integers, maxItems and string maps. */
void chk_walk(struct chk *c, const json_t *o, const struct chk_field *fields, const char *path);

#endif
