/* kc (the REST client): requests, retries and the token bucket (kc.h).  Transfers and their options
 * are set up in kc_xfer.c; answers are decoded in kc_status.c. */
#include "kube/client/kc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "kube/client/kc_int.h"
#include "kube/client/kc_fiber.h"
#include "kube/config/kc_cfg.h"
#include "obj/base/ktime.h"

#define KC_MAX_TRIES 10
#define KC_BACKOFF_MIN_MS 100
#define KC_BACKOFF_MAX_MS 5000
/* The longest a Retry-After may park a request.  client-go's withRetry (rest/with_retry.go,
 * Before) sleeps max(backoff, Retry-After) under the request's context; a controller's
 * requests are bounded by their timeouts, so no server, hostile or confused, parks one for
 * longer than that.  Ours have no context: the wait is capped here. */
#define KC_RETRY_AFTER_MAX_MS 10000

int kc_new(struct kc_cfg *cfg, const struct kc_opts *o, struct kc **out, struct err *e)
{
    static bool inited;
    if (!inited && curl_global_init(CURL_GLOBAL_DEFAULT) == 0)
        inited = true;
    struct kc *c = calloc(1, sizeof(*c));
    if (!c) {
        kc_cfg_free(cfg);
        return err_oom(e);
    }
    c->cfg = cfg;
    c->o = *o;
    if (c->o.burst < 1)
        c->o.burst = 1;
    c->tokens = c->o.burst;
    c->tokens_at_ms = kt_mono_ms();
    c->ua = strdup(o->user_agent ? o->user_agent : "jaxset/" JAXSET_VERSION);
    c->m = curl_multi_init();
    if (!c->ua || !c->m) {
        kc_free(c);
        return err_oom(e);
    }
    curl_multi_setopt(c->m, CURLMOPT_MAX_HOST_CONNECTIONS, (long)KC_MAX_CONNS);
    if (kc__poll_setup(c) < 0) {
        kc_free(c);
        return err_oom(e);
    }
    *out = c;
    return 0;
}

void kc_free(struct kc *c)
{
    if (!c)
        return;
    while (c->reqs)
        kc__req_free(c->reqs);
    while (c->n_spare)
        curl_easy_cleanup(c->spare[--c->n_spare]);
    curl_multi_cleanup(c->m);
    kc__pemfiles_free(c);
    free(c->socks);
    free(c->waitset);
    kc_cfg_free(c->cfg);
    free(c->ua);
    free(c);
}

const char *kc_namespace(const struct kc *c)
{
    return c->cfg->namespace_ ? c->cfg->namespace_ : "default";
}

const char *kc_server(const struct kc *c)
{
    return c->cfg->server;
}

void kc_refuse(struct kc *c, int rc, const char *why)
{
    c->refuse = rc;
    snprintf(c->refuse_msg, sizeof(c->refuse_msg), "%s", why);
    for (struct kc_req *r = c->reqs; r; r = r->next)
        if (!r->running && !r->finished && !r->start_rc)
            kc__req_refuse(r);
}


void kc_set_observer(struct kc *c, kc_observe_fn fn, void *arg)
{
    c->observe = fn;
    c->observe_arg = arg;
}

int kc_send(struct kc *c, const char *method, const char *path, const json_t *body,
            const char *ctype, kc_done_fn fn, void *arg)
{
    struct kc_req *r = kc__req_new(c, method, path, body, ctype);
    if (!r)
        return -ENOMEM;
    r->fn = fn;
    r->arg = arg;
    c->n_pending++;
    return 0;
}

struct sync_wait {
    bool done;
    int rc;
    json_t *body;
    struct err *e;
};

static void sync_done(void *arg, const struct kc_resp *r)
{
    struct sync_wait *w = arg;
    w->done = true;
    w->rc = r->rc;
    if (r->rc == 0)
        w->body = json_incref(r->body);
    else
        err_set(w->e, r->rc, "%s", r->msg);
}

