/* check: the checker shared by the converters and JobSet validation (see check.h). */
#include "api/schema/check.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "obj/tree/jx.h"

void chk_init(struct chk *c, struct ferr_list *errs, enum chk_mode mode)
{
    c->errs = errs;
    c->n0 = errs->n;
    c->rc = 0;
    c->mode = mode;
}

int chk_result(const struct chk *c)
{
    if (c->rc < 0)
        return c->rc;
    if (c->errs->rc < 0)
        return c->errs->rc;
    return (int)(c->errs->n - c->n0);
}

/* ---- values ---------------------------------------------------------------------------- */

static bool is_integral(const json_t *v)
{
    if (json_is_integer(v))
        return true;
    if (!json_is_real(v))
        return false;
    double d = json_real_value(v);
    return d > -9.2e18 && d < 9.2e18 && d == (double)(long long)d; /* NaN fails both */
}

static long long int_value(const json_t *v)
{
    return json_is_integer(v) ? (long long)json_integer_value(v) : (long long)json_real_value(v);
}

static bool type_ok(const json_t *v, enum chk_type t)
{
    switch (t) {
    case CHK_STR:
        return json_is_string(v);
    case CHK_INT32:
    case CHK_INT64:
        return is_integral(v);
    case CHK_BOOL:
        return json_is_boolean(v);
    case CHK_OBJ:
    case CHK_STRMAP:
        return json_is_object(v);
    case CHK_ARR:
        return json_is_array(v);
    }
    return false;
}

void chk_type_error(struct chk *c, const char *path, const json_t *v, enum chk_type t)
{
    static const struct {
        const char *schema, *report;
    } names[] = {
        [CHK_STR] = {"string", "a string"},      [CHK_INT32] = {"integer", "an integer"},
        [CHK_INT64] = {"integer", "an integer"}, [CHK_BOOL] = {"boolean", "a boolean"},
        [CHK_OBJ] = {"object", "an object"},     [CHK_ARR] = {"array", "a list"},
        [CHK_STRMAP] = {"object", "an object"},
    };
    if (c->mode == CHK_SCHEMA)
        ferr_add(c->errs, FERR_INVALID, path, v, "must be of type %s", names[t].schema);
    else
        ferr_add(c->errs, FERR_INVALID, path, v, "must be %s", names[t].report);
}

bool chk_present(const json_t *o, const char *key)
{
    const json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
    return v && !json_is_null(v);
}

/* o[key] when present and of type t; NULL otherwise, reported as the mode says.  Writes the
 * field's path into path[FPATH_MAX]. */
static const json_t *get(struct chk *c, const json_t *o, const char *key, const char *parent,
                         bool required, enum chk_type t, char *path)
{
    bool report = c->mode == CHK_REPORT;
    fpath_field(path, parent, key);
    if (!chk_present(o, key)) {
        if (required && report)
            ferr_add(c->errs, FERR_REQUIRED, path, NULL, NULL);
        return NULL;
    }
    const json_t *v = json_object_get(o, key);
    if (!type_ok(v, t)) {
        if (report)
            chk_type_error(c, path, v, t);
        return NULL;
    }
    return v;
}

const json_t *chk_obj(struct chk *c, const json_t *o, const char *key, const char *parent,
                      bool required)
{
    char path[FPATH_MAX];
    return get(c, o, key, parent, required, CHK_OBJ, path);
}

const json_t *chk_arr(struct chk *c, const json_t *o, const char *key, const char *parent,
                      bool required)
{
    char path[FPATH_MAX];
    return get(c, o, key, parent, required, CHK_ARR, path);
}

const char *chk_str(struct chk *c, const json_t *o, const char *key, const char *parent,
                    bool required)
{
    char path[FPATH_MAX];
    const json_t *v = get(c, o, key, parent, required, CHK_STR, path);
    if (v && required && !*json_string_value(v)) {
        if (c->mode == CHK_REPORT)
            ferr_add(c->errs, FERR_REQUIRED, path, NULL, NULL);
        return NULL;
    }
    return v ? json_string_value(v) : NULL;
}

bool chk_int(struct chk *c, const json_t *o, const char *key, const char *parent, long long min,
             long long *out)
{
    char path[FPATH_MAX];
    const json_t *v = get(c, o, key, parent, false, CHK_INT64, path);
    if (!v)
        return false;
    long long x = int_value(v);
    if (x < min) {
        if (c->mode == CHK_SCHEMA)
            chk_add_int(c, FERR_INVALID, path, x, "must be greater than or equal to %lld", min);
        else
            ferr_add(c->errs, FERR_INVALID, path, v, "must be greater than or equal to %lld", min);
        return false;
    }
    if (out)
        *out = x;
    return true;
}

bool chk_bool(struct chk *c, const json_t *o, const char *key, const char *parent, bool *out)
{
    char path[FPATH_MAX];
    const json_t *v = get(c, o, key, parent, false, CHK_BOOL, path);
    if (v)
        *out = json_is_true(v);
    return v != NULL;
}

bool chk_in(const char *const *list, const char *s)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(list[i], s) == 0)
            return true;
    return false;
}

const char *chk_enum(struct chk *c, const json_t *o, const char *key, const char *parent,
                     const char *const *allowed, bool required)
{
    const char *v = chk_str(c, o, key, parent, required);
    char list[FPATH_MAX] = "", path[FPATH_MAX];
    size_t off = 0;
    if (!v || chk_in(allowed, v))
        return v;
    for (size_t i = 0; allowed[i]; i++)
        off += (size_t)snprintf(list + off, off < sizeof(list) ? sizeof(list) - off : 0, "%s\"%s\"",
                                i ? ", " : "", allowed[i]);
    ferr_add_str(c->errs, FERR_NOT_SUPPORTED, fpath_field(path, parent, key), v, "%s", list);
    return NULL;
}

