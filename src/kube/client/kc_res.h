/* kc_res: the kinds the CLI sends to and reads from a cluster, and their REST paths (kubectl's
 * RESTMapper for the few kinds jaxset knows: JobSet, JAXJob, TrainJob and what the files beside
 * them hold, plus the batch/v1 Jobs, Pods and Events a job's description reads). */
#ifndef JX_KUBE_CLIENT_KC_RES_H
#define JX_KUBE_CLIENT_KC_RES_H

#include <jansson.h>
#include <stdbool.h>

#include "api/schema/keys.h"

struct kc_res {
    const char *kind;     /* "JobSet" */
    const char *group;    /* "" for the core group */
    const char *version;  /* "v1alpha2" */
    const char *plural;   /* "jobsets" */
    const char *singular; /* "jobset" */
    const char *short_name; /* "js", or NULL */
    bool namespaced;
    enum job_kind family; /* JOB_KIND_OTHER: ConfigMap, Secret, a training runtime, Job, Pod,
                           * Event */
};

/* The kind a command-line word names, as kubectl resolves it (any case): the kind, its
 * singular, plural or short name, or "plural.group".  NULL when jaxset knows no such kind.
 * Static. */
const struct kc_res *kc_res_find(const char *word);

/* The kind of `obj` by its apiVersion and kind; NULL when not one of kres's.  Static. */
const struct kc_res *kc_res_of(const json_t *obj);

/* The job kinds a user names with `get`, `wait`...: those whose family is not JOB_KIND_OTHER.
 * "jobset, jaxjob, trainjob" (static), for messages. */
const char *kc_res_job_kinds(void);

/* "/apis/<group>/<version>[/namespaces/<ns>]/<plural>[/<name>[/<sub>]]" ("/api/v1/..." for
 * the core group; ns and name URL-escaped); `name` and `sub` may be NULL, `ns` is ignored for
 * cluster-scoped kinds.
 * Malloc'd (caller frees); NULL on OOM. */
char *kc_res_path(const struct kc_res *r, const char *ns, const char *name, const char *sub);

/* "<singular>.<group>" ("jobset.jobset.x-k8s.io"; "pod" for the core group), as kubectl's
 * `-o name` and messages write a kind.  Writes into out (64 bytes). */
#define KC_RES_QUALIFIED_MAX 64
const char *kc_res_qualified(const struct kc_res *r, char out[KC_RES_QUALIFIED_MAX]);

#endif
