/* backend_int: the operations of the two backends that live in files of their own. */
#ifndef JX_CLI_BACKEND_INT_H
#define JX_CLI_BACKEND_INT_H

#include "cli/backend/backend.h"

/* Local (local_delete.c, logs_local.c, describe_local.c). */
int local_remove(struct backend *b, const struct kc_res *k, const char *name,
                 const struct backend_delete *o);
int local_logs(struct backend *b, const struct backend_logs *a);
int local_describe(struct backend *b, const struct kc_res *k, const char *name);

/* On a cluster (logs_cluster.c, describe_cluster.c). */
int cluster_logs(struct backend *b, const struct backend_logs *a);
int cluster_describe(struct backend *b, const struct kc_res *k, const char *name);

#endif
