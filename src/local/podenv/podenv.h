/* podenv: what the kubelet computes for a container before starting it, computed for a local
 * process: the environment, the expanded command line and the working directory.
 *
 * Environment, in order (a later entry with the same name replaces an earlier one):
 *   1. jaxset's own environment (`base`), as torchrun and mpirun pass theirs on;
 *   2. HOSTNAME = the pod's hostname;
 *   3. the container's env[]: `value` with $(VAR) expansion against what is defined so far
 *      ($$ is a literal $, an undefined reference stays as written, as in Kubernetes), and
 *      `valueFrom.fieldRef` for metadata.name, metadata.namespace, metadata.uid,
 *      metadata.labels['k'], metadata.annotations['k'], spec.nodeName,
 *      spec.serviceAccountName, status.podIP, status.hostIP, status.podIPs, and
 *      `valueFrom.configMapKeyRef` / `secretKeyRef` (and `envFrom` before the env entries,
 *      with its prefix) from the ConfigMaps and Secrets of the manifest files (pod.objects):
 *      what the kubelet reads from the API server;
 *   4. `extra` (JOB_COMPLETION_INDEX, the JAX variables, CUDA_VISIBLE_DEVICES...), which the
 *      manifest cannot override (validation already refused the JAX names); an entry with
 *      "join": SEP is put before the value the variable has so far, joined by SEP
 *      (LD_PRELOAD), instead of replacing it.
 * command + args are expanded with the same $(VAR) rules against the final environment. */
#ifndef JX_PODENV_H
#define JX_PODENV_H

#include <jansson.h>
#include <stdbool.h>

#include "obj/base/err.h"

struct podenv_pod {
    const json_t *meta;     /* the pod's metadata: name, namespace, uid, labels, annotations */
    const char *hostname;
    const char *pod_ip;
    const char *host_ip;
    const char *node_name;
    const json_t *pod_spec; /* serviceAccountName */
    const json_t *objects;  /* the ConfigMaps and Secrets of the manifest files (may be NULL) */
    const char *ns;         /* the pod's namespace (NULL: the metadata's, else "default") */
};

/* A NULL-terminated array of "NAME=value" strings, all owned. */
struct podenv_strv {
    char **v;
    size_t n;
};

void podenv_strv_free(struct podenv_strv *s);

/* Computes the environment and argv of `container` (borrowed JSON of a pod's container).
 * `base` is NULL-terminated "NAME=value" (may be NULL); `extra` is a JSON array of
 * {name, value} (may be NULL).  Fails with -EINVAL and err set when the container has no
 * command (there is no image entrypoint to fall back on locally) or uses an env source that
 * cannot exist on one machine (configMapKeyRef, secretKeyRef, envFrom).  Outputs are written
 * only on success. */
int podenv_build(const json_t *container, const struct podenv_pod *pod, const char *const *base,
                 const json_t *extra, struct podenv_strv *out_env, struct podenv_strv *out_argv,
                 struct err *err);

/* The longest value an expansion may produce: Linux's limit for one argument or environment
 * string (MAX_ARG_STRLEN, 32 pages).  Chains of $(VAR) that double at each step stop here
 * instead of growing exponentially. */
#define PODENV_VALUE_MAX (128 * 1024)

/* ConfigMap (secret false) or Secret `ref` {name, key} of namespace ns among `objects`: 0 with
 * *out (malloc'd; a Secret's data base64-decoded, or its stringData), -ENOENT no such object,
 * -JX_EMISSINGKEY no such key, -EINVAL bad base64, -ENOMEM. */
int podenv_ref_value(const json_t *objects, const char *ns, const json_t *ref, bool secret,
                     char **out);
/* Calls fn for every key of the ConfigMap or Secret `src` {name} (a Secret's values decoded).
 * 0, -ENOENT, or fn's or the decoding's negative result. */
int podenv_ref_each(const json_t *objects, const char *ns, const json_t *src, bool secret,
                    int (*fn)(void *ctx, const char *key, const char *value), void *ctx);

/* The ConfigMap or Secret (kind) `name` of namespace ns ("default" when NULL) among
 * `objects`, or NULL.  Borrowed. */
const json_t *podenv_object(const json_t *objects, const char *kind, const char *ns,
                            const char *name);
/* Standard base64 (a Secret's data) into a malloc'd buffer, NUL-terminated, its length in
 * *len (may be NULL); NULL when invalid or out of memory. */
char *podenv_b64_decode(const char *in, size_t *len);
/* The value of a fieldRef's fieldPath for the pod (metadata.name, metadata.labels['k']...,
 * as in env): 0 with *out (borrowed, "" when absent), or -EINVAL for a path not supported. */
int podenv_field(const char *path, const struct podenv_pod *pod, const char **out);

/* Expands $(VAR) references in `in` against `env`; returns a malloc'd string, or NULL with
 * errno E2BIG past PODENV_VALUE_MAX, or NULL on OOM. */
char *podenv_expand(const char *in, const struct podenv_strv *env);

#endif
