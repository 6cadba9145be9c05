/* API-server bounds on a whole document (see bounds.h). */
#include "api/schema/bounds.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj/tree/jx.h"

struct walk {
    struct ferr_list *errs;
    size_t n0;
};

static int walk_value(struct walk *w, const json_t *v, const char *path, const char *key);

/* "<parent>.<key>", "<parent>[<i>]", or "<parent>[<key>]" for keys that are not identifiers
 * (map keys such as annotations): malloc'd. */
static char *child_path(const char *parent, const char *key, size_t index)
{
    char *out = NULL;
    int n;
    if (!key)
        n = asprintf(&out, "%s[%zu]", parent, index);
    else if (strspn(key, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
                 strlen(key) &&
             *key)
        n = asprintf(&out, "%s%s%s", parent, *parent ? "." : "", key);
    else
        n = asprintf(&out, "%s[%s]", parent, key);
    return n < 0 ? NULL : out;
}

static int check_string(struct walk *w, const json_t *v, const char *path)
{
    if (memchr(json_string_value(v), 0, json_string_length(v)) == NULL)
        return 0;
    return ferr_add(w->errs, FERR_INVALID, path, v, "must not contain a NUL byte");
}

static int check_annotations(struct walk *w, const json_t *meta, const char *path)
{
    const json_t *ann = jx_obj(meta, "annotations"), *v;
    const char *k;
    size_t total = 0;
    json_object_foreach ((json_t *)ann, k, v)
        total += strlen(k) + (json_is_string(v) ? json_string_length(v) : 0);
    if (total <= BOUNDS_ANNOTATIONS_MAX)
        return 0;
    char *p = child_path(path, "annotations", 0);
    int rc = p ? ferr_add(w->errs, FERR_TOO_LONG, p, NULL, "may not be more than %d bytes",
                          BOUNDS_ANNOTATIONS_MAX)
               : -ENOMEM;
    free(p);
    return rc;
}

static int walk_object(struct walk *w, const json_t *o, const char *path)
{
    const char *k;
    const json_t *v;
    json_object_foreach ((json_t *)o, k, v) {
        char *p = child_path(path, k, 0);
        int rc = p ? walk_value(w, v, p, k) : -ENOMEM;
        free(p);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int walk_value(struct walk *w, const json_t *v, const char *path, const char *key)
{
    if (json_is_string(v))
        return check_string(w, v, path);
    if (json_is_object(v)) {
        if (key && !strcmp(key, "metadata") && check_annotations(w, v, path) < 0)
            return -ENOMEM;
        return walk_object(w, v, path);
    }
    for (size_t i = 0; json_is_array(v) && i < json_array_size(v); i++) {
        char *p = child_path(path, NULL, i);
        int rc = p ? walk_value(w, json_array_get(v, i), p, NULL) : -ENOMEM;
        free(p);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int bounds_check(const json_t *doc, struct ferr_list *errs)
{
    struct walk w = {errs, errs->n};
    int rc = walk_value(&w, doc, "", NULL);
    return rc < 0 ? rc : (int)(errs->n - w.n0);
}
