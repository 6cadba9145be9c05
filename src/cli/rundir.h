/* rundir: where runs are kept.  $JAXSET_HOME, else $XDG_STATE_HOME/jaxset, else
 * ~/.local/state/jaxset; each run in runs/<name>/<UTC time>-<pid>/ and runs/<name>/latest
 * pointing at the newest. */
#ifndef JX_RUNDIR_H
#define JX_RUNDIR_H

#include <stddef.h>

/* The state home into out. */
void rundir_home(char *out, size_t n);

/* A new run directory for JobSet `name` (not created) into out. */
void rundir_new(const char *name, char *out, size_t n);

/* Points runs/<name>/latest at `dir` (best effort). */
void rundir_mark_latest(const char *name, const char *dir);

/* The latest run directory of `name` into out; -ENOENT when there is none. */
int rundir_latest(const char *name, char *out, size_t n);

#endif
