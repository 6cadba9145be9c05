/* jaxset statusserver --dir DIR --namespace NS --name NAME: Kubeflow Trainer's status endpoint
 * (kube/serve/srv_status.h) for one local run, which `jaxset run` starts beside its pods: a CA
 * and a serving certificate for 127.0.0.1 made here (kube/webhook/wh_cert.h) and a random token,
 * written to DIR/ca.crt and DIR/token for the pods (what KUBEFLOW_TRAINER_SERVER_CA_CERT and
 * KUBEFLOW_TRAINER_SERVER_TOKEN name), HTTPS on a free port of 127.0.0.1 only.  The token is
 * the run's TrainJob's alone: a report for another TrainJob, or with another token, is 403.
 *
 * Tells the runner on stdout, one JSON line each: first {"url": ...} once it listens, then
 * {"trainerStatus": {...}} for every report stored (what the run keeps in its TrainJob's
 * status).  Ends, exit 0, when stdin ends (the runner closed it, or is gone). */
#include "cli/util/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/kubeflow/trainjob_report.h"
#include "kube/serve/srv_status.h"
#include "kube/webhook/wh_cert.h"
#include "obj/base/fs.h"
#include "obj/base/ktime.h"

#define TOKEN_BYTES 32
#define CERT_VALIDITY_S (366LL * 24 * 3600)

enum { OPT_DIR = 256, OPT_NS, OPT_NAME };

struct ss_args {
    const char *dir, *ns, *name;
};

struct ss {
    const struct ss_args *a;
    char token[2 * TOKEN_BYTES + 1];
};

static int on_arg(void *ctx, int code, const char *arg)
{
    struct ss_args *a = ctx;
    switch (code) {
    case OPT_DIR: a->dir = arg; return EXIT_OK;
    case OPT_NS: a->ns = arg; return EXIT_OK;
    case OPT_NAME: a->name = arg; return EXIT_OK;
    default: return cli_usage_error("statusserver", "takes --dir, --namespace and --name only");
    }
}

/* DIR/name, 0644 (the pods may run as another user), written whole. */
static int write_file(const char *dir, const char *name, const char *text)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
        return -errno;
    int rc = fs_write_all(fd, text, strlen(text));
    if (close(fd) < 0 && rc == 0)
        rc = -errno;
    return rc;
}

/* One JSON line to the runner. */
static int tell(json_t *msg)
{
    char *text = msg ? json_dumps(msg, JSON_COMPACT) : NULL;
    int rc = text ? fs_write_all(STDOUT_FILENO, text, strlen(text)) : -ENOMEM;
    if (rc == 0)
        rc = fs_write_all(STDOUT_FILENO, "\n", 1);
    free(text);
    json_decref(msg);
    return rc;
}

static int authorize(void *arg, const char *token, const char *ns, const char *name)
{
    const struct ss *s = arg;
    size_t n = strlen(s->token), m = strlen(token);
    unsigned diff = n != m;
    for (size_t i = 0; i < n && i < m; i++) /* the time taken does not tell the token */
        diff |= (unsigned)(s->token[i] ^ token[i]);
    return !diff && !strcmp(ns, s->a->ns) && !strcmp(name, s->a->name);
}

static int apply(void *arg, const char *ns, const char *name, const json_t *status,
                 char **message)
{
    const struct ss *s = arg;
    (void)message;
    if (strcmp(ns, s->a->ns) || strcmp(name, s->a->name))
        return -ENOENT;
    return tell(json_pack("{s:O}", "trainerStatus", status));
}

/* The CA, the serving certificate and the token, written for the pods. */
static int credentials(struct ss *s, struct wh_cert *cert)
{
    unsigned char raw[TOKEN_BYTES];
    struct err e = {{0}};
    const char *hosts[] = {"127.0.0.1", "localhost"};
    if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
        return -EIO;
    for (size_t i = 0; i < TOKEN_BYTES; i++)
        snprintf(s->token + 2 * i, 3, "%02x", raw[i]);
    int rc = wh_cert_generate(hosts, 2, kt_now_ms() / 1000, CERT_VALIDITY_S, cert, &e);
    if (rc < 0) {
        fprintf(stderr, "jaxset statusserver: certificate: %s\n", e.msg);
        return rc;
    }
    if ((mkdir(s->a->dir, 0755) < 0 && errno != EEXIST) ||
        (rc = write_file(s->a->dir, "ca.crt", cert->ca_crt)) < 0 ||
        (rc = write_file(s->a->dir, "token", s->token)) < 0) {
        rc = rc < 0 ? rc : -errno;
        fprintf(stderr, "jaxset statusserver: %s: %s\n", s->a->dir, strerror(-rc));
    }
    return rc;
}

/* Serves until stdin ends. */
static int serve(struct srv_http *h)
{
    for (;;) {
        struct pollfd p[2] = {{.fd = srv_http_fd(h), .events = POLLIN},
                              {.fd = STDIN_FILENO, .events = POLLIN}};
        long t = srv_http_timeout_ms(h);
        if (poll(p, 2, t < 0 || t > 1000 ? 1000 : (int)t) < 0 && errno != EINTR)
            return -errno;
        if (p[1].revents) {
            char buf[64];
            if (read(STDIN_FILENO, buf, sizeof(buf)) <= 0)
                return 0;
        }
        srv_http_run(h);
    }
}

static int run(struct ss *s)
{
    struct wh_cert cert = {0};
    struct srv_http *h = NULL;
    struct err e = {{0}};
    struct srv_status_ops ops = {.authorize = authorize, .apply = apply, .arg = s};
    struct srv_http_route route = srv_status_route(&ops);
    char path[600], url[700];
    int rc = credentials(s, &cert);
    if (rc < 0)
        goto out;
    struct srv_http_limits l = {.request_max = TJS_REPORT_MAX_BODY, .timeout_s = 120,
                                .header_timeout_s = 10, .tls_cert = cert.tls_crt,
                                .tls_key = cert.tls_key};
    if ((rc = srv_http_start_with("127.0.0.1:0", &route, 1, &l, &h, &e)) < 0) {
        fprintf(stderr, "jaxset statusserver: %s\n", e.msg);
        goto out;
    }
    if (tjs_report_path(s->a->ns, s->a->name, path, sizeof(path)) < 0) {
        rc = -ERANGE;
        goto out;
    }
    snprintf(url, sizeof(url), "https://127.0.0.1:%d%s", srv_http_port(h), path);
    if ((rc = tell(json_pack("{s:s}", "url", url))) == 0)
        rc = serve(h);
out:
    srv_http_stop(h);
    wh_cert_release(&cert);
    return rc < 0 ? EXIT_JOB_FAILED : EXIT_OK;
}

int cmd_statusserver(int argc, char **argv)
{
    static const struct option longopts[] = {{"dir", required_argument, NULL, OPT_DIR},
                                             {"namespace", required_argument, NULL, OPT_NS},
                                             {"name", required_argument, NULL, OPT_NAME},
                                             {0}};
    struct ss_args a = {0};
    int rc = cli_parse(argc, argv, "", longopts, on_arg, &a);
    if (rc != EXIT_OK)
        return rc;
    if (!a.dir || !a.ns || !a.name)
        return cli_usage_error("statusserver", "--dir, --namespace and --name are required");
    struct ss s = {.a = &a};
    return run(&s);
}
