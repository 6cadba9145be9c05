/* pod_meta: the numbers a pod's metadata carries as strings (labels and annotations the Job
 * and JobSet controllers write), read one way everywhere.  Pure. */
#ifndef JX_API_POD_META_H
#define JX_API_POD_META_H

#include <jansson.h>

/* metadata `meta`'s `field` ("labels" or "annotations") entry `key` as the controllers write a
 * count or an index: a non-negative decimal of at most 9 digits; -1 when absent or not one. */
long long pod_meta_int(const json_t *meta, const char *field, const char *key);

/* The pod's index in its Indexed Job: the annotation batch.kubernetes.io/job-completion-index,
 * else the label of that name (Kubernetes 1.28 sets both); -1 when neither is one. */
long long pod_completion_index(const json_t *meta);

#endif
