/* backend_int: the operations of the two backends that live in files of their own. */
#ifndef JX_CLI_BACKEND_INT_H
#define JX_CLI_BACKEND_INT_H

#include "cli/backend.h"

/* Local (local_delete.c, logs_local.c, describe_local.c). */
int local_remove(struct backend *b, const struct kc_res *k, const char *name,
                 const struct backend_delete *o);
int local_logs(struct backend *b, const struct backend_logs *a);
int local_describe(struct backend *b, const struct kc_res *k, const char *name);

/* Retention (local_delete.c): how many runs of a name `jaxset run` keeps, $LOCAL_KEEP_ENV
 * (0: every run), else LOCAL_KEEP_DEFAULT; local_prune removes the runs of `name` in
 * runs/<name>/ past the `keep` newest (by their directories' names, which start with the
 * time), but never one still going. */
#define LOCAL_KEEP_ENV "JAXSET_KEEP_RUNS"
#define LOCAL_KEEP_DEFAULT 10
long local_keep(void);
void local_prune(const char *name, long keep);

/* On a cluster (logs_cluster.c, describe_cluster.c). */
int cluster_logs(struct backend *b, const struct backend_logs *a);
int cluster_describe(struct backend *b, const struct kc_res *k, const char *name);

#endif
