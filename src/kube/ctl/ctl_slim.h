/* ctl_slim: what the controller's caches keep of each kind (ctl_slim.c).  Each returns a new
 * reference, or NULL when the object is not kept (a Service no JobSet controls) or on OOM. */
#ifndef JX_KUBE_CTL_CTL_SLIM_H
#define JX_KUBE_CTL_CTL_SLIM_H

#include <jansson.h>

json_t *ctl_slim_job(const json_t *job);
json_t *ctl_slim_service(const json_t *svc);
json_t *ctl_slim_jobset(const json_t *js);
json_t *ctl_slim_pod_group(const json_t *pg);

#endif
