/* The controller's plain HTTP endpoints over libmicrohttpd in external epoll mode (see
 * srv_http.h).  The listening socket is made here, so that a bad address or a port in use is
 * reported with its errno and the address, and libmicrohttpd takes it over
 * (MHD_OPTION_LISTEN_SOCKET). */
#include "kube/serve/srv_http.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "obj/base/ktime.h"

/* One open connection, oldest first in khttpd's list (libmicrohttpd's socket context). */
struct kconn {
    struct kconn *prev, *next;
    int fd;
    int64_t since_ms;  /* when reading the current request's headers began */
    bool headers_done; /* the current request's headers are in */
    bool cut;          /* shut down by us; libmicrohttpd closes it on its next run */
};

struct srv_http {
    struct MHD_Daemon *d;
    int fd; /* libmicrohttpd's epoll fd */
    int port;
    bool v6;
    size_t body_max, request_max;
    struct srv_http_limits limits; /* as given, less the TLS strings */
    char *cert, *key;            /* PEM, owned; NULL: plain HTTP */
    struct srv_http_route *routes; /* paths owned */
    size_t n_routes;
    struct kconn *first, *last; /* open connections, oldest first */
    size_t n_conns;
};

/* A POST request's body while it arrives (libmicrohttpd's per-request pointer). */
struct srv_http_req {
    struct sbuf body;
    bool too_big;
};

static const char text_plain[] = "text/plain; charset=utf-8";

/* ---- the address --------------------------------------------------------------------- */

/* Splits "host:port", "[v6]:port" or ":port" as Go's net.SplitHostPort does (a bare IPv6
 * address needs its brackets); host "" means every interface. */
static int split_bind(const char *bind, char *host, size_t host_size, int *port,
                      struct err *e)
{
    const char *colon = strrchr(bind, ':');
    const char *h = bind, *h_end = colon;
    if (!colon)
        return err_set(e, -EINVAL, "bind address \"%s\": missing port (host:port, :port or 0)",
                       bind);
    if (*bind == '[') {
        h = bind + 1;
        h_end = strchr(bind, ']');
        if (!h_end || h_end + 1 != colon)
            return err_set(e, -EINVAL, "bind address \"%s\": malformed [IPv6]:port", bind);
    } else if (memchr(bind, ':', (size_t)(colon - bind))) {
        return err_set(e, -EINVAL, "bind address \"%s\": too many colons "
                                   "(write an IPv6 address as [addr]:port)", bind);
    }
    const char *p = colon + 1;
    size_t np = strspn(p, "0123456789");
    long pn = np > 0 && np <= 5 && !p[np] ? strtol(p, NULL, 10) : -1;
    if (pn < 0 || pn > 65535)
        return err_set(e, -EINVAL, "bind address \"%s\": port must be a number 0-65535", bind);
    if ((size_t)(h_end - h) >= host_size)
        return err_set(e, -EINVAL, "bind address \"%s\": host too long", bind);
    memcpy(host, h, (size_t)(h_end - h));
    host[h_end - h] = '\0';
    *port = (int)pn;
    return 0;
}

/* A listening socket on one address; -errno on failure. */
static int listen_addr(const struct sockaddr *sa, socklen_t len, bool dual)
{
    int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    int one = 1, zero = 0;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (sa->sa_family == AF_INET6)
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, dual ? &zero : &one, sizeof(int));
    if (bind(fd, sa, len) < 0 || listen(fd, 64) < 0) {
        int rc = -errno;
        close(fd);
        return rc;
    }
    return fd;
}

/* Every interface: [::] taking IPv4 too, or 0.0.0.0 where the host has no IPv6 (as Go's
 * net.Listen("tcp", ":port") does). */
static int listen_any(int port)
{
    struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port),
                              .sin6_addr = IN6ADDR_ANY_INIT};
    int fd = listen_addr((const struct sockaddr *)&a6, sizeof(a6), true);
    if (fd != -EAFNOSUPPORT && fd != -EADDRNOTAVAIL)
        return fd;
    struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr = {htonl(INADDR_ANY)}};
    return listen_addr((const struct sockaddr *)&a4, sizeof(a4), false);
}

