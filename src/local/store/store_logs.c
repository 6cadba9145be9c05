/* store_logs: the pods' log files of a run directory (see store_logs.h). */
#include "local/store/store_logs.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "local/store/rundir.h"

int store_logs_each(const char *dir, const char *pod, int (*fn)(void *arg, const char *name),
                    void *arg)
{
    char logs[PATH_MAX + 8];
    DIR *d = opendir(rd_file(logs, sizeof(logs), dir, RD_LOGS));
    struct dirent *de;
    size_t sfx = strlen(RD_LOG_SUFFIX);
    int rc = 0;
    while (rc == 0 && d && (de = readdir(d))) {
        char name[NAME_MAX + 1];
        size_t len = strlen(de->d_name);
        if (len <= sfx || strcmp(de->d_name + len - sfx, RD_LOG_SUFFIX) ||
            (pod && strncmp(de->d_name, pod, strlen(pod))))
            continue;
        snprintf(name, sizeof(name), "%.*s", (int)(len - sfx), de->d_name);
        rc = fn(arg, name);
    }
    if (d)
        closedir(d);
    return rc;
}

/* rd_log: logs/<pod>.log for a pod of one container, logs/<pod>.<container>.log otherwise. */
bool store_log_is(const char *name, const char *pod, const char *container)
{
    size_t len = strlen(pod);
    if (strncmp(name, pod, len))
        return false;
    if (!container)
        return !name[len];
    return name[len] == '.' && !strcmp(name + len + 1, container);
}
