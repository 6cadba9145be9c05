/* Training progress, as Kubeflow Trainer's TrainJobStatus feature gives it on a cluster
 * (kubeflow/trainer pkg/statusserver, pkg/runtime/framework/plugins/trainjobstatus): the run
 * starts `jaxset statusserver` (cli/cmd/cmd_statusserver.c; the binary itself, which loads the
 * cluster module for it, so that the runner links no HTTP or TLS) with <run dir>/trainer-status
 * for its CA and token, gives every trainer container the three variables Trainer gives it
 * (with --images, the directory mounted where Trainer mounts its projected volume), and keeps
 * each report the server accepted as the TrainJob's status.trainerStatus and run.json's
 * "trainerStatus".  A TrainJob's trainer containers (its replicated job labelled
 * trainer.kubeflow.org/trainjob-ancestor-step=trainer) get it always; every container of a
 * JobSet or JAXJob annotated jaxset.dev/trainer-status: "true" too.  The server goes with the
 * runner: it ends when its standard input does, and is killed should the runner die first. */
#include "local/run/runner_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/kubeflow/trainjob_init.h"
#include "api/kubeflow/trainjob_report.h"
#include "obj/tree/jx.h"

#define STATUS_DIR "trainer-status"
#define STATUS_START_MS 10000
#define STATUS_LINE_MAX (2 * TJS_REPORT_MAX_BODY)

/* The annotation that asks for it on a JobSet or a JAXJob ("true"), or turns it off ("false"). */
#define STATUS_ANN "jaxset.dev/trainer-status"

static const char *object_ann(const struct run *r)
{
    const json_t *doc = r->m->doc ? r->m->doc : r->m->jobset;
    return jx_get_meta(jx_obj(doc, "metadata"), "annotations", STATUS_ANN);
}

static bool wanted(const struct run *r)
{
    const char *a = object_ann(r);
    return r->trainjob ? !a || strcmp(a, "false") != 0 : a && !strcmp(a, "true");
}

bool runner__status_for(const struct run *r, size_t rj, const struct rcont *c)
{
    if (!r->status_url || c->init)
        return false;
    if (!r->trainjob)
        return true;
    const json_t *meta = jx_obj(r->m->view.rj[rj].tmpl, "metadata");
    const char *step = jx_get_meta(meta, "labels", TJI_ANCESTOR);
    return step && !strcmp(step, "trainer");
}

static int env_add(json_t *extra, const char *name, const char *value)
{
    return json_array_append_new(extra, json_pack("{s:s,s:s}", "name", name, "value", value));
}

int runner__status_env(const struct run *r, json_t *extra)
{
    char ca[PATH_MAX + 16], token[PATH_MAX + 16];
    const char *dir = r->o->images ? TJS_REPORT_MOUNT : r->status_dir;
    snprintf(ca, sizeof(ca), "%s/ca.crt", dir);
    snprintf(token, sizeof(token), "%s/token", dir);
    if (env_add(extra, TJS_REPORT_ENV_URL, r->status_url) < 0 ||
        env_add(extra, TJS_REPORT_ENV_CA, ca) < 0 ||
        env_add(extra, TJS_REPORT_ENV_TOKEN, token) < 0)
        return -ENOMEM;
    return 0;
}

/* In the child: signals as a new program expects them, death with the runner, the pipes as
 * stdin and stdout, then the binary itself. */
static void exec_server(const struct run *r, int in, int out)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (dup2(in, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0)
        _exit(127);
    const char *ns = jx_str(jx_obj(r->js, "metadata"), "namespace");
    const char *argv[] = {"jaxset", "statusserver", "--dir", r->status_dir, "--namespace",
                          ns ? ns : "default", "--name", r->m->view.name, NULL};
    execv("/proc/self/exe", (char *const *)argv);
    _exit(127);
}

