/* schema: the walk that finds unknown fields (see schema.h). */
#include "api/schema/schema.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Names longer than this get no "did you mean" (bounds the distance computation). */
#define SCH_SUGGEST_MAX 64
/* A key longer than this is cut in paths ("<first bytes>..."), so that the errors stay
 * proportional to the input however long the keys of a map are. */
#define SCH_KEY_MAX 256

struct walk {
    char *path; /* the current field path, NUL-terminated */
    size_t len, cap;
    const char *where;
    struct ferr_list *errs; /* NULL: report nothing */
    bool prune;             /* delete the unknown fields */
    size_t n_unknown;       /* unknown fields found */
    char *first_unlisted;   /* path of the first one past SCH_MAX_ERRORS, malloc'd */
    int rc;
};

static void walk_obj(struct walk *w, json_t *o, const struct sch_type *t);

/* Length of the prefix of `s` shown in a path: all of it, or SCH_KEY_MAX bytes cut at a UTF-8
 * character boundary. */
static size_t key_shown(const char *s, bool *cut)
{
    size_t n = strlen(s);
    *cut = n > SCH_KEY_MAX;
    if (!*cut)
        return n;
    n = SCH_KEY_MAX;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
        n--;
    return n;
}

/* Appends `.name` (just `name` at the root) or `[i]` when name is NULL. */
static void path_push(struct walk *w, const char *name, size_t i)
{
    char idx[32];
    const char *sep = name && w->len ? "." : "";
    bool cut = false;
    if (!name)
        snprintf(idx, sizeof(idx), "[%zu]", i);
    const char *seg = name ? name : idx;
    size_t n = key_shown(seg, &cut), add = strlen(sep) + n + (cut ? 3 : 0);
    if (w->len + add + 1 > w->cap) {
        size_t cap = (w->len + add + 1) * 2;
        char *p = realloc(w->path, cap);
        if (!p) {
            w->rc = -ENOMEM;
            return;
        }
        w->path = p;
        w->cap = cap;
    }
    w->len += (size_t)snprintf(w->path + w->len, w->cap - w->len, "%s%.*s%s", sep, (int)n, seg,
                               cut ? "..." : "");
}

static void path_pop(struct walk *w, size_t mark)
{
    if (w->path && mark <= w->len) {
        w->len = mark;
        w->path[mark] = 0;
    }
}

static const struct sch_field *find(const struct sch_type *t, const char *name)
{
    for (unsigned i = 0; i < t->n; i++)
        if (strcmp(t->fields[i].name, name) == 0)
            return &t->fields[i];
    return NULL;
}

static size_t min3(size_t a, size_t b, size_t c)
{
    size_t m = a < b ? a : b;
    return m < c ? m : c;
}

/* Optimal string alignment distance (a transposition counts as one edit); a, b <= 64 bytes. */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    unsigned char d[SCH_SUGGEST_MAX + 1][SCH_SUGGEST_MAX + 1];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (unsigned char)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (unsigned char)j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            d[i][j] = (unsigned char)min3(d[i - 1][j] + 1u, d[i][j - 1] + 1u,
                                          d[i - 1][j - 1] + cost);
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < d[i][j])
                d[i][j] = (unsigned char)(d[i - 2][j - 2] + 1);
        }
    }
    return d[la][lb];
}

/* A known field whose name differs from `name` only in case, else by at most one edit (two
 * for names of 8 characters or more); NULL when none. */
static const char *suggest(const struct sch_type *t, const char *name)
{
    size_t len = strlen(name), best = len >= 8 ? 3 : 2;
    const char *pick = NULL;
    if (len > SCH_SUGGEST_MAX)
        return NULL;
    for (unsigned i = 0; i < t->n; i++) {
        const char *f = t->fields[i].name;
        if (strcasecmp(f, name) == 0)
            return f;
        if (strlen(f) > SCH_SUGGEST_MAX)
            continue;
        size_t d = distance(name, f);
        if (d < best) {
            best = d;
            pick = f;
        }
    }
    return pick;
}

