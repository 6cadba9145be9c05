/* kc_cfg (kubeconfig): what the files of kc_cfg*.c share (see kc_cfg.h). */
#ifndef JX_KUBE_CLIENT_KC_CFG_INT_H
#define JX_KUBE_CLIENT_KC_CFG_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "kube/config/kc_cfg.h"
#include "obj/base/err.h"

/* Largest file read: a CA bundle, a certificate, a key, a token. */
#define KC_CFG_FILE_MAX (4u * 1024u * 1024u)
/* A token file is re-read at least this often (client-go NewCachedFileTokenSource). */
#define KC_CFG_TOKEN_PERIOD_MS 60000

/* ---- kc_cfg_files.c: the files and their merged view ---------------------------------- */

struct kc_cfg__file {
    char *path;   /* as given */
    char *dir;    /* absolute directory of the file, for relative paths inside it */
    json_t *doc;  /* the decoded document (an object) */
};

struct kc_cfg__set {
    struct kc_cfg__file *f; /* the files that exist, in loading order */
    size_t n;
    char *source;         /* their paths, ':'-joined ("(no file)" when none) */
    char *looked;         /* every path looked at, ", "-joined, for "no kubeconfig" */
};

/* Reads the files of the loading rules (--kubeconfig, else $KUBECONFIG, else ~/.kube/config)
 * into *s (kc_cfg__set_free).  0, or a negative errno with a message naming the file. */
int kc_cfg__set_load(const struct kc_cfg_opts *o, struct kc_cfg__set *s, struct err *e);
void kc_cfg__set_free(struct kc_cfg__set *s);

/* The entry `name` of list `list` ("clusters", "users", "contexts") as merged: its inner object
 * ("cluster", "user", "context"; an empty object for null) from the first file naming it, with
 * *from set to that file.  NULL when no file has it.  Borrowed. */
const json_t *kc_cfg__find(const struct kc_cfg__set *s, const char *list, const char *name,
                         const struct kc_cfg__file **from);

/* current-context from the first file that sets one, or NULL. */
const char *kc_cfg__current_context(const struct kc_cfg__set *s);

/* ---- kc_cfg_util.c ------------------------------------------------------------------- */

/* Typed fields of a kubeconfig object.  Absent, null and "" give NULL / false; a value of
 * another type is -EINVAL with the message "<key>: must be a string" (or boolean). */
int kc_cfg__str(const json_t *o, const char *key, const char **out, struct err *e);
int kc_cfg__bool(const json_t *o, const char *key, bool *out, struct err *e);
/* A *-data field: base64-decoded into *out (malloc'd, NUL-terminated, caller wipes and frees),
 * or *out = NULL when absent or empty.  -EINVAL "<key>: invalid base64", -ENOMEM. */
int kc_cfg__data(const json_t *o, const char *key, char **out, size_t *len, struct err *e);

/* Reads a whole file (at most KC_CFG_FILE_MAX bytes) into *out (malloc'd, NUL-terminated).
 * 0 or a negative errno (-EFBIG past the limit); no message. */
int kc_cfg__read_file(const char *path, char **out, size_t *len);

/* `path` made absolute against `dir` (kept as is when absolute).  malloc'd, NULL on OOM. */
char *kc_cfg__resolve(const char *dir, const char *path);

/* Wipes then frees: `len` bytes, or the whole string. NULL-safe. */
void kc_cfg__wipe_free(char *p, size_t len);
void kc_cfg__wipe_str(char *p);
/* Wipes every string value of a JSON tree (decoded files and plugin output hold secrets). */
void kc_cfg__json_wipe(json_t *v);

/* Prefixes the message with "kubeconfig <what>: " (what: a file, the ':'-joined files), first
 * dropping a leading "<what>: " (yaml_decode_file's own prefix). */
void kc_cfg__err_in(struct err *e, const char *what);

/* strdup that takes NULL (NULL -> NULL); *ok cleared on out of memory. */
char *kc_cfg__dup(const char *s, bool *ok);

/* ---- kc_cfg_cluster.c, kc_cfg_user.c: one entry into the struct -------------------- */

/* The cluster entry (NULL with --server alone) into c: server (unless o->server), CA,
 * tls-server-name, insecure, proxy-url, disable-compression.  Messages start with the field. */
int kc_cfg__cluster(struct kc_cfg *c, const json_t *cl, const struct kc_cfg__file *f,
                  const struct kc_cfg_opts *o, struct err *e);

