/* jobset_validate_int: helpers shared by jobset_validate.c, jobset_validate_policy.c and
 * job_template_validate.c.  Not part of the public API. */
#ifndef JX_JOBSET_VALIDATE_INT_H
#define JX_JOBSET_VALIDATE_INT_H

#include "obj/dns.h"
#include "obj/ferr.h"

#include <jansson.h>
#include <stdbool.h>

/* Structural (CRD schema) description of an object's fields, checked by one generic walker. */
enum jsv_type { JT_STR, JT_INT32, JT_INT64, JT_BOOL, JT_OBJ, JT_ARR, JT_STRMAP };

#define JF_REQ 1u /* absent, null (or "" for a string) is "Required value" */

struct jsv_field {
    const char *key; /* NULL ends a list */
    enum jsv_type type;
    unsigned flags;
    const struct jsv_field *sub; /* JT_OBJ: its fields; JT_ARR of objects: the items' fields */
    enum jsv_type item;          /* JT_ARR: type of the items */
    unsigned max_items;          /* JT_ARR: 0 = unlimited */
};

/* Table rows: a plain field, a required one, an object, an array, the end of a list. */
#define JSV_FLD(k, t)                                                                              \
    {                                                                                              \
        k, t, 0, NULL, 0, 0                                                                        \
    }
#define JSV_REQ(k, t)                                                                              \
    {                                                                                              \
        k, t, JF_REQ, NULL, 0, 0                                                                   \
    }
#define JSV_OBJ(k, flags, sub)                                                                     \
    {                                                                                              \
        k, JT_OBJ, flags, sub, 0, 0                                                                \
    }
#define JSV_ARR(k, flags, item, sub, max)                                                          \
    {                                                                                              \
        k, JT_ARR, flags, sub, item, max                                                           \
    }
#define JSV_END                                                                                    \
    {                                                                                              \
        NULL, 0, 0, NULL, 0, 0                                                                     \
    }

/* batch/v1 JobTemplateSpec, as far as jaxset reads or checks it. */
extern const struct jsv_field jsv__jobtmpl_fields[];
/* ObjectMeta: name, generateName, namespace, labels, annotations. */
extern const struct jsv_field jsv__meta_fields[];
/* A ReplicatedJob; and JobSetSpec (in jobset_validate_policy.c). */
extern const struct jsv_field jsv__rj_fields[];
extern const struct jsv_field jsv__spec_fields[];

/* One validation run. */
struct jsv {
    const json_t *js, *meta, *spec;
    const json_t *rjs; /* spec.replicatedJobs when an array, else NULL */
    const char *name;  /* JobSet name for generated-name checks; NULL when none */
    char gen_name[FPATH_MAX];
    struct ferr_list *errs;
    int rc; /* -ENOMEM once an allocation outside the error list failed (the list has its own) */
};

/* Appends an error whose value is an integer (errors with JSON or string values go straight
 * to ferr_add / ferr_add_str on c->errs). */
void jsv__add_int(struct jsv *c, enum ferr_type t, const char *path, long long v, const char *fmt,
                  ...) __attribute__((format(printf, 5, 6)));

/* Invalid(path, value, m) for each message; DNS_MAXLEN63_MSG is replaced by `too_long` when
 * that is not NULL (the JobSet webhook's own wording). */
void jsv__dns(struct jsv *c, const char *path, const char *value, const struct dns_msgs *m,
              const char *too_long);

/* o[key] must be one of `allowed` (NULL-terminated) when it is a string: NotSupported
 * otherwise.  "" is left to the schema walker when `required`. */
void jsv__enum(struct jsv *c, const json_t *o, const char *key, const char *parent,
               const char *const *allowed, bool required);

/* o[key], when an integer, must be >= min ("must be greater than or equal to <min>"). */
void jsv__min(struct jsv *c, const json_t *o, const char *key, const char *parent, long long min);

/* Integer o[key] when present and valid, else `def`; *set tells whether it was present. */
long long jsv__int(const json_t *o, const char *key, long long def, bool *set);

/* Index of the replicated job named `name` among the first `limit` ones, or -1. */
long jsv__rj_find(const struct jsv *c, const char *name, size_t limit);

/* metadata.labels / metadata.annotations key and value rules under `meta_path`. */
void jsv__meta_maps(struct jsv *c, const json_t *meta, const char *meta_path);

/* Semantic checks of spec-level policies (network, managedBy, TTL, success, startup, failure,
 * coordinator, volumeClaimPolicies). */
void jsv__policies(struct jsv *c);

/* batch/v1 checks of spec.replicatedJobs[i].template at `path`. */
void jsv__job_template(struct jsv *c, const json_t *tmpl, const char *path);

#endif
