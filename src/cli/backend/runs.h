/* runs: the runs the local backend keeps on disk (local/store/rundir.h), as `get`, `describe` and
 * `logs` read them: the files of a run directory, the state a run is in (Lost when its process
 * is gone), its times, and kubectl's way of writing a duration. */
#ifndef JX_CLI_RUNS_H
#define JX_CLI_RUNS_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct runs_run {
    char name[NAME_MAX + 1];
    char dir[PATH_MAX];
    /* run.json, jobset.json, pods.json (runs of older versions have none) and jobs.json;
     * NULL when missing or unreadable.  Owned. */
    json_t *run, *jobset, *pods, *jobs;
};

/* Loads the latest run of `name` into out.  0, or -ENOENT when there is none (out is then
 * empty).  runs_free releases it. */
int runs_load(const char *name, struct runs_run *out);
void runs_free(struct runs_run *r);

/* Loads the run kept in directory `dir` of JobSet `name` into out (0), as runs_load. */
int runs_load_dir(const char *name, const char *dir, struct runs_run *out);

/* The latest run of every JobSet (with `all`, every run kept: the latest, wherever --run-dir
 * put it, and those in runs/<name>/), newest first (by start time, then directory).  0 and a
 * malloc'd array in *out (runs_free each, then free it), or -ENOMEM. */
int runs_list(bool all, struct runs_run **out, size_t *n);

/* The directory's name, the run's id (<UTC time>-<pid>): points into r->dir. */
const char *runs_id(const struct runs_run *r);

/* The pid of the jaxset that made run directory `dir`, from its name (<time>-<pid>); 0 when
 * the name carries none. */
pid_t runs_dir_pid(const char *dir);

/* Whether process `pid` is gone (no such process, or a zombie; one of another user still
 * counts). */
bool runs_pid_gone(long long pid);

/* The state of a run: run.json's (Running, Completed, Failed, Interrupted), Lost when it says
 * Running but its process is gone, and while it runs its JobSet's state as job_state reads it
 * (Suspended, Restarting, Running), Starting before the run wrote run.json while the process
 * that made the directory lives, Unknown otherwise.  Static string. */
const char *runs_state(const struct runs_run *r);

/* Whether the run's process still runs it (Starting, or Running and not Lost). */
bool runs_live(const struct runs_run *r);

/* The pid of the process running the run kept in `dir` whose run.json is `run` (NULL before
 * it wrote one: the process that made the directory), while it runs; 0 otherwise. */
long long runs_live_pid(const json_t *run, const char *dir);

/* The run's events.log as v1 Events of its JobSet (type, reason, message, lastTimestamp), in
 * order; with `notes`, jaxset's Note lines too (type "Note", a message only).  A new array
 * (empty when there is no log), or NULL on OOM. */
json_t *runs_events(const struct runs_run *r, bool notes);

/* When the run started, and when it ended (its last update; `now` while it runs); 0 when
 * unknown.  Milliseconds since the epoch. */
int64_t runs_start_ms(const struct runs_run *r);
int64_t runs_end_ms(const struct runs_run *r, int64_t now);

/* A duration as kubectl writes ages (k8s.io/apimachinery pkg/util/duration, HumanDuration):
 * "45s", "3m12s", "42m", "5h3m", "2d4h", "300d", "3y20d"; "<invalid>" when more than a second
 * negative.  Returns out. */
#define RUNS_HUMAN_MAX 24
char *runs_human(int64_t ms, char out[RUNS_HUMAN_MAX]);

/* The age of RFC 3339 time `ts` at `now` (runs_human), or "-" when `ts` is unreadable. */
char *runs_age(const char *ts, int64_t now, char out[RUNS_HUMAN_MAX]);

#endif
