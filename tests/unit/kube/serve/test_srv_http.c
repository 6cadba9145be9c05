/* httpd and health: the server driven as the controller drives it (one thread polling
 * srv_http_fd() with srv_http_timeout_ms() and calling srv_http_run()), with non-blocking client
 * sockets on the same thread: routes, prefix routes answering every method, 404, 405, HEAD,
 * /metrics' content type and body, /readyz flipping, a slow client closed at the timeout while
 * others are served, oversized headers, bind addresses (errors, "0", ":0", IPv6). */
#include "testutil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "kube/serve/srv_health.h"
#include "kube/serve/srv_http.h"
#include "kube/serve/srv_mx.h"

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int waits_without_event; /* polls that ran out a full second: the fd did not signal */

/* One round of the controller's loop, with `cfd` (a client) polled too; returns its revents. */
static short loop_once(struct srv_http *h, int cfd)
{
    struct pollfd p[2] = {{.fd = srv_http_fd(h), .events = POLLIN}, {.fd = cfd, .events = POLLIN}};
    long t = srv_http_timeout_ms(h);
    int wait = t < 0 || t > 1000 ? 1000 : (int)t;
    int n = poll(p, 2, wait);
    if (n == 0 && wait == 1000)
        waits_without_event++;
    srv_http_run(h);
    return p[1].revents;
}

static bool use_v6; /* clients connect to [::1] rather than 127.0.0.1 */

/* A client socket connected to the loopback (the kernel completes the handshake before the
 * server accepts), then made non-blocking. */
static int connect_to(int port)
{
    int fd = socket(use_v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port),
                              .sin6_addr = IN6ADDR_LOOPBACK_INIT};
    int rc = use_v6 ? connect(fd, (struct sockaddr *)&a6, sizeof(a6))
                    : connect(fd, (struct sockaddr *)&a, sizeof(a));
    assert_int_equal(rc, 0);
    fcntl(fd, F_SETFL, O_NONBLOCK);
    return fd;
}

/* Reads what `cfd` has until the server closes it; false past the deadline. */
static bool read_to_eof(struct srv_http *h, int cfd, struct sbuf *got, long deadline_ms)
{
    while (now_ms() < deadline_ms) {
        if (!(loop_once(h, cfd) & (POLLIN | POLLHUP | POLLERR)))
            continue;
        char buf[4096];
        ssize_t n;
        while ((n = recv(cfd, buf, sizeof(buf), 0)) > 0)
            sb_append(got, buf, (size_t)n);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
            return true;
    }
    return false;
}

struct resp {
    int status;
    char *head; /* status line and headers */
    const char *body;
    struct sbuf raw;
};

static void resp_free(struct resp *r)
{
    sb_free(&r->raw);
    free(r->head);
}

static void http(struct srv_http *h, const char *request, struct resp *r)
{
    memset(r, 0, sizeof(*r));
    int cfd = connect_to(srv_http_port(h));
    assert_int_equal(send(cfd, request, strlen(request), MSG_NOSIGNAL), (ssize_t)strlen(request));
    assert_true(read_to_eof(h, cfd, &r->raw, now_ms() + 10000));
    close(cfd);
    const char *s = sb_str(&r->raw), *end = strstr(s, "\r\n\r\n");
    assert_non_null(end);
    r->head = strndup(s, (size_t)(end - s) + 2);
    r->body = end + 4;
    assert_int_equal(sscanf(s, "HTTP/1.1 %d ", &r->status), 1);
}

/* The value of header `name` (case as libmicrohttpd writes it), or NULL; static buffer. */
static const char *header(const struct resp *r, const char *name)
{
    static char v[256];
    char key[64];
    snprintf(key, sizeof(key), "\r\n%s: ", name);
    const char *p = strstr(r->head, key);
    if (!p)
        return NULL;
    p += strlen(key);
    snprintf(v, sizeof(v), "%.*s", (int)strcspn(p, "\r"), p);
    return v;
}

static int teapot(void *arg, const char *path, struct sbuf *body, const char **ctype)
{
    sb_printf(body, "%s at %s", (const char *)arg, path);
    *ctype = "application/json";
    return 418;
}

