/* describe: the tables `describe` draws alike locally (describe_local.c) and on a cluster
 * (describe_cluster.c). */
#ifndef JX_CLI_DESCRIBE_H
#define JX_CLI_DESCRIBE_H

#include <jansson.h>

/* "Conditions:": Type, Status, Reason, Last Transition and Message of each of `status`'s
 * conditions.  -ENOMEM or 0. */
int describe_conditions(const json_t *status);

/* "Jobs:": each Job of the array `jobs` (" (terminating)" after the name of one being deleted)
 * with its replicated job, restart attempt, counts and conditions ("Failed=True
 * (BackoffLimitExceeded), ...").  -ENOMEM or 0. */
int describe_jobs(const json_t *jobs);

#endif
