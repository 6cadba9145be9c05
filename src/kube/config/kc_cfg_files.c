/* kc_cfg (kubeconfig): the loading rules and the merged view of the files (client-go
 * tools/clientcmd loader.go ClientConfigLoadingRules.Load; api/v1 conversion.go for the named
 * lists). */
#include "kube/config/kc_cfg_int.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "obj/tree/jx.h"
#include "obj/base/sbuf.h"
#include "obj/tree/yaml.h"

static const char *const LISTS[][2] = {
    {"clusters", "cluster"}, {"users", "user"}, {"contexts", "context"}};

/* The inner key of a list ("clusters" -> "cluster"). */
static const char *inner_key(const char *list)
{
    for (size_t i = 0; i < sizeof(LISTS) / sizeof(LISTS[0]); i++)
        if (!strcmp(LISTS[i][0], list))
            return LISTS[i][1];
    return NULL;
}

/* One named list: an array of {name, <inner>} objects with distinct names. */
static int check_list(json_t *doc, const char *list, const char *inner, struct err *e)
{
    json_t *arr = json_object_get(doc, list), *it;
    size_t i, j;
    if (!arr || json_is_null(arr))
        return 0;
    if (!json_is_array(arr))
        return err_set(e, -EINVAL, "%s: must be a list", list);
    json_array_foreach (arr, i, it) {
        const json_t *name = json_object_get(it, "name"), *in = json_object_get(it, inner);
        if (!json_is_object(it))
            return err_set(e, -EINVAL, "%s[%zu]: must be a mapping", list, i);
        if (!json_is_string(name))
            return err_set(e, -EINVAL, "%s[%zu].name: must be a string", list, i);
        if (in && !json_is_null(in) && !json_is_object(in))
            return err_set(e, -EINVAL, "%s[%zu].%s: must be a mapping", list, i, inner);
        if (!json_is_object(in) && json_object_set_new(it, inner, json_object()) < 0)
            return err_oom(e);
        for (j = 0; j < i; j++)
            if (json_equal(json_object_get(json_array_get(arr, j), "name"), name))
                return err_set(e, -EINVAL, "%s: duplicate name \"%s\"", list,
                               json_string_value(name));
    }
    return 0;
}

/* What clientcmd's decoder would refuse in a file's document. */
static int check_doc(json_t *doc, struct err *e)
{
    const char *kind = jx_str(doc, "kind"), *api = jx_str(doc, "apiVersion");
    const json_t *cur = json_object_get(doc, "current-context");
    if (!json_is_object(doc))
        return err_set(e, -EINVAL, "not a kubeconfig (a mapping of clusters, users, contexts)");
    if (kind && *kind && strcmp(kind, "Config"))
        return err_set(e, -EINVAL, "kind: \"%s\" is not Config", kind);
    if (api && *api && strcmp(api, "v1"))
        return err_set(e, -EINVAL, "apiVersion: \"%s\" is not v1", api);
    if (cur && !json_is_null(cur) && !json_is_string(cur))
        return err_set(e, -EINVAL, "current-context: must be a string");
    for (size_t i = 0; i < sizeof(LISTS) / sizeof(LISTS[0]); i++) {
        int rc = check_list(doc, LISTS[i][0], LISTS[i][1], e);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* The absolute directory of `path`. */
static char *abs_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (slash == path)
        return strdup("/");
    if (slash && path[0] == '/')
        return strndup(path, (size_t)(slash - path));
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof(cwd)))
        return NULL;
    if (!slash)
        return strdup(cwd);
    return sb_fmt("%s/%.*s", cwd, (int)(slash - path), path);
}

/* Appends a checked document (stolen) to s. */
static int add_file(struct kc_cfg__set *s, const char *path, json_t *doc)
{
    struct kc_cfg__file *grown = realloc(s->f, (s->n + 1) * sizeof(*s->f));
    if (!grown) {
        kc_cfg__json_wipe(doc);
        json_decref(doc);
        return -ENOMEM;
    }
    s->f = grown;
    struct kc_cfg__file *f = &s->f[s->n++];
    *f = (struct kc_cfg__file){.path = strdup(path), .dir = abs_dir(path), .doc = doc};
    return f->path && f->dir ? 0 : -ENOMEM;
}

/* Reads one file into s (its first document, as sigs.k8s.io/yaml reads one; an empty file is an
 * empty config); -ENOENT without a message when it does not exist and `optional`. */
