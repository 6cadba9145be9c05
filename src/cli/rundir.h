/* rundir: where runs are kept.  $JAXSET_HOME, else $XDG_STATE_HOME/jaxset, else
 * ~/.local/state/jaxset; each run in runs/<name>/<UTC time>-<pid>/ and runs/<name>/latest
 * pointing at the newest. */
#ifndef JX_RUNDIR_H
#define JX_RUNDIR_H

#include <stddef.h>

/* The state home into out. */
void rundir_home(char *out, size_t n);

/* A new run directory for JobSet `name` into out, created (empty).  0 or a negative errno. */
int rundir_new(const char *name, char *out, size_t n);

/* Points runs/<name>/latest at `dir` (best effort, as soon as the run starts, so that `get`
 * and `logs` find a running run); its previous target ("" when none) into prev. */
void rundir_mark_latest(const char *name, const char *dir, char *prev, size_t n);

/* Undoes rundir_new and rundir_mark_latest for a run refused before it wrote anything: removes
 * the empty `dir` (and runs/<name>, runs when empty) and points latest back at `prev`.  A
 * directory with something in it is kept. */
void rundir_discard(const char *name, const char *dir, const char *prev);

/* The latest run directory of `name` into out; -ENOENT when there is none. */
int rundir_latest(const char *name, char *out, size_t n);

#endif
