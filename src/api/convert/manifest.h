/* manifest: files -> runnable jobs.  Every document is dispatched on apiVersion/kind:
 * JobSet, JAXJob, TrainJob (+ TrainingRuntime / ClusterTrainingRuntime from any of the files),
 * AIchorManifest.  Each runnable document becomes one `struct manifest` holding the defaulted
 * JobSet, its view and JAX runtime, or the field errors that make it invalid. */
#ifndef JX_MANIFEST_H
#define JX_MANIFEST_H

#include <jansson.h>
#include <stddef.h>

#include "api/jobset/features.h"
#include "api/child/jaxrt.h"
#include "api/jobset/jobset.h"
#include "obj/base/err.h"
#include "obj/tree/ferr.h"

struct manifest {
    char *source;          /* "job.yaml", or "job.yaml[2]" when the file holds several jobs */
    char *dir;             /* the file's directory, absolute (the current one for stdin) */
    const char *kind;      /* kind as written in the input: "JobSet", "JAXJob", ... (static) */
    json_t *doc;           /* the document as written (owned): what a JAXJob's local run
                            * keeps its status on (local/run/runner_state.c) */
    json_t *jobset;        /* defaulted JobSet (owned); NULL when conversion failed */
    struct ferr_list errs; /* empty = valid */
    struct ferr_list warnings; /* unknown fields under MANIFEST_VALIDATE_WARN, failure-policy
                               * patterns that never match (api/jobset/policy_warn.h): to print;
                               * they never make the manifest invalid */
    bool have_view;
    struct js_view view;   /* valid only when errs is empty */
    struct jaxrt rt;
    long long restart_grace_s; /* jaxset.dev/restart-grace-seconds, -1 when absent */
    bool admitted_only; /* cluster: a TrainJob a cluster admits that jaxset's controller would
                         * fail (why: in warnings); no jobset, no view */
    const json_t *objects;     /* the v1 ConfigMaps and Secrets of all the files (borrowed from
                                * the set): what env references read locally */
    struct feature_gates gates; /* the feature gates it was validated with (manifest_opts):
                                 * what `run` and `render` use too */
    bool cluster; /* checked as a cluster admits it (manifest_opts) */
};

struct manifest_set {
    struct manifest *v;
    size_t n;
    char **skipped;   /* "file: skipped <apiVersion> <kind> <name> (...)", one per document of
                       * another kind (a Service, a Workload...); owned */
    size_t n_skipped;
    json_t *objects;  /* the v1 ConfigMaps and Secrets of the files, kept (not skipped) */
};

/* How unknown fields in the user's documents are treated, as kubectl's --validate: */
enum manifest_validate {
    MANIFEST_VALIDATE_STRICT, /* errors (kubectl's default) */
    MANIFEST_VALIDATE_WARN,   /* dropped, as an API server drops them, each with a warning in
                               * m->warnings; the manifest stays valid */
    MANIFEST_VALIDATE_IGNORE, /* dropped silently */
};

struct manifest_opts {
    enum manifest_validate validate;
    bool strict_kinds; /* a document of a kind jaxset does not run is an error, not skipped */
    struct feature_gates gates; /* the controller's feature gates (zeroed: upstream's defaults) */
    bool cluster; /* as a cluster admits: what only fails later, when the JobSet controller
                   * creates a child Job (api/jobset/jobset.h js_validate_cluster), is a warning */
};

/* Loads and checks every file.  File-level problems (unreadable file, YAML syntax error, a
 * document of unknown kind, no runnable document at all) are returned as -EINVAL/-ENOENT... with
 * err set ("job.yaml: line 3, column 5: ..." or "job.yaml: document 1: kind: Unsupported
 * value: ..."); field problems are per manifest in m->errs and do not make the call fail.
 * On success *out is filled (release with manifest_set_release).
 * Unknown fields are looked for in each document as the user wrote it (api/schema/schema.h), before
 * any conversion, so their paths are the user's; a TrainJob's runtime is checked with it and
 * its errors say "in ClusterTrainingRuntime \"<name>\"".  `opts` may be NULL: strict. */
int manifest_load_opts(const char *const *files, size_t n_files,
                       const struct manifest_opts *opts, struct manifest_set *out,
                       struct err *err);
/* manifest_load_opts with the defaults (strict). */
int manifest_load(const char *const *files, size_t n_files, struct manifest_set *out,
                  struct err *err);
void manifest_set_release(struct manifest_set *s);

/* Total number of field errors over the set. */
size_t manifest_set_errors(const struct manifest_set *s);

#endif
