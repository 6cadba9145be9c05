/* The JAXJob validating webhook at /validate-kubeflow-org-v1-jaxjob for CREATE and UPDATE:
 * the rules of api/admit/jaxjob_admission.h (kubeflow/training-operator pkg/webhooks/jax), the same
 * that `jaxset validate --cluster` and a local run apply.  Whether the JAXJob can run (its
 * conversion to a JobSet) is the JAXJob controller's to report, as upstream's controller does. */
#include <string.h>

#include "api/admit/jaxjob_admission.h"
#include "kube/webhook/wh_jobset.h"
#include "obj/tree/jx.h"

int wh_jaxjob_validate(void *arg, const json_t *req, struct wh_adm_result *r)
{
    (void)arg;
    const json_t *obj = jx_obj(req, "object");
    const char *op = jx_str(req, "operation");
    if (!obj || !op || (strcmp(op, "CREATE") != 0 && strcmp(op, "UPDATE") != 0))
        return 0;
    struct ferr_list errs;
    ferr_list_init(&errs);
    int rc = jja_validate(obj, true, &errs);
    if (rc == 0 && errs.rc < 0)
        rc = errs.rc;
    if (rc == 0 && errs.n > 0)
        rc = wh_adm_deny_invalid(r, "kubeflow.org", "JAXJob", jx_str(jx_obj(obj, "metadata"), "name"),
                              &errs);
    ferr_list_release(&errs);
    return rc;
}
