/* runs: the runs the local backend keeps (local/store/store_run.h loads and lists them), as
 * `get`, `describe`, `logs` and `delete` show them: the state shown for a run, its events as v1
 * Events, the refusal of a name without a run, and kubectl's way of writing a duration. */
#ifndef JX_CLI_RUNS_H
#define JX_CLI_RUNS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "local/store/store_run.h"

/* The state shown for a run: the store's (store_run_state: Starting, Completed, Failed,
 * Interrupted, Lost, Unknown) and, while it runs, its JobSet's state as job_state reads it
 * (Suspended, Restarting, Running).  Static string. */
const char *runs_state(const struct store_run *r);

/* The run's events.log as v1 Events of its JobSet (type, reason, message, lastTimestamp), in
 * order; with `notes`, jaxset's Note lines too (type "Note", a message only).  A new array
 * (empty when there is no log), or NULL on OOM. */
json_t *runs_events(const struct store_run *r, bool notes);

struct backend;

/* A local verb's "no such run": prints "jaxset CMD: <message>" and, with --errors=json, the v1
 * Status a cluster answers with (404 NotFound, the same message) as one JSON line, as
 * cli/backend/cluster.h cluster_status_line does; returns EXIT_INVALID. */
int runs_not_found(const struct backend *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A duration as kubectl writes ages (k8s.io/apimachinery pkg/util/duration, HumanDuration):
 * "45s", "3m12s", "42m", "5h3m", "2d4h", "300d", "3y20d"; "<invalid>" when more than a second
 * negative.  Returns out. */
#define RUNS_HUMAN_MAX 24
char *runs_human(int64_t ms, char out[RUNS_HUMAN_MAX]);

/* The age of RFC 3339 time `ts` at `now` (runs_human), or "-" when `ts` is unreadable. */
char *runs_age(const char *ts, int64_t now, char out[RUNS_HUMAN_MAX]);

#endif
