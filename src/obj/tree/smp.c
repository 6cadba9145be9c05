/* smp: see smp.h.  Follows k8s.io/apimachinery pkg/util/strategicpatch/patch.go: mergeMap,
 * handleDirectiveInMergeMap, mergeSlice, mergeSliceWithSpecialElements,
 * mergeSliceWithoutSpecialElements, normalizeElementOrder and mergeSortedSlice. */
#include "obj/tree/smp.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIRECTIVE "$patch"

struct smp {
    const struct smp_list *lists;
    char *why;
    size_t n;
    char path[1024];
};

static int fail(struct smp *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct smp *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (s->n)
        vsnprintf(s->why, s->n, fmt, ap);
    va_end(ap);
    return -EINVAL;
}

static const char *where(const struct smp *s)
{
    return s->path[0] ? s->path : "(the root)";
}

/* JSON types as Go's decoder sees them: one number type, one boolean type. */
static int kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_REAL:
        return JSON_INTEGER;
    case JSON_FALSE:
        return JSON_TRUE;
    default:
        return (int)json_typeof(v);
    }
}

static bool same_value(const json_t *a, const json_t *b)
{
    if (!a || !b)
        return a == b;
    if (json_is_number(a) && json_is_number(b))
        return json_is_integer(a) && json_is_integer(b)
                   ? json_integer_value(a) == json_integer_value(b)
                   : json_number_value(a) == json_number_value(b);
    return json_equal(a, b);
}

/* A value taken from the patch whole: a copy without null members (discardNullValuesFromPatch)
 * and without objects carrying a directive (removeDirectives); *out NULL when `v` itself is
 * dropped. */
static int clean(const json_t *v, json_t **out)
{
    const char *k;
    json_t *m, *c, *o;
    size_t i;
    *out = NULL;
    if (json_is_object(v) && json_object_get(v, DIRECTIVE))
        return 0;
    if (!json_is_object(v) && !json_is_array(v))
        return (*out = json_copy((json_t *)v)) ? 0 : -ENOMEM;
    if (!(o = json_is_object(v) ? json_object() : json_array()))
        return -ENOMEM;
    if (json_is_object(v)) {
        json_object_foreach ((json_t *)v, k, m) {
            if (!json_is_null(m) && (clean(m, &c) < 0 || (c && json_object_set_new(o, k, c) < 0)))
                goto oom;
        }
    } else {
        json_array_foreach (v, i, m) {
            if (clean(m, &c) < 0 || (c && json_array_append_new(o, c) < 0))
                goto oom;
        }
    }
    *out = o;
    return 0;
oom:
    json_decref(o);
    return -ENOMEM;
}

/* doc[k] = clean(pv), or no doc[k] when pv is dropped. */
static int put_clean(json_t *doc, const char *k, const json_t *pv)
{
    json_t *c;
    if (clean(pv, &c) < 0)
        return -ENOMEM;
    if (!c)
        return json_object_del(doc, k), 0;
    return json_object_set_new(doc, k, c) < 0 ? -ENOMEM : 0;
}

static const char *list_key(const struct smp *s)
{
    for (const struct smp_list *l = s->lists; l && l->path; l++)
        if (strcmp(l->path, s->path) == 0)
            return l->key;
    return NULL;
}

/* ---- lists -------------------------------------------------------------------------------- */

/* An element's identity: its merge-key value, or the element itself in a list of scalars. */
static const json_t *ident(const json_t *e, const char *key)
{
    return *key ? json_object_get(e, key) : e;
}

static long index_of(const json_t *list, const json_t *e, const char *key)
{
    size_t i;
    const json_t *x;
    json_array_foreach (list, i, x)
        if (same_value(ident(x, key), ident(e, key)))
            return (long)i;
    return -1;
}

/* The elements' common kind (sliceElementType), or -EINVAL. */
static int elem_kind(struct smp *s, const json_t *a, const json_t *b)
{
    const json_t *lists[] = {a, b};
    int k = -1;
    size_t i;
    const json_t *e;
    for (size_t l = 0; l < 2; l++) {
        json_array_foreach (lists[l], i, e) {
            if (json_is_array(e))
                return fail(s, "%s: lists of lists are not supported", where(s));
            if (k >= 0 && kind(e) != k)
                return fail(s, "%s: list element types are not identical", where(s));
            k = kind(e);
        }
    }
    return k;
}

static int need_key(struct smp *s, const json_t *e, const char *key)
{
    if (json_object_get(e, key))
        return 0;
    char *text = json_dumps(e, JSON_COMPACT | JSON_SORT_KEYS);
    int rc = text ? fail(s, "%s: map: %s does not contain declared merge key: %s", where(s), text,
                         key)
                  : -ENOMEM;
    free(text);
    return rc;
}

