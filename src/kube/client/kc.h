/* kc (the REST client): a Kubernetes REST client on one thread (libcurl's multi interface +
 * jansson).
 *
 * Every request and every watch of a process shares one CURLM, so connections are reused (and
 * multiplexed over HTTP/2 where the server offers it) and one thread waits for all of them in
 * kc_run().  Requests pass a client-side token bucket (client-go's flowcontrol: `qps` tokens a
 * second, at most `burst` at once) and are retried, as client-go's rest.Request does, on 429
 * and on 5xx responses that carry Retry-After (waiting what the server asks, at most 10 tries),
 * and on connection failures with exponential backoff.  A 401 drops cached credentials
 * (kubeconfig exec plugins, rotated token files) and tries once more.
 *
 * Kubernetes `Status` errors are decoded: kc_resp.reason is the Status reason (NotFound,
 * AlreadyExists, Conflict, Expired, Gone, Invalid, TooManyRequests...), the message carries the
 * Status message and, for 422 Invalid, each cause ("spec.replicas: Invalid value: ...").
 *
 * Ownership: the client borrows nothing after kc_new returns (it takes the kcfg).  Bodies given
 * to kc_send/kc_call are borrowed (serialized at once).  Objects handed to callbacks are
 * borrowed for the callback's duration (json_incref to keep). */
#ifndef JX_KUBE_CLIENT_KC_H
#define JX_KUBE_CLIENT_KC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "obj/base/err.h"

struct kc_cfg;
struct kc;
struct kc_watch;

struct kc_opts {
    double qps;             /* client-side requests per second; <= 0: no limit */
    int burst;              /* bucket size (>= 1) */
    const char *user_agent; /* NULL: "jaxset/<version>" */
    long timeout_ms;        /* per request (not watches); 0: none */
    bool no_connect_retry;  /* a failed connection ends the request at once (kubectl's
                             * behaviour: a CLI says "refused" now, not after 10 backoffs) */
};

/* What came back.  `code` 0 means no HTTP answer (transport failure, see rc and msg). */
struct kc_resp {
    int rc;             /* 0 (2xx), or negative: -ENOENT NotFound, -EEXIST AlreadyExists,
                         * -JX_ECONFLICT Conflict, -JX_EGONE Gone/Expired (410), -EINVAL Invalid/
                         * BadRequest, -EACCES 401/403, -EAGAIN 429/5xx after the retries,
                         * -EIO transport, -ENOMEM */
    long code;          /* HTTP status */
    const char *reason; /* Status.reason or "" */
    json_t *body;       /* decoded body (NULL when not JSON) */
    const char *msg;    /* one line for people ("" on success) */
};

typedef void (*kc_done_fn)(void *arg, const struct kc_resp *r);

/* Creates a client for `cfg` (taken: freed by kc_free, even on failure).  0 or -errno. */
int kc_new(struct kc_cfg *cfg, const struct kc_opts *o, struct kc **out, struct err *e);
void kc_free(struct kc *c); /* cancels everything still pending, without callbacks */

/* The namespace the configuration names (context's, -n, in-cluster). */
const char *kc_namespace(const struct kc *c);
const char *kc_server(const struct kc *c);

/* Queues a request.  `path` starts with "/" (query included, already escaped: kc_escape);
 * `body` may be NULL; `ctype` NULL means application/json.  `fn` (may be NULL) is called once,
 * from kc_run, when the request ended (after retries).  0 or -ENOMEM. */
int kc_send(struct kc *c, const char *method, const char *path, const json_t *body,
            const char *ctype, kc_done_fn fn, void *arg);

/* [yields] kc_send, then kc_wait until that request ended: other requests and watches progress
 * meanwhile (their callbacks run from inside, or from the loop when called from a fiber).  Returns
 * resp.rc; on success *out (may be NULL) gets the body (caller decrefs); on failure `e` gets the
 * message. */
int kc_call(struct kc *c, const char *method, const char *path, const json_t *body,
            const char *ctype, json_t **out, struct err *e);

