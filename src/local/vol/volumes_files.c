/* The files of configMap, secret, downwardAPI and projected volumes, as the kubelet writes them
 * (kubernetes pkg/volume/configmap, secret, downwardapi, projected; the values of downwardAPI
 * items as pkg/fieldpath formats them), into a directory of the run.  Each file is created
 * 0600 and then given its mode (items[].mode, else defaultMode, else 0644).  Unlike the
 * kubelet's atomic writer, there is no ..data link: the files never change while the pod
 * lives, the objects being those of the manifest files. */
#include "local/vol/volumes_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "obj/base/fs.h"
#include "obj/base/qty.h"
#include "obj/base/sbuf.h"
#include "obj/tree/jx.h"

#define VOL_DEFAULT_MODE 0644

/* A relative path with no "..": what the API server lets items[].path be. */
static bool rel_ok(const char *p)
{
    if (!p || !*p || p[0] == '/')
        return false;
    for (const char *c = p; *c; c += strcspn(c, "/"), c += *c == '/') {
        size_t n = strcspn(c, "/");
        if (n == 2 && !strncmp(c, "..", 2))
            return false;
    }
    return true;
}

/* dir/rel with `len` bytes of data: parents made inside dir, created 0600, then `mode`. */
static int write_item(const char *dir, const char *rel, const char *data, size_t len, long mode,
                      struct err *err)
{
    char path[PATH_MAX];
    size_t dl = strlen(dir);
    if (!rel_ok(rel))
        return err_set(err, -EINVAL, "%s: must be a relative path without '..'", rel);
    if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, rel) >= sizeof(path))
        return err_set(err, -ENAMETOOLONG, "%s: path too long", rel);
    for (char *p = path + dl + 1; (p = strchr(p, '/')); *p++ = '/') {
        *p = '\0';
        if (mkdir(path, 0755) < 0 && errno != EEXIST)
            return err_set(err, -errno, "%s: %s", path, strerror(errno));
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    int rc = fd < 0 ? -errno : fs_write_all(fd, data, len);
    if (rc == 0 && fchmod(fd, (mode_t)(mode & 0777)) < 0)
        rc = -errno;
    if (fd >= 0)
        close(fd);
    return rc < 0 ? err_set(err, rc, "%s: %s", path, strerror(-rc)) : 0;
}

/* The value of `key` in a ConfigMap (data, binaryData base64) or a Secret (stringData, data
 * base64): 0 with *out (malloc'd) and *len, -JX_EMISSINGKEY, -EINVAL (bad base64) or -ENOMEM. */
static int object_value(const json_t *o, bool secret, const char *key, char **out, size_t *len)
{
    const char *v = jx_str(jx_obj(o, secret ? "stringData" : "data"), key);
    if (v) {
        *len = strlen(v);
        *out = strdup(v);
        return *out ? 0 : -ENOMEM;
    }
    if (!(v = jx_str(jx_obj(o, secret ? "data" : "binaryData"), key)))
        return -JX_EMISSINGKEY;
    *out = podenv_b64_decode(v, len);
    return *out ? 0 : -EINVAL;
}

struct src {
    const struct vol_run *vr;
    const char *ns, *dir;
    const json_t *pod_spec;
    const struct podenv_pod *pod;
    long mode; /* defaultMode */
};

static int write_key(const struct src *x, const json_t *o, bool secret, const char *key,
                     const char *path, long mode, bool optional, struct err *err)
{
    char *v = NULL;
    size_t len = 0;
    int rc = object_value(o, secret, key, &v, &len);
    if (rc == -JX_EMISSINGKEY && optional)
        return 0;
    if (rc == -JX_EMISSINGKEY)
        return err_set(err, rc, "%s \"%s\" has no key \"%s\"", secret ? "Secret" : "ConfigMap",
                       jx_str(jx_obj(o, "metadata"), "name"), key);
    if (rc < 0)
        return err_set(err, rc, "key \"%s\": %s", key, rc == -EINVAL ? "bad base64" : "no memory");
    rc = write_item(x->dir, path, v, len, mode, err);
    free(v);
    return rc;
}