/* Stable insertion sort of v[0..n) by each element's index in `order`. */
static void sort_by(json_t **v, size_t n, const json_t *order, const char *key)
{
    for (size_t i = 1; i < n; i++) {
        json_t *x = v[i];
        long xi = index_of(order, x, key);
        size_t j = i;
        for (; j > 0 && index_of(order, v[j - 1], key) > xi; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

/* normalizeElementOrder: the merged list `arr` as the patch's items (in `porder`) interleaved
 * with the document's other items (in `sorder`), as mergeSortedSlice interleaves them. */
static int reorder(json_t *arr, const json_t *porder, const json_t *sorder, const char *key)
{
    size_t n = json_array_size(arr), np = 0, ns = 0, i, j;
    json_t **p = calloc(n ? n : 1, sizeof(*p)), **sv = calloc(n ? n : 1, sizeof(*sv));
    json_t *e;
    int rc = p && sv ? 0 : -ENOMEM;
    json_array_foreach (rc == 0 ? arr : NULL, i, e) {
        if (index_of(porder, e, key) >= 0)
            p[np++] = json_incref(e);
        else
            sv[ns++] = json_incref(e);
    }
    sort_by(p, np, porder, key);
    sort_by(sv, ns, sorder, key);
    if (rc == 0)
        json_array_clear(arr);
    for (i = j = 0; rc == 0 && i + j < np + ns;) {
        long li = i < ns ? index_of(sorder, sv[i], key) : -1;
        long ri = j < np ? index_of(sorder, p[j], key) : -1;
        bool left = j >= np || (i < ns && li >= 0 && ri >= 0 && li < ri);
        rc = json_array_append(arr, left ? sv[i++] : p[j++]) < 0 ? -ENOMEM : 0;
    }
    for (i = 0; i < np; i++)
        json_decref(p[i]);
    for (i = 0; i < ns; i++)
        json_decref(sv[i]);
    free(p);
    free(sv);
    return rc;
}

static int merge_map(struct smp *s, json_t *doc, const json_t *patch);

/* mergeSliceWithSpecialElements: applies the {"$patch": ...} elements of `patch` to `arr` and
 * collects the others in `plain`; *replace when the list is to become `plain`. */
static int special(struct smp *s, json_t *arr, const json_t *patch, const char *key,
                   json_t *plain, bool *replace)
{
    size_t i, j;
    json_t *e;
    *replace = false;
    json_array_foreach (patch, i, e) {
        const json_t *d = json_object_get(e, DIRECTIVE);
        const char *how = json_string_value(d);
        int rc = 0;
        if (!d)
            rc = json_array_append(plain, e) < 0 ? -ENOMEM : 0;
        else if (how && strcmp(how, "replace") == 0)
            *replace = true;
        else if (!how || strcmp(how, "delete") != 0)
            rc = fail(s, "%s: unknown patch type %s in a list element", where(s),
                      how ? how : "(not a string)");
        else if ((rc = need_key(s, e, key)) == 0)
            for (j = json_array_size(arr); j-- > 0;)
                if (same_value(ident(json_array_get(arr, j), key), ident(e, key)))
                    json_array_remove(arr, j);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* mergeSliceWithoutSpecialElements: each patch element merges into the first element of `arr`
 * with its key, or is appended. */
static int merge_elems(struct smp *s, json_t *arr, const json_t *plain, const char *key)
{
    size_t i;
    json_t *e, *c;
    json_array_foreach (plain, i, e) {
        int rc = need_key(s, e, key);
        long at = rc == 0 ? index_of(arr, e, key) : -1;
        if (rc == 0 && at >= 0)
            rc = merge_map(s, json_array_get(arr, (size_t)at), e);
        else if (rc == 0 && (rc = clean(e, &c)) == 0 && c)
            rc = json_array_append_new(arr, c) < 0 ? -ENOMEM : 0;
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int replace_list(json_t *arr, const json_t *with)
{
    size_t i;
    json_t *e, *c;
    json_array_clear(arr);
    json_array_foreach (with, i, e)
        if (clean(e, &c) < 0 || (c && json_array_append_new(arr, c) < 0))
            return -ENOMEM;
    return 0;
}

static int merge_scalars(json_t *arr, const json_t *patch)
{
    json_t *sorder = json_copy(arr);
    size_t i;
    json_t *e;
    int rc = sorder ? 0 : -ENOMEM;
    if (rc == 0)
        json_array_clear(arr);
    for (size_t l = 0; rc == 0 && l < 2; l++)
        json_array_foreach (l ? patch : sorder, i, e)
            if (rc == 0 && index_of(arr, e, "") < 0)
                rc = json_array_append(arr, e) < 0 ? -ENOMEM : 0;
    if (rc == 0)
        rc = reorder(arr, patch, sorder, "");
    json_decref(sorder);
    return rc;
}

static int merge_list(struct smp *s, json_t *arr, const json_t *patch, const char *key)
{
    if (json_array_size(arr) == 0 && json_array_size(patch) == 0)
        return 0;
    int k = elem_kind(s, arr, patch);
    if (k < 0 || k != JSON_OBJECT)
        return k < 0 ? k : merge_scalars(arr, patch);
    if (!*key)
        return fail(s, "%s: cannot merge lists without merge key", where(s));
    json_t *plain = json_array(), *sorder = NULL;
    bool replace = false;
    size_t i;
    json_t *e;
    int rc = plain ? special(s, arr, patch, key, plain, &replace) : -ENOMEM;
    if (rc == 0 && replace) {
        rc = replace_list(arr, plain);
        goto out;
    }
    json_array_foreach (rc == 0 ? arr : NULL, i, e)
        if (rc == 0)
            rc = need_key(s, e, key);
    if (rc == 0 && !(sorder = json_copy(arr)))
        rc = -ENOMEM;
    if (rc == 0)
        rc = merge_elems(s, arr, plain, key);
    if (rc == 0)
        rc = reorder(arr, plain, sorder, key);
out:
    json_decref(sorder);
    json_decref(plain);
    return rc;
}

/* ---- objects ------------------------------------------------------------------------------ */

static int map_directive(struct smp *s, json_t *doc, const json_t *patch, const json_t *d)
{
    const char *how = json_string_value(d), *k;
    json_t *m;
    if (how && strcmp(how, "delete") == 0)
        return json_object_clear(doc), 0;
    if (!how || strcmp(how, "replace") != 0)
        return fail(s, "%s: unknown patch type %s in a map", where(s),
                    how ? how : "(not a string)");
    json_object_clear(doc);
    json_object_foreach ((json_t *)patch, k, m)
        if (strcmp(k, DIRECTIVE) != 0 && !json_is_null(m) && put_clean(doc, k, m) < 0)
            return -ENOMEM;
    return 0;
}

static bool unsupported_directive(const char *k)
{
    return strcmp(k, "$retainKeys") == 0 || strncmp(k, "$setElementOrder/", 17) == 0 ||
           strncmp(k, "$deleteFromPrimitiveList/", 25) == 0;
}

static int merge_value(struct smp *s, json_t *doc, const char *k, const json_t *pv)
{
    json_t *ov = json_object_get(doc, k);
    if (!ov || kind(ov) != kind(pv))
        return put_clean(doc, k, pv);
    if (!json_is_object(ov) && !json_is_array(ov))
        return put_clean(doc, k, pv);
    size_t len = strlen(s->path);
    if (len + strlen(k) + 2 > sizeof(s->path))
        return fail(s, "%s: the path is too long", where(s));
    snprintf(s->path + len, sizeof(s->path) - len, "%s%s", len ? "." : "", k);
    const char *key = json_is_array(ov) ? list_key(s) : NULL;
    int rc = json_is_object(ov) ? merge_map(s, ov, pv)
             : key              ? merge_list(s, ov, pv, key)
                                : put_clean(doc, k, pv);
    if (rc == 0)
        s->path[len] = '\0';
    return rc;
}

static int merge_map(struct smp *s, json_t *doc, const json_t *patch)
{
    const json_t *d = json_object_get(patch, DIRECTIVE);
    const char *k;
    json_t *pv;
    if (d)
        return map_directive(s, doc, patch, d);
    json_object_foreach ((json_t *)patch, k, pv) {
        int rc = 0;
        if (unsupported_directive(k))
            rc = fail(s, "%s: the directive %s is not supported", where(s), k);
        else if (json_is_null(pv))
            json_object_del(doc, k);
        else
            rc = merge_value(s, doc, k, pv);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int smp_apply(json_t *doc, const json_t *patch, const struct smp_list *lists, char *why,
              size_t n)
{
    struct smp s = {.lists = lists, .why = why, .n = n};
    if (n)
        why[0] = '\0';
    if (!json_is_object(doc) || !json_is_object(patch))
        return fail(&s, "a strategic merge patch applies an object to an object");
    return merge_map(&s, doc, patch);
}
