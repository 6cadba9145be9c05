/* kc (the REST client): one transfer (an easy handle) per request or watch: URL, headers, TLS
 * material from the kubeconfig (in memory: sealed memfds, never a file on disk, kc_pemfile.c),
 * and the watch line splitter. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kube/client/kc_int.h"
#include "kube/config/kc_cfg.h"
#include "obj/base/ktime.h"

struct kc_req *kc__req_new(struct kc *c, const char *method, const char *path,
                           const json_t *body, const char *ctype)
{
    struct kc_req *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    r->c = c;
    r->method = strdup(method);
    r->path = strdup(path);
    r->ctype = strdup(ctype ? ctype : "application/json");
    r->resp.max = KC_BODY_MAX;
    if (body) {
        r->body = json_dumps(body, JSON_COMPACT);
        r->body_len = r->body ? strlen(r->body) : 0;
    }
    if (!r->method || !r->path || !r->ctype || (body && !r->body)) {
        free(r->method);
        free(r->path);
        free(r->ctype);
        free(r->body);
        free(r);
        return NULL;
    }
    /* appended: requests start in the order they were sent */
    r->prev = c->tail;
    if (c->tail)
        c->tail->next = r;
    else
        c->reqs = r;
    c->tail = r;
    if (c->refuse)
        kc__req_refuse(r);
    return r;
}

void kc__req_refuse(struct kc_req *r)
{
    r->start_rc = r->c->refuse;
    snprintf(r->errbuf, sizeof(r->errbuf), "%s %s not sent: %s", r->method, r->path,
             r->c->refuse_msg);
}

static size_t on_data(char *p, size_t sz, size_t n, void *arg);

/* Sets a file option of libcurl's to a path holding `data` (kc__pemfile). */
static int set_pemfile(struct kc_req *r, CURL *h, CURLoption opt, const char *data, size_t len)
{
    char path[64];
    int rc = kc__pemfile(r->c, data, len, path, sizeof(path));
    if (rc < 0) {
        snprintf(r->errbuf, sizeof(r->errbuf), "TLS material: %s", strerror(-rc));
        return rc;
    }
    return curl_easy_setopt(h, opt, path) == CURLE_OK ? 0 : -EINVAL;
}

static int set_auth(struct kc_req *r, CURL *h)
{
    struct kc_cfg *cfg = r->c->cfg;
    struct kc_cfg_creds cr;
    struct err e;
    if (kc_cfg_credentials(cfg, kt_now_ms(), &cr, &e) < 0) {
        snprintf(r->errbuf, sizeof(r->errbuf), "credentials: %.200s", e.msg);
        return -EACCES;
    }
    if (cr.token) {
        char *hv = NULL;
        if (asprintf(&hv, "Authorization: Bearer %s", cr.token) < 0)
            return -ENOMEM;
        r->hdrs = curl_slist_append(r->hdrs, hv);
        explicit_bzero(hv, strlen(hv));
        free(hv);
    } else if (cfg->username && cfg->password) {
        curl_easy_setopt(h, CURLOPT_USERNAME, cfg->username);
        curl_easy_setopt(h, CURLOPT_PASSWORD, cfg->password);
    }
    if (cr.cert_pem && cr.key_pem) {
        int rc = set_pemfile(r, h, CURLOPT_SSLCERT, cr.cert_pem, cr.cert_len);
        if (rc == 0)
            rc = set_pemfile(r, h, CURLOPT_SSLKEY, cr.key_pem, cr.key_len);
        if (rc < 0)
            return rc;
        curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
        curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
    }
    return 0;
}

/* The kubeconfig's CA replaces the system's trust store, as client-go's does. */
static int set_tls(struct kc_req *r, CURL *h)
{
    const struct kc_cfg *cfg = r->c->cfg;
    int rc = 0;
    if (cfg->insecure) {
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    } else if (cfg->ca_pem) {
        rc = set_pemfile(r, h, CURLOPT_CAINFO, cfg->ca_pem, cfg->ca_len);
        curl_easy_setopt(h, CURLOPT_CAPATH, NULL);
    }
    if (cfg->proxy_url)
        curl_easy_setopt(h, CURLOPT_PROXY, cfg->proxy_url);
    return rc;
}

/* tls-server-name: the TLS name (SNI and verification) differs from the server's address, as
 * client-go's TLSClientConfig.ServerName: the URL names it and CURLOPT_CONNECT_TO sends the
 * connection to the real host. */
