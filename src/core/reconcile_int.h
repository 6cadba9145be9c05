/* reconcile_int: state shared by the files of the reconcile core (reconcile.c, status.c,
 * failure.c, success.c, startup.c, suspend.c).  Not for use outside src/core. */
#ifndef JX_RECONCILE_INT_H
#define JX_RECONCILE_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api/jobset/features.h"
#include "api/child/jaxrt.h"
#include "api/jobset/jobset.h"
#include "core/reconcile.h"
#include "core/status.h"
#include "obj/base/err.h"

/* One observed child Job, classified (upstream getChildJobs).  Pointers borrow from the input
 * Job. */
struct rec_job {
    const json_t *obj;
    const char *name;          /* metadata.name ("" when absent) */
    const char *rj_name;       /* replicatedjob-name label, NULL when absent or empty */
    long rj;                   /* index of that RJ in the view, -1 when unknown */
    enum rec_bucket bucket;
    const json_t *failed_cond; /* the Failed=True condition (bucket FAILED) */
    bool terminating;          /* metadata.deletionTimestamp set */
    bool suspended;            /* spec.suspend == true */
};

struct rec_ctx {
    const json_t *js;
    const json_t *spec;
    const json_t *old_status;  /* borrowed, may be NULL */
    struct js_view v;
    struct jaxrt rt;           /* the JAX runtime the JobSet's annotations ask for (owned) */
    char now[KT_RFC3339_MAX];  /* RFC 3339 stamp for new conditions */
    int64_t now_ms;
    struct rec_job *jobs;      /* owned array */
    size_t n_jobs;
    size_t n_bucket[REC_BUCKET_N];
    struct rec_rj_count *counts; /* owned, one per RJ of the view */
    const char **names;        /* owned array of the child Job names, sorted (strcmp) */
    json_t *conds;             /* owned {"conditions": [...]} being updated by rec_cond_set */
    long long restarts;        /* status.restarts (new value once a restart is decided) */
    long long restarts_max;    /* status.restartsCountTowardsMax */
    const char *terminal;      /* status.terminalState ("" = none); static or borrowed */
    const struct feature_gates *gates; /* borrowed; NULL: defaults */
    const json_t *pods;        /* the JobSet's Pods (InPlaceRestart), borrowed, may be NULL */
    json_t **job_restarts;     /* RestartJob gate: per RJ of the view, the jobRestarts list */
    json_t **job_restarts_max; /* ... and jobRestartsCountTowardsMax; entries NULL = absent */
    long long ipr_previous;    /* status.previousInPlaceRestartAttempt, -1 = absent */
    long long ipr_current;     /* status.currentInPlaceRestartAttempt, -1 = absent */
    struct rec_plan *plan;
    struct err *e;
};

/* True when a child Job named `name` was observed, in any bucket. */
bool rec__job_exists(const struct rec_ctx *c, const char *name);

/* Plan builders: each returns 0 or -ENOMEM. */
int rec__event(struct rec_ctx *c, enum rec_event_type t, const char *reason, const char *msg);
int rec__delete(struct rec_ctx *c, const char *name);
int rec__create(struct rec_ctx *c, json_t *job); /* steals job (also on failure) */
int rec__patch(struct rec_ctx *c, const char *name, bool suspend, bool clear_start,
               json_t *job); /* steals job (also on failure) */

/* Applies condition `cond` (rec_cond_set) to the status being built and queues its event when
 * it changed something.  Returns 0 or -ENOMEM. */
int rec__set_cond(struct rec_ctx *c, const struct rec_cond *cond);

/* Sets Failed=True with reason/message, RestartingJobSet=False/JobSetFailed and
 * terminalState=Failed (failure.c and suspend/resume never call it twice in a pass). */
int rec__fail(struct rec_ctx *c, const char *reason, const char *msg);

/* Sets Completed=True, RestartingJobSet=False/JobSetCompleted, terminalState=Completed. */
int rec__complete(struct rec_ctx *c);

#endif
