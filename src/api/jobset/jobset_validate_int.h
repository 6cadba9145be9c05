/* jobset_validate_int: the validation run shared by the files of js_validate (jobset_validate.c,
 * its _meta, _gates and _policy files, job_template_validate.c and job_template_volumes.c), on
 * the checker of api/schema/check.h.  Not part of the public API. */
#ifndef JX_JOBSET_VALIDATE_INT_H
#define JX_JOBSET_VALIDATE_INT_H

#include "api/schema/check.h"
#include "api/jobset/features.h"

#include <jansson.h>

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

/* The files below call only those above them here: meta at the bottom, js_validate
 * (jobset_validate.c) on top.  Schema tables are walked by api/schema/check.h's chk_walk. */

/* ---- jobset_validate_meta.c ---------------------------------------------------------------- */

/* The schema table of ObjectMeta (name, generateName, namespace, labels, annotations). */
extern const struct chk_field js__meta_fields[];
/* metadata.labels / metadata.annotations key and value rules under `meta_path`. */
void js__meta_maps(struct jsv *c, const json_t *meta, const char *meta_path);

/* ---- job_template_volumes.c ---------------------------------------------------------------- */

/* The pod spec `ps` (at path psp)'s volumes and volumeMounts. */
void js__volumes(struct jsv *c, const json_t *ps, const char *psp);

/* ---- job_template_quantities.c ------------------------------------------------------------- */

/* The pod spec `ps` (at path psp)'s quantities: containers' resources, emptyDir sizeLimits,
 * resourceFieldRef divisors, ephemeral volumes' claims. */
void js__quantities(struct jsv *c, const json_t *ps, const char *psp);
/* The quantities of a PersistentVolumeClaim template `tmpl` (spec.volumeClaimPolicies[i]
 * .templates[j], at tp). */
void js__claim_quantities(struct jsv *c, const json_t *tmpl, const char *tp);

/* ---- job_template_validate.c --------------------------------------------------------------- */

/* The schema table of batch/v1 JobTemplateSpec, as far as jaxset reads or checks it. */
extern const struct chk_field js__jobtmpl_fields[];
/* batch/v1 checks of spec.replicatedJobs[i].template at `path`. */
void js__job_template(struct jsv *c, const json_t *tmpl, const char *path);

/* ---- jobset_validate_gates.c --------------------------------------------------------------- */

/* Feature-gated rules.  js__restart_job_gate checks the RestartJob* actions of `rules`; true
 * when the gate is off and one is used: the other rule checks are then skipped, as upstream
 * does.  js__in_place_gate checks restartStrategy InPlaceRestart. */
bool js__restart_job_gate(struct jsv *c, const json_t *rules);
void js__in_place_gate(struct jsv *c);

/* ---- jobset_validate_policy.c -------------------------------------------------------------- */

/* The schema table of JobSetSpec (its replicatedJobs' too). */
extern const struct chk_field js__spec_fields[];
/* Semantic checks of spec-level policies (network, managedBy, TTL, success, startup, failure,
 * coordinator, volumeClaimPolicies). */
void js__policies(struct jsv *c);

#endif