static int set_url(struct kc_req *r, CURL *h)
{
    const struct kc_cfg *cfg = r->c->cfg;
    char *url = NULL;
    int rc = -ENOMEM;
    CURLU *u = curl_url();
    if (!u || curl_url_set(u, CURLUPART_URL, cfg->server, 0) != CURLUE_OK) {
        rc = -EINVAL;
        goto out;
    }
    if (cfg->tls_server_name) {
        char *host = NULL, *port = NULL, *map = NULL;
        curl_url_get(u, CURLUPART_HOST, &host, 0);
        curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT);
        bool ok = host && port &&
                  asprintf(&map, "%s:%s:%s:%s", cfg->tls_server_name, port, host, port) >= 0;
        if (ok) {
            r->connect_to = curl_slist_append(NULL, map);
            curl_url_set(u, CURLUPART_HOST, cfg->tls_server_name, 0);
            curl_easy_setopt(h, CURLOPT_CONNECT_TO, r->connect_to);
        }
        curl_free(host);
        curl_free(port);
        free(map);
        if (!ok || !r->connect_to)
            goto out;
    }
    char *base = NULL;
    if (curl_url_get(u, CURLUPART_URL, &base, 0) != CURLUE_OK)
        goto out;
    size_t n = strlen(base);
    while (n && base[n - 1] == '/')
        n--;
    rc = asprintf(&url, "%.*s%s", (int)n, base, r->path) < 0 ? -ENOMEM : 0;
    curl_free(base);
    if (rc == 0)
        curl_easy_setopt(h, CURLOPT_URL, url);
out:
    free(url);
    curl_url_cleanup(u);
    return rc;
}

static int set_request(struct kc_req *r, CURL *h)
{
    struct kc *c = r->c;
    int rc = set_url(r, h);
    if (rc < 0)
        return rc;
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, strcmp(r->method, "GET") ? r->method : NULL);
    if (r->body) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, r->body);
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)r->body_len);
    }
    char ct[128];
    snprintf(ct, sizeof(ct), "Content-Type: %s", r->ctype);
    r->hdrs = curl_slist_append(r->hdrs, "Accept: application/json");
    if (r->body)
        r->hdrs = curl_slist_append(r->hdrs, ct);
    r->hdrs = curl_slist_append(r->hdrs, "Expect:");
    if (!r->hdrs)
        return -ENOMEM;
    curl_easy_setopt(h, CURLOPT_USERAGENT, c->ua);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    if (!c->cfg->disable_compression)
        curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    if (!r->w && c->o.timeout_ms > 0)
        curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, c->o.timeout_ms);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, r->errbuf);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(h, CURLOPT_PRIVATE, r);
    return 0;
}

int kc__req_start(struct kc_req *r)
{
    if (!r->easy && r->c->n_spare)
        r->easy = r->c->spare[--r->c->n_spare];
    if (!r->easy && !(r->easy = curl_easy_init()))
        return -ENOMEM;
    curl_easy_reset(r->easy);
    curl_slist_free_all(r->hdrs);
    curl_slist_free_all(r->connect_to);
    r->hdrs = r->connect_to = NULL;
    sb_reset(&r->resp);
    r->errbuf[0] = '\0';
    int rc = set_request(r, r->easy);
    if (rc == 0)
        rc = set_auth(r, r->easy);
    if (rc == 0)
        rc = set_tls(r, r->easy);
    if (rc < 0)
        return rc;
    curl_easy_setopt(r->easy, CURLOPT_HTTPHEADER, r->hdrs);
    if (curl_multi_add_handle(r->c->m, r->easy) != CURLM_OK)
        return -ENOMEM;
    r->running = true;
    r->tries++;
    r->start_ms = kt_mono_ms();
    return 0;
}

void kc__req_stop(struct kc_req *r)
{
    if (r->running)
        curl_multi_remove_handle(r->c->m, r->easy);
    r->running = false;
}

void kc__req_free(struct kc_req *r)
{
    struct kc *c = r->c;
    kc__req_stop(r);
    if (r->prev)
        r->prev->next = r->next;
    else
        c->reqs = r->next;
    if (r->next)
        r->next->prev = r->prev;
    else
        c->tail = r->prev;
    if (r->easy && c->n_spare < KC_SPARE_EASY)
        c->spare[c->n_spare++] = r->easy;
    else if (r->easy)
        curl_easy_cleanup(r->easy);
    curl_slist_free_all(r->hdrs);
    curl_slist_free_all(r->connect_to);
    sb_free(&r->resp);
    sb_free(&r->msg);
    free(r->method);
    free(r->path);
    free(r->ctype);
    free(r->body);
    free(r->w);
    free(r);
}