/* Every key of the object's two maps, each a file named after it. */
static int write_keys(const struct src *x, const json_t *o, bool secret, struct err *err)
{
    static const char *const maps[2][2] = {{"data", "binaryData"}, {"data", "stringData"}};
    for (size_t m = 0; m < 2; m++) {
        const char *k;
        json_t *v;
        json_object_foreach (jx_obj(o, maps[secret][m]), k, v) {
            if (strchr(k, '/') || !strcmp(k, ".") || !strcmp(k, ".."))
                return err_set(err, -EINVAL, "key \"%s\": not a file name", k);
            int rc = write_key(x, o, secret, k, k, x->mode, false, err);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

/* A configMap or secret source {name|secretName, items, optional, (defaultMode)}. */
static int write_object(const struct src *x, const json_t *s, bool secret, const char *name_key,
                        struct err *err)
{
    const char *name = jx_str(s, name_key), *kind = secret ? "Secret" : "ConfigMap";
    bool optional = jx_bool_or(s, "optional", false);
    const json_t *o = name ? podenv_object(x->vr->objects, kind, x->ns, name) : NULL;
    if (!o)
        return optional ? 0 : err_set(err, -ENOENT, "%s \"%s\" is not in the manifest files",
                                      kind, name ? name : "");
    const json_t *items = jx_arr(s, "items"), *it;
    size_t i;
    if (!items)
        return write_keys(x, o, secret, err);
    json_array_foreach (items, i, it) {
        const char *key = jx_str(it, "key"), *path = jx_str(it, "path");
        int rc = write_key(x, o, secret, key ? key : "", path ? path : "",
                           jx_int_or(it, "mode", x->mode), optional, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Go's %q of s (strconv.Quote) for the ASCII that labels and annotations hold. */
static void quote(struct sbuf *b, const char *s)
{
    sb_puts(b, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        const char *esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n"
                        : c == '\t' ? "\\t" : c == '\r' ? "\\r" : NULL;
        if (esc)
            sb_puts(b, esc);
        else if (c < 0x20 || c == 0x7f)
            sb_printf(b, "\\x%02x", c);
        else
            sb_append(b, (const char *)&c, 1);
    }
    sb_puts(b, "\"");
}

/* metadata.labels or .annotations as pkg/fieldpath FormatMap writes them: sorted k="v" lines. */
static char *format_map(const json_t *map)
{
    size_t n = json_object_size(map), i = 0;
    const char **keys = calloc(n ? n : 1, sizeof(*keys)), *k;
    json_t *v;
    struct sbuf b = SBUF_INIT;
    if (!keys)
        return NULL;
    json_object_foreach ((json_t *)map, k, v)
        keys[i++] = k;
    qsort(keys, n, sizeof(*keys), cmp_str);
    for (i = 0; i < n; i++) {
        sb_printf(&b, "%s%s=", i ? "\n" : "", keys[i]);
        quote(&b, jx_str(map, keys[i]) ? jx_str(map, keys[i]) : "");
    }
    free(keys);
    sb_puts(&b, "");
    return sb_failed(&b) ? (sb_free(&b), NULL) : sb_detach(&b);
}

bool vol__field_ok(const char *p)
{
    static const char *const whole[] = {"metadata.name", "metadata.namespace", "metadata.uid",
                                        "metadata.labels", "metadata.annotations"};
    const char *v;
    for (size_t i = 0; i < sizeof(whole) / sizeof(whole[0]); i++)
        if (!strcmp(p, whole[i]))
            return true;
    struct podenv_pod none = {0};
    return (!strncmp(p, "metadata.labels[", 16) || !strncmp(p, "metadata.annotations[", 21)) &&
           podenv_field(p, &none, &v) == 0;
}

bool vol__resource_ok(const char *r)
{
    return r && (!strcmp(r, "limits.cpu") || !strcmp(r, "limits.memory") ||
                 !strcmp(r, "requests.cpu") || !strcmp(r, "requests.memory"));
}

static const json_t *find_container(const json_t *pod_spec, const char *name)
{
    static const char *const lists[] = {"containers", "initContainers"};
    for (size_t l = 0; name && l < 2; l++) {
        size_t i;
        const json_t *c;
        json_array_foreach (jx_arr(pod_spec, lists[l]), i, c)
            if (jx_str(c, "name") && !strcmp(jx_str(c, "name"), name))
                return c;
    }
    return NULL;
}

int vol__size_limit(const json_t *v, long long *bytes)
{
    struct qty q;
    if (qty_parse(v, &q) < 0 || qty_sign(&q) < 0)
        return -EINVAL;
    if (qty_scaled_value(&q, 0, bytes) < 0)
        *bytes = LLONG_MAX; /* past 64 bits: no tmpfs is that large anyway */
    return 0;
}

/* The quantity a resourceFieldRef names (kubernetes pkg/api/v1/resource/helpers.go,
 * ExtractContainerResourceValue): limits.<what> or requests.<what> of the container; an
 * unset request is its limit, an unset limit this machine's capacity (the kubelet's node
 * allocatable), an unset request without limit 0.  -EINVAL when it is no quantity. */
static int ref_quantity(const json_t *c, const char *res, struct qty *out)
{
    bool cpu = strstr(res, ".cpu") != NULL, limits = !strncmp(res, "limits.", 7);
    const json_t *r = jx_obj(c, "resources");
    const char *what = strchr(res, '.') + 1; /* cpu, memory */
    const json_t *q = json_object_get(jx_obj(r, limits ? "limits" : "requests"), what);
    if (!q && !limits) /* requests default to the limits */
        q = json_object_get(jx_obj(r, "limits"), what);
    if (q)
        return qty_parse(q, out) < 0 ? -EINVAL : 0;
    long long cap = cpu ? sysconf(_SC_NPROCESSORS_ONLN)
                        : (long long)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);
    qty_from_int(limits ? cap : 0, QTY_DECIMAL_SI, out);
    return 0;
}

/* A resourceFieldRef's value as the kubelet writes it (helpers.go, convertResourceCPUToString
 * and convertResourceMemoryToString): ceil(value / divisor), cpu in millicores (MilliValue),
 * memory in bytes (Value), a divisor unset or 0 being 1.  The kubelet divides in float64 and
 * converts back to int64, which wraps past 2^53's precision and past 2^63; this is exact, and
 * what does not fit an int64 cannot be given. */
char *vol__resource_value(const json_t *pod_spec, const json_t *ref)
{
    const char *res = jx_str(ref, "resource");
    const json_t *c = find_container(pod_spec, jx_str(ref, "containerName"));
    const json_t *d = json_object_get(ref, "divisor");
    struct qty v, div;
    long long vi, di;
    if (!c || !vol__resource_ok(res) || ref_quantity(c, res, &v) < 0 ||
        (d && qty_parse(d, &div) < 0))
        return NULL;
    if (!d || qty_sign(&div) == 0)
        qty_from_int(1, QTY_DECIMAL_SI, &div);
    int scale = strstr(res, ".cpu") ? -3 : 0;
    if (qty_scaled_value(&v, scale, &vi) < 0 || qty_scaled_value(&div, scale, &di) < 0 ||
        vi < 0 || di <= 0)
        return NULL;
    return sb_fmt("%lld", vi / di + (vi % di != 0));
}

static char *field_value(const struct src *x, const json_t *it)
{
    const char *path = jx_str(jx_obj(it, "fieldRef"), "fieldPath"), *v = NULL;
    if (!path)
        return vol__resource_value(x->pod_spec, jx_obj(it, "resourceFieldRef"));
    if (!strcmp(path, "metadata.labels") || !strcmp(path, "metadata.annotations"))
        return format_map(jx_obj(x->pod->meta, path + strlen("metadata.")));
    return podenv_field(path, x->pod, &v) == 0 ? strdup(v) : NULL;
}

static int write_downward(const struct src *x, const json_t *items, struct err *err)
{
    size_t i;
    const json_t *it;
    json_array_foreach (items, i, it) {
        const char *path = jx_str(it, "path");
        char *v = field_value(x, it);
        if (!v)
            return err_set(err, -EINVAL, "items[%zu]: a value jaxset run cannot give", i);
        int rc = write_item(x->dir, path ? path : "", v, strlen(v), jx_int_or(it, "mode", x->mode),
                            err);
        free(v);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* projected: configMap, secret and downwardAPI sources into one directory. */
static int write_projected(const struct src *x, const json_t *sources, struct err *err)
{
    size_t i;
    const json_t *s;
    int rc = 0;
    json_array_foreach (sources, i, s) {
        if (jx_obj(s, "configMap"))
            rc = write_object(x, jx_obj(s, "configMap"), false, "name", err);
        else if (jx_obj(s, "secret"))
            rc = write_object(x, jx_obj(s, "secret"), true, "name", err);
        else if (jx_obj(s, "downwardAPI"))
            rc = write_downward(x, jx_arr(jx_obj(s, "downwardAPI"), "items"), err);
        else
            rc = err_set(err, -EINVAL, "sources[%zu]: not supported by jaxset run", i);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static bool items_have(const json_t *items, const char *path)
{
    size_t i;
    const json_t *it;
    json_array_foreach (items, i, it)
        if (jx_str(it, "path") && !strcmp(jx_str(it, "path"), path))
            return true;
    return false;
}

/* Whether `path` is a file a configMap or secret source gives (its keys, or its items). */
static bool object_has(const struct src *x, const json_t *s, bool secret, const char *name_key,
                       const char *path)
{
    const json_t *items = jx_arr(s, "items");
    if (items)
        return items_have(items, path);
    const char *name = jx_str(s, name_key);
    const json_t *o = name ? podenv_object(x->vr->objects, secret ? "Secret" : "ConfigMap",
                                           x->ns, name) : NULL;
    return o && (json_object_get(jx_obj(o, "data"), path) ||
                 json_object_get(jx_obj(o, secret ? "stringData" : "binaryData"), path));
}

bool vol__files_has(const struct vol_run *vr, const json_t *vol, enum vol__kind kind,
                    const char *ns, const char *path)
{
    const json_t *s = jx_obj(vol, kind == VK_CONFIG_MAP ? "configMap"
                                  : kind == VK_SECRET ? "secret"
                                  : kind == VK_DOWNWARD_API ? "downwardAPI" : "projected");
    struct src x = {.vr = vr, .ns = ns};
    size_t i;
    const json_t *p;
    if (kind == VK_CONFIG_MAP || kind == VK_SECRET)
        return object_has(&x, s, kind == VK_SECRET, kind == VK_SECRET ? "secretName" : "name",
                          path);
    if (kind == VK_DOWNWARD_API)
        return items_have(jx_arr(s, "items"), path);
    json_array_foreach (jx_arr(s, "sources"), i, p)
        if ((jx_obj(p, "configMap") &&
             object_has(&x, jx_obj(p, "configMap"), false, "name", path)) ||
            (jx_obj(p, "secret") && object_has(&x, jx_obj(p, "secret"), true, "name", path)) ||
            items_have(jx_arr(jx_obj(p, "downwardAPI"), "items"), path))
            return true;
    return false;
}

int vol__files_write(const struct vol_run *vr, const json_t *vol, enum vol__kind kind,
                     const json_t *pod_spec, const struct podenv_pod *pod, const char *dir,
                     struct err *err)
{
    static const char *const keys[] = {[VK_CONFIG_MAP] = "configMap", [VK_SECRET] = "secret",
                                       [VK_DOWNWARD_API] = "downwardAPI",
                                       [VK_PROJECTED] = "projected"};
    const json_t *s = jx_obj(vol, keys[kind]);
    struct src x = {.vr = vr, .ns = pod->ns, .dir = dir, .pod_spec = pod_spec, .pod = pod,
                    .mode = jx_int_or(s, "defaultMode", VOL_DEFAULT_MODE)};
    switch (kind) {
    case VK_CONFIG_MAP:
        return write_object(&x, s, false, "name", err);
    case VK_SECRET:
        return write_object(&x, s, true, "secretName", err);
    case VK_DOWNWARD_API:
        return write_downward(&x, jx_arr(s, "items"), err);
    default:
        return write_projected(&x, jx_arr(s, "sources"), err);
    }
}
