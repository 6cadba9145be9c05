/* backend_int: the operations of the two backends that live in files of their own. */
#ifndef JX_CLI_BACKEND_INT_H
#define JX_CLI_BACKEND_INT_H

#include "cli/backend/backend.h"

/* Local (delete_local.c, logs_local.c, describe_local.c). */
int delete_local(struct backend *b, const struct kc_res *k, const char *name,
                 const struct backend_delete *o);
int logs_local(struct backend *b, const struct backend_logs *a);
int describe_local(struct backend *b, const struct kc_res *k, const char *name);

/* On a cluster (logs_cluster.c, describe_cluster.c). */
int logs_cluster(struct backend *b, const struct backend_logs *a);
int describe_cluster(struct backend *b, const struct kc_res *k, const char *name);

#endif