/* The listening socket for `bind`, its family and port; -errno with a message naming it. */
static int listen_bind(const char *bind, bool *is_v6, int *bound_port, struct err *e)
{
    char host[256], service[8];
    int port = 0, rc = split_bind(bind, host, sizeof(host), &port, e);
    if (rc < 0)
        return rc;
    int fd;
    if (!*host) {
        fd = listen_any(port);
    } else {
        struct addrinfo hints = {.ai_flags = AI_PASSIVE | AI_NUMERICSERV,
                                 .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
        struct addrinfo *ai = NULL;
        snprintf(service, sizeof(service), "%d", port);
        int g = getaddrinfo(host, service, &hints, &ai);
        if (g != 0)
            return err_set(e, -EINVAL, "bind address \"%s\": %s", bind, gai_strerror(g));
        fd = -EADDRNOTAVAIL;
        for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next)
            fd = listen_addr(a->ai_addr, a->ai_addrlen, false);
        freeaddrinfo(ai);
    }
    if (fd < 0)
        return err_set(e, fd, "listen on %s: %s", bind, strerror(-fd));
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    getsockname(fd, (struct sockaddr *)&ss, &len);
    *is_v6 = ss.ss_family == AF_INET6;
    *bound_port = ntohs(*is_v6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                               : ((struct sockaddr_in *)&ss)->sin_port);
    return fd;
}

/* ---- requests -------------------------------------------------------------------------- */

/* The exact route of `path`, else the longest prefix route it starts with. */
static const struct srv_http_route *find_route(const struct srv_http *h, const char *path)
{
    const struct srv_http_route *best = NULL;
    for (size_t i = 0; i < h->n_routes; i++) {
        const struct srv_http_route *r = &h->routes[i];
        if (!r->prefix && strcmp(r->path, path) == 0)
            return r;
        if (r->prefix && strncmp(r->path, path, strlen(r->path)) == 0 &&
            (!best || strlen(r->path) > strlen(best->path)))
            best = r;
    }
    return best;
}

const char *srv_http_header(const struct srv_http_call *c, const char *name)
{
    return MHD_lookup_connection_value(c->conn_, MHD_HEADER_KIND, name);
}

