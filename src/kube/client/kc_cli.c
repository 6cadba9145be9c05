/* kc_cli: one request with its whole answer (kc_cli.h). */
#include "kube/client/kc_cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj/tree/jx.h"
#include "obj/base/ktime.h"
#include "obj/base/sbuf.h"

struct wait {
    struct kc_cli_resp *out;
    bool done;
};

static void on_done(void *arg, const struct kc_resp *r)
{
    struct wait *w = arg;
    w->out->rc = r->rc;
    w->out->code = r->code;
    w->out->reason = strdup(r->reason ? r->reason : "");
    w->out->msg = strdup(r->msg ? r->msg : "");
    w->out->body = r->body ? json_incref(r->body) : NULL;
    if (!w->out->reason || !w->out->msg)
        w->out->rc = -ENOMEM;
    w->done = true;
}

int kc_cli_request(struct kc *c, const char *method, const char *path, const json_t *body,
                 const char *ctype, struct kc_cli_resp *out)
{
    struct wait w = {.out = out};
    memset(out, 0, sizeof(*out));
    int rc = kc_send(c, method, path, body, ctype, on_done, &w);
    if (rc < 0)
        return out->rc = rc;
    while (!w.done)
        kc_run(c, 1000, NULL, 0, NULL);
    return out->rc;
}

void kc_cli_resp_free(struct kc_cli_resp *r)
{
    free(r->reason);
    free(r->msg);
    json_decref(r->body);
    memset(r, 0, sizeof(*r));
}

const char *kc_cli_message(const struct kc *c, const struct kc_cli_resp *r, char *buf, size_t len)
{
    const char *m = jx_str(r->body, "message");
    if (r->code && m && !strcmp(jx_str(r->body, "kind") ? jx_str(r->body, "kind") : "", "Status"))
        return m;
    if (r->code == 0 && r->rc != -ENOMEM) {
        /* "GET /path: <curl error>": the path says nothing to a user */
        const char *why = r->msg ? strstr(r->msg, ": ") : NULL;
        snprintf(buf, len, "cannot reach the API server at %s: %s", kc_server(c),
                 why ? why + 2 : (r->msg ? r->msg : "no answer"));
        return buf;
    }
    return r->msg && r->msg[0] ? r->msg : ERR_OOM_MSG;
}

struct watching {
    kc_cli_event_fn fn;
    void *arg;
    char *rv;     /* the last version seen (owned) */
    int result;   /* fn's nonzero value */
    int end_rc;   /* the stream's end: 0 normal; negative: failed */
    bool ended;
    struct err *e;
};

static void keep_rv(struct watching *w, const json_t *obj)
{
    const char *rv = jx_str(jx_obj(obj, "metadata"), "resourceVersion");
    char *copy = rv ? strdup(rv) : NULL;
    if (copy) {
        free(w->rv);
        w->rv = copy;
    }
}

static void on_event(void *arg, json_t *ev)
{
    struct watching *w = arg;
    const char *type = jx_str(ev, "type");
    json_t *obj = jx_obj(ev, "object");
    if (w->result || !type || !obj)
        return;
    if (!strcmp(type, "ERROR")) {
        long long code = jx_int_or(obj, "code", 0);
        w->end_rc = code == 410 ? -JX_EGONE : -EIO;
        err_set(w->e, w->end_rc, "watch: %s", jx_str(obj, "message") ? jx_str(obj, "message")
                                                                       : "an ERROR event");
        return;
    }
    keep_rv(w, obj);
    if (strcmp(type, "BOOKMARK"))
        w->result = w->fn(w->arg, type, obj);
}

static void on_end(void *arg, int rc, long code, const char *msg)
{
    struct watching *w = arg;
    w->ended = true;
    if (rc < 0 && !w->end_rc) {
        w->end_rc = code == 410 ? -JX_EGONE : rc;
        err_set(w->e, w->end_rc, "%s", msg);
    }
}

static char *watch_path(const char *list_path, const char *query, const char *rv)
{
    return sb_fmt("%s?watch=1&allowWatchBookmarks=true%s%s%s%s", list_path,
                  rv && *rv ? "&resourceVersion=" : "", rv && *rv ? rv : "",
                  query ? "&" : "", query ? query : "");
}

int kc_cli_watch(struct kc *c, const char *list_path, const char *query, const char *rv,
               int64_t deadline_ms, kc_cli_event_fn fn, void *arg, struct err *e)
{
    struct watching w = {.fn = fn, .arg = arg, .rv = rv && *rv ? strdup(rv) : NULL, .e = e};
    struct kc_watch *cur = NULL;
    while (!w.result && !w.end_rc) {
        int64_t now = kt_mono_ms();
        if (deadline_ms && now >= deadline_ms)
            break;
        if (!cur || w.ended) {
            char *path = watch_path(list_path, query, w.rv);
            w.ended = false;
            cur = path ? kc_watch(c, path, on_event, on_end, &w) : NULL;
            free(path);
            if (!cur) {
                w.end_rc = err_oom(e);
                break;
            }
        }
        int64_t left = deadline_ms ? deadline_ms - now : 1000;
        kc_run(c, (int)(left < 1000 ? left : 1000), NULL, 0, NULL);
    }
    if (cur && !w.ended)
        kc_watch_cancel(cur);
    free(w.rv);
    return w.result ? w.result : w.end_rc;
}
