#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj/yaml.h"

const char *tu_src(const char *rel)
{
    static char buf[4096];
    const char *root = getenv("JAXSET_SRC");
    snprintf(buf, sizeof(buf), "%s/%s", root ? root : ".", rel);
    return buf;
}

json_t *tu_json(const char *text)
{
    json_error_t je;
    json_t *v = json_loads(text, JSON_DECODE_ANY, &je);
    if (!v)
        fail_msg("bad JSON in test: line %d: %s", je.line, je.text);
    return v;
}

json_t *tu_qjson(const char *text)
{
    char *s = strdup(text);
    assert_non_null(s);
    for (char *p = s; *p; p++)
        if (*p == '\'')
            *p = '"';
    json_t *v = tu_json(s);
    free(s);
    return v;
}

json_t *tu_yaml(const char *text)
{
    json_t *docs = NULL;
    struct err e = {{0}};
    if (yaml_decode(text, strlen(text), &docs, &e) < 0)
        fail_msg("bad YAML in test: %s", e.msg);
    if (json_array_size(docs) != 1)
        fail_msg("test YAML has %zu documents, want 1", json_array_size(docs));
    json_t *v = json_incref(json_array_get(docs, 0));
    json_decref(docs);
    return v;
}

const char *tu_ferrs(const struct ferr_list *l)
{
    static char buf[16384];
    size_t off = 0;
    buf[0] = 0;
    for (size_t i = 0; i < l->n && off < sizeof(buf) - 1; i++) {
        char *s = ferr_format(&l->v[i]);
        off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s\n", s ? s : "(oom)");
        free(s);
    }
    return buf;
}

void tu_assert_ferr_(const struct ferr_list *l, const char *needle, const char *file, int line)
{
    for (size_t i = 0; i < l->n; i++) {
        char *s = ferr_format(&l->v[i]);
        int hit = s && strstr(s, needle);
        free(s);
        if (hit)
            return;
    }
    fail_msg("%s:%d: no error contains \"%s\"; errors were:\n%s", file, line, needle,
             tu_ferrs(l));
}
