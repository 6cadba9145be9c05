/* img: an image's config applied to a container, as the kubelet and the runtime apply it
 * (see img.h; kubernetes pkg/kubelet/kuberuntime kuberuntime_container.go and
 * kubelet_pods.go, containerd's and runc's user lookup). */
#include "local/image/img.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj/tree/jx.h"

const char *img_default_policy(const char *ref)
{
    if (!ref || strchr(ref, '@'))
        return "IfNotPresent";
    const char *slash = strrchr(ref, '/'), *colon = strrchr(slash ? slash : ref, ':');
    if (!colon || strcmp(colon + 1, "latest") == 0)
        return "Always";
    return "IfNotPresent";
}

/* s with every '$' doubled: what $(VAR) expansion (podenv) turns back into s, since the
 * kubelet expands command and args but never an image's ENTRYPOINT or CMD. */
static json_t *escaped(const char *s)
{
    size_t n = strlen(s), d = 0;
    for (size_t i = 0; i < n; i++)
        d += s[i] == '$';
    char *b = malloc(n + d + 1), *o = b;
    if (!b)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '$')
            *o++ = '$';
        *o++ = s[i];
    }
    *o = '\0';
    json_t *v = json_string(b);
    free(b);
    return v;
}

/* Appends the strings of `arr` (NULL: none) to `out`; an image's (`image`) escaped. */
static int append_all(json_t *out, const json_t *arr, bool image)
{
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const json_t *v = json_array_get(arr, i);
        if (!json_is_string(v))
            continue;
        json_t *e = image ? escaped(json_string_value(v)) : json_incref((json_t *)v);
        if (!e || json_array_append_new(out, e) < 0)
            return -ENOMEM;
    }
    return 0;
}

/* The Kubernetes rules: command replaces ENTRYPOINT, args replaces CMD. */
static json_t *argv_of(const json_t *container, const json_t *config)
{
    const json_t *cmd = jx_arr(container, "command"), *args = jx_arr(container, "args");
    bool has_cmd = json_array_size(cmd) > 0, has_args = json_array_size(args) > 0;
    json_t *out = json_array();
    if (!out)
        return NULL;
    int rc = has_cmd ? append_all(out, cmd, false)
                     : append_all(out, jx_arr(config, "Entrypoint"), true);
    if (rc == 0)
        rc = has_args ? append_all(out, args, false)
                      : append_all(out, has_cmd ? NULL : jx_arr(config, "Cmd"), true);
    if (rc < 0) {
        json_decref(out);
        return NULL;
    }
    return out;
}

static bool env_defines(const json_t *env, const char *name, size_t len)
{
    for (size_t i = 0; i < json_array_size(env); i++) {
        const char *n = jx_str(json_array_get(env, i), "name");
        if (n && strlen(n) == len && strncmp(n, name, len) == 0)
            return true;
    }
    return false;
}

/* The image's "NAME=value" variables the container does not set, then the container's. */
static json_t *env_of(const json_t *container, const json_t *config)
{
    const json_t *env = jx_arr(container, "env"), *ienv = jx_arr(config, "Env");
    json_t *out = json_array();
    for (size_t i = 0; out && i < json_array_size(ienv); i++) {
        const char *kv = json_string_value(json_array_get(ienv, i)), *eq = kv ? strchr(kv, '=') : 0;
        if (!eq || eq == kv || env_defines(env, kv, (size_t)(eq - kv)))
            continue;
        json_t *name = json_stringn(kv, (size_t)(eq - kv));
        json_t *e = name ? json_pack("{s:o,s:s}", "name", name, "value", eq + 1) : NULL;
        if (!e || json_array_append_new(out, e) < 0) {
            json_decref(out);
            return NULL;
        }
    }
    for (size_t i = 0; out && i < json_array_size(env); i++) {
        if (json_array_append(out, json_array_get(env, i)) < 0) {
            json_decref(out);
            return NULL;
        }
    }
    return out;
}

json_t *img_container(const json_t *container, const json_t *config, struct err *err)
{
    json_t *c = json_deep_copy(container);
    json_t *argv = argv_of(container, config), *env = env_of(container, config);
    const char *wd = jx_str(container, "workingDir"), *iwd = jx_str(config, "WorkingDir");
    if (!c || !argv || !env)
        goto oom;
    if (json_array_size(argv) == 0) {
        err_set(err, -EINVAL, "container %s: no command, and its image %s has neither "
                "ENTRYPOINT nor CMD", jx_str(container, "name"), jx_str(container, "image"));
        goto fail;
    }
    json_object_del(c, "args");
    if (json_object_set_new(c, "command", argv) < 0 || json_object_set_new(c, "env", env) < 0) {
        argv = env = NULL;
        goto oom;
    }
    argv = env = NULL;
    if (!(wd && *wd) &&
        json_object_set_new(c, "workingDir", json_string(iwd && *iwd ? iwd : "/")) < 0)
        goto oom;
    return c;
oom:
    err_set(err, -ENOMEM, "out of memory");
fail:
    json_decref(c);
    json_decref(argv);
    json_decref(env);
    return NULL;
}

