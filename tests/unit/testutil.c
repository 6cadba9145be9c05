#include "testutil.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "obj/tree/yaml.h"

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

char *tu_tmpdir(const char *name)
{
    char *d = malloc(strlen(name) + 32);
    assert_non_null(d);
    sprintf(d, "/tmp/jaxset-%s-XXXXXX", name);
    assert_non_null(mkdtemp(d));
    return d;
}

const char *tu_path(const char *dir, const char *rel)
{
    static char buf[4][4096];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, sizeof(buf[0]), "%s/%s", dir, rel);
    return p;
}

void tu_write(const char *dir, const char *rel, const char *text)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    for (char *s = strchr(path + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        if (mkdir(path, 0755) < 0 && errno != EEXIST)
            fail_msg("mkdir %s: %s", path, strerror(errno));
        *s = '/';
    }
    FILE *f = fopen(path, "w");
    if (!f)
        fail_msg("cannot write %s: %s", path, strerror(errno));
    fputs(text, f);
    fclose(f);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void tu_rmtree(const char *dir)
{
    nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