static enum MHD_Result respond(struct MHD_Connection *c, int status, struct sbuf *body,
                               const char *content_type, const char *allow)
{
    size_t len = body->len;
    char *text = sb_detach(body);
    if (!text) {
        status = MHD_HTTP_INTERNAL_SERVER_ERROR;
        len = 0;
        text = NULL;
    }
    struct MHD_Response *r =
        text ? MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE)
             : MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    if (!r) {
        free(text);
        return MHD_NO; /* libmicrohttpd closes the connection */
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    if (allow)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
    enum MHD_Result ret = MHD_queue_response(c, (unsigned)status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result answer(struct MHD_Connection *c, const struct srv_http *h, int status,
                              struct sbuf *body, const char *ctype)
{
    if (sb_failed(body) || status < 100 || status > 599) {
        sb_free(body);
        body->max = h->body_max;
        sb_puts(body, "internal error\n");
        status = MHD_HTTP_INTERNAL_SERVER_ERROR;
        ctype = text_plain;
    }
    return respond(c, status, body, ctype ? ctype : text_plain, NULL);
}

/* Reads a POST's body as it arrives: the first call makes the request's buffer, the next ones
 * fill it (up to request_max: past it the body is dropped and marked too big).  1 while more
 * calls come (answer MHD_YES), 0 once the body is in (*req_cls holds it), -1 out of memory. */
static int take_body(const struct srv_http *h, void **req_cls, const char *upload_data,
                     size_t *upload_data_size)
{
    struct srv_http_req *q = *req_cls;
    if (!q) {
        if (!(q = calloc(1, sizeof(*q))))
            return -1;
        q->body.max = h->request_max;
        *req_cls = q;
        return 1;
    }
    if (!*upload_data_size)
        return 0;
    if (!q->too_big)
        sb_append(&q->body, upload_data, *upload_data_size);
    q->too_big = q->too_big || sb_failed(&q->body);
    *upload_data_size = 0;
    return 1;
}

/* A POST of a POST route, once its body is in. */
static enum MHD_Result on_post(const struct srv_http *h, const struct srv_http_route *r,
                               struct MHD_Connection *c, const char *upload_data,
                               size_t *upload_data_size, void **req_cls)
{
    int more = take_body(h, req_cls, upload_data, upload_data_size);
    if (more)
        return more > 0 ? MHD_YES : MHD_NO;
    struct srv_http_req *q = *req_cls;
    struct sbuf body = {.max = h->body_max};
    if (q->too_big) {
        sb_puts(&body, "request body too large\n");
        return respond(c, MHD_HTTP_CONTENT_TOO_LARGE, &body, text_plain, NULL);
    }
    const char *ctype = text_plain;
    const char *req = sb_str(&q->body);
    int status = r->post(r->arg, r->path, req ? req : "", q->body.len, &body, &ctype);
    return answer(c, h, status, &body, ctype);
}

/* A route that answers every method: a POST's body is read first (take_body) and one past
 * the limit handed over as too big. */
static enum MHD_Result on_call(const struct srv_http *h, const struct srv_http_route *r,
                               struct MHD_Connection *c, const char *url, const char *method,
                               const char *upload_data, size_t *upload_data_size,
                               void **req_cls)
{
    if (strcmp(method, MHD_HTTP_METHOD_POST) == 0) {
        int more = take_body(h, req_cls, upload_data, upload_data_size);
        if (more)
            return more > 0 ? MHD_YES : MHD_NO;
    }
    const struct srv_http_req *q = *req_cls;
    const char *req = q && !q->too_big ? sb_str(&q->body) : NULL;
    struct srv_http_call call = {.method = method, .path = url, .body = req ? req : "",
                                 .len = req ? q->body.len : 0, .too_big = q && q->too_big,
                                 .conn_ = c};
    struct sbuf body = {.max = h->body_max};
    const char *ctype = text_plain;
    int status = r->call(r->arg, &call, &body, &ctype);
    return answer(c, h, status, &body, ctype);
}

/* libmicrohttpd's access handler: GET and HEAD answer on the first call, before any body;
 * POST reads the body first (on_post). */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size,
                                  void **req_cls)
{
    (void)version;
    const struct srv_http *h = cls;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct kconn *k = ci ? ci->socket_context : NULL;
    if (k)
        k->headers_done = true;
    struct sbuf body = {.max = h->body_max};
    const struct srv_http_route *r = find_route(h, url);
    bool get = strcmp(method, MHD_HTTP_METHOD_GET) == 0 ||
               strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
    bool post = strcmp(method, MHD_HTTP_METHOD_POST) == 0;
    if (r && r->call)
        return on_call(h, r, c, url, method, upload_data, upload_data_size, req_cls);
    if (r && post && r->post)
        return on_post(h, r, c, upload_data, upload_data_size, req_cls);
    if (!get || (r && !r->fn)) {
        sb_puts(&body, "Method Not Allowed\n");
        return respond(c, MHD_HTTP_METHOD_NOT_ALLOWED, &body, text_plain,
                       r && r->post ? (r->fn ? "GET, HEAD, POST" : "POST") : "GET, HEAD");
    }
    if (!r) {
        sb_puts(&body, "404 page not found\n"); /* Go's http.NotFound */
        return respond(c, MHD_HTTP_NOT_FOUND, &body, text_plain, NULL);
    }
    const char *ctype = text_plain;
    int status = r->fn(r->arg, r->path, &body, &ctype);
    return answer(c, h, status, &body, ctype);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)toe;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct kconn *k = ci ? ci->socket_context : NULL;
    if (k) { /* a kept-alive connection: the next request's headers have their own deadline */
        k->headers_done = false;
        k->since_ms = kt_mono_ms();
    }
    struct srv_http_req *q = *req_cls;
    if (q) {
        sb_free(&q->body);
        free(q);
        *req_cls = NULL;
    }
}