/* ---- the user -------------------------------------------------------------------------- */

static bool number(const char *s, size_t len, unsigned *out)
{
    unsigned long long v = 0;
    if (len == 0 || len > 10)
        return false;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    if (v > 0xffffffffull)
        return false;
    *out = (unsigned)v;
    return true;
}

/* The line of <rootfs>/etc/<file> whose field `key` (0: name, 2: id) is `want` (len bytes):
 * its id (field 2) in *id and, for passwd, its group (field 3) in *gid.  0 found, 1 not. */
static int lookup(const char *rootfs, const char *file, int key, const char *want, size_t len,
                  unsigned *id, unsigned *gid)
{
    char path[4096], line[1024];
    snprintf(path, sizeof(path), "%s/etc/%s", rootfs, file);
    FILE *f = fopen(path, "re");
    int rc = 1;
    while (f && rc == 1 && fgets(line, sizeof(line), f)) {
        char *fields[4] = {line}, *p = line;
        for (int i = 1; i < 4 && (p = strchr(p, ':')); i++) {
            *p++ = '\0';
            fields[i] = p;
        }
        if (!fields[3] && strcmp(file, "passwd") == 0)
            continue;
        if (!fields[2] || strlen(fields[key]) != len || strncmp(fields[key], want, len) != 0)
            continue;
        if (number(fields[2], strlen(fields[2]), id) &&
            (!gid || number(fields[3], strcspn(fields[3], ":\n"), gid)))
            rc = 0;
    }
    if (f)
        fclose(f);
    return rc;
}

/* The image's User: "uid", "uid:gid", "name", "name:group" ("" : root). */
static int image_user(const char *user, const char *rootfs, unsigned *uid, unsigned *gid,
                      struct err *err)
{
    size_t ul = strcspn(user, ":");
    const char *group = user[ul] ? user + ul + 1 : NULL;
    unsigned pw_gid = 0, dummy;
    *uid = *gid = 0;
    if (ul == 0 && !group)
        return 0;
    if (number(user, ul, uid))
        lookup(rootfs, "passwd", 2, user, ul, &dummy, &pw_gid);
    else if (lookup(rootfs, "passwd", 0, user, ul, uid, &pw_gid) != 0)
        return err_set(err, -EINVAL, "the image's user %.*s is not in its /etc/passwd", (int)ul,
                       user);
    *gid = pw_gid;
    if (!group)
        return 0;
    if (!number(group, strlen(group), gid) &&
        lookup(rootfs, "group", 0, group, strlen(group), gid, NULL) != 0)
        return err_set(err, -EINVAL, "the image's group %s is not in its /etc/group", group);
    return 0;
}

/* securityContext.<key> of the container, else of the pod: 0 found, 1 not. */
static int sc_id(const json_t *pod_spec, const json_t *container, const char *key, unsigned *out)
{
    const json_t *v = json_object_get(jx_obj(container, "securityContext"), key);
    if (!json_is_integer(v))
        v = json_object_get(jx_obj(pod_spec, "securityContext"), key);
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 0xffffffffll)
        return 1;
    *out = (unsigned)json_integer_value(v);
    return 0;
}

int img_user(const json_t *pod_spec, const json_t *container, const json_t *config,
             const char *rootfs, unsigned *uid, unsigned *gid, struct err *err)
{
    const char *user = jx_str(config, "User");
    int rc = image_user(user ? user : "", rootfs, uid, gid, err);
    unsigned u;
    if (sc_id(pod_spec, container, "runAsUser", &u) == 0) {
        /* runAsUser alone: the image's group for that user when it names one, as runc */
        unsigned g = 0, dummy;
        char num[16];
        snprintf(num, sizeof(num), "%u", u);
        lookup(rootfs, "passwd", 2, num, strlen(num), &dummy, &g);
        *uid = u;
        *gid = g;
        rc = 0;
    }
    sc_id(pod_spec, container, "runAsGroup", gid);
    return rc;
}
