/* kc (the REST client) internals shared by kc.c, kc_xfer.c and kc_status.c. */
#ifndef JX_KUBE_CLIENT_KC_INT_H
#define JX_KUBE_CLIENT_KC_INT_H

#include <curl/curl.h>
#include <jansson.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#include "kube/client/kc.h"
#include "obj/base/sbuf.h"

#define KC_MAX_CONNS 64
#define KC_BODY_MAX (512u * 1024u * 1024u)

/* Ended requests' easy handles kept for reuse: an easy handle is a large allocation (curl's
 * buffers), and making one per request showed in the controller's profile. */
#define KC_SPARE_EASY 64

/* Distinct PEM texts (CA, client certificate, client key) kept as memfds (kc_pemfile.c). */
#define KC_PEMFILES 8
struct kc_pemfile {
    char *pem;
    size_t len;
    int fd;
};

struct kc {
    struct kc_cfg *cfg;
    CURLM *m;
    struct kc_opts o;
    char *ua;
    double tokens;
    int64_t tokens_at_ms;
    struct kc_req *reqs, *tail; /* every request and watch, queued or running */
    size_t n_pending;    /* requests (not watches) not yet ended */
    kc_observe_fn observe;
    void *observe_arg;
    CURL *spare[KC_SPARE_EASY]; /* easy handles of ended requests, for the next ones */
    size_t n_spare;
    struct pollfd *socks;       /* curl's sockets and what it waits for (CURLMOPT_SOCKETFUNCTION) */
    size_t n_socks, cap_socks;
    struct pollfd *waitset;     /* kc__poll_wait's set (extra fds + socks), kept between turns */
    size_t cap_waitset;
    long timer_ms;              /* curl's timeout (CURLMOPT_TIMERFUNCTION): -1 none */
    int64_t timer_at_ms;        /* when curl set it */
    struct kc_pemfile pemfiles[KC_PEMFILES]; /* kc__pemfile's, oldest first */
    size_t n_pemfiles;
    struct kc_wait_hook hook;   /* kc_set_wait_hook */
    int refuse;                 /* kc_refuse: new requests end with this */
    char refuse_msg[128];
};

struct kc_req {
    struct kc *c;
    struct kc_req *prev, *next;
    char *method, *path, *body, *ctype;
    size_t body_len;
    kc_done_fn fn;
    void *arg;
    CURL *easy;
    struct curl_slist *hdrs, *connect_to;
    struct sbuf resp;
    struct sbuf msg;  /* kc_resp.msg */
    int tries;
    int start_rc; /* kc__req_start failed: ended with this by kc_run */
    int64_t due_ms, start_ms;
    bool running, finished, auth_retried;
    char errbuf[CURL_ERROR_SIZE];
    struct kc_watch *w; /* set for a watch stream */
};

struct kc_watch {
    struct kc_req *r;
    kc_event_fn ev;
    kc_line_fn line; /* kc_stream: raw lines instead of events */
    kc_end_fn end;
    void *arg;
    size_t scanned;  /* bytes of r->resp already searched for a newline */
    bool in_cb;      /* inside ev: a cancel is deferred */
    bool cancelled;
    int bad;         /* -ENOMEM once a line could not be decoded for want of memory */
};

struct kc_req *kc__req_new(struct kc *c, const char *method, const char *path,
                           const json_t *body, const char *ctype);
/* Marks a request not yet started to end with the client's refusal (kc_refuse). */
void kc__req_refuse(struct kc_req *r);
int kc__req_start(struct kc_req *r);
void kc__req_stop(struct kc_req *r);
void kc__req_free(struct kc_req *r);
void kc__watch_finished(struct kc_req *r, CURLcode cc, long code);
/* Drives the multi handle by socket_action (kc_poll.c): the callbacks that keep c->socks and
 * c->timer_ms, the due timeout, and one wait on curl's sockets and `extra` (their revents
 * filled in) of at most `timeout_ms`. */
int kc__poll_setup(struct kc *c);
void kc__poll_timer(struct kc *c);
int64_t kc__poll_timer_left(const struct kc *c);
void kc__poll_wait(struct kc *c, struct pollfd *extra, size_t n_extra, int timeout_ms);
/* Fills *out from the answer (out->body owned by the caller; msg points into r). */
/* A path libcurl can open for `pem` (/proc/self/fd/N of a sealed memfd kept by `c`), in `path`
 * of `size` bytes.  0 or -errno. */
int kc__pemfile(struct kc *c, const char *pem, size_t len, char *path, size_t size);
void kc__pemfiles_free(struct kc *c);

void kc__decode(struct kc_req *r, CURLcode cc, long code, struct kc_resp *out);

#endif
