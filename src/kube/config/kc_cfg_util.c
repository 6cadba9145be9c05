/* kc_cfg (kubeconfig): typed fields, files, paths and wiping (kc_cfg_int.h). */
#include "kube/config/kc_cfg_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "obj/base/b64.h"
#include "obj/base/sbuf.h"

int kc_cfg__str(const json_t *o, const char *key, const char **out, struct err *e)
{
    const json_t *v = json_object_get(o, key);
    *out = NULL;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v))
        return err_set(e, -EINVAL, "%s: must be a string", key);
    if (json_string_length(v))
        *out = json_string_value(v);
    return 0;
}

int kc_cfg__bool(const json_t *o, const char *key, bool *out, struct err *e)
{
    const json_t *v = json_object_get(o, key);
    *out = false;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_boolean(v))
        return err_set(e, -EINVAL, "%s: must be a boolean", key);
    *out = json_is_true(v);
    return 0;
}

int kc_cfg__data(const json_t *o, const char *key, char **out, size_t *len, struct err *e)
{
    const char *s;
    *out = NULL;
    *len = 0;
    int rc = kc_cfg__str(o, key, &s, e);
    if (rc < 0 || !s)
        return rc;
    rc = b64_decode(s, strlen(s), out, len);
    if (rc == -EINVAL)
        return err_set(e, rc, "%s: invalid base64", key);
    if (rc < 0)
        return err_set(e, rc, "%s: " ERR_OOM_MSG, key);
    if (*len == 0) {
        free(*out);
        *out = NULL;
    }
    return 0;
}

/* Grows *buf to `cap` bytes, wiping the old copy (it may hold a key). */
static int grow(char **buf, size_t used, size_t cap)
{
    char *n = malloc(cap);
    if (!n)
        return -ENOMEM;
    if (*buf)
        memcpy(n, *buf, used);
    kc_cfg__wipe_free(*buf, used);
    *buf = n;
    return 0;
}

static int read_fd(int fd, size_t hint, char **out, size_t *len)
{
    size_t cap = hint + 1 < 4096 ? 4096 : hint + 1, used = 0;
    char *buf = NULL;
    int rc = grow(&buf, 0, cap);
    while (rc == 0) {
        if (used + 1 == cap) {
            rc = cap >= KC_CFG_FILE_MAX ? -EFBIG : grow(&buf, used, cap * 2);
            cap *= 2;
            continue;
        }
        ssize_t n = read(fd, buf + used, cap - used - 1);
        if (n < 0 && errno != EINTR)
            rc = -errno;
        else if (n == 0)
            break;
        else if (n > 0)
            used += (size_t)n;
    }
    if (rc < 0 || used > KC_CFG_FILE_MAX) {
        kc_cfg__wipe_free(buf, used);
        return rc < 0 ? rc : -EFBIG;
    }
    buf[used] = '\0';
    *out = buf;
    *len = used;
    return 0;
}

int kc_cfg__read_file(const char *path, char **out, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct stat st;
    int rc = fstat(fd, &st) < 0 ? -errno : S_ISDIR(st.st_mode) ? -EISDIR : 0;
    if (rc == 0)
        rc = read_fd(fd, st.st_size > 0 && st.st_size < KC_CFG_FILE_MAX ? (size_t)st.st_size : 0,
                     out, len);
    close(fd);
    return rc;
}

char *kc_cfg__resolve(const char *dir, const char *path)
{
    if (path[0] == '/' || !dir)
        return strdup(path);
    return sb_fmt("%s/%s", dir, path);
}

void kc_cfg__wipe_free(char *p, size_t len)
{
    if (!p)
        return;
    explicit_bzero(p, len);
    free(p);
}

void kc_cfg__wipe_str(char *p)
{
    if (p)
        kc_cfg__wipe_free(p, strlen(p));
}

void kc_cfg__json_wipe(json_t *v)
{
    const char *k;
    json_t *x;
    size_t i;
    if (json_is_string(v)) {
        /* jansson owns the bytes; wiping them in place before the tree is freed is safe. */
        explicit_bzero((char *)json_string_value(v), json_string_length(v));
    } else if (json_is_object(v)) {
        json_object_foreach (v, k, x)
            kc_cfg__json_wipe(x);
    } else if (json_is_array(v)) {
        json_array_foreach (v, i, x)
            kc_cfg__json_wipe(x);
    }
}

char *kc_cfg__dup(const char *s, bool *ok)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        *ok = false;
    return d;
}

void kc_cfg__err_in(struct err *e, const char *what)
{
    if (!e)
        return;
    size_t n = strlen(what);
    if (!strncmp(e->msg, what, n) && !strncmp(e->msg + n, ": ", 2))
        memmove(e->msg, e->msg + n + 2, strlen(e->msg + n + 2) + 1);
    struct sbuf p = SBUF_INIT;
    sb_printf(&p, "kubeconfig %s", what);
    err_prefix(e, sb_failed(&p) ? "kubeconfig" : sb_str(&p));
    sb_free(&p);
}
