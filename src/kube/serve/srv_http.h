/* srv_http: a small HTTP server for the controller's plain endpoints (/healthz, /readyz, /metrics)
 * over libmicrohttpd, driven by the caller's event loop: no thread of its own.
 *
 * The controller has one thread owning all its state, waiting in kc_run() (the REST client's
 * poll over curl's sockets and a few extra fds).  The server gives that loop one file
 * descriptor (libmicrohttpd's epoll fd, readable when a connection or request is waiting) and a
 * timeout; the loop calls srv_http_run() when the fd is readable or the timeout has passed, and
 * the route handlers run right there, on the owning thread:
 *
 *     int fd = srv_http_fd(h);
 *     long t = srv_http_timeout_ms(h);          // -1: none; cap the loop's own timeout with it
 *     kc_run(kc, t >= 0 && t < my_ms ? (int)t : my_ms, &fd, fd >= 0, NULL);
 *     srv_http_run(h);                          // cheap when nothing is ready; never blocks
 *
 * The timeout matters: libmicrohttpd may hold work that no fd signals (data already read) and
 * closes idle or slow connections only when run, so waiting on the fd alone can stall them.
 *
 * Requests: GET and HEAD, or POST on the routes that take it (anything else is 405 with an
 * Allow header), exact paths (the query string is ignored), unknown paths 404; a request body
 * is read only for POST routes (the admission webhooks), up to a limit.  With a certificate
 * and key the server speaks HTTPS only.  Limits keep a slow or
 * hostile client from holding the server: a connection idle for the timeout is closed, a
 * request's headers must be in within the header timeout however steadily they dribble (Go's
 * ReadHeaderTimeout) and fit in a small per-connection memory pool (else 431/414), and past the
 * connection limit a newcomer cuts the oldest connection still sending headers, so that 32
 * slow clients cannot keep a liveness probe out.
 */
#ifndef JX_KUBE_SERVE_SRV_HTTP_H
#define JX_KUBE_SERVE_SRV_HTTP_H

#include <stddef.h>

#include "obj/base/err.h"
#include "obj/base/sbuf.h"

struct srv_http;

/* Fills `body` (already empty; its max is set) and may point *content_type at a static string
 * (default "text/plain; charset=utf-8"); returns the HTTP status.  `path` is the route's.  Runs
 * on the thread that calls srv_http_run().  A body that failed (out of memory, too long) is
 * answered 500. */
typedef int (*srv_http_fn)(void *arg, const char *path, struct sbuf *body,
                         const char **content_type);
/* A POST route: `req` (req_len bytes, NUL-terminated, borrowed) is the whole request body,
 * already read; fills `body` as srv_http_fn does and returns the HTTP status. */
typedef int (*srv_http_post_fn)(void *arg, const char *path, const char *req, size_t req_len,
                              struct sbuf *body, const char **content_type);

/* A request as a route that answers every method itself sees it (srv_http_route.call). */
struct srv_http_call {
    const char *method;
    const char *path;   /* the request's (a prefix route's path is only its start) */
    const char *body;   /* a POST's whole body, NUL-terminated (""; other methods: "") */
    size_t len;
    bool too_big;       /* a POST body past request_max: not kept (body "") */
    void *conn_;        /* libmicrohttpd's connection: for srv_http_header() */
};
/* The value of request header `name` (any case), or NULL; valid during the call. */
const char *srv_http_header(const struct srv_http_call *c, const char *name);
typedef int (*srv_http_call_fn)(void *arg, const struct srv_http_call *call, struct sbuf *body,
                              const char **content_type);

struct srv_http_route {
    const char *path; /* exact, e.g. "/metrics"; with `prefix`, every path that starts so */
    srv_http_fn fn;     /* GET and HEAD (NULL: the route takes POST only) */
    void *arg;
    srv_http_post_fn post; /* POST (NULL: GET and HEAD only) */
    srv_http_call_fn call; /* every method (fn and post unused): the route answers 404, 405 and
                            * 413 itself; an exact route of the same path wins over it */
    bool prefix;
};

struct srv_http_limits {
    unsigned timeout_s;  /* a connection with no progress for this long is closed (0: default) */
    unsigned max_conns;  /* connections open at once (0: default); past it a new connection
                          * cuts the oldest one still sending its headers */
    unsigned header_timeout_s; /* a request's headers must be in within this (Go's
                                * ReadHeaderTimeout), however steadily they come (0: default) */
    size_t header_bytes; /* per-connection memory for the request line and headers (0: default) */
    size_t body_max;     /* largest response body (0: default) */
    size_t request_max;  /* largest POST body; a longer one is answered 413 (0: default) */
    const char *tls_cert; /* PEM serving certificate (chain) and its key: HTTPS (GnuTLS, as */
    const char *tls_key;  /* Debian builds libmicrohttpd); copied.  NULL: plain HTTP */
};
#define SRV_HTTP_DEFAULT_TIMEOUT_S 10
#define SRV_HTTP_DEFAULT_MAX_CONNS 32
#define SRV_HTTP_DEFAULT_HEADER_TIMEOUT_S 10
#define SRV_HTTP_DEFAULT_HEADER_BYTES (16 * 1024)
#define SRV_HTTP_DEFAULT_BODY_MAX (64 * 1024 * 1024)
#define SRV_HTTP_DEFAULT_REQUEST_MAX (8 * 1024 * 1024)

/* Listens on `bind` and serves `routes` (copied, paths too; `arg`s are the caller's):
 *   "host:port"   an IPv4 address, a host name (its first address that binds) or "[v6addr]";
 *   ":port"       every interface (IPv6 and IPv4 when the host has IPv6, else IPv4);
 *   "0"           disabled, as controller-runtime's --metrics-bind-address "0": returns 0
 *                 with *out = NULL (every function below accepts NULL);
 *   port 0        any free port (srv_http_port() tells which).
 * Returns 0, or -EINVAL (malformed address, unknown host), -EADDRINUSE, -EACCES, -EADDRNOTAVAIL
 * ... with a message naming the address.  *out is freed with srv_http_stop(). */
int srv_http_start(const char *bind, const struct srv_http_route *routes, size_t n_routes,
                 struct srv_http **out, struct err *e);
/* The same with limits other than the defaults (NULL: defaults). */
int srv_http_start_with(const char *bind, const struct srv_http_route *routes, size_t n_routes,
                      const struct srv_http_limits *limits, struct srv_http **out, struct err *e);

/* Serves with another certificate and key (PEM, copied) from now on: a new server takes over
 * the listening socket, and the connections of the old one are closed.  0 or -errno with a
 * message (the old certificate then stays). */
int srv_http_set_tls(struct srv_http *h, const char *cert, const char *key, struct err *e);

int srv_http_fd(const struct srv_http *h);          /* the fd to poll for POLLIN; -1 for NULL */
int srv_http_port(const struct srv_http *h);        /* the bound port; 0 for NULL */
long srv_http_timeout_ms(const struct srv_http *h); /* ms until srv_http_run() is due anyway; -1 none */
void srv_http_run(struct srv_http *h);              /* serves what is ready; never blocks */
void srv_http_stop(struct srv_http *h);             /* closes every connection; NULL-safe */

#endif
