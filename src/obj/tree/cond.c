/* cond: status conditions found, tested, set and removed in one place (cond.h). */
#include "obj/tree/cond.h"

#include <errno.h>
#include <string.h>

#include "obj/tree/jx.h"

#define KEY_LIST "conditions"
#define KEY_TRANSITION "lastTransitionTime"

/* NULL reads as "" (Go's zero string), as the upstream comparisons of two conditions see it. */
static bool str_eq(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

/* ---- reading ------------------------------------------------------------------------------ */

json_t *cond_list(const json_t *holder)
{
    return jx_arr(holder, KEY_LIST);
}

json_t *cond_find(const json_t *holder, const char *type, size_t *idx)
{
    size_t i;
    json_t *c;
    json_array_foreach (cond_list(holder), i, c) {
        const char *t = jx_str(c, "type");
        if (t && type && strcmp(t, type) == 0) {
            if (idx)
                *idx = i;
            return c;
        }
    }
    return NULL;
}

bool cond_is(const json_t *holder, const char *type, const char *status)
{
    const char *s = jx_str(cond_find(holder, type, NULL), "status");
    return s && status && strcmp(s, status) == 0;
}

bool cond_true(const json_t *holder, const char *type)
{
    return cond_is(holder, type, COND_TRUE);
}

const char *cond_transition(const json_t *cond)
{
    return jx_str(cond, KEY_TRANSITION);
}

/* ---- writing ------------------------------------------------------------------------------ */

/* o[key] = v unless v is NULL. */
static int put(json_t *o, const char *key, const char *v)
{
    return v ? jx_set_str(o, key, v) : 0;
}

json_t *cond_new(const struct cond *c)
{
    bool first = c->transition_first;
    json_t *o = c->type && c->status ? json_object() : NULL;
    if (!o || jx_set_str(o, "type", c->type) || jx_set_str(o, "status", c->status) ||
        (first && put(o, KEY_TRANSITION, c->transition)) || put(o, "reason", c->reason) ||
        put(o, "message", c->message) || put(o, "lastUpdateTime", c->updated) ||
        put(o, "lastProbeTime", c->probed) || (!first && put(o, KEY_TRANSITION, c->transition))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

int cond_append(json_t *holder, json_t *cond)
{
    json_t *list = cond ? jx_ensure_arr(holder, KEY_LIST) : NULL;
    if (!list) {
        json_decref(cond);
        return -ENOMEM;
    }
    return json_array_append_new(list, cond) < 0 ? -ENOMEM : 0;
}

int cond_replace(json_t *holder, size_t i, json_t *cond)
{
    return json_array_set_new(cond_list(holder), i, cond) < 0 ? -ENOMEM : 0;
}

int cond_list_set(json_t *holder, json_t *list)
{
    return jx_set_new(holder, KEY_LIST, list) ? -ENOMEM : 0;
}

int cond_remove(json_t *holder, const char *type)
{
    size_t i;
    if (!cond_find(holder, type, &i))
        return 0;
    return json_array_remove(cond_list(holder), i) < 0 ? 0 : 1;
}

/* ---- meta.SetStatusCondition -------------------------------------------------------------- */

int cond_set(json_t *holder, const struct cond *c)
{
    json_t *cur = cond_find(holder, c->type, NULL);
    if (!cur)
        return cond_append(holder, cond_new(c)) ? -ENOMEM : 1;
    const char *cs = jx_str(cur, "status");
    bool moved = !cs || strcmp(cs, c->status) != 0;
    int changed = moved || !str_eq(jx_str(cur, "reason"), c->reason) ||
                  !str_eq(jx_str(cur, "message"), c->message);
    struct cond k = *c;
    if (!moved)
        k.transition = cond_transition(cur);
    json_t *nc = cond_new(&k);
    int rc = nc ? json_object_update(cur, nc) : -1;
    json_decref(nc);
    return rc < 0 ? -ENOMEM : changed;
}

/* ---- JobSet updateCondition --------------------------------------------------------------- */

/* updateCondition's loop body for condition i.  Returns 1 changed, 0 unchanged, -ENOMEM;
 * *found is set for c's type. */
static int update_one(json_t *holder, size_t i, const struct cond *c, const char *complement,
                      bool *found)
{
    json_t *e = json_array_get(cond_list(holder), i);
    const char *etype = jx_str(e, "type"), *estatus = jx_str(e, "status");
    if (!str_eq(etype, c->type)) {
        if (!complement || !str_eq(etype, complement) || !str_eq(estatus, COND_TRUE) ||
            !str_eq(c->status, COND_TRUE))
            return 0;
        return jx_set_str(e, "status", COND_FALSE) ? -ENOMEM : 1;
    }
    *found = true;
    struct cond k = *c;
    if (str_eq(estatus, c->status)) {
        if (str_eq(jx_str(e, "reason"), c->reason) && str_eq(jx_str(e, "message"), c->message))
            return 0;
        k.transition = cond_transition(e); /* copied by cond_new before e goes */
    }
    return cond_replace(holder, i, cond_new(&k)) ? -ENOMEM : 1;
}

int cond_update(json_t *holder, const struct cond *c, const char *complement)
{
    bool found = false;
    int changed = 0;
    for (size_t i = 0; i < json_array_size(cond_list(holder)); i++) {
        int rc = update_one(holder, i, c, complement, &found);
        if (rc < 0)
            return rc;
        changed |= rc;
    }
    if (found || !str_eq(c->status, COND_TRUE))
        return changed;
    return cond_append(holder, cond_new(c)) ? -ENOMEM : 1;
}

/* ---- Kubeflow setCondition ---------------------------------------------------------------- */

/* filterOutCondition: copies of the conditions of `list` that stay, or NULL on OOM. */
static json_t *filter_out(const json_t *list, const char *type, const char *drop,
                          const char *turn_false)
{
    json_t *out = json_array(), *c;
    size_t i;
    json_array_foreach (list, i, c) {
        const char *t = jx_str(c, "type");
        if (!out || !t || strcmp(t, type) == 0 || (drop && strcmp(t, drop) == 0))
            continue;
        json_t *k = json_copy(c);
        if (k && turn_false && strcmp(t, turn_false) == 0 && jx_set_str(k, "status", COND_FALSE)) {
            json_decref(k);
            k = NULL;
        }
        if (!k || json_array_append_new(out, k) < 0) {
            json_decref(out);
            return NULL;
        }
    }
    return out;
}

int cond_set_kubeflow(json_t *holder, const struct cond *c, const char *drop,
                      const char *turn_false)
{
    const json_t *cur = cond_find(holder, c->type, NULL);
    const char *cs = jx_str(cur, "status"), *cr = jx_str(cur, "reason");
    bool stays = cs && strcmp(cs, c->status) == 0;
    if (stays && cr && c->reason && strcmp(cr, c->reason) == 0)
        return 0;
    struct cond k = *c;
    if (stays && cond_transition(cur))
        k.transition = cond_transition(cur);
    json_t *nc = cond_new(&k), *list = filter_out(cond_list(holder), c->type, drop, turn_false);
    if (!nc || !list) {
        json_decref(nc);
        json_decref(list);
        return -ENOMEM;
    }
    if (json_array_append_new(list, nc) < 0) {
        json_decref(list);
        return -ENOMEM;
    }
    return cond_list_set(holder, list) ? -ENOMEM : 1;
}
