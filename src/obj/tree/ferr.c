#include "obj/tree/ferr.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ferr_list_init(struct ferr_list *l)
{
    memset(l, 0, sizeof(*l));
}

void ferr_list_release(struct ferr_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].path);
        free(l->v[i].value);
        free(l->v[i].detail);
    }
    free(l->v);
    ferr_list_init(l);
}

char *ferr_render(const json_t *v)
{
    if (!v)
        return NULL;
    if (json_is_string(v)) {
        /* Kubernetes prints strings with Go's %q: JSON string quoting is close enough. */
        return json_dumps(v, JSON_ENCODE_ANY);
    }
    return json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
}

__attribute__((format(printf, 5, 0))) static int push(struct ferr_list *l, enum ferr_type type,
                                                      const char *path, char *value,
                                                      const char *fmt, va_list ap)
{
    char *detail = NULL;
    if (fmt && vasprintf(&detail, fmt, ap) < 0)
        detail = NULL;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        struct ferr *nv = realloc(l->v, cap * sizeof(*nv));
        if (!nv)
            goto oom;
        l->v = nv;
        l->cap = cap;
    }
    char *p = strdup(path ? path : "");
    if (!p)
        goto oom;
    l->v[l->n++] = (struct ferr){.type = type, .path = p, .value = value, .detail = detail};
    return 0;
oom:
    free(value);
    free(detail);
    l->rc = -ENOMEM;
    return -ENOMEM;
}

int ferr_add(struct ferr_list *l, enum ferr_type type, const char *path, const json_t *value,
             const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = ferr_addv_json(l, type, path, value, fmt, ap);
    va_end(ap);
    return rc;
}

int ferr_add_raw(struct ferr_list *l, enum ferr_type type, const char *path, const char *value,
                 const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = ferr_addv(l, type, path, value, fmt, ap);
    va_end(ap);
    return rc;
}

int ferr_addv(struct ferr_list *l, enum ferr_type type, const char *path, const char *value,
              const char *fmt, va_list ap)
{
    char *v = value ? strdup(value) : NULL;
    if (value && !v)
        return l->rc = -ENOMEM;
    return push(l, type, path, v, fmt, ap);
}

int ferr_addv_json(struct ferr_list *l, enum ferr_type type, const char *path, const json_t *v,
                   const char *fmt, va_list ap)
{
    char *rendered = ferr_render(v);
    if (v && !rendered)
        return l->rc = -ENOMEM;
    return push(l, type, path, rendered, fmt, ap);
}

int ferr_add_str(struct ferr_list *l, enum ferr_type type, const char *path, const char *value,
                 const char *fmt, ...)
{
    json_t *j = value ? json_string_nocheck(value) : NULL;
    va_list ap;
    va_start(ap, fmt);
    int rc = value && !j ? (l->rc = -ENOMEM) : ferr_addv_json(l, type, path, j, fmt, ap);
    va_end(ap);
    json_decref(j);
    return rc;
}

int ferr_list_move(struct ferr_list *dst, struct ferr_list *src)
{
    if (src->rc)
        dst->rc = src->rc;
    if (dst->n + src->n > dst->cap) {
        size_t cap = dst->n + src->n;
        struct ferr *nv = realloc(dst->v, cap * sizeof(*nv));
        if (!nv)
            return dst->rc = -ENOMEM;
        dst->v = nv;
        dst->cap = cap;
    }
    if (src->n)
        memcpy(dst->v + dst->n, src->v, src->n * sizeof(*src->v));
    dst->n += src->n;
    free(src->v);
    ferr_list_init(src);
    return 0;
}

int ferr_move_to(struct ferr *e, char *path, const char *note)
{
    char *detail = NULL;
    if (note && asprintf(&detail, e->detail ? "%s (%s)" : "%s%s", e->detail ? e->detail : "",
                         note) < 0) {
        free(path);
        return -ENOMEM;
    }
    free(e->path);
    e->path = path;
    if (detail) {
        free(e->detail);
        e->detail = detail;
    }
    return 0;
}