/* ---- watches --------------------------------------------------------------------------- */

json_t *kc_watch_event(const char *line, size_t len)
{
    json_error_t je;
    json_t *ev = json_loadb(line, len, JSON_ALLOW_NUL, &je);
    if (ev && json_is_object(ev) && json_is_string(json_object_get(ev, "type")))
        return ev;
    char why[256];
    if (ev)
        snprintf(why, sizeof(why), "a line of %zu bytes is not an event object", len);
    else
        snprintf(why, sizeof(why), "a line of %zu bytes is not JSON: %s at %d", len, je.text,
                 je.position);
    json_decref(ev);
    return json_pack("{s:s,s:s}", "type", "UNDECODABLE", "error", why);
}

/* Delivers every complete line of the stream; 0 to abort (cancelled, or out of memory, which
 * ends the watch with -ENOMEM). */
static bool watch_lines(struct kc_watch *w)
{
    struct sbuf *b = &w->r->resp;
    size_t start = 0;
    for (size_t i = w->scanned; i < b->len; i++) {
        if (b->s[i] != '\n')
            continue;
        if (w->line) {
            w->in_cb = true;
            w->line(w->arg, b->s + start, i - start);
            w->in_cb = false;
            if (w->cancelled)
                return false;
        } else if (i > start) {
            json_t *ev = kc_watch_event(b->s + start, i - start);
            if (!ev) {
                w->bad = -ENOMEM;
                return false;
            }
            w->in_cb = true;
            w->ev(w->arg, ev);
            w->in_cb = false;
            json_decref(ev);
            if (w->cancelled)
                return false;
        }
        start = i + 1;
    }
    memmove(b->s, b->s + start, b->len - start);
    b->len -= start;
    b->s[b->len] = '\0';
    w->scanned = b->len;
    return true;
}

static size_t on_data(char *p, size_t sz, size_t n, void *arg)
{
    struct kc_req *r = arg;
    sb_append(&r->resp, p, sz * n);
    if (sb_failed(&r->resp))
        return 0;
    if (r->w) {
        long code = 0;
        curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &code);
        if (code == 200 && !watch_lines(r->w))
            return 0;
    }
    return sz * n;
}

struct kc_watch *kc_watch(struct kc *c, const char *path, kc_event_fn ev, kc_end_fn end,
                          void *arg)
{
    struct kc_watch *w = calloc(1, sizeof(*w));
    struct kc_req *r = w ? kc__req_new(c, "GET", path, NULL, NULL) : NULL;
    if (!r) {
        free(w);
        return NULL;
    }
    *w = (struct kc_watch){.r = r, .ev = ev, .end = end, .arg = arg};
    r->w = w;
    return w;
}

struct kc_watch *kc_stream(struct kc *c, const char *path, kc_line_fn line, kc_end_fn end,
                           void *arg)
{
    struct kc_watch *w = kc_watch(c, path, NULL, end, arg);
    if (w)
        w->line = line;
    return w;
}

void kc_watch_cancel(struct kc_watch *w)
{
    if (!w)
        return;
    if (w->in_cb) {
        w->cancelled = true;
        return;
    }
    kc__req_free(w->r);
}

void kc__watch_finished(struct kc_req *r, CURLcode cc, long code)
{
    struct kc_watch *w = r->w;
    if (w->cancelled) {
        kc__req_free(r);
        return;
    }
    int rc = w->bad;
    char msg[512] = "";
    if (w->line && code == 200 && r->resp.len && !rc) { /* a last line without its newline */
        w->in_cb = true;
        w->line(w->arg, r->resp.s, r->resp.len);
        w->in_cb = false;
        if (w->cancelled) {
            kc__req_free(r);
            return;
        }
    }
    if (!rc && code != 200) {
        struct kc_resp resp;
        kc__decode(r, cc, code, &resp);
        rc = resp.rc ? resp.rc : -EPROTO;
        snprintf(msg, sizeof(msg), "%s", resp.msg);
        json_decref(resp.body);
    } else if (!rc && cc != CURLE_OK && cc != CURLE_PARTIAL_FILE) {
        rc = -EIO;
        snprintf(msg, sizeof(msg), "watch %s: %s", r->path,
                 r->errbuf[0] ? r->errbuf : curl_easy_strerror(cc));
    } else if (rc) {
        snprintf(msg, sizeof(msg), "watch %s: %s", r->path, strerror(-rc));
    }
    kc_end_fn end = w->end;
    void *arg = w->arg;
    kc__req_free(r);
    end(arg, rc, code, msg);
}