/* [yields] Until *done is set (by a callback): runs the client, or, from a fiber (kc_fiber.h),
 * yields to the loop that resumes it, so that other fibers and the loop's own work go on
 * meanwhile. */
void kc_wait(struct kc *c, const bool *done);

/* What a kc_wait outside a fiber serves while it waits, standing in for the caller's loop (a
 * long list page by page): `fds` fills up to `max` descriptors to watch (and may lower *next,
 * the ms until it needs a turn), `serve` runs after each turn, `ready` when one of them was.
 * NULL fns: none (the default).  The caller guards `serve` against being re-entered from a
 * kc_wait of its own. */
struct kc_wait_hook {
    size_t (*fds)(void *arg, int *fds, size_t max, int64_t *next);
    void (*serve)(void *arg, bool ready);
    void *arg;
};
void kc_set_wait_hook(struct kc *c, const struct kc_wait_hook *h);

/* Runs until every request queued so far has ended. */
void kc_drain(struct kc *c);

/* From now on every request and watch, and every one queued but not started, ends with `rc`
 * and a message naming `why` instead of being sent; those already on the wire finish as
 * usual.  For a controller that has lost its leadership: nothing more reaches the server. */
void kc_refuse(struct kc *c, int rc, const char *why);

/* Watches: GET `path` (which must hold watch=1 or be a ?watch stream) and calls `ev` with each
 * decoded event object ({"type","object"}), then `end` once when the stream ends for any reason
 * (rc 0 when the server closed it normally).  The watch object is freed after `end`.  A line
 * that does not decode (kc_watch_event) is skipped: `ev` gets an event of type "UNDECODABLE"
 * with an "error", and the stream goes on, so that one object no watcher can read does not
 * blind it (the next event or bookmark moves its resourceVersion past it).  NULL on OOM. */
typedef void (*kc_event_fn)(void *arg, json_t *event);
typedef void (*kc_end_fn)(void *arg, int rc, long code, const char *msg);
struct kc_watch *kc_watch(struct kc *c, const char *path, kc_event_fn ev, kc_end_fn end,
                          void *arg);
void kc_watch_cancel(struct kc_watch *w); /* no `end` call; frees it */

/* One line of a watch stream decoded (pure; the watch-stream fuzz target's entry): the event
 * object, or for a line that is not a JSON object, or an object without a string "type",
 * {"type": "UNDECODABLE", "error": why}.  JSON allows U+0000 in strings (RFC 8259; Go's
 * encoding/json, and so kube-apiserver, decode and encode it): it is accepted.  NULL on OOM. */
json_t *kc_watch_event(const char *line, size_t len);

/* A stream of text lines (pods/log with follow=true): as kc_watch, but `line` gets each line
 * as it came (without its newline; empty lines too; the last one even without a newline),
 * borrowed for the call.  Cancel with kc_watch_cancel.  NULL on OOM. */
typedef void (*kc_line_fn)(void *arg, const char *line, size_t len);
struct kc_watch *kc_stream(struct kc *c, const char *path, kc_line_fn line, kc_end_fn end,
                           void *arg);

/* Waits up to `timeout_ms` (and less when a queued request becomes due) for progress, then
 * dispatches every finished request and watch data.  `extra_fd` >= 0 is polled for POLLIN too
 * (the controller's signalfd and HTTP server); *ready tells whether it was readable. */
void kc_run(struct kc *c, int timeout_ms, const int *extra_fds, size_t n_extra, bool *ready);

/* URL-escapes `s` (query values, label selectors); caller frees; NULL on OOM. */
char *kc_escape(const char *s);

/* Requests sent (tries included) and their HTTP codes, for metrics and the debug log: called
 * for every answer, with the request's path (query included) and its time on the wire. */
typedef void (*kc_observe_fn)(void *arg, const char *method, const char *path, long code,
                              double seconds);
void kc_set_observer(struct kc *c, kc_observe_fn fn, void *arg);

#endif
