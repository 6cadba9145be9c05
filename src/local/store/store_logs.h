/* store_logs: the pods' log files of a run directory (logs/, rundir.h rd_log names them),
 * listed and told apart by pod and container. */
#ifndef JX_STORE_LOGS_H
#define JX_STORE_LOGS_H

#include <stdbool.h>

/* Calls fn(arg, name) for each log file of run directory `dir`, by its name without
 * RD_LOG_SUFFIX ("<pod>" or "<pod>.<container>"), in directory order; with `pod` not NULL
 * only for the logs of the pods whose names start with it.  Stops at fn's first nonzero
 * answer, returned; 0 otherwise (also when there is no logs/). */
int store_logs_each(const char *dir, const char *pod, int (*fn)(void *arg, const char *name),
                    void *arg);

/* Whether log `name` (as store_logs_each gives it) is the log of container `container` of pod
 * `pod`, or of the pod's only container when `container` is NULL. */
bool store_log_is(const char *name, const char *pod, const char *container);

#endif