int kc_call(struct kc *c, const char *method, const char *path, const json_t *body,
            const char *ctype, json_t **out, struct err *e)
{
    struct sync_wait w = {.e = e};
    int rc = kc_send(c, method, path, body, ctype, sync_done, &w);
    if (rc < 0)
        return err_set(e, rc, ERR_OOM_MSG);
    kc_wait(c, &w.done);
    if (out)
        *out = w.body;
    else
        json_decref(w.body);
    return w.rc;
}

void kc_set_wait_hook(struct kc *c, const struct kc_wait_hook *h)
{
    c->hook = h ? *h : (struct kc_wait_hook){0};
}

/* One turn of a kc_wait outside a fiber, with the hook's descriptors watched beside. */
static void wait_turn(struct kc *c)
{
    int fds[8];
    int64_t next = 1000;
    bool ready = false;
    size_t n = c->hook.fds ? c->hook.fds(c->hook.arg, fds, 8, &next) : 0;
    kc_run(c, (int)(next < 0 ? 0 : next > 1000 ? 1000 : next), fds, n, &ready);
    if (c->hook.serve)
        c->hook.serve(c->hook.arg, ready);
}

void kc_wait(struct kc *c, const bool *done)
{
    while (!*done) {
        if (kc_fiber_self())
            kc_fiber_yield_until(done);
        else
            wait_turn(c);
    }
}

void kc_drain(struct kc *c)
{
    while (c->n_pending)
        kc_run(c, 1000, NULL, 0, NULL);
}

char *kc_escape(const char *s)
{
    char *t = curl_easy_escape(NULL, s, 0);
    char *r = t ? strdup(t) : NULL;
    curl_free(t);
    return r;
}

/* client-go flowcontrol.NewTokenBucketRateLimiter: refill at qps, hold at most burst. */
static bool take_token(struct kc *c, int64_t now, int64_t *wait_ms)
{
    if (c->o.qps <= 0)
        return true;
    c->tokens += (double)(now - c->tokens_at_ms) * c->o.qps / 1000.0;
    if (c->tokens > c->o.burst)
        c->tokens = c->o.burst;
    c->tokens_at_ms = now;
    if (c->tokens >= 1.0) {
        c->tokens -= 1.0;
        return true;
    }
    int64_t w = (int64_t)((1.0 - c->tokens) * 1000.0 / c->o.qps) + 1;
    if (w < *wait_ms)
        *wait_ms = w;
    return false;
}

/* Starts every queued request that is due and has a token; returns how long until the next
 * one could start (INT64_MAX: none waiting). */
static int64_t start_due(struct kc *c, int64_t now)
{
    int64_t wait = INT64_MAX;
    for (struct kc_req *r = c->reqs; r; r = r->next) {
        if (r->running || r->finished || r->start_rc)
            continue;
        if (c->refuse) { /* a retry due after kc_refuse */
            kc__req_refuse(r);
            continue;
        }
        if (r->due_ms > now) {
            if (r->due_ms - now < wait)
                wait = r->due_ms - now;
            continue;
        }
        if (!r->w && !take_token(c, now, &wait))
            break;
        int rc = kc__req_start(r);
        if (rc < 0)
            r->start_rc = rc; /* ended by kc_run, outside this walk */
    }
    return wait;
}

/* A request that could not start (credentials, memory) ends with that error. */
static void fail_unstarted(struct kc *c)
{
    for (struct kc_req *r = c->reqs, *next; r; r = next) {
        next = r->next;
        if (!r->start_rc)
            continue;
        if (r->w) {
            kc_end_fn end = r->w->end;
            void *arg = r->w->arg;
            char msg[CURL_ERROR_SIZE + 96];
            snprintf(msg, sizeof(msg), "watch %.64s: %s", r->path, r->errbuf);
            int rc = r->start_rc;
            kc__req_free(r);
            end(arg, rc, 0, msg);
            continue;
        }
        struct kc_resp resp = {.rc = r->start_rc, .reason = "", .msg = r->errbuf};
        if (!r->errbuf[0])
            resp.msg = ERR_OOM_MSG;
        r->finished = true;
        c->n_pending--;
        if (r->fn)
            r->fn(r->arg, &resp);
        kc__req_free(r);
    }
}

