/* ferr: a list of field errors in Kubernetes' own form.
 *
 *   spec.replicatedJobs[1].replicas: Invalid value: -1: must be greater than or equal to 0
 *   spec.successPolicy.operator: Unsupported value: "Some": supported values: "All", "Any"
 *   spec.replicatedJobs[0].name: Required value
 *   spec.replicatedJobs[0].replica: unknown field: did you mean "replicas"?
 *
 * Paths are built with fpath_*() into caller buffers of FPATH_MAX bytes.  A path is as long as
 * the fields it names: only map keys the user chose (a JAXJob's replica type, an AIchor type,
 * an annotation) can make it longer than FPATH_MAX - 1, and then it ends in "..." so that the
 * cut shows. */
#ifndef JX_FERR_H
#define JX_FERR_H

#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>

#define FPATH_MAX 512

enum ferr_type {
    FERR_INVALID,       /* "Invalid value: <v>: <detail>" */
    FERR_REQUIRED,      /* "Required value[: <detail>]" */
    FERR_NOT_SUPPORTED, /* "Unsupported value: <v>: supported values: <detail>" */
    FERR_DUPLICATE,     /* "Duplicate value: <v>" */
    FERR_FORBIDDEN,     /* "Forbidden: <detail>" */
    FERR_TOO_LONG,      /* "Too long: <detail>" */
    FERR_TOO_MANY,      /* "Too many: <v>: <detail>" */
    FERR_INTERNAL,      /* "Internal error: <detail>" */
    FERR_UNKNOWN_FIELD, /* "unknown field[: <detail>]": a field the object's schema does not know
                         * (an API server's strict field validation: `unknown field "<path>"`) */
    FERR_NOT_FOUND,     /* "Not found: <v>" */
};

struct ferr {
    enum ferr_type type;
    char *path;   /* "spec.replicatedJobs[0].replicas"; owned */
    char *value;  /* the bad value rendered as Kubernetes does (strings quoted), or NULL; owned */
    char *detail; /* free text, may be NULL; owned */
};

struct ferr_list {
    struct ferr *v;
    size_t n, cap;
    int rc; /* 0, or -ENOMEM once an append failed (an error was lost): callers check it once
             * at the end instead of after every append */
};

void ferr_list_init(struct ferr_list *l);
void ferr_list_release(struct ferr_list *l);

/* Appends an error.  `value` (borrowed, may be NULL) is rendered: strings as "quoted", numbers,
 * booleans and null as JSON, objects/arrays as compact JSON.  `fmt` may be NULL.  Returns 0, or
 * -ENOMEM (the error is then lost, l->rc says so; the list stays valid). */
int ferr_add(struct ferr_list *l, enum ferr_type type, const char *path, const json_t *value,
             const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Same, with a string value (borrowed, may be NULL), rendered quoted. */
int ferr_add_str(struct ferr_list *l, enum ferr_type type, const char *path, const char *value,
                 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Same, with the value given as an already-rendered string (borrowed, may be NULL). */
int ferr_add_raw(struct ferr_list *l, enum ferr_type type, const char *path, const char *value,
                 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Same, with a va_list; `value` is already rendered (borrowed, may be NULL). */
int ferr_addv(struct ferr_list *l, enum ferr_type type, const char *path, const char *value,
              const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

/* Same, rendering the JSON value `v` (borrowed, may be NULL) first.  0 or -ENOMEM. */
int ferr_addv_json(struct ferr_list *l, enum ferr_type type, const char *path, const json_t *v,
                   const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

/* Renders a value as the error lines show it (strings quoted, others compact JSON); malloc'd,
 * NULL for a NULL value or on OOM. */
char *ferr_render(const json_t *v);

/* Moves every error of `src` to the end of `dst` (src is left empty). Returns 0 or -ENOMEM. */
int ferr_list_move(struct ferr_list *dst, struct ferr_list *src);

/* Gives error `e` the path `path` (taken, also on failure) and, when `note` is not NULL, adds
 * " (<note>)" to its detail (the note is the detail when there is none).  0 or -ENOMEM. */
int ferr_move_to(struct ferr *e, char *path, const char *note);

/* Removes the errors at index `from` or later that repeat (same type, path, value and detail)
 * an earlier one at `from` or later; linear time.  0, or -ENOMEM (some repeats may be kept). */
int ferr_list_drop_repeats(struct ferr_list *l, size_t from);

/* Renders one error as a single line (no newline); returns a malloc'd string the caller frees,
 * or NULL on OOM. */
char *ferr_format(const struct ferr *e);

/* The words of the line for an error's type, as Kubernetes' field.ErrorType.String() writes
 * them ("Invalid value", "Required value"...; "unknown field"); static. */
const char *ferr_type_name(enum ferr_type t);

/* Path builders; each writes into out[FPATH_MAX] and returns out.  A parent of "" yields a bare
 * child ("spec"). */
/* printf into out[FPATH_MAX], ending in "..." when cut; returns out. */
char *fpath_fmt(char *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *fpath_field(char *out, const char *parent, const char *field);
char *fpath_index(char *out, const char *parent, const char *field, size_t i);
/* parent[key] as Kubernetes prints map entries: metadata.labels[app] */
char *fpath_key(char *out, const char *parent, const char *field, const char *key);

#endif
