/* jaxset logs [-f] NAME [POD]: the logs of a run's pods, finished or running.  POD is a pod
 * name, a hostname (<jobset>-<rj>-<job>-<index>: every attempt, oldest first) or a prefix of
 * one; without POD every pod's log is printed, each line prefixed with "[pod] ".
 *
 * -f follows the run as `kubectl logs -f` does: what is there first, then every new line of
 * every matching pod (pods created later, by restarts, included) until the run has ended.
 * A run has ended when its run.json says so or its supervisor process is gone (SIGKILL). */
#include "cli/cli.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "local/rundir.h"

#define LOGS_POLL_MS 100

struct logfile {
    char name[NAME_MAX + 1];
    struct timespec mtime;
    off_t off; /* bytes already printed */
};

struct logs {
    char dir[PATH_MAX], logs[PATH_MAX + 8];
    const char *pod; /* NULL: every pod */
    bool prefix;     /* decided on the first scan */
    struct logfile *v;
    size_t n;
};

static int by_time(const void *a, const void *b)
{
    const struct logfile *x = a, *y = b;
    if (x->mtime.tv_sec != y->mtime.tv_sec)
        return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
    return strcmp(x->name, y->name);
}

static bool known(const struct logs *l, const char *name)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->v[i].name, name))
            return true;
    return false;
}

/* Adds the matching log files not seen yet, oldest first; returns -ENOMEM or 0. */
static int scan(struct logs *l)
{
    DIR *d = opendir(l->logs);
    struct dirent *de;
    size_t first_new = l->n;
    int rc = 0;
    while (d && (de = readdir(d))) {
        size_t len = strlen(de->d_name), sfx = strlen(RD_LOG_SUFFIX);
        if (len <= sfx || strcmp(de->d_name + len - sfx, RD_LOG_SUFFIX) ||
            (l->pod && strncmp(de->d_name, l->pod, strlen(l->pod))))
            continue;
        struct logfile f = {0};
        char path[PATH_MAX + NAME_MAX + 2];
        snprintf(f.name, sizeof(f.name), "%.*s", (int)(len - sfx), de->d_name);
        if (known(l, f.name))
            continue;
        struct logfile *nv = realloc(l->v, (l->n + 1) * sizeof(*nv));
        if (!nv) {
            rc = -ENOMEM;
            break;
        }
        struct stat st = {0};
        snprintf(path, sizeof(path), "%s/%s", l->logs, de->d_name);
        stat(path, &st);
        f.mtime = st.st_mtim;
        l->v = nv;
        l->v[l->n++] = f;
    }
    if (d)
        closedir(d);
    qsort(l->v + first_new, l->n - first_new, sizeof(*l->v), by_time);
    return rc;
}

/* Prints the whole lines of one log from its offset on; with `all` the unterminated tail too
 * (the run has ended: nothing will complete it). */
static void drain(const struct logs *l, struct logfile *f, bool all)
{
    char path[PATH_MAX + NAME_MAX + 16];
    snprintf(path, sizeof(path), "%s/%s" RD_LOG_SUFFIX, l->logs, f->name);
    FILE *in = fopen(path, "re");
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    if (!in || fseeko(in, f->off, SEEK_SET) < 0)
        goto out;
    while ((len = getline(&line, &cap, in)) > 0) {
        bool whole = line[len - 1] == '\n';
        if (!whole && !all)
            break;
        if (l->prefix)
            printf("[%s] ", f->name);
        fwrite(line, 1, (size_t)len, stdout);
        if (!whole)
            putchar('\n');
        f->off += len;
    }
out:
    free(line);
    if (in)
        fclose(in);
    fflush(stdout);
}

/* The run has ended: a final state in run.json, or no supervisor process any more. */
static bool run_ended(const char *dir)
{
    char path[PATH_MAX + 16];
    json_t *j = json_load_file(rd_file(path, sizeof(path), dir, RD_RUN), 0, NULL);
    if (!j)
        return false; /* not written yet: the run is starting */
    const char *state = json_string_value(json_object_get(j, "state"));
    json_int_t pid = json_integer_value(json_object_get(j, "pid"));
    bool ended = (state && strcmp(state, "Running")) ||
                 (pid > 0 && kill((pid_t)pid, 0) < 0 && errno == ESRCH);
    json_decref(j);
    return ended;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* Prints everything there is; following, goes on until the run has ended. */
static int print_logs(struct logs *l, bool follow)
{
    for (bool first = true;; first = false) {
        bool ended = !follow || run_ended(l->dir); /* before the drain: it then sees all */
        if (scan(l) < 0) {
            fprintf(stderr, "jaxset logs: out of memory\n");
            return EXIT_INVALID;
        }
        if (first)
            l->prefix = !l->pod || l->n != 1;
        if (ended && l->n == 0) {
            fprintf(stderr, "jaxset logs: no pod log matches \"%s\" in %s\n",
                    l->pod ? l->pod : "*", l->logs);
            return EXIT_INVALID;
        }
        for (size_t i = 0; i < l->n; i++)
            drain(l, &l->v[i], ended);
        if (ended)
            return EXIT_OK;
        sleep_ms(LOGS_POLL_MS);
    }
}

struct logs_args {
    bool follow;
    const char *pos[2];
    int n_pos;
};

static int on_arg(void *ctx, int code, const char *arg)
{
    struct logs_args *a = ctx;
    if (code == 'f')
        a->follow = true;
    else if (code == CLI_OPERAND && a->n_pos < 2)
        a->pos[a->n_pos++] = arg;
    else
        return cli_usage_error("logs", "expected [-f] NAME [POD]");
    return EXIT_OK;
}

int cmd_logs(int argc, char **argv)
{
    static const struct option longopts[] = {{"follow", no_argument, NULL, 'f'}, {0}};
    struct logs l = {0};
    struct logs_args a = {0};
    int rc = cli_parse(argc, argv, "f", longopts, on_arg, &a);
    if (rc != EXIT_OK)
        return rc;
    if (a.n_pos == 0)
        return cli_usage_error("logs", "expected [-f] NAME [POD]");
    if (rd_latest(a.pos[0], l.dir, sizeof(l.dir)) < 0) {
        fprintf(stderr, "jaxset logs: no run of \"%s\" found\n", a.pos[0]);
        return EXIT_INVALID;
    }
    rd_file(l.logs, sizeof(l.logs), l.dir, RD_LOGS);
    l.pod = a.n_pos == 2 ? a.pos[1] : NULL;
    rc = print_logs(&l, a.follow);
    free(l.v);
    return rc;
}