/* ---- slow clients ---------------------------------------------------------------------- */

/* Slow clients are bounded as Go's http.Server bounds them with ReadHeaderTimeout (net/http,
 * server.go, conn.readRequest): a request's headers must be in within the header timeout of
 * when reading them began, however steadily they dribble (libmicrohttpd's own timeout counts
 * inactivity only).  And the connection limit cannot starve a probe: past it, a new connection
 * cuts the oldest one still sending its headers (libmicrohttpd's hard limit is higher by
 * SRV_HTTP_CONN_RESERVE, so the newcomer is accepted to do so).  A cut connection is shut down
 * here; libmicrohttpd sees the end of its stream and closes it on its next run. */
#define SRV_HTTP_CONN_RESERVE 16

static unsigned header_timeout_ms(const struct srv_http *h)
{
    return 1000u * (h->limits.header_timeout_s ? h->limits.header_timeout_s
                                               : SRV_HTTP_DEFAULT_HEADER_TIMEOUT_S);
}

static void cut(struct kconn *k)
{
    if (k->cut)
        return;
    k->cut = true;
    shutdown(k->fd, SHUT_RDWR);
}

static void cut_oldest_pending(struct srv_http *h)
{
    for (struct kconn *k = h->first; k; k = k->next)
        if (!k->headers_done && !k->cut) {
            cut(k);
            return;
        }
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    struct srv_http *h = cls;
    struct kconn *k = *socket_context;
    if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
        if (!k)
            return;
        *(k->prev ? &k->prev->next : &h->first) = k->next;
        *(k->next ? &k->next->prev : &h->last) = k->prev;
        h->n_conns--;
        free(k);
        *socket_context = NULL;
        return;
    }
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (!ci || !(k = calloc(1, sizeof(*k))))
        return; /* not tracked: bounded by libmicrohttpd's own limits only */
    k->fd = ci->connect_fd;
    k->since_ms = kt_mono_ms();
    k->prev = h->last;
    *(h->last ? &h->last->next : &h->first) = k;
    h->last = k;
    *socket_context = k;
    unsigned soft = h->limits.max_conns ? h->limits.max_conns : SRV_HTTP_DEFAULT_MAX_CONNS;
    if (++h->n_conns > soft)
        cut_oldest_pending(h);
}

/* Forgets every tracked connection (after a daemon stopped: its connections are gone, and
 * their descriptors may be reused, so none may be cut any more). */
static void forget_conns(struct srv_http *h)
{
    while (h->first) {
        struct kconn *k = h->first;
        h->first = k->next;
        free(k);
    }
    h->last = NULL;
    h->n_conns = 0;
}

/* Cuts the connections past their header deadline. */
static void cut_late(struct srv_http *h)
{
    int64_t now = kt_mono_ms();
    for (struct kconn *k = h->first; k; k = k->next)
        if (!k->headers_done && !k->cut && k->since_ms + header_timeout_ms(h) <= now)
            cut(k);
}

/* ---- the server ------------------------------------------------------------------------ */

static int copy_routes(struct srv_http *h, const struct srv_http_route *routes, size_t n)
{
    if (n == 0)
        return 0;
    h->routes = calloc(n, sizeof(*h->routes));
    if (!h->routes)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        h->routes[i] = routes[i];
        h->routes[i].path = strdup(routes[i].path ? routes[i].path : "");
        h->n_routes++;
        if (!h->routes[i].path)
            return -ENOMEM;
    }
    return 0;
}