static int load_file(struct kc_cfg__set *s, const char *path, bool optional, struct err *e)
{
    struct stat st;
    if (optional && stat(path, &st) < 0 && errno == ENOENT)
        return -ENOENT;
    json_t *docs = NULL, *doc;
    int rc = yaml_decode_file(path, &docs, e);
    if (rc < 0) {
        kc_cfg__err_in(e, path);
        return rc;
    }
    doc = json_array_size(docs) ? json_incref(json_array_get(docs, 0)) : json_object();
    for (size_t i = 1; i < json_array_size(docs); i++)
        kc_cfg__json_wipe(json_array_get(docs, i));
    json_decref(docs);
    if (!doc)
        return err_oom(e);
    rc = check_doc(doc, e);
    if (rc < 0) {
        kc_cfg__err_in(e, path);
        kc_cfg__json_wipe(doc);
        json_decref(doc);
        return rc;
    }
    rc = add_file(s, path, doc);
    return rc < 0 ? err_set(e, rc, ERR_OOM_MSG) : 0;
}

/* Records `path` in s->looked. */
static int looked_at(struct kc_cfg__set *s, const char *path)
{
    char *n = sb_fmt("%s%s%s", s->looked ? s->looked : "", s->looked ? ", " : "", path);
    if (!n)
        return -ENOMEM;
    free(s->looked);
    s->looked = n;
    return 0;
}

/* $KUBECONFIG's files in order, empty items and repeats dropped (clientcmd deduplicate). */
static int load_env_list(struct kc_cfg__set *s, const char *list, struct err *e)
{
    char *copy = strdup(list), *save = NULL;
    const char **seen = calloc(strlen(list) / 2 + 1, sizeof(*seen));
    size_t n = 0;
    int rc = copy && seen ? 0 : err_oom(e);
    for (char *p = rc ? NULL : strtok_r(copy, ":", &save); p && rc == 0;
         p = strtok_r(NULL, ":", &save)) {
        bool dup = false;
        for (size_t i = 0; i < n; i++)
            dup = dup || !strcmp(seen[i], p);
        if (dup)
            continue;
        seen[n++] = p;
        rc = looked_at(s, p) < 0 ? err_oom(e) : load_file(s, p, true, e);
        if (rc == -ENOENT)
            rc = 0;
    }
    free(seen);
    free(copy);
    return rc;
}

/* The ':'-joined paths of the files read. */
static int join_sources(struct kc_cfg__set *s)
{
    struct sbuf b = SBUF_INIT;
    sb_puts(&b, s->n ? "" : "(no file)");
    for (size_t i = 0; i < s->n; i++)
        sb_printf(&b, "%s%s", i ? ":" : "", s->f[i].path);
    s->source = sb_detach(&b);
    return s->source ? 0 : -ENOMEM;
}

int kc_cfg__set_load(const struct kc_cfg_opts *o, struct kc_cfg__set *s, struct err *e)
{
    const char *env = getenv("KUBECONFIG"), *home = getenv("HOME");
    int rc = 0;
    *s = (struct kc_cfg__set){0};
    if (o->kubeconfig) {
        rc = looked_at(s, o->kubeconfig) < 0 ? -ENOMEM : load_file(s, o->kubeconfig, false, e);
    } else if (env && *env) {
        rc = load_env_list(s, env, e);
    } else if (home && *home) {
        char *p = sb_fmt("%s/.kube/config", home);
        rc = !p || looked_at(s, p) < 0 ? -ENOMEM : load_file(s, p, true, e);
        rc = rc == -ENOENT ? 0 : rc;
        free(p);
    }
    if (rc == 0 && join_sources(s) < 0)
        rc = -ENOMEM;
    if (rc == -ENOMEM)
        err_set(e, rc, ERR_OOM_MSG);
    if (rc < 0)
        kc_cfg__set_free(s);
    return rc;
}

void kc_cfg__set_free(struct kc_cfg__set *s)
{
    for (size_t i = 0; i < s->n; i++) {
        kc_cfg__json_wipe(s->f[i].doc);
        json_decref(s->f[i].doc);
        free(s->f[i].path);
        free(s->f[i].dir);
    }
    free(s->f);
    free(s->source);
    free(s->looked);
    *s = (struct kc_cfg__set){0};
}

const json_t *kc_cfg__find(const struct kc_cfg__set *s, const char *list, const char *name,
                         const struct kc_cfg__file **from)
{
    const char *inner = inner_key(list);
    for (size_t i = 0; i < s->n; i++) {
        const json_t *it;
        size_t j;
        json_array_foreach (json_object_get(s->f[i].doc, list), j, it) {
            if (strcmp(jx_str(it, "name"), name))
                continue;
            *from = &s->f[i];
            return json_object_get(it, inner); /* an object: check_list made it one */
        }
    }
    return NULL;
}

const char *kc_cfg__current_context(const struct kc_cfg__set *s)
{
    for (size_t i = 0; i < s->n; i++) {
        const char *c = jx_str(s->f[i].doc, "current-context");
        if (c && *c)
            return c;
    }
    return NULL;
}