long long chk_int_or(const json_t *o, const char *key, long long def, bool *set)
{
    long long v;
    bool ok = jx_int(o, key, &v) == 0;
    if (set)
        *set = ok;
    return ok ? v : def;
}

json_t *chk_named(const json_t *arr, const char *name, size_t limit, size_t *idx)
{
    for (size_t i = 0; name && i < limit && i < json_array_size(arr); i++) {
        json_t *e = json_array_get(arr, i);
        const char *n = jx_str(e, "name");
        if (n && strcmp(n, name) == 0) {
            if (idx)
                *idx = i;
            return e;
        }
    }
    return NULL;
}

json_t *chk_name_index(const json_t *arr)
{
    json_t *index = json_object();
    for (size_t i = 0; index && i < json_array_size(arr); i++) {
        const char *n = jx_str(json_array_get(arr, i), "name");
        if (!n)
            continue;
        json_t *list = json_object_get(index, n);
        if (!list && json_object_set_new(index, n, list = json_array()) < 0)
            list = NULL;
        if (!list || json_array_append_new(list, json_integer((json_int_t)i)) < 0) {
            json_decref(index);
            return NULL;
        }
    }
    return index;
}

long long chk_name_nth(const json_t *index, const char *name, size_t n)
{
    const json_t *v = name ? json_array_get(json_object_get(index, name), n) : NULL;
    return v ? (long long)json_integer_value(v) : -1;
}

/* ---- errors ---------------------------------------------------------------------------- */

void chk_add_int(struct chk *c, enum ferr_type t, const char *path, long long v, const char *fmt,
                 ...)
{
    char buf[32];
    va_list ap;
    snprintf(buf, sizeof(buf), "%lld", v);
    va_start(ap, fmt);
    ferr_addv(c->errs, t, path, buf, fmt, ap);
    va_end(ap);
}

static void dns_report(struct chk *c, const char *path, const char *value, const struct dns_msgs *m,
                       const char *too_long, const char *hint)
{
    for (size_t i = 0; i < m->n; i++) {
        const char *msg = m->v[i];
        if (too_long && strcmp(msg, DNS_MAXLEN63_MSG) == 0)
            msg = too_long;
        ferr_add_str(c->errs, FERR_INVALID, path, value, "%s%s", msg, hint ? hint : "");
    }
}

void chk_dns(struct chk *c, const char *path, const char *value, const struct dns_msgs *m,
             const char *too_long)
{
    dns_report(c, path, value, m, too_long, NULL);
}

void chk_dns1035(struct chk *c, const char *path, const char *name, const char *hint)
{
    struct dns_msgs m;
    if (!name || !*name) {
        ferr_add(c->errs, FERR_REQUIRED, path, NULL, NULL);
        return;
    }
    dns_1035_label(name, &m);
    dns_report(c, path, name, &m, NULL, hint);
}

/* ---- schema walker --------------------------------------------------------------------- */

static void walk_value(struct chk *c, const json_t *v, enum chk_type t, const struct chk_field *f,
                       const char *path);

static void walk_strmap(struct chk *c, const json_t *o, const char *path)
{
    const char *k;
    const json_t *v;
    char p[FPATH_MAX];
    json_object_foreach((json_t *)o, k, v)
    {
        if (!json_is_string(v))
            chk_type_error(c, fpath_key(p, "", path, k), v, CHK_STR);
    }
}

static void walk_arr(struct chk *c, const json_t *a, const struct chk_field *f, const char *path)
{
    char p[FPATH_MAX];
    size_t n = json_array_size(a);
    if (f->max_items && n > f->max_items)
        chk_add_int(c, FERR_TOO_MANY, path, (long long)n, "must have at most %u items",
                    f->max_items);
    for (size_t i = 0; i < n; i++) {
        snprintf(p, sizeof(p), "%s[%zu]", path, i);
        walk_value(c, json_array_get(a, i), f->item, f, p);
    }
}

static void walk_value(struct chk *c, const json_t *v, enum chk_type t, const struct chk_field *f,
                       const char *path)
{
    if (!type_ok(v, t)) {
        chk_type_error(c, path, v, t);
        return;
    }
    switch (t) {
    case CHK_INT32: {
        double d = json_is_integer(v) ? (double)json_integer_value(v) : json_real_value(v);
        if (d < INT32_MIN || d > INT32_MAX)
            ferr_add(c->errs, FERR_INVALID, path, v, "must be a 32-bit integer");
        break;
    }
    case CHK_STR:
        if ((f->flags & CHK_REQUIRED) && !*json_string_value(v) && f->type == CHK_STR)
            ferr_add(c->errs, FERR_REQUIRED, path, NULL, NULL);
        break;
    case CHK_OBJ:
        if (f->sub)
            chk_walk(c, v, f->sub, path);
        break;
    case CHK_ARR:
        walk_arr(c, v, f, path);
        break;
    case CHK_STRMAP:
        walk_strmap(c, v, path);
        break;
    default:
        break;
    }
}

void chk_walk(struct chk *c, const json_t *o, const struct chk_field *fields, const char *path)
{
    char p[FPATH_MAX];
    for (const struct chk_field *f = fields; f->key; f++) {
        const json_t *v = json_object_get(o, f->key);
        fpath_field(p, path, f->key);
        if (!v || json_is_null(v)) {
            if (f->flags & CHK_REQUIRED)
                ferr_add(c->errs, FERR_REQUIRED, p, NULL, NULL);
            continue;
        }
        walk_value(c, v, f->type, f, p);
    }
}
