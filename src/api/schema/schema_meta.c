/* schema_meta: ObjectMeta, the root metadata of every Kubernetes object, as an API server
 * decodes it (k8s.io/apimachinery pkg/apis/meta/v1/types.go: ObjectMeta, OwnerReference,
 * ManagedFieldsEntry; the same in every release since managedFields.subresource, 1.22).  The
 * metadata nested in templates is the CRDs' own (schema_crd.c). */
#include "api/schema/schema.h"

#include <stddef.h>

#define N(a) ((unsigned)(sizeof(a) / sizeof((a)[0])))

static const struct sch_field owner_ref_f[] = {
    {"apiVersion", SCH_LEAF, NULL}, {"kind", SCH_LEAF, NULL},
    {"name", SCH_LEAF, NULL},       {"uid", SCH_LEAF, NULL},
    {"controller", SCH_LEAF, NULL}, {"blockOwnerDeletion", SCH_LEAF, NULL},
};
static const struct sch_type owner_ref = {owner_ref_f, N(owner_ref_f), false};

static const struct sch_field managed_fields_f[] = {
    {"manager", SCH_LEAF, NULL},    {"operation", SCH_LEAF, NULL},
    {"apiVersion", SCH_LEAF, NULL}, {"time", SCH_LEAF, NULL},
    {"fieldsType", SCH_LEAF, NULL}, {"fieldsV1", SCH_LEAF, NULL},
    {"subresource", SCH_LEAF, NULL},
};
static const struct sch_type managed_fields = {managed_fields_f, N(managed_fields_f), false};

static const struct sch_field object_meta_f[] = {
    {"name", SCH_LEAF, NULL},
    {"generateName", SCH_LEAF, NULL},
    {"namespace", SCH_LEAF, NULL},
    {"selfLink", SCH_LEAF, NULL},
    {"uid", SCH_LEAF, NULL},
    {"resourceVersion", SCH_LEAF, NULL},
    {"generation", SCH_LEAF, NULL},
    {"creationTimestamp", SCH_LEAF, NULL},
    {"deletionTimestamp", SCH_LEAF, NULL},
    {"deletionGracePeriodSeconds", SCH_LEAF, NULL},
    {"labels", SCH_LEAF, NULL},
    {"annotations", SCH_LEAF, NULL},
    {"ownerReferences", SCH_LIST, &owner_ref},
    {"finalizers", SCH_LEAF, NULL},
    {"managedFields", SCH_LIST, &managed_fields},
};
const struct sch_type sch_object_meta = {object_meta_f, N(object_meta_f), false};
