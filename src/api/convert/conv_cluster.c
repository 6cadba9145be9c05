/* conv_cluster: the JobSet a cluster controller creates for a JAXJob or a TrainJob: the
 * converter's JobSet, checked as the JobSet webhook and the controller would check it (defaults,
 * validation with the controller's feature gates, the JAX runtime) on a copy, so that a JobSet
 * that would never run is not created; errors name the user's fields (conv_user_path). */
#include "api/convert/convert.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/child/jaxrt.h"
#include "api/jobset/jobset.h"
#include "obj/tree/jx.h"

static int check_copy(const json_t *js, const struct feature_gates *g, struct ferr_list *errs)
{
    json_t *c = json_deep_copy(js);
    struct js_view v;
    struct jaxrt rt = {0};
    int rc = c && js_default(c) == 0 ? js_validate_gated(c, g, errs) : -ENOMEM;
    if (rc == 0 && !jx_str(jx_obj(c, "metadata"), "uid"))
        rc = jx_set_str(jx_obj(c, "metadata"), "uid", "00000000-0000-0000-0000-000000000000");
    if (rc == 0 && (rc = js_view_init(&v, c)) == 0) {
        rc = jaxrt_init(&rt, c, &v, errs);
        jaxrt_release(&rt);
        js_view_release(&v);
    }
    json_decref(c);
    return rc;
}

static int relocate(const char *kind, const json_t *doc, const json_t *runtime,
                    struct ferr_list *errs, size_t from)
{
    int rc = 0;
    for (size_t i = from; rc == 0 && i < errs->n; i++) {
        bool in_rt = false;
        char *path = conv_user_path(kind, doc, runtime, errs->v[i].path, &in_rt);
        if (path)
            rc = ferr_move_to(&errs->v[i], path, in_rt ? "in the runtime" : NULL);
    }
    return rc < 0 ? rc : ferr_list_drop_repeats(errs, from);
}

json_t *conv_for_cluster(const char *kind, const json_t *doc, const json_t *runtime,
                         const struct feature_gates *g, struct ferr_list *errs)
{
    size_t from = errs->n;
    json_t *js = strcmp(kind, "JAXJob") == 0 ? conv_jaxjob(doc, errs)
                                             : conv_trainjob(doc, runtime, errs);
    if (!js)
        return NULL;
    int rc = check_copy(js, g, errs);
    if (rc >= 0 && errs->n > from)
        rc = relocate(kind, doc, runtime, errs, from);
    if (rc < 0 || errs->n > from) {
        json_decref(js);
        return NULL;
    }
    return js;
}
