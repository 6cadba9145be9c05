/* labelsel: equality-based label selectors. */
#include "cli/util/labelsel.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "obj/tree/jx.h"

/* One requirement, `req` of `len` bytes: 1 met, 0 not, -EINVAL unreadable. */
static int requirement(const char *req, size_t len, const json_t *labels)
{
    char key[320], want[320];
    const char *op = NULL;
    while (len && *req == ' ') {
        req++;
        len--;
    }
    if (!len)
        return -EINVAL;
    size_t klen = len, skip = 0;
    bool neg = false, not_there = req[0] == '!';
    for (size_t i = 0; i < len && !op; i++)
        if (req[i] == '=' || (req[i] == '!' && i + 1 < len && req[i + 1] == '=')) {
            op = req + i;
            klen = i;
            neg = req[i] == '!';
            skip = neg || (i + 1 < len && req[i + 1] == '=') ? 2 : 1;
        }
    if (not_there && op)
        return -EINVAL;
    const char *k = req + not_there;
    klen -= not_there;
    while (klen && k[klen - 1] == ' ')
        klen--;
    if (!klen || klen >= sizeof(key) || memchr(k, ' ', klen) || memchr(k, '(', klen))
        return -EINVAL;
    memcpy(key, k, klen);
    key[klen] = 0;
    const char *have = jx_str(labels, key);
    if (!op)
        return not_there ? !json_object_get(labels, key) : json_object_get(labels, key) != NULL;
    size_t vlen = len - (size_t)(op - req) - skip;
    const char *v = op + skip;
    while (vlen && *v == ' ') {
        v++;
        vlen--;
    }
    while (vlen && v[vlen - 1] == ' ')
        vlen--;
    if (vlen >= sizeof(want) || memchr(v, '=', vlen) || memchr(v, '!', vlen))
        return -EINVAL;
    memcpy(want, v, vlen);
    want[vlen] = 0;
    bool eq = have && !strcmp(have, want);
    return neg ? !eq : eq;
}

int labelsel_match(const char *selector, const json_t *obj)
{
    const json_t *labels = jx_obj(jx_obj(obj, "metadata"), "labels");
    int all = 1;
    while (selector && *selector) {
        size_t len = strcspn(selector, ",");
        int rc = len ? requirement(selector, len, labels) : -EINVAL;
        if (rc < 0)
            return rc;
        all &= rc;
        selector += len + (selector[len] == ',');
    }
    return all;
}
