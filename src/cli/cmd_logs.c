/* jaxset logs NAME [POD]: the logs of a run's pods, finished or running.  POD is a pod name,
 * a hostname (<jobset>-<rj>-<job>-<index>: every attempt, oldest first) or a prefix of one;
 * without POD every pod's log is printed, each line prefixed with "[pod] ". */
#include "cli/cli.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/rundir.h"

static const char usage[] = "jaxset logs NAME [POD]";

struct logfile {
    char name[NAME_MAX + 1];
    struct timespec mtime;
};

static int by_time(const void *a, const void *b)
{
    const struct logfile *x = a, *y = b;
    if (x->mtime.tv_sec != y->mtime.tv_sec)
        return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
    return strcmp(x->name, y->name);
}

static void cat(const char *path, const char *prefix)
{
    FILE *f = fopen(path, "r");
    char line[65536];
    while (f && fgets(line, sizeof(line), f)) {
        if (prefix)
            fputs(prefix, stdout);
        fputs(line, stdout);
        if (!strchr(line, '\n'))
            putchar('\n');
    }
    if (f)
        fclose(f);
}

static size_t collect(const char *logs, const char *pod, struct logfile **out)
{
    DIR *d = opendir(logs);
    struct dirent *de;
    size_t n = 0;
    struct logfile *v = NULL;
    while (d && (de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (len < 5 || strcmp(de->d_name + len - 4, ".log"))
            continue;
        if (pod && strncmp(de->d_name, pod, strlen(pod)))
            continue;
        struct logfile *nv = realloc(v, (n + 1) * sizeof(*nv));
        if (!nv)
            break;
        v = nv;
        snprintf(v[n].name, sizeof(v[n].name), "%.*s", (int)(len - 4), de->d_name);
        char path[PATH_MAX + NAME_MAX + 2];
        struct stat st = {0};
        snprintf(path, sizeof(path), "%s/%s", logs, de->d_name);
        stat(path, &st);
        v[n++].mtime = st.st_mtim;
    }
    if (d)
        closedir(d);
    qsort(v, n, sizeof(*v), by_time);
    *out = v;
    return n;
}

int cmd_logs(int argc, char **argv)
{
    if (argc < 2 || argc > 3 || argv[1][0] == '-')
        return cli_usage_error("logs", usage, "expected NAME [POD]");
    char dir[PATH_MAX], logs[PATH_MAX + 8];
    if (rundir_latest(argv[1], dir, sizeof(dir)) < 0) {
        fprintf(stderr, "jaxset logs: no run of \"%s\" found\n", argv[1]);
        return EXIT_INVALID;
    }
    snprintf(logs, sizeof(logs), "%s/logs", dir);
    struct logfile *v = NULL;
    size_t n = collect(logs, argc == 3 ? argv[2] : NULL, &v);
    if (n == 0) {
        fprintf(stderr, "jaxset logs: no pod log matches \"%s\" in %s\n",
                argc == 3 ? argv[2] : "*", logs);
        free(v);
        return EXIT_INVALID;
    }
    for (size_t i = 0; i < n; i++) {
        char path[PATH_MAX + NAME_MAX + 16], prefix[NAME_MAX + 8];
        snprintf(path, sizeof(path), "%s/%s.log", logs, v[i].name);
        snprintf(prefix, sizeof(prefix), "[%s] ", v[i].name);
        cat(path, argc == 3 && n == 1 ? NULL : prefix);
    }
    free(v);
    return EXIT_OK;
}
