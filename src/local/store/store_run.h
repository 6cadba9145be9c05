/* store_run: the runs kept on disk (rundir.h says where and what a run directory holds), read
 * back: one run loaded, the runs of every name listed, the state a run is in (store_state.h),
 * whether its process still runs it, its times and its events; a running one stopped or
 * asked to suspend.  Callers format what these return; none of them opens a run's files
 * or reads a run directory's name itself. */
#ifndef JX_STORE_RUN_H
#define JX_STORE_RUN_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "local/store/store_state.h"

struct store_run {
    char name[NAME_MAX + 1];
    char dir[PATH_MAX];
    /* run.json, jobset.json, pods.json (runs of older versions have none) and jobs.json;
     * NULL when missing or unreadable.  Owned. */
    json_t *run, *jobset, *pods, *jobs;
};

/* Loads the latest run of `name` into out.  0, or -ENOENT when there is none (out is then
 * empty).  store_run_free releases it. */
int store_load(const char *name, struct store_run *out);
void store_run_free(struct store_run *r);

/* Loads the run kept in directory `dir` of JobSet `name` into out (0), as store_load. */
int store_load_dir(const char *name, const char *dir, struct store_run *out);

/* The latest run of every JobSet (with `all`, every run kept: the latest, wherever --run-dir
 * put it, and those in runs/<name>/), newest first (by start time, then directory).  0 and a
 * malloc'd array in *out (store_run_free each, then free it); rd_home's error (nothing in
 * *out) or -ENOMEM (what was read in *out). */
int store_list(bool all, struct store_run **out, size_t *n);

/* The run's id: its directory's name (<UTC time>-<pid> for a run in runs/<name>/); points
 * into r->dir. */
const char *store_run_id(const struct store_run *r);

/* Whether a run is going: the pid of the process running the run kept in `dir`, whose run.json
 * is `run` (NULL before it wrote one: then the process that made the directory, from its
 * name), while it runs; 0 otherwise.  The one place that decides it: today the process named
 * is alive (kill(pid, 0); a zombie is gone, one of another user still counts) and run.json
 * says Running. */
long long store_live_pid(const char *dir, const json_t *run);

/* store_live_pid of the run kept in `dir`, its run.json read; and of a run loaded. */
long long store_dir_live_pid(const char *dir);
bool store_live(const struct store_run *r);

/* The state of a run: run.json's (Running, Completed, Failed, Interrupted), Lost when it says
 * Running but its process is gone, Starting before the run wrote run.json while the process
 * that made the directory lives, Unknown otherwise. */
enum store_state store_run_state(const struct store_run *r);

/* When the run started, and when it ended (its last update; `now` while it runs); 0 when
 * unknown.  Milliseconds since the epoch. */
int64_t store_start_ms(const struct store_run *r);
int64_t store_end_ms(const struct store_run *r, int64_t now);

/* The run's exit status (run.json's), -1 while it runs or when unknown. */
long long store_exit_status(const struct store_run *r);

/* A JSON file of the run directory `dir` (RD_RUN, RD_PODS...); NULL when missing or
 * unreadable.  New reference. */
json_t *store_read(const char *dir, const char *file);

/* Whether the run in `dir` wrote its JobSet (jobset.json exists). */
bool store_wrote_jobset(const char *dir);

/* The run's events.log, in order: {"line", "time", "type", "reason", "message"} for each event
 * line (line: its index in the file, from 0); with `notes`, jaxset's Note lines too ({"line",
 * "type": "Note", "message"}).  A new array (empty when
 * there is no log), or NULL on OOM. */
json_t *store_events(const char *dir, bool notes);

/* Asks the run in `dir` to suspend its JobSet or to resume it: writes its control file
 * (RD_CONTROL, atomically); its supervisor reads it on SIGUSR1.  0 or a negative errno. */
int store_control(const char *dir, bool suspend);

/* Sends SIGTERM to `pid`, the process of a run (store_live_pid), and waits until it is gone,
 * at most timeout_ms: 0, -ETIMEDOUT, or kill's -errno. */
int store_stop(long long pid, int64_t timeout_ms);

#endif