static struct MHD_Daemon *start_daemon(struct srv_http *h, int fd)
{
    const struct srv_http_limits *l = &h->limits;
    unsigned flags = MHD_USE_EPOLL | (h->v6 ? MHD_USE_IPv6 : 0);
    unsigned timeout = l->timeout_s ? l->timeout_s : SRV_HTTP_DEFAULT_TIMEOUT_S;
    unsigned conns = (l->max_conns ? l->max_conns : SRV_HTTP_DEFAULT_MAX_CONNS) +
                     SRV_HTTP_CONN_RESERVE;
    size_t mem = l->header_bytes ? l->header_bytes : SRV_HTTP_DEFAULT_HEADER_BYTES;
    if (h->cert)
        return MHD_start_daemon(flags | MHD_USE_TLS, 0, NULL, NULL, on_request, h,
                                MHD_OPTION_LISTEN_SOCKET, fd,
                                MHD_OPTION_HTTPS_MEM_CERT, h->cert,
                                MHD_OPTION_HTTPS_MEM_KEY, h->key,
                                MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
                                MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
                                MHD_OPTION_CONNECTION_TIMEOUT, timeout,
                                MHD_OPTION_CONNECTION_LIMIT, conns,
                                MHD_OPTION_CONNECTION_MEMORY_LIMIT, mem, MHD_OPTION_END);
    return MHD_start_daemon(flags, 0, NULL, NULL, on_request, h, MHD_OPTION_LISTEN_SOCKET, fd,
                            MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
                            MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout,
                            MHD_OPTION_CONNECTION_LIMIT, conns,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, mem, MHD_OPTION_END);
}

static void epoll_fd(struct srv_http *h)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_EPOLL_FD);
    h->fd = info ? info->epoll_fd : -1;
}

static void free_pem(char *cert, char *key)
{
    if (key)
        explicit_bzero(key, strlen(key));
    free(cert);
    free(key);
}

static int set_pem(struct srv_http *h, const char *cert, const char *key)
{
    char *c = cert ? strdup(cert) : NULL, *k = key ? strdup(key) : NULL;
    if ((cert && !c) || (key && !k)) {
        free(c);
        free(k);
        return -ENOMEM;
    }
    free_pem(h->cert, h->key);
    h->cert = c;
    h->key = k;
    return 0;
}

int srv_http_start_with(const char *bind, const struct srv_http_route *routes, size_t n_routes,
                      const struct srv_http_limits *limits, struct srv_http **out, struct err *e)
{
    *out = NULL;
    if (!bind || strcmp(bind, "0") == 0)
        return 0;
    int rc;
    struct srv_http *h = calloc(1, sizeof(*h));
    if (!h || copy_routes(h, routes, n_routes) < 0 ||
        (limits && set_pem(h, limits->tls_cert, limits->tls_key) < 0)) {
        rc = err_set(e, -ENOMEM, "listen on %s: " ERR_OOM_MSG, bind);
        goto out;
    }
    if (limits)
        h->limits = *limits;
    h->limits.tls_cert = h->limits.tls_key = NULL;
    h->body_max = limits && limits->body_max ? limits->body_max : SRV_HTTP_DEFAULT_BODY_MAX;
    h->request_max = limits && limits->request_max ? limits->request_max
                                                   : SRV_HTTP_DEFAULT_REQUEST_MAX;
    int fd = listen_bind(bind, &h->v6, &h->port, e);
    if (fd < 0) {
        rc = fd;
        goto out;
    }
    h->d = start_daemon(h, fd);
    if (!h->d) {
        /* libmicrohttpd closes the socket on some failures only; this runs before the caller
         * has other threads, so the check cannot meet a reused descriptor. */
        if (fcntl(fd, F_GETFD) >= 0)
            close(fd);
        rc = err_set(e, -ENOMEM, "listen on %s: cannot start the HTTP%s server%s", bind,
                     h->cert ? "S" : "", h->cert ? " (bad certificate or key?)" : "");
        goto out;
    }
    epoll_fd(h);
    *out = h;
    h = NULL;
    rc = 0;
out:
    srv_http_stop(h);
    return rc;
}

