/* store_prune: the run directories of a name, as a whole: a new one begun (or abandoned),
 * listed, removed, and the retention `jaxset run` applies to them (how many runs of a name
 * are kept). */
#ifndef JX_STORE_PRUNE_H
#define JX_STORE_PRUNE_H

#include <stddef.h>

/* A new run of JobSet `name`: its directory (rd_new) into out, runs/<name>/latest pointed at
 * it (its previous target, "" when none, into prev) and the runs of `name` past the
 * store_keep newest pruned (store_prune; the new one is the newest).  0, -EINVAL when
 * $STORE_KEEP_ENV is no count (nothing made), or rd_new's error. */
int store_begin(const char *name, char *out, size_t n, char *prev, size_t prev_n);

/* A new run of JobSet `name` kept in `dir` (--run-dir, claimed: rd_claim), made findable: a
 * link to it in runs/<name>/ (rd_link_new; its path into link) and latest pointed at that
 * link (its previous target into prev).  Prunes nothing.  0 or rd_link_new's error. */
int store_begin_at(const char *name, const char *dir, char *link, size_t n, char *prev,
                   size_t prev_n);

/* Undoes store_begin (dir: the run's directory) or store_begin_at (dir: its link) for a run
 * refused before it wrote anything (rd_discard). */
void store_abandon(const char *name, const char *dir, const char *prev);

/* How many runs of a name `jaxset run` keeps, into *out: $STORE_KEEP_ENV (0: every run; unset
 * or empty: STORE_KEEP_DEFAULT).  0, or -EINVAL when it is set to anything but decimal digits
 * of at most STORE_KEEP_MAX (-1, 2x, 1e3, +3: *out is then STORE_KEEP_DEFAULT). */
#define STORE_KEEP_ENV "JAXSET_KEEP_RUNS"
#define STORE_KEEP_DEFAULT 10
#define STORE_KEEP_MAX 1000000
int store_keep(long *out);

/* Removes the runs of `name` in runs/<name>/ past the `keep` newest (by their directories'
 * names, which start with the time), but never one still going (store_live_pid); with keep
 * 0 (every run kept) none.  Of a run kept elsewhere (--run-dir) only its link goes: its
 * directory is where the user put it. */
void store_prune(const char *name, long keep);

/* Every run directory of `name`: the latest (wherever --run-dir put it) first, then every
 * other entry of runs/<name>/ (the latest's own name there among them; a link to a run kept
 * elsewhere, store_begin_at's, as the directory it points at).  0 and malloc'd
 * paths in *out (store_dirs_free), -ENOENT when `name` has no run (nothing in *out), or
 * -ENOMEM. */
int store_dirs(const char *name, char ***out, size_t *n);
void store_dirs_free(char **v, size_t n);

/* Removes run directory `dir` and everything in it (symbolic links as links), going on past
 * what cannot be removed: then on_error(path, errno) for each, when not NULL.  0 or the first
 * error (a negative errno). */
int store_remove(const char *dir, void (*on_error)(const char *path, int err));

/* Removes runs/<name>/ (its latest link, and whatever store_remove left), as store_remove. */
int store_remove_name(const char *name, void (*on_error)(const char *path, int err));

#endif
