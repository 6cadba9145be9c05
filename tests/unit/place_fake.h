/* A fake cluster for the placement tables (api/child/placement.h): pods and Nodes as JSON, found as
 * upstream's fake client with the podName index finds them. */
#ifndef JX_TESTS_PLACE_FAKE_H
#define JX_TESTS_PLACE_FAKE_H

#include <errno.h>
#include <string.h>

#include "api/schema/keys.h"
#include "api/child/placement.h"
#include "obj/tree/jx.h"

struct place_fake {
    json_t *pods;  /* array */
    json_t *nodes; /* name -> Node */
    int node_err;  /* nonzero: node lookups fail with it */
};

static json_t *fake_pods_named(void *arg, const char *ns, const char *base)
{
    struct place_fake *f = arg;
    json_t *out = json_array(), *p;
    size_t i;
    char idx[256];
    json_array_foreach (f->pods, i, p) {
        const json_t *m = jx_obj(p, "metadata");
        const char *pns = jx_str(m, "namespace");
        if (!jx_get_meta(m, "annotations", ANN_EXCLUSIVE_TOPOLOGY) ||
            strcmp(pns ? pns : "", ns) != 0 ||
            place_index_name(jx_str(m, "name"), idx, sizeof(idx)) < 0 || strcmp(idx, base) != 0)
            continue;
        json_array_append(out, p);
    }
    return out;
}

static int fake_node(void *arg, const char *name, json_t **out)
{
    struct place_fake *f = arg;
    if (f->node_err)
        return f->node_err;
    json_t *n = name ? json_object_get(f->nodes, name) : NULL;
    if (!n)
        return -ENOENT;
    *out = json_incref(n);
    return 0;
}

static inline struct place_src fake_src(struct place_fake *f)
{
    return (struct place_src){fake_pods_named, fake_node, f};
}

#endif
