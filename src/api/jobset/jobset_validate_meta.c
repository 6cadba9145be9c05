/* Object metadata checks shared by the JobSet's, the Job template's, the pod template's and the
 * PVC templates' metadata: the ObjectMeta schema table and the label and annotation rules
 * (k8s.io/apimachinery pkg/apis/meta/v1/validation ValidateLabels, pkg/api/validation
 * ValidateAnnotations).  Below jobset_validate.c, jobset_validate_policy.c and
 * job_template_validate.c, and calling none of them. */
#include "api/jobset/jobset_validate_int.h"
#include "obj/tree/dns.h"
#include "obj/tree/jx.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const struct chk_field js__meta_fields[] = {
    CHK_F("name", CHK_STR),      CHK_F("generateName", CHK_STR),   CHK_F("namespace", CHK_STR),
    CHK_F("labels", CHK_STRMAP), CHK_F("annotations", CHK_STRMAP), CHK_F_END,
};

static void check_annotation_keys(struct jsv *c, const json_t *ann, const char *path)
{
    const char *k;
    const json_t *v;
    struct dns_msgs m;
    json_object_foreach((json_t *)ann, k, v)
    {
        char *lower = strdup(k);
        if (!lower) {
            c->chk.rc = -ENOMEM;
            return;
        }
        for (char *p = lower; *p; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
        dns_qualified_name(lower, &m);
        free(lower);
        chk_dns(&c->chk, path, k, &m, NULL);
    }
}

void js__meta_maps(struct jsv *c, const json_t *meta, const char *meta_path)
{
    char p[FPATH_MAX];
    const char *k;
    const json_t *v;
    struct dns_msgs m;
    fpath_field(p, meta_path, "labels");
    json_object_foreach(jx_obj(meta, "labels"), k, v)
    {
        dns_qualified_name(k, &m);
        chk_dns(&c->chk, p, k, &m, NULL);
        if (!json_is_string(v))
            continue;
        dns_label_value(json_string_value(v), &m);
        chk_dns(&c->chk, p, json_string_value(v), &m, NULL);
    }
    fpath_field(p, meta_path, "annotations");
    check_annotation_keys(c, jx_obj(meta, "annotations"), p);
}