/* The key an error is known by among its repeats: type, path, value and detail. */
static char *repeat_key(const struct ferr *e)
{
    char *k = NULL;
    if (asprintf(&k, "%d\x1f%s\x1f%s%s\x1f%s%s", (int)e->type, e->path, e->value ? "v" : "",
                 e->value ? e->value : "", e->detail ? "d" : "", e->detail ? e->detail : "") < 0)
        return NULL;
    return k;
}

int ferr_list_drop_repeats(struct ferr_list *l, size_t from)
{
    json_t *seen = json_object();
    size_t out = from;
    int rc = seen ? 0 : -ENOMEM;
    for (size_t i = from; i < l->n; i++) {
        char *k = rc == 0 ? repeat_key(&l->v[i]) : NULL;
        bool repeat = k && json_object_get(seen, k);
        if (rc == 0 && (!k || (!repeat && json_object_set_new_nocheck(seen, k, json_true()) < 0)))
            rc = -ENOMEM; /* from here on everything is kept */
        free(k);
        if (repeat) {
            free(l->v[i].path);
            free(l->v[i].value);
            free(l->v[i].detail);
        } else {
            l->v[out++] = l->v[i];
        }
    }
    l->n = out;
    json_decref(seen);
    return rc;
}

static const char *type_text(enum ferr_type t)
{
    static const char *const names[] = {
        [FERR_INVALID] = "Invalid value",   [FERR_REQUIRED] = "Required value",
        [FERR_NOT_SUPPORTED] = "Unsupported value", [FERR_DUPLICATE] = "Duplicate value",
        [FERR_FORBIDDEN] = "Forbidden",     [FERR_TOO_LONG] = "Too long",
        [FERR_TOO_MANY] = "Too many",       [FERR_INTERNAL] = "Internal error",
        [FERR_UNKNOWN_FIELD] = "unknown field", [FERR_NOT_FOUND] = "Not found",
    };
    return names[t];
}

const char *ferr_type_name(enum ferr_type t)
{
    return type_text(t);
}

char *ferr_format(const struct ferr *e)
{
    char *out = NULL;
    const char *v = e->value, *d = e->detail;
    const char *sup = e->type == FERR_NOT_SUPPORTED && d ? "supported values: " : "";
    int rc;
    if (v && d)
        rc = asprintf(&out, "%s: %s: %s: %s%s", e->path, type_text(e->type), v, sup, d);
    else if (v)
        rc = asprintf(&out, "%s: %s: %s", e->path, type_text(e->type), v);
    else if (d)
        rc = asprintf(&out, "%s: %s: %s", e->path, type_text(e->type), d);
    else
        rc = asprintf(&out, "%s: %s", e->path, type_text(e->type));
    return rc < 0 ? NULL : out;
}

char *fpath_fmt(char *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, FPATH_MAX, fmt, ap);
    va_end(ap);
    if (n >= FPATH_MAX) /* only user-chosen map keys of hundreds of bytes get here */
        memcpy(out + FPATH_MAX - 4, "...", 4);
    return out;
}

char *fpath_field(char *out, const char *parent, const char *field)
{
    if (!parent || !*parent)
        return fpath_fmt(out, "%s", field);
    return fpath_fmt(out, "%s.%s", parent, field);
}

char *fpath_index(char *out, const char *parent, const char *field, size_t i)
{
    const char *sep = parent && *parent ? "." : "";
    return fpath_fmt(out, "%s%s%s[%zu]", parent ? parent : "", sep, field, i);
}

char *fpath_key(char *out, const char *parent, const char *field, const char *key)
{
    const char *sep = parent && *parent ? "." : "";
    return fpath_fmt(out, "%s%s%s[%s]", parent ? parent : "", sep, field, key);
}