static int too_big(void *arg, const char *path, struct sbuf *body, const char **ctype)
{
    (void)arg;
    (void)path;
    (void)ctype;
    for (int i = 0; i < 100; i++)
        sb_puts(body, "0123456789");
    return 200;
}

#define GET(path) "GET " path " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"

static void test_routes(void **state)
{
    (void)state;
    struct srv_mx *m = srv_mx_new();
    const char *const l[] = {"jobset_name", "namespace", NULL};
    srv_mx_add(srv_mx_counter(m, "jobset_completed_total", "The total number of completed JobSets", l),
           1, "a", "b");
    struct srv_health hl = {.metrics = m};
    struct srv_http_route routes[SRV_HEALTH_N_ROUTES + 2];
    size_t n = srv_health_routes(&hl, routes);
    routes[n++] = (struct srv_http_route){.path = "/teapot", .fn = teapot, .arg = "tea"};
    routes[n++] = (struct srv_http_route){.path = "/big", .fn = too_big};
    struct srv_http_limits lim = {.body_max = 512};
    struct srv_http *h = NULL;
    struct err e = {{0}};
    assert_int_equal(srv_http_start_with("127.0.0.1:0", routes, n, &lim, &h, &e), 0);
    assert_non_null(h);
    assert_true(srv_http_port(h) > 0);
    assert_true(srv_http_fd(h) >= 0);
    assert_int_equal(srv_http_timeout_ms(h), -1); /* nothing to do */
    struct resp r;

    http(h, GET("/healthz"), &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "ok");
    assert_string_equal(header(&r, "Content-Type"), "text/plain; charset=utf-8");
    resp_free(&r);

    http(h, GET("/readyz"), &r);
    assert_int_equal(r.status, 500);
    assert_string_equal(r.body, "[-]readyz failed: reason withheld\nhealthz check failed\n");
    resp_free(&r);
    hl.ready = true;
    http(h, GET("/readyz"), &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "ok");
    resp_free(&r);
    hl.ready = false;
    http(h, GET("/readyz"), &r);
    assert_int_equal(r.status, 500);
    resp_free(&r);

    http(h, GET("/metrics?name[]=x"), &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(header(&r, "Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
    assert_string_equal(r.body, "# HELP jobset_completed_total The total number of completed JobSets\n"
                                "# TYPE jobset_completed_total counter\n"
                                "jobset_completed_total{jobset_name=\"a\",namespace=\"b\"} 1\n");
    resp_free(&r);

    http(h, "HEAD /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "");
    resp_free(&r);

    http(h, GET("/teapot"), &r);
    assert_int_equal(r.status, 418);
    assert_string_equal(r.body, "tea at /teapot");
    assert_string_equal(header(&r, "Content-Type"), "application/json");
    resp_free(&r);

    http(h, GET("/big"), &r); /* past body_max */
    assert_int_equal(r.status, 500);
    resp_free(&r);

    http(h, GET("/nope"), &r);
    assert_int_equal(r.status, 404);
    assert_string_equal(r.body, "404 page not found\n");
    resp_free(&r);
    http(h, GET("/healthz/"), &r);
    assert_int_equal(r.status, 404);
    resp_free(&r);

    http(h, "POST /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello",
         &r);
    assert_int_equal(r.status, 405);
    assert_string_equal(header(&r, "Allow"), "GET, HEAD");
    resp_free(&r);
    http(h, "DELETE /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", &r);
    assert_int_equal(r.status, 405);
    resp_free(&r);

    assert_int_equal(waits_without_event, 0);
    srv_http_stop(h);
    srv_mx_free(m);
}

/* A client that sends half a request and nothing more is closed after the timeout; meanwhile
 * others are served. */
static void test_slow_client(void **state)
{
    (void)state;
    struct srv_health hl = {.ready = true};
    struct srv_http_route routes[SRV_HEALTH_N_ROUTES];
    struct srv_http_limits lim = {.timeout_s = 1};
    struct srv_http *h = NULL;
    assert_int_equal(srv_http_start_with("127.0.0.1:0", routes, srv_health_routes(&hl, routes), &lim,
                                       &h, NULL),
                     0);
    long t0 = now_ms();
    int slow = connect_to(srv_http_port(h));
    const char *part = "GET /healthz HTTP/1.1\r\nHost: t\r\n";
    assert_int_equal(send(slow, part, strlen(part), MSG_NOSIGNAL), (ssize_t)strlen(part));
    struct resp r;
    http(h, GET("/healthz"), &r); /* served while the slow one waits */
    assert_int_equal(r.status, 200);
    resp_free(&r);
    long t = srv_http_timeout_ms(h);
    assert_true(t >= 0 && t <= 1000); /* the slow connection's deadline */
    struct sbuf got = SBUF_INIT;
    assert_true(read_to_eof(h, slow, &got, t0 + 10000));
    long took = now_ms() - t0;
    assert_true(took >= 900);
    assert_true(took < 5000);
    assert_int_equal(got.len, 0); /* closed without an answer */
    sb_free(&got);
    close(slow);
    srv_http_stop(h);
}

/* Slowloris: more clients than the connection limit, each dribbling a header byte now and
 * then, cannot keep a probe out (a newcomer past the limit cuts the oldest of them), and none
 * outlives the header timeout however steadily it dribbles (Go's ReadHeaderTimeout). */
static void test_slowloris_cannot_starve_probes(void **state)
{
    (void)state;
    struct srv_health hl = {.ready = true};
    struct srv_http_route routes[SRV_HEALTH_N_ROUTES];
    struct srv_http_limits lim = {.header_timeout_s = 2};
    struct srv_http *h = NULL;
    assert_int_equal(srv_http_start_with("127.0.0.1:0", routes, srv_health_routes(&hl, routes), &lim,
                                       &h, NULL),
                     0);
    enum { N = SRV_HTTP_DEFAULT_MAX_CONNS + 8 };
    int slow[N];
    bool closed[N];
    const char *req = "GET /healthz HTTP/1.1\r\nHost: t\r\nX-Slow: ";
    for (int i = 0; i < N; i++) {
        slow[i] = connect_to(srv_http_port(h));
        closed[i] = false;
        assert_int_equal(send(slow[i], req, 3, MSG_NOSIGNAL), 3);
        loop_once(h, -1);
    }
    long t0 = now_ms();
    for (int probe = 0; probe < 3; probe++) { /* answered at once, every time */
        struct resp r;
        long p0 = now_ms();
        http(h, GET("/healthz"), &r);
        assert_int_equal(r.status, 200);
        assert_true(now_ms() - p0 < 1500);
        resp_free(&r);
    }
    /* they keep dribbling a byte every 200 ms: every one is closed by the header timeout */
    int open = N;
    long next_byte = now_ms();
    while (open > 0 && now_ms() < t0 + 8000) {
        loop_once(h, -1);
        bool dribble = now_ms() >= next_byte;
        if (dribble)
            next_byte = now_ms() + 200;
        for (int i = 0; i < N; i++) {
            if (closed[i])
                continue;
            char b;
            ssize_t n = recv(slow[i], &b, 1, 0);
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) ||
                (dribble && send(slow[i], "x", 1, MSG_NOSIGNAL) < 0)) {
                closed[i] = true;
                open--;
            }
        }
    }
    assert_int_equal(open, 0);
    assert_true(now_ms() - t0 >= 1000); /* not at once: at their deadline */
    for (int i = 0; i < N; i++)
        close(slow[i]);
    srv_http_stop(h);
}

/* Headers past the per-connection memory are refused, not buffered. */
static void test_big_headers(void **state)
{
    (void)state;
    struct srv_health hl = {.ready = true};
    struct srv_http_route routes[SRV_HEALTH_N_ROUTES];
    struct srv_http_limits lim = {.header_bytes = 4096};
    struct srv_http *h = NULL;
    assert_int_equal(srv_http_start_with("127.0.0.1:0", routes, srv_health_routes(&hl, routes), &lim,
                                       &h, NULL),
                     0);
    struct sbuf req = SBUF_INIT;
    sb_puts(&req, "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\nX-Big: ");
    for (int i = 0; i < 1000; i++)
        sb_puts(&req, "0123456789");
    sb_puts(&req, "\r\n\r\n");
    int cfd = connect_to(srv_http_port(h));
    assert_int_equal(send(cfd, sb_str(&req), req.len, MSG_NOSIGNAL), (ssize_t)req.len);
    struct sbuf got = SBUF_INIT;
    assert_true(read_to_eof(h, cfd, &got, now_ms() + 10000));
    int status = 0;
    sscanf(sb_str(&got), "HTTP/1.1 %d ", &status);
    assert_true(status == 431 || status == 413 || status == 414 || status == 400);
    close(cfd);
    sb_free(&got);
    sb_free(&req);
    srv_http_stop(h);
}

static void test_bind(void **state)
{
    (void)state;
    struct srv_health hl = {.ready = true};
    struct srv_http_route routes[SRV_HEALTH_N_ROUTES];
    size_t n = srv_health_routes(&hl, routes);
    struct srv_http *h = (struct srv_http *)&hl, *h2 = NULL;
    struct err e = {{0}};
    /* "0": disabled, and everything accepts the NULL server. */
    assert_int_equal(srv_http_start("0", routes, n, &h, &e), 0);
    assert_null(h);
    assert_int_equal(srv_http_fd(h), -1);
    assert_int_equal(srv_http_port(h), 0);
    assert_int_equal(srv_http_timeout_ms(h), -1);
    srv_http_run(h);
    srv_http_stop(h);
    const char *bad[] = {"", "8080", "127.0.0.1", "127.0.0.1:", "127.0.0.1:99999",
                         "127.0.0.1:80a", ":-1", "::1:8080", "[::1:8080", "[::1]8080"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        e.msg[0] = '\0';
        assert_int_equal(srv_http_start(bad[i], routes, n, &h, &e), -EINVAL);
        assert_null(h);
        char quoted[64];
        snprintf(quoted, sizeof(quoted), "\"%s\"", bad[i]);
        if (!strstr(e.msg, quoted))
            fail_msg("%s: %s", bad[i], e.msg);
    }
    /* A port in use. */
    assert_int_equal(srv_http_start("127.0.0.1:0", routes, n, &h, &e), 0);
    char addr[64];
    snprintf(addr, sizeof(addr), "127.0.0.1:%d", srv_http_port(h));
    assert_int_equal(srv_http_start(addr, routes, n, &h2, &e), -EADDRINUSE);
    assert_non_null(strstr(e.msg, addr));
    assert_non_null(strstr(e.msg, "in use"));
    srv_http_stop(h);
    /* Every interface: reachable on IPv4 loopback. */
    assert_int_equal(srv_http_start(":0", routes, n, &h, &e), 0);
    struct resp r;
    http(h, GET("/healthz"), &r);
    assert_int_equal(r.status, 200);
    resp_free(&r);
    srv_http_stop(h);
    /* IPv6 loopback, where the host has one. */
    int rc = srv_http_start("[::1]:0", routes, n, &h, &e);
    if (rc == -EADDRNOTAVAIL || rc == -EAFNOSUPPORT) {
        print_message("no IPv6 loopback here: %s\n", e.msg);
        return;
    }
    assert_int_equal(rc, 0);
    assert_true(srv_http_port(h) > 0);
    use_v6 = true;
    http(h, GET("/readyz"), &r);
    use_v6 = false;
    assert_int_equal(r.status, 200);
    resp_free(&r);
    srv_http_stop(h);
}

static int echo(void *arg, const char *path, const char *req, size_t len, struct sbuf *body,
                const char **ctype)
{
    (void)arg;
    sb_printf(body, "%s got %zu bytes: %s", path, len, req);
    *ctype = "application/json";
    return 200;
}

/* POST routes: the whole body (sent in pieces) reaches the handler; a body over the limit is
 * 413; GET on a POST-only route and POST on a GET route are 405 with the right Allow. */
static void test_post(void **state)
{
    (void)state;
    struct srv_http_route routes[2] = {{.path = "/hook", .post = echo},
                                     {.path = "/teapot", .fn = teapot, .arg = "tea"}};
    struct srv_http_limits lim = {.request_max = 64};
    struct srv_http *h = NULL;
    struct err e = {{0}};
    assert_int_equal(srv_http_start_with("127.0.0.1:0", routes, 2, &lim, &h, &e), 0);
    struct resp r;
    http(h, "POST /hook HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Length: 11\r\n"
            "\r\nhello world", &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "/hook got 11 bytes: hello world");
    resp_free(&r);
    http(h, "POST /hook HTTP/1.1\r\nHost: t\r\nConnection: close\r\nTransfer-Encoding: "
            "chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n", &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "/hook got 5 bytes: abcde");
    resp_free(&r);
    char big[512];
    snprintf(big, sizeof(big), "POST /hook HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
             "Content-Length: 100\r\n\r\n%0100d", 0);
    http(h, big, &r);
    assert_int_equal(r.status, 413);
    resp_free(&r);
    http(h, GET("/hook"), &r);
    assert_int_equal(r.status, 405);
    assert_string_equal(header(&r, "Allow"), "POST");
    resp_free(&r);
    http(h, "POST /teapot HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Length: 0\r\n"
            "\r\n", &r);
    assert_int_equal(r.status, 405);
    assert_string_equal(header(&r, "Allow"), "GET, HEAD");
    resp_free(&r);
    /* a certificate the TLS library refuses: the server keeps serving with what it had */
    assert_true(srv_http_set_tls(h, "not a certificate", "not a key", &e) < 0);
    http(h, GET("/teapot"), &r);
    assert_int_equal(r.status, 418);
    resp_free(&r);
    srv_http_stop(h);
}

static int call_echo(void *arg, const struct srv_http_call *c, struct sbuf *body,
                     const char **ctype)
{
    const char *x = srv_http_header(c, "x-test");
    sb_printf(body, "%s %s %s %s %zu%s: %s", (const char *)arg, c->method, c->path,
              x ? x : "-", c->len, c->too_big ? " too big" : "", c->body);
    *ctype = "text/plain";
    return 202;
}

/* A route that answers every method (srv_http_route.call) on every path under its prefix: it
 * sees the method, the request's own path, its headers and the body, or that the body was too
 * big; an exact route of a path under the prefix still wins, the longest prefix over others. */
static void test_call_routes(void **state)
{
    (void)state;
    struct srv_http_route routes[3] = {
        {.path = "/", .prefix = true, .call = call_echo, .arg = "root"},
        {.path = "/apis/", .prefix = true, .call = call_echo, .arg = "apis"},
        {.path = "/apis/teapot", .fn = teapot, .arg = "tea"}};
    struct srv_http_limits lim = {.request_max = 64};
    struct srv_http *h = NULL;
    struct err e = {{0}};
    assert_int_equal(srv_http_start_with("127.0.0.1:0", routes, 3, &lim, &h, &e), 0);
    struct resp r;
    http(h, "POST /apis/x/status HTTP/1.1\r\nHost: t\r\nConnection: close\r\nX-Test: yes\r\n"
            "Content-Length: 5\r\n\r\nhello", &r);
    assert_int_equal(r.status, 202);
    assert_string_equal(r.body, "apis POST /apis/x/status yes 5: hello");
    resp_free(&r);
    http(h, "DELETE /elsewhere HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", &r);
    assert_int_equal(r.status, 202);
    assert_string_equal(r.body, "root DELETE /elsewhere - 0: ");
    resp_free(&r);
    char big[512];
    snprintf(big, sizeof(big), "POST /apis/y HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
             "Transfer-Encoding: chunked\r\n\r\n64\r\n%0100d\r\n0\r\n\r\n", 0);
    http(h, big, &r);
    assert_int_equal(r.status, 202);
    assert_string_equal(r.body, "apis POST /apis/y - 0 too big: ");
    resp_free(&r);
    http(h, GET("/apis/teapot"), &r);
    assert_int_equal(r.status, 418);
    resp_free(&r);
    srv_http_stop(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_routes),
        cmocka_unit_test(test_post),
        cmocka_unit_test(test_call_routes),
        cmocka_unit_test(test_slow_client),
        cmocka_unit_test(test_slowloris_cannot_starve_probes),
        cmocka_unit_test(test_big_headers),
        cmocka_unit_test(test_bind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
