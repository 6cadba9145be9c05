/* cluster: how a CLI verb reaches a cluster, with kubectl's flags and precedence:
 * --kubeconfig FILE, else $KUBECONFIG, else ~/.kube/config, else the in-cluster service
 * account (kube/config/kc_cfg.h); --context; the namespace from -n/--namespace, else the
 * context's, else "default"; --request-timeout for each request (connections are never tried
 * again: an unreachable server is one line on stderr within the timeout).
 *
 * get, describe, logs, wait and delete act on local runs instead with --local, or when no
 * cluster is configured (no cluster flag, no kubeconfig file, not in a cluster). */
#ifndef JX_CLI_CLUSTER_H
#define JX_CLI_CLUSTER_H

#include <jansson.h>
#include <stdbool.h>

#include "kube/client/kc_cli.h"
#include "kube/client/kc.h"
#include "kube/client/kc_res.h"
#include "kube/config/kc_cfg.h"

/* Default --request-timeout, milliseconds (kubectl has none; a CLI should end). */
#define CLUSTER_TIMEOUT_MS 30000

struct cluster {
    const char *cmd;      /* the subcommand, for messages */
    struct kc_cfg_opts k;   /* --kubeconfig, --context, -n */
    long timeout_ms;      /* --request-timeout; CLUSTER_TIMEOUT_MS unless given */
    bool local;           /* --local */
    bool flags;           /* a cluster flag was given */
    bool errors_json;     /* --errors=json: a refusal also prints its v1 Status on stderr */
    struct kc *kc;        /* after cluster_connect; owned */
    const char *ns;       /* the namespace in effect, after cluster_connect (borrowed) */
};

/* The flags, for a command's getopt tables. */
enum {
    CLUSTER_OPT_KUBECONFIG = 1100,
    CLUSTER_OPT_CONTEXT,
    CLUSTER_OPT_TIMEOUT,
    CLUSTER_OPT_LOCAL,
    CLUSTER_OPT_ERRORS,
};
#define CLUSTER_SHORTOPTS "n:"
#define CLUSTER_LONGOPTS                                                                       \
    {"kubeconfig", required_argument, NULL, CLUSTER_OPT_KUBECONFIG},                           \
        {"context", required_argument, NULL, CLUSTER_OPT_CONTEXT},                             \
        {"namespace", required_argument, NULL, 'n'},                                           \
        {"request-timeout", required_argument, NULL, CLUSTER_OPT_TIMEOUT},                     \
        {"errors", required_argument, NULL, CLUSTER_OPT_ERRORS}
#define CLUSTER_LOCAL_LONGOPT {"local", no_argument, NULL, CLUSTER_OPT_LOCAL}
/* An empty set of flags for `cmd`. */
struct cluster cluster_new(const char *cmd);

/* A cluster flag of a cli_parse callback: EXIT_OK when taken, EXIT_INVALID after a usage
 * error, -1 when `code` is not one. */
int cluster_opt(struct cluster *c, int code, const char *arg);

/* Whether the verb acts on a cluster: not --local, and a cluster flag given, a kubeconfig
 * file present ($KUBECONFIG's, else ~/.kube/config) or in a cluster (KUBERNETES_SERVICE_HOST
 * and _PORT set and the service account's token present, as client-go requires). */
bool cluster_wanted(const struct cluster *c);

/* Loads the configuration and makes the client.  EXIT_OK, or prints "jaxset CMD: ..." and
 * returns EXIT_CLUSTER. */
int cluster_connect(struct cluster *c);
void cluster_close(struct cluster *c);

/* One request (kube/client/kc_cli.h). */
int cluster_request(struct cluster *c, const char *method, const char *path,
                    const json_t *body, struct kc_cli_resp *out);

/* The exit status of a failed answer, the one map of the CLI's verbs: EXIT_INVALID for
 * NotFound, AlreadyExists and Invalid (-ENOENT, -EEXIST, -EINVAL: the user's input),
 * EXIT_CLUSTER otherwise (no answer, or the cluster refused). */
int cluster_exit_status(const struct kc_cli_resp *r);

/* Prints "jaxset CMD: <what went wrong>" for a failed answer; returns its exit status
 * (cluster_exit_status). */
int cluster_fail(const struct cluster *c, const struct kc_cli_resp *r);

/* With --errors=json: the Status of a refused answer on stderr as one JSON line (the server's,
 * else one made of its code and message); nothing when no answer came. */
void cluster_status_line(const struct cluster *c, const struct kc_cli_resp *r);

/* GETs one object (*out owned by the caller) or prints why not; EXIT_OK or an exit status as
 * cluster_fail. */
int cluster_get(struct cluster *c, const struct kc_res *r, const char *name, json_t **out);

/* A job named on the command line, "NAME" (a JobSet) or "KIND/NAME": *kind and *name point
 * into `arg` or are static.  EXIT_OK, or a usage error naming the known kinds. */
int cluster_job_arg(const char *cmd, const char *arg, const struct kc_res **kind,
                    const char **name, char *buf, size_t len);

/* cluster_job_arg for each of the n names of the command line, into kinds[i] and names[i]:
 * EXIT_OK, or the first usage error. */
int cluster_job_args(const char *cmd, const char *const *args, size_t n,
                     const struct kc_res **kinds, const char **names);

#endif
