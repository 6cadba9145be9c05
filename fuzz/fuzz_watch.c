/* fuzz_watch: a watch stream, any bytes, goes through what the controller's Job informer does
 * with it (kube/cache_inf.c on_event and apply): each line decoded by kc_watch_event, which
 * never fails on input (a line it cannot read is an UNDECODABLE event, so one bad object cannot
 * end the watch), the object slimmed (ctl_slim_job) and stored in a kstore or deleted from it.
 * Checked: every event has a string type; what is stored reads back under its key with the
 * same slim text; a deleted key is gone; the owner index holds only objects of that owner.
 * Built as a libFuzzer target with clang (JAXSET_FUZZ) and linked with fuzz/replay.c as the
 * CTest test fuzz/fuzz_watch. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/ctl/ctl_slim.h"
#include "kube/client/kc.h"
#include "kube/cache/cache_store.h"
#include "obj/tree/jx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fz_die(const char *why, const json_t *v)
{
    char *text = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    fprintf(stderr, "fuzz_watch: %s: %s\n", why, text ? text : "(none)");
    free(text);
    abort();
}

static void fz_owned(const struct cache_store *s, const json_t *slim)
{
    const char *uid = cache_store_owner_uid(slim);
    if (!uid)
        return;
    json_t *owned = cache_store_owned(s, uid);
    size_t i;
    json_t *o;
    json_array_foreach (owned, i, o) {
        const char *u = cache_store_owner_uid(o);
        if (!u || strcmp(u, uid) != 0)
            fz_die("the owner index holds an object of another owner", o);
    }
    json_decref(owned);
}

/* Whether `back` (read from the store) is `slim` as stored: the key's name and namespace
 * stand for metadata.name and metadata.namespace (a namespace that is not a string is kept as
 * none, as the key has it). */
static bool fz_same(const json_t *back, const json_t *slim)
{
    json_t *a = json_deep_copy(back), *b = json_deep_copy(slim);
    bool same = false;
    if (a && b) {
        json_object_del(jx_obj(a, "metadata"), "namespace");
        json_object_del(jx_obj(b, "metadata"), "namespace");
        same = json_equal(a, b);
    }
    json_decref(a);
    json_decref(b);
    const char *na = jx_str(jx_obj(back, "metadata"), "namespace");
    const char *nb = jx_str(jx_obj(slim, "metadata"), "namespace");
    return same && strcmp(na ? na : "", nb ? nb : "") == 0;
}

static void fz_apply(struct cache_store *s, const char *type, const json_t *obj)
{
    char key[512];
    if (!json_is_object(obj) || !cache_store_key(obj, key, sizeof(key)))
        return; /* the informer logs and skips it */
    const json_t *m = jx_obj(obj, "metadata");
    const char *ns = jx_str(m, "namespace"), *name = jx_str(m, "name");
    if (strcmp(type, "DELETED") == 0) {
        cache_store_del(s, ns, name);
        json_t *left = cache_store_get(s, ns, name);
        if (left)
            fz_die("a deleted key still reads", left);
        return;
    }
    json_t *slim = ctl_slim_job(obj);
    if (!slim)
        return;
    if (cache_store_put(s, slim) < 0)
        fz_die("cache_store_put failed", slim);
    json_t *back = cache_store_get(s, ns, name);
    if (!back || !fz_same(back, slim))
        fz_die("what was stored does not read back", slim);
    fz_owned(s, slim);
    json_decref(back);
    json_decref(slim);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cache_store *s = cache_store_new();
    const char *p = (const char *)data, *end = p + size;
    while (s && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        json_t *ev = kc_watch_event(p, len);
        const char *type = jx_str(ev, "type");
        if (!ev || !type)
            fz_die("an event without a type", ev);
        if (strcmp(type, "UNDECODABLE") == 0 && !jx_str(ev, "error"))
            fz_die("an UNDECODABLE event without its error", ev);
        if (strcmp(type, "BOOKMARK") != 0 && strcmp(type, "ERROR") != 0)
            fz_apply(s, type, jx_obj(ev, "object"));
        json_decref(ev);
        p += len + 1;
    }
    cache_store_free(s);
    return 0;
}