static void unknown(struct walk *w, const struct sch_type *t, const char *name)
{
    if (!w->errs)
        return;
    if (++w->n_unknown > SCH_MAX_ERRORS) {
        if (!w->first_unlisted && !(w->first_unlisted = strdup(w->path)))
            w->rc = -ENOMEM;
        return;
    }
    const char *s = suggest(t, name);
    int rc;
    if (s && w->where)
        rc = ferr_add_raw(w->errs, FERR_UNKNOWN_FIELD, w->path, NULL, "%s; did you mean \"%s\"?",
                          w->where, s);
    else if (s)
        rc = ferr_add_raw(w->errs, FERR_UNKNOWN_FIELD, w->path, NULL, "did you mean \"%s\"?", s);
    else if (w->where)
        rc = ferr_add_raw(w->errs, FERR_UNKNOWN_FIELD, w->path, NULL, "%s", w->where);
    else
        rc = ferr_add_raw(w->errs, FERR_UNKNOWN_FIELD, w->path, NULL, NULL);
    if (rc < 0)
        w->rc = rc;
}

/* Each item of a list, or each value of a map, that is an object of type t. */
static void walk_items(struct walk *w, json_t *v, enum sch_kind kind,
                       const struct sch_type *t)
{
    size_t mark = w->len, i;
    const char *key;
    json_t *item;
    if (kind == SCH_LIST && json_is_array(v)) {
        json_array_foreach(v, i, item) {
            path_push(w, NULL, i);
            if (json_is_object(item) && w->rc == 0)
                walk_obj(w, item, t);
            path_pop(w, mark);
        }
    } else if (kind == SCH_MAP && json_is_object(v)) {
        json_object_foreach(v, key, item) {
            path_push(w, key, 0);
            if (json_is_object(item) && w->rc == 0)
                walk_obj(w, item, t);
            path_pop(w, mark);
        }
    }
}

static void walk_obj(struct walk *w, json_t *o, const struct sch_type *t)
{
    size_t mark = w->len;
    const char *key;
    json_t *v;
    void *next;
    json_object_foreach_safe(o, next, key, v) {
        const struct sch_field *f = find(t, key);
        path_push(w, key, 0);
        if (w->rc < 0)
            return;
        if (f && f->kind == SCH_OBJ && json_is_object(v))
            walk_obj(w, v, f->type);
        else if (f && (f->kind == SCH_LIST || f->kind == SCH_MAP))
            walk_items(w, v, f->kind, f->type);
        else if (!f && !t->open)
            unknown(w, t, key);
        path_pop(w, mark);
        if (!f && !t->open && w->prune)
            json_object_del(o, key); /* last use of key */
    }
}

static int walk(json_t *doc, const struct sch_type *root, const char *where,
                struct ferr_list *errs, bool prune)
{
    struct walk w = {.where = where, .errs = errs, .prune = prune};
    w.path = calloc(1, 64);
    w.cap = 64;
    if (w.path && json_is_object(doc))
        walk_obj(&w, doc, root);
    if (!w.path)
        w.rc = -ENOMEM;
    if (w.rc == 0 && w.first_unlisted)
        w.rc = ferr_add_raw(errs, FERR_UNKNOWN_FIELD, w.first_unlisted, NULL,
                            "and %zu more unknown fields, not listed",
                            w.n_unknown - SCH_MAX_ERRORS - 1);
    free(w.first_unlisted);
    free(w.path);
    if (w.rc < 0 && errs)
        errs->rc = w.rc;
    return w.rc;
}

int sch_check(const json_t *doc, const struct sch_type *root, const char *where,
              struct ferr_list *errs)
{
    /* not modified: prune is off */
    return walk((json_t *)doc, root, where, errs, false);
}

int sch_prune(json_t *doc, const struct sch_type *root, const char *where,
              struct ferr_list *errs)
{
    return walk(doc, root, where, errs, true);
}
