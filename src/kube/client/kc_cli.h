/* kc_cli: what a command-line client needs from kclient (kc.h): one request at a time with
 * its whole answer (the body of an error too, to print a 422's causes one per line), and a
 * message for people when the API server cannot be reached. */
#ifndef JX_KUBE_CLIENT_KC_CLI_H
#define JX_KUBE_CLIENT_KC_CLI_H

#include <jansson.h>
#include <stdint.h>

#include "kube/client/kc.h"

struct kc_cli_resp {
    int rc;       /* kc_resp.rc: 0, -ENOENT, -EEXIST, -EINVAL, -EIO (no answer)... */
    long code;    /* HTTP status; 0 when no answer came */
    char *reason; /* Status.reason or "" (owned) */
    json_t *body; /* decoded body or NULL (owned) */
    char *msg;    /* one line: the Status message (with 422 causes), or the transport error
                   * (owned; "" on success) */
};

/* Sends one request and runs the client until it ended; fills *out (kc_cli_resp_free it, also
 * on failure).  Returns out->rc. */
int kc_cli_request(struct kc *c, const char *method, const char *path, const json_t *body,
                 const char *ctype, struct kc_cli_resp *out);
void kc_cli_resp_free(struct kc_cli_resp *r);

/* The message to print for a failed answer: the Status message when the server sent one,
 * else "cannot reach the API server at <server>: <why>".  Points into r or is static. */
const char *kc_cli_message(const struct kc *c, const struct kc_cli_resp *r, char *buf, size_t len);

/* Watches `list_path` (a collection; `query` adds "fieldSelector=..." or "labelSelector=...",
 * already escaped, or NULL) from resourceVersion `rv` (NULL or "": from now, with the current
 * objects as ADDED events), calling fn(arg, type, object) for each event but BOOKMARK; a
 * stream the server ends normally is watched again from the last version seen.  Returns fn's
 * first nonzero value; 0 when the monotonic time `deadline_ms` (kt_mono_ms; 0: none) passed;
 * a negative errno when the watch failed (-JX_EGONE: the version is too old, list again), with a
 * message in `e`. */
typedef int (*kc_cli_event_fn)(void *arg, const char *type, json_t *obj);
int kc_cli_watch(struct kc *c, const char *list_path, const char *query, const char *rv,
               int64_t deadline_ms, kc_cli_event_fn fn, void *arg, struct err *e);

#endif