/* The server's first line, {"url": ...}, within STATUS_START_MS. */
static int await_url(struct run *r, struct err *err)
{
    int64_t deadline = kt_mono_ms() + STATUS_START_MS;
    while (!r->status_url) {
        struct pollfd p = {.fd = r->status_out, .events = POLLIN};
        int64_t left = deadline - kt_mono_ms();
        if (left <= 0 || poll(&p, 1, (int)left) == 0)
            return err_set(err, -ETIMEDOUT, "the status server did not start within %d s",
                           STATUS_START_MS / 1000);
        if (runner__status_read(r) < 0)
            return err_set(err, -EPIPE, "the status server ended as it started (see above)");
    }
    return 0;
}

int runner__status_start(struct run *r, struct err *err)
{
    int in[2], out[2];
    if (!wanted(r))
        return 0;
    snprintf(r->status_dir, sizeof(r->status_dir), "%s/%s", r->o->run_dir, STATUS_DIR);
    if (pipe2(in, O_CLOEXEC) < 0)
        return err_set(err, -errno, "pipe: %s", strerror(errno));
    if (pipe2(out, O_CLOEXEC) < 0) {
        close(in[0]);
        close(in[1]);
        return err_set(err, -errno, "pipe: %s", strerror(errno));
    }
    pid_t pid = fork();
    if (pid == 0)
        exec_server(r, in[0], out[1]);
    close(in[0]);
    close(out[1]);
    r->status_in = in[1];
    r->status_out = out[0];
    r->status_pid = pid;
    if (pid < 0)
        return err_set(err, -errno, "fork: %s", strerror(errno));
    fcntl(r->status_out, F_SETFL, O_NONBLOCK);
    int rc = sup_keep(r->sup, pid); /* no stray: the supervisor reaps it, never kills it */
    if (rc == 0)
        rc = await_url(r, err);
    return rc < 0 ? rc : sup_watch_fd(r->sup, r->status_out);
}

/* One line of the server's. */
static void on_line(struct run *r, const char *line)
{
    json_t *msg = json_loads(line, 0, NULL);
    const char *url = jx_str(msg, "url");
    json_t *ts = jx_obj(msg, "trainerStatus");
    if (url && !r->status_url) {
        r->status_url = strdup(url);
    } else if (ts) {
        json_decref(r->trainer_status);
        r->trainer_status = json_incref(ts);
        if (r->trainjob)
            json_object_set(jx_ensure_obj(r->trainjob, "status"), "trainerStatus", ts);
        r->status_dirty = true;
    }
    json_decref(msg);
}

int runner__status_read(struct run *r)
{
    char buf[8192];
    for (;;) {
        ssize_t n = read(r->status_out, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return 0;
        if (n <= 0)
            return -EPIPE;
        sb_append(&r->status_line, buf, (size_t)n);
        char *text = (char *)sb_str(&r->status_line), *nl;
        size_t used = 0;
        while (text && (nl = memchr(text + used, '\n', r->status_line.len - used))) {
            *nl = '\0';
            on_line(r, text + used);
            used = (size_t)(nl - text) + 1;
        }
        struct sbuf rest = {0}; /* what follows the last whole line */
        sb_append(&rest, text ? text + used : "", text ? r->status_line.len - used : 0);
        sb_free(&r->status_line);
        r->status_line = rest;
        if (r->status_line.len > STATUS_LINE_MAX)
            sb_free(&r->status_line); /* no line is that long: drop what cannot be one */
    }
}

void runner__status_stop(struct run *r)
{
    if (r->status_in >= 0)
        close(r->status_in);
    if (r->status_out >= 0)
        close(r->status_out);
    r->status_in = r->status_out = -1;
    /* its stdin closed, it ends; its pid is its own until it is reaped, by the supervisor
     * (sup_kept_alive false: never signalled then) or here */
    int64_t deadline = kt_mono_ms() + 2000;
    while (r->status_pid > 0 && sup_kept_alive(r->sup)) {
        pid_t got = waitpid(r->status_pid, NULL, WNOHANG);
        if (got == r->status_pid || (got < 0 && errno == ECHILD))
            break;
        if (kt_mono_ms() > deadline) {
            kill(r->status_pid, SIGKILL);
            waitpid(r->status_pid, NULL, 0);
            break;
        }
        kt_sleep_ms(5);
    }
    sup_kept_reaped(r->sup);
    r->status_pid = 0;
    free(r->status_url);
    r->status_url = NULL;
    sb_free(&r->status_line);
}
