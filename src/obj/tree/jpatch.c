/* JSON Patch between two trees (see jpatch.h). */
#include "obj/tree/jpatch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj/base/sbuf.h"

static int op(json_t *ops, const char *kind, const char *path, const json_t *value)
{
    json_t *o = value ? json_pack("{s:s,s:s,s:O}", "op", kind, "path", path, "value", value)
                      : json_pack("{s:s,s:s}", "op", kind, "path", path);
    return o && json_array_append_new(ops, o) == 0 ? 0 : -ENOMEM;
}

/* parent + "/" + the escaped token; caller frees. */
static char *child(const char *parent, const char *token)
{
    struct sbuf b = {0};
    sb_puts(&b, parent);
    sb_puts(&b, "/");
    for (const char *p = token; *p; p++) {
        if (*p == '~')
            sb_puts(&b, "~0");
        else if (*p == '/')
            sb_puts(&b, "~1");
        else
            sb_append(&b, p, 1);
    }
    if (sb_failed(&b)) {
        sb_free(&b);
        return NULL;
    }
    return sb_detach(&b);
}

static int diff(json_t *ops, const char *path, const json_t *a, const json_t *b);

static int diff_obj(json_t *ops, const char *path, const json_t *a, const json_t *b)
{
    const char *k;
    json_t *v;
    int rc = 0;
    json_object_foreach ((json_t *)a, k, v) {
        char *p = child(path, k);
        if (!p)
            return -ENOMEM;
        const json_t *w = json_object_get(b, k);
        rc = w ? diff(ops, p, v, w) : op(ops, "remove", p, NULL);
        free(p);
        if (rc < 0)
            return rc;
    }
    json_object_foreach ((json_t *)b, k, v) {
        if (json_object_get(a, k))
            continue;
        char *p = child(path, k);
        if (!p)
            return -ENOMEM;
        rc = op(ops, "add", p, v);
        free(p);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int diff_arr(json_t *ops, const char *path, const json_t *a, const json_t *b)
{
    if (json_array_size(a) != json_array_size(b))
        return op(ops, "replace", path, b);
    for (size_t i = 0; i < json_array_size(a); i++) {
        char idx[24];
        snprintf(idx, sizeof(idx), "%zu", i);
        char *p = child(path, idx);
        if (!p)
            return -ENOMEM;
        int rc = diff(ops, p, json_array_get(a, i), json_array_get(b, i));
        free(p);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int diff(json_t *ops, const char *path, const json_t *a, const json_t *b)
{
    if (json_is_object(a) && json_is_object(b))
        return diff_obj(ops, path, a, b);
    if (json_is_array(a) && json_is_array(b))
        return diff_arr(ops, path, a, b);
    if (json_equal(a, b))
        return 0;
    /* the root itself: RFC 6902 "replace" of "" replaces the whole document */
    return op(ops, "replace", path, b);
}

json_t *jpatch_diff(const json_t *from, const json_t *to)
{
    json_t *ops = json_array();
    if (ops && diff(ops, "", from, to) < 0) {
        json_decref(ops);
        return NULL;
    }
    return ops;
}