/* The user entry into c and c->auth.  Messages start with the field. */
int kc_cfg__user(struct kc_cfg *c, const json_t *u, const struct kc_cfg__file *f,
               const struct kc_cfg_opts *o, struct err *e);

/* c->server normalised as rest.DefaultServerURL: a scheme added when missing (https when TLS is
 * configured, else http), only http and https, no trailing '/'.  -EINVAL with a message. */
int kc_cfg__server_url(struct kc_cfg *c, struct err *e);

/* ---- kc_cfg_incluster.c --------------------------------------------------------------- */

/* KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are both set. */
bool kc_cfg__in_cluster_env(void);
/* rest.InClusterConfig into c (namespace included). */
int kc_cfg__in_cluster(const struct kc_cfg_opts *o, struct kc_cfg *c, struct err *e);
/* The pod's namespace, when in a cluster ($POD_NAMESPACE, else sa_dir/namespace), into *out
 * (malloc'd), or *out = NULL.  `need_token`: only when sa_dir/token exists (client-go
 * inClusterClientConfig.Possible).  0 or -ENOMEM. */
int kc_cfg__pod_namespace(const char *sa_dir, bool need_token, char **out);

/* ---- kc_cfg_creds.c: tokens ----------------------------------------------------------- */

struct kc_cfg__tokfile {
    char *path;
    char *tok;             /* last good token (trimmed), or NULL */
    bool stale;            /* invalidated: re-read on the next call */
    bool have_stat;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    int64_t read_ms;       /* when it was last read */
};

/* A token file to follow; reads it now.  0 with *out, or a negative errno with a message
 * naming the file ("-ENOENT: ... No such file or directory", "read empty token from file"). */
int kc_cfg__tokfile_new(const char *path, struct kc_cfg__tokfile **out, struct err *e);
void kc_cfg__tokfile_free(struct kc_cfg__tokfile *t);

/* ---- kc_cfg_exec.c, kc_cfg_exec_run.c: exec credential plugins --------------------- */

struct kc_cfg__exec {
    char **argv;           /* command (resolved) and args, NULL-terminated */
    char **env;            /* the config's "NAME=value", NULL-terminated */
    char *api_version;     /* client.authentication.k8s.io/v1 or /v1beta1 */
    char *install_hint;    /* or NULL */
    bool provide_cluster;  /* provideClusterInfo */
    char *info;            /* KUBERNETES_EXEC_INFO */
    char *user;            /* the user entry, for messages */
    int timeout_ms;
    /* the cached credential */
    bool have;
    char *token;
    char *cert; size_t cert_len;
    char *key; size_t key_len;
    int64_t fresh_until_ms; /* INT64_MAX without expirationTimestamp */
};

/* Parses and validates the user's `exec` object (clientcmd validateAuthInfo, v1 defaults).
 * 0 with *out, or -EINVAL with a message starting "exec: ...". */
int kc_cfg__exec_new(const json_t *ex, const struct kc_cfg__file *f, const char *user,
                   int timeout_ms, struct kc_cfg__exec **out, struct err *e);
/* Builds KUBERNETES_EXEC_INFO once c's cluster is complete (spec.cluster from c and the exec
 * extension of the cluster entry `cl`, when provideClusterInfo).  0 or -ENOMEM. */
int kc_cfg__exec_info(struct kc_cfg__exec *x, const struct kc_cfg *c, const json_t *cl, struct err *e);
void kc_cfg__exec_free(struct kc_cfg__exec *x);
/* The cached credential, the plugin run again first when there is none or it is about to
 * expire.  0, or a negative errno with a message. */
int kc_cfg__exec_get(struct kc_cfg__exec *x, int64_t now_ms, struct err *e);
/* Forgets the cached credential. */
void kc_cfg__exec_drop(struct kc_cfg__exec *x);

/* Runs the plugin with stdin /dev/null, `envp`, the time limit; its stdout into *out
 * (malloc'd, at most 1 MiB), with a message quoting the exit status and the first lines of its
 * stderr on failure.  0 or a negative errno (-ETIMEDOUT, -ENOENT not found, -EIO failed). */
int kc_cfg__exec_run(const struct kc_cfg__exec *x, char *const envp[], char **out, size_t *len,
                   struct err *e);

/* ---- private state behind struct kc_cfg ------------------------------------------------------ */

struct kc_cfg_auth {
    char *token;               /* static token, or NULL */
    struct kc_cfg__tokfile *tf;  /* token file (tokenFile, in-cluster token), or NULL */
    struct kc_cfg__exec *exec;   /* exec plugin, or NULL */
};

#endif
