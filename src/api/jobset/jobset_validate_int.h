/* jobset_validate_int: the validation run shared by jobset_validate.c, jobset_validate_policy.c
 * and job_template_validate.c, on the checker of api/schema/check.h.  Not part of the public API. */
#ifndef JX_JOBSET_VALIDATE_INT_H
#define JX_JOBSET_VALIDATE_INT_H

#include "api/schema/check.h"
#include "api/jobset/features.h"

#include <jansson.h>

/* The schema tables (api/schema/check.h chk_walk): batch/v1 JobTemplateSpec as far as jaxset reads or
 * checks it; ObjectMeta (name, generateName, namespace, labels, annotations); a ReplicatedJob;
 * and JobSetSpec (in jobset_validate_policy.c). */
extern const struct chk_field jsv__jobtmpl_fields[];
extern const struct chk_field jsv__meta_fields[];
extern const struct chk_field jsv__rj_fields[];
extern const struct chk_field jsv__spec_fields[];

/* One validation run. */
struct jsv {
    struct chk chk; /* CHK_SCHEMA: types and required fields are the schema walk's */
    const json_t *js, *meta, *spec;
    const json_t *rjs; /* spec.replicatedJobs when an array, else NULL */
    json_t *rj_index;  /* their indices by name (chk_name_index) */
    const char *name;  /* JobSet name for generated-name checks; NULL when none */
    const struct feature_gates *gates; /* NULL: defaults */
    struct ferr_list *later; /* what fails only at child Job creation (js_validate_cluster);
                              * NULL: such errors are errors */
    char gen_name[FPATH_MAX];
};

/* metadata.labels / metadata.annotations key and value rules under `meta_path`. */
void jsv__meta_maps(struct jsv *c, const json_t *meta, const char *meta_path);

/* Semantic checks of spec-level policies (network, managedBy, TTL, success, startup, failure,
 * coordinator, volumeClaimPolicies). */
void jsv__policies(struct jsv *c);

/* Feature-gated rules (jobset_validate_gates.c).  jsv__restart_job_gate checks the RestartJob*
 * actions of `rules`; true when the gate is off and one is used: the other rule checks are then
 * skipped, as upstream does.  jsv__in_place_gate checks restartStrategy InPlaceRestart. */
bool jsv__restart_job_gate(struct jsv *c, const json_t *rules);
void jsv__in_place_gate(struct jsv *c);
/* The pod spec `ps` (at path psp)'s volumes and volumeMounts (job_template_volumes.c). */
void jsv__volumes(struct jsv *c, const json_t *ps, const char *psp);

/* batch/v1 checks of spec.replicatedJobs[i].template at `path`. */
void jsv__job_template(struct jsv *c, const json_t *tmpl, const char *path);

#endif
