/* rundir: where the local backend keeps its runs and what a run directory holds.  The one
 * owner of these names, for the runner (which fills a run directory) and the CLI (which
 * creates, finds and reads run directories through store_prune.h and store_run.h; the states
 * of a run are store_state.h's, its pods' logs store_logs.h's).
 *
 *   <home>/runs/<name>/<UTC time>-<pid>/   a run directory
 *   <home>/runs/<name>/<UTC time>-<pid>    or a symlink to one kept elsewhere (--run-dir,
 *                                          an absolute path): `get` and `delete` find it
 *   <home>/runs/<name>/latest              symlink to the newest run directory of <name>
 *
 * <home> is $JAXSET_HOME, else $XDG_STATE_HOME/jaxset, else ~/.local/state/jaxset.  A run
 * directory holds:
 *
 *   jobset.json   the JobSet with its status, rewritten on every change
 *   jobs.json     the child Jobs with their status
 *   pods.json     every pod, of every restart attempt: labels, phase, times, restarts, container
 * states;
 *                 the pod named first failed at a restart or at the end: "firstFailure", and its
 *                 failed container's "message" (local/store/store_excerpt.c)
 *   run.json      name, source, state, pid, start and update times, coordinator port, exit
 *                 status, "failure": the latest first failed pod, with its one line as
 *                 "summary" (runner_attr.c)
 *   events.log    the events, one a line
 *   hosts         the hosts file the pods resolve their names with
 *   logs/         one <pod>.log per pod, or <pod>.<container>.log for pods of several containers
 *   volumes/      one directory per PersistentVolumeClaim the pods mount (those of
 *                 spec.volumeClaimPolicies among them), unless --pvc maps it elsewhere
 *   pod-volumes/  <pod>/<volume>: a running pod's emptyDir, configMap, secret, downwardAPI and
 *                 projected volumes, removed with the pod
 *   control.json  what `jaxset suspend|resume` asks of the running run (then SIGUSR1)
 *   reserve       the disk space of the final jobset.json, jobs.json, pods.json and run.json,
 *                 held while the run runs and removed right before they are written: a disk
 *                 the pods filled does not lose how the run ended
 *   lock          empty; the jaxset running the run holds a POSIX record lock on it for its
 *                 whole life (store_run.h: what says a run is going, never a pid alone)
 */
#ifndef JX_RUNDIR_H
#define JX_RUNDIR_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#define RD_RUNS "runs"
#define RD_LATEST "latest"

#define RD_JOBSET "jobset.json"
#define RD_JOBS "jobs.json"
#define RD_PODS "pods.json"
#define RD_RUN "run.json"
#define RD_EVENTS "events.log"
#define RD_HOSTS "hosts"
#define RD_LOGS "logs"
#define RD_LOG_SUFFIX ".log"
#define RD_VOLUMES "volumes"
#define RD_POD_VOLUMES "pod-volumes"
#define RD_CONTROL "control.json" /* {"suspend": bool}: written by jaxset suspend|resume */
#define RD_RESERVE "reserve"
#define RD_LOCK "lock"

/* The longest run directory path taken: what a run directory holds adds at most a few hundred
 * bytes (pod and container names are DNS labels), and every path must fit in PATH_MAX. */
#define RD_DIR_MAX (PATH_MAX - 512)

/* The state home into out: 0, -ENOENT when none of JAXSET_HOME, XDG_STATE_HOME, HOME is set
 * (runs hold environments and logs: they are never kept in a shared place such as /tmp), or
 * -ENAMETOOLONG.  rd_home_error(rc) says which, for the user. */
int rd_home(char *out, size_t n);
const char *rd_home_error(int rc);

/* "<dir>/<name>" into out; returns out, "" when it does not fit in n bytes (opening "" fails
 * with ENOENT: never another file). */
char *rd_file(char *out, size_t n, const char *dir, const char *name);

/* The log file of a container of pod `pod` in run directory `dir` into out: logs/<pod>.log, or
 * logs/<pod>.<container>.log when `container` is not NULL.  Returns out, "" when it does not
 * fit in n bytes. */
char *rd_log(char *out, size_t n, const char *dir, const char *pod, const char *container);

/* The directory of PersistentVolumeClaim `claim` in run directory `dir` (volumes/<claim>), and
 * the folder of pod `pod`'s own volumes (pod-volumes/<pod>; pod NULL: pod-volumes itself).
 * Malloc'd, NULL on OOM. */
char *store_claim_dir(const char *dir, const char *claim);
char *store_pod_volumes(const char *dir, const char *pod);

/* A directory given with --run-dir: -EINVAL for "", -ENAMETOOLONG past RD_DIR_MAX, else 0. */
int rd_dir_check(const char *dir);

/* Takes `dir` (--run-dir) for a run: checked as rd_dir_check, parents made, and the directory
 * itself created 0700 or, when it exists, taken only if it is an empty directory and not a
 * symbolic link (-EEXIST otherwise): a run never mixes with another's files. */
int rd_claim(const char *dir);

/* A new run directory for JobSet `name` into out, created 0700 (mkdir, never an existing
 * one), its parents too.  0 or a negative errno (rd_home's among them). */
int rd_new(const char *name, char *out, size_t n);

/* A new entry of runs/<name>/ for the run kept in `dir` (--run-dir, claimed: rd_claim): a
 * symbolic link named as rd_new names a directory, to dir's absolute path, its path into out.
 * 0 or a negative errno (rd_home's among them; nothing made). */
int rd_link_new(const char *name, const char *dir, char *out, size_t n);

/* Points runs/<name>/latest at `dir` (best effort, as soon as the run starts, so that `get`
 * and `logs` find a running run); its previous target ("" when none) into prev. */
void rd_mark_latest(const char *name, const char *dir, char *prev, size_t n);

/* Undoes rd_new (or rd_link_new) and rd_mark_latest for a run refused before it wrote
 * anything: removes the empty `dir` (the link, for rd_link_new's; and runs/<name>, runs when
 * empty) and points latest back at `prev`.  A directory with something in it is kept. */
void rd_discard(const char *name, const char *dir, const char *prev);

/* The latest run directory of `name` into out; -ENOENT when there is none. */
int rd_latest(const char *name, char *out, size_t n);

/* <home>/runs, and <home>/runs/<name> (the runs of `name` rd_new made), into out: 0, or
 * rd_home's error (-ENAMETOOLONG also when out is too short). */
int store_runs_dir(char *out, size_t n);
int store_name_dir(const char *name, char *out, size_t n);

/* The pid of the jaxset that made run directory `dir`, read from its name (<UTC time>-<pid>,
 * rd_new); 0 when the name is no such name (a --run-dir). */
pid_t store_dir_pid(const char *dir);

#endif
