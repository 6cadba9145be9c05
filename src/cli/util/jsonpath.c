/* jsonpath: kubectl's JSONPath templates, the common subset. */
#include "cli/util/jsonpath.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "obj/base/sbuf.h"

struct jp {
    const char *err;
    struct sbuf out;
};

/* The values one path step leads to from each of `in`, appended to `out`. */
static void step_key(const json_t *in, const char *key, json_t *out)
{
    size_t i;
    json_t *v;
    json_array_foreach (in, i, v)
        if (json_is_object(v) && json_object_get(v, key))
            json_array_append(out, json_object_get(v, key));
}

static void step_index(const json_t *in, bool all, long idx, json_t *out)
{
    size_t i, k;
    json_t *v, *e;
    json_array_foreach (in, i, v) {
        if (all && json_is_array(v)) {
            json_array_foreach (v, k, e)
                json_array_append(out, e);
        } else if (all && json_is_object(v)) {
            const char *key;
            json_object_foreach (v, key, e)
                json_array_append(out, e);
        } else if (json_is_array(v)) {
            long n = (long)json_array_size(v), at = idx < 0 ? n + idx : idx;
            if (at >= 0 && at < n)
                json_array_append(out, json_array_get(v, (size_t)at));
        }
    }
}

/* A field name of a dotted path: up to '.', '[' or the end, "\." taken as a dot. */
static size_t field(const char *p, size_t len, char *key, size_t cap)
{
    size_t i = 0, n = 0;
    while (i < len && p[i] != '.' && p[i] != '[') {
        if (p[i] == '\\' && i + 1 < len)
            i++;
        if (n + 1 < cap)
            key[n++] = p[i];
        i++;
    }
    key[n] = 0;
    return i;
}

/* The values of path `p` (`len` bytes) from `cur`: a new array, or NULL (jp->err set). */
static json_t *eval(struct jp *jp, const char *p, size_t len, const json_t *cur)
{
    json_t *set = json_pack("[O]", cur), *next = NULL;
    size_t i = 0;
    char key[256];
    if (i < len && p[i] == '$')
        i++;
    while (set && i < len) {
        next = json_array();
        if (p[i] == '.' && (i + 1 == len)) {
            i++; /* "{.}": the object itself */
            json_decref(next);
            continue;
        } else if (p[i] == '.') {
            i++;
            i += field(p + i, len - i, key, sizeof(key));
            step_key(set, key, next);
        } else if (p[i] == '[' && i + 1 < len && p[i + 1] == '\'') {
            const char *end = memchr(p + i + 2, '\'', len - i - 2);
            size_t n = end ? (size_t)(end - p - i - 2) : 0;
            if (!end || n >= sizeof(key) || end[1] != ']') {
                jp->err = "a bad ['key'] in the jsonpath";
                break;
            }
            memcpy(key, p + i + 2, n);
            key[n] = 0;
            step_key(set, key, next);
            i = (size_t)(end - p) + 2;
        } else if (p[i] == '[') {
            char *end;
            bool all = i + 2 < len && p[i + 1] == '*' && p[i + 2] == ']';
            long idx = all ? 0 : strtol(p + i + 1, &end, 10);
            if (!all && (end == p + i + 1 || *end != ']')) {
                jp->err = "only [N], [*] and ['key'] are taken in a jsonpath";
                break;
            }
            step_index(set, all, idx, next);
            i = all ? i + 3 : (size_t)(end - p) + 1;
        } else {
            jp->err = "a jsonpath expression starts with '.' (as {.metadata.name})";
            break;
        }
        json_decref(set);
        set = next;
        next = NULL;
    }
    if (jp->err) {
        json_decref(set);
        json_decref(next);
        return NULL;
    }
    return set;
}

static void emit(struct jp *jp, const json_t *set)
{
    size_t i;
    const json_t *v;
    json_array_foreach (set, i, v) {
        if (i)
            sb_puts(&jp->out, " ");
        if (json_is_string(v)) {
            sb_append(&jp->out, json_string_value(v), json_string_length(v));
        } else {
            char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
            sb_puts(&jp->out, s ? s : "");
            free(s);
        }
    }
}

/* A quoted string, its escapes \n \t \" \\ taken. */
static void literal(struct jp *jp, const char *p, size_t len)
{
    for (size_t i = 1; i + 1 < len; i++) {
        char c = p[i];
        if (c == '\\' && i + 2 < len) {
            c = p[++i];
            c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
        }
        sb_append(&jp->out, &c, 1);
    }
}

/* Renders from *p until "{end}" (consumed) or the end, on `cur`; writes nothing when
 * `!cur` (a range's body skipped).  Returns whether it stopped at "{end}". */
static bool render(struct jp *jp, const char **p, const json_t *cur)
{
    while (**p && !jp->err) {
        const char *open = strchr(*p, '{');
        if (!open) {
            if (cur)
                sb_puts(&jp->out, *p);
            *p += strlen(*p);
            break;
        }
        if (cur)
            sb_append(&jp->out, *p, (size_t)(open - *p));
        const char *close = open + 1;
        while (*close && *close != '}')
            close += *close == '"' && strchr(close + 1, '"') ? strchr(close + 1, '"') - close + 1
                                                              : 1;
        if (!*close) {
            jp->err = "an unclosed { in the jsonpath";
            break;
        }
        const char *e = open + 1;
        size_t len = (size_t)(close - e);
        while (len && *e == ' ') {
            e++;
            len--;
        }
        *p = close + 1;
        if (len == 3 && !strncmp(e, "end", 3))
            return true;
        if (len > 6 && !strncmp(e, "range ", 6)) {
            json_t *set = cur ? eval(jp, e + 6, len - 6, cur) : NULL;
            const char *body = *p;
            size_t i;
            const json_t *v;
            json_array_foreach (set, i, v) {
                *p = body;
                if (!render(jp, p, v))
                    jp->err = jp->err ? jp->err : "a {range} without its {end}";
            }
            json_decref(set);
            *p = body;
            if (!jp->err && !render(jp, p, NULL))
                jp->err = "a {range} without its {end}";
        } else if (len && *e == '"') {
            if (cur)
                literal(jp, e, len);
        } else if (cur) {
            json_t *set = eval(jp, e, len, cur);
            emit(jp, set);
            json_decref(set);
        }
    }
    return false;
}

char *jsonpath_render(const char *tmpl, const json_t *obj, const char **err)
{
    struct jp jp = {.out = SBUF_INIT};
    const char *p = tmpl;
    if (render(&jp, &p, obj) && !jp.err)
        jp.err = "an {end} without its {range}";
    *err = jp.err;
    if (jp.err) {
        sb_free(&jp.out);
        return NULL;
    }
    char *s = sb_detach(&jp.out);
    if (!s)
        *err = "out of memory";
    return s;
}
