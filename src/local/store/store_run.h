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

/* The lock that says a run is going, never a pid alone (a pid is reused once its process is
 * gone; run.json keeps one after a SIGKILL, an OOM kill or a reboot): the process running
 * the run kept in `dir` (the `jaxset run` supervisor) takes it before its first pod starts
 * and holds it until it has recorded the run's end (store_lock_release) or dies, when the
 * kernel releases it.  A POSIX record lock (fcntl F_SETLK, a write lock) on the run's
 * RD_LOCK, opened O_CLOEXEC: record locks are not inherited by forked children (the pods, the
 * watchdog).  Closing any descriptor of that file in this process would release it, so the
 * store never opens the file of the lock this process holds (it knows it by device and
 * inode).  One run a process.  0, or a negative errno (-EAGAIN: another process holds it,
 * -EBUSY: this process holds one already).  On a file system that takes no record locks
 * (ENOLCK): 0, the file removed, the run known by its pid as a run of an older jaxset is. */
int store_lock_take(const char *dir);
void store_lock_release(void);

/* Whether a run is going: the pid of the process running the run kept in `dir`, whose run.json
 * is `run` (NULL before it wrote one), while it runs; 0 otherwise.  The one place that decides
 * it: run.json says Running (or is not written yet) and a process holds the run's lock
 * (store_lock_take; F_GETLK names it, this process for its own run).  A run directory without
 * a lock file (an older jaxset's) falls back to the pid recorded (run.json's, else the one in
 * the directory's name) naming a live process (kill(pid, 0); a zombie is gone, one of another
 * user still counts). */
long long store_live_pid(const char *dir, const json_t *run);

/* store_live_pid of the run kept in `dir`, its run.json read; and of a run loaded. */
long long store_dir_live_pid(const char *dir);
bool store_live(const struct store_run *r);

/* The state of a run: run.json's (Running, Completed, Failed, Interrupted), Lost when it says
 * Running but its process is gone, Starting before the run wrote run.json while the process
 * that made the directory lives, Unknown otherwise. */
enum store_state store_run_state(const struct store_run *r);

/* When the run started, and when it ended (its last update; `now` while it runs; for a Lost
 * run, the last thing it recorded: the newest change of its events.log and pods' logs, when
 * later than run.json's update); 0 when unknown.  Milliseconds since the epoch. */
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
 * (RD_CONTROL, atomically); its supervisor reads it on SIGUSR1 (store_signal).  0 or a
 * negative errno. */
int store_control(const char *dir, bool suspend);

/* Sends `sig` to the process running the run kept in `dir`, only while it is going
 * (store_live_pid): where the run holds its lock, through a pidfd (pidfd_open) of the holder
 * found holding it still once opened, so that a process that took its pid after it is never
 * signalled.  0, -ESRCH when the run is not going, or another negative errno. */
int store_signal(const char *dir, int sig);

/* store_signal(dir, SIGTERM), then waits until that process is gone, at most timeout_ms: 0,
 * -ESRCH (not going), -ETIMEDOUT, or the signal's -errno. */
int store_stop(const char *dir, int64_t timeout_ms);

#endif