static int64_t backoff_ms(int tries)
{
    int64_t d = KC_BACKOFF_MIN_MS;
    for (int i = 1; i < tries && d < KC_BACKOFF_MAX_MS; i++)
        d *= 2;
    return d < KC_BACKOFF_MAX_MS ? d : KC_BACKOFF_MAX_MS;
}

static int64_t retry_after_ms(curl_off_t seconds)
{
    return seconds > KC_RETRY_AFTER_MAX_MS / 1000 ? KC_RETRY_AFTER_MAX_MS
                                                  : (int64_t)seconds * 1000;
}

/* client-go rest.Request: a 429, or a 5xx with Retry-After, is tried again after the time the
 * server asks; a failed connection after a backoff; a 401 once more with fresh credentials. */
static bool retry(struct kc_req *r, CURLcode cc, long code, int64_t now)
{
    if (r->w || r->tries >= KC_MAX_TRIES)
        return false;
    curl_off_t ra = -1;
    curl_easy_getinfo(r->easy, CURLINFO_RETRY_AFTER, &ra);
    int64_t delay;
    if (cc != CURLE_OK && code == 0 && r->c->o.no_connect_retry)
        return false;
    if (cc != CURLE_OK && code == 0)
        delay = backoff_ms(r->tries);
    else if (code == 429 || (code >= 500 && ra > 0))
        delay = ra > 0 ? retry_after_ms(ra) : backoff_ms(r->tries);
    else if (code == 401 && !r->auth_retried) {
        r->auth_retried = true;
        kc_cfg_credentials_invalidate(r->c->cfg);
        delay = 0;
    } else
        return false;
    kc__req_stop(r);
    r->due_ms = now + delay;
    return true;
}

static void finish(struct kc *c, struct kc_req *r, CURLcode cc, int64_t now)
{
    long code = 0;
    curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &code);
    if (c->observe && code)
        c->observe(c->observe_arg, r->method, r->path, code,
                   (double)(now - r->start_ms) / 1000.0);
    if (r->w) {
        kc__watch_finished(r, cc, code);
        return;
    }
    if (retry(r, cc, code, now))
        return;
    r->finished = true;
    struct kc_resp resp;
    kc__decode(r, cc, code, &resp);
    c->n_pending--;
    if (r->fn)
        r->fn(r->arg, &resp);
    json_decref(resp.body);
    kc__req_free(r);
}

static int poll_timeout(int timeout_ms, int64_t wait)
{
    if (wait < timeout_ms)
        return wait < 0 ? 0 : (int)wait;
    return timeout_ms;
}

/* Ends every transfer curl has finished; returns how many. */
static int dispatch(struct kc *c)
{
    CURLMsg *msg;
    int left, n = 0;
    int64_t now = kt_mono_ms();
    while ((msg = curl_multi_info_read(c->m, &left))) {
        if (msg->msg != CURLMSG_DONE)
            continue;
        struct kc_req *r = NULL;
        curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&r);
        finish(c, r, msg->data.result, now);
        n++;
    }
    return n;
}

void kc_run(struct kc *c, int timeout_ms, const int *extra_fds, size_t n_extra, bool *ready)
{
    struct pollfd fds[8];
    size_t n = n_extra < 8 ? n_extra : 8;
    for (size_t i = 0; i < n; i++)
        fds[i] = (struct pollfd){.fd = extra_fds[i], .events = POLLIN};
    int64_t wait = start_due(c, kt_mono_ms());
    fail_unstarted(c);
    kc__poll_timer(c);
    /* a transfer that the timer finished (its data had already arrived) has no socket left
     * to wait on: waiting would sleep the whole timeout */
    if (dispatch(c) > 0)
        wait = 0;
    int64_t t = kc__poll_timer_left(c);
    kc__poll_wait(c, fds, n, poll_timeout(timeout_ms, t < wait ? t : wait));
    if (ready) {
        *ready = false;
        for (size_t i = 0; i < n; i++)
            *ready = *ready || fds[i].revents;
    }
    kc__poll_timer(c);
    dispatch(c);
    start_due(c, kt_mono_ms());
    fail_unstarted(c);
}
