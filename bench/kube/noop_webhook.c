/* A no-op admission webhook over jaxset's own HTTP and TLS stack (libmicrohttpd with GnuTLS,
 * one thread polling with epoll, as jaxset's webhook server runs in its controller's loop):
 * every POST is answered "allowed" with the request's uid.  The floor of bench_admission.py's
 * "noop-c" mode: what two webhook round trips cost kube-apiserver when the server does nothing.
 *
 *   noop_webhook PORT CERT.pem KEY.pem
 *
 * Built by bench_admission.py with cc; runs until killed.  Links libmicrohttpd and libc. */
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BODY_MAX (4 * 1024 * 1024)

struct upload {
    char *buf;
    size_t len;
};

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *s = f ? calloc(1, 65536) : NULL;
    size_t n = s ? fread(s, 1, 65535, f) : 0;
    if (f)
        fclose(f);
    if (s && n == 0) {
        free(s);
        return NULL;
    }
    return s;
}

/* The AdmissionReview's request uid, copied into out (empty when not found). */
static void request_uid(const char *body, char *out, size_t n)
{
    const char *p = strstr(body, "\"request\"");
    p = p ? strstr(p, "\"uid\"") : NULL;
    p = p ? strchr(p + 5, '"') : NULL;
    const char *e = p ? strchr(p + 1, '"') : NULL;
    size_t len = e ? (size_t)(e - p - 1) : 0;
    if (len >= n)
        len = 0;
    if (len)
        memcpy(out, p + 1, len);
    out[len] = '\0';
}

static enum MHD_Result answer(struct MHD_Connection *c, const char *body)
{
    char uid[256], out[512];
    request_uid(body, uid, sizeof(uid));
    int n = snprintf(out, sizeof(out), "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":"
                     "\"AdmissionReview\",\"response\":{\"uid\":\"%s\",\"allowed\":true}}", uid);
    struct MHD_Response *r =
        MHD_create_response_from_buffer((size_t)n, out, MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", "application/json");
    enum MHD_Result rc = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return rc;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *data,
                                  size_t *size, void **con_cls)
{
    struct upload *u = *con_cls;
    (void)cls, (void)url, (void)method, (void)version;
    if (!u) {
        *con_cls = calloc(1, sizeof(*u));
        return *con_cls ? MHD_YES : MHD_NO;
    }
    if (*size) {
        char *nb = u->len + *size < BODY_MAX ? realloc(u->buf, u->len + *size + 1) : NULL;
        if (!nb)
            return MHD_NO;
        memcpy(nb + u->len, data, *size);
        u->buf = nb;
        u->len += *size;
        u->buf[u->len] = '\0';
        *size = 0;
        return MHD_YES;
    }
    return answer(c, u->buf ? u->buf : "");
}

static void on_done(void *cls, struct MHD_Connection *c, void **con_cls,
                    enum MHD_RequestTerminationCode toe)
{
    struct upload *u = *con_cls;
    (void)cls, (void)c, (void)toe;
    if (u)
        free(u->buf);
    free(u);
    *con_cls = NULL;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: noop_webhook PORT CERT.pem KEY.pem\n");
        return 2;
    }
    char *cert = slurp(argv[2]), *key = slurp(argv[3]);
    if (!cert || !key) {
        fprintf(stderr, "noop_webhook: cannot read the certificate or key\n");
        return 2;
    }
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_EPOLL | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_TLS,
        (uint16_t)atoi(argv[1]), NULL, NULL, on_request, NULL, MHD_OPTION_HTTPS_MEM_CERT, cert,
        MHD_OPTION_HTTPS_MEM_KEY, key, MHD_OPTION_NOTIFY_COMPLETED, on_done, NULL,
        MHD_OPTION_END);
    if (!d) {
        fprintf(stderr, "noop_webhook: cannot listen on port %s\n", argv[1]);
        return 1;
    }
    printf("serving\n");
    fflush(stdout);
    for (;;)
        pause();
}