int srv_http_start(const char *bind, const struct srv_http_route *routes, size_t n_routes,
                 struct srv_http **out, struct err *e)
{
    return srv_http_start_with(bind, routes, n_routes, NULL, out, e);
}

/* A daemon on a duplicate of listening socket `fd`, or NULL (the duplicate closed). */
static struct MHD_Daemon *start_on_dup(struct srv_http *h, int fd)
{
    int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (dup_fd < 0)
        return NULL;
    struct MHD_Daemon *d = start_daemon(h, dup_fd);
    /* one thread: the check cannot meet a reused descriptor (as in srv_http_start_with) */
    if (!d && fcntl(dup_fd, F_GETFD) >= 0)
        close(dup_fd);
    return d;
}

int srv_http_set_tls(struct srv_http *h, const char *cert, const char *key, struct err *e)
{
    char *old_cert = h->cert, *old_key = h->key;
    h->cert = h->key = NULL;
    if (set_pem(h, cert, key) < 0) {
        h->cert = old_cert;
        h->key = old_key;
        return err_oom(e);
    }
    /* The old server hands its listening socket over and stops accepting; a new one takes a
     * duplicate of it (libmicrohttpd closes the socket it was given on some failures, so the
     * original stays ours until the end).  A certificate the TLS library refuses leaves the
     * old one in place. */
    MHD_socket fd = MHD_quiesce_daemon(h->d);
    if (fd == MHD_INVALID_SOCKET) {
        free_pem(h->cert, h->key);
        h->cert = old_cert;
        h->key = old_key;
        return err_set(e, -EIO, "the HTTPS server on port %d cannot hand its socket over",
                       h->port);
    }
    int rc = 0;
    struct MHD_Daemon *d = start_on_dup(h, fd);
    if (!d) {
        free_pem(h->cert, h->key);
        h->cert = old_cert;
        h->key = old_key;
        old_cert = old_key = NULL;
        rc = err_set(e, -EINVAL, "the new serving certificate or key was refused");
        d = start_on_dup(h, fd);
    }
    MHD_stop_daemon(h->d);
    forget_conns(h); /* the new daemon has run no connection yet */
    close(fd);
    h->d = d;
    h->fd = -1;
    if (d)
        epoll_fd(h);
    free_pem(old_cert, old_key);
    return rc;
}

int srv_http_fd(const struct srv_http *h)
{
    return h ? h->fd : -1;
}

int srv_http_port(const struct srv_http *h)
{
    return h ? h->port : 0;
}

long srv_http_timeout_ms(const struct srv_http *h)
{
    MHD_UNSIGNED_LONG_LONG ms;
    long t = -1;
    if (!h || !h->d)
        return -1;
    if (MHD_get_timeout(h->d, &ms) == MHD_YES)
        t = ms > (MHD_UNSIGNED_LONG_LONG)LONG_MAX ? LONG_MAX : (long)ms;
    int64_t now = kt_mono_ms();
    for (const struct kconn *k = h->first; k; k = k->next) {
        if (k->headers_done || k->cut)
            continue;
        int64_t due = k->since_ms + header_timeout_ms(h) - now;
        long d = due < 0 ? 0 : (long)due;
        if (t < 0 || d < t)
            t = d;
    }
    return t;
}

void srv_http_run(struct srv_http *h)
{
    if (!h || !h->d)
        return;
    MHD_run(h->d);
    cut_late(h); /* what it cuts signals the epoll fd: the next run closes it */
}

void srv_http_stop(struct srv_http *h)
{
    if (!h)
        return;
    if (h->d)
        MHD_stop_daemon(h->d);
    forget_conns(h);
    for (size_t i = 0; i < h->n_routes; i++)
        free((char *)h->routes[i].path);
    free(h->routes);
    set_pem(h, NULL, NULL);
    free(h);
}
