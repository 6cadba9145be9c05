/* The controller owner reference to the JobSet that the objects construct builds carry (child
 * Jobs, the headless Service, the PVCs not retained), as controller-runtime's
 * SetControllerReference writes it for upstream (kubernetes-sigs/jobset
 * pkg/controllers/jobset_controller.go, constructJob and createHeadlessSvcIfNecessary).  Below
 * construct.c and construct_pvc.c, which both use it. */
#include "api/child/construct.h"

#include "api/schema/keys.h"

json_t *construct_owner_ref(const struct js_view *v)
{
    /* A JobSet without metadata.uid (render assigns one first) gets "". */
    return json_pack("{s:s,s:s,s:s,s:s,s:b,s:b}", "apiVersion", JOBSET_GROUP_VERSION, "kind",
                     JOBSET_KIND, "name", v->name, "uid", v->uid ? v->uid : "", "controller", 1,
                     "blockOwnerDeletion", 1);
}
