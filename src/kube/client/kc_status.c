/* kc (the REST client): decoding answers and Kubernetes `Status` errors (k8s.io/apimachinery
 * pkg/api/errors: reasons, and the causes of a 422 Invalid). */
#include <errno.h>
#include <string.h>

#include "kube/client/kc_int.h"
#include "obj/tree/jx.h"

static bool str_is_status(const json_t *o)
{
    const char *k = jx_str(o, "kind");
    return k && strcmp(k, "Status") == 0;
}

static int rc_of(long code, const char *reason)
{
    if (code >= 200 && code < 300)
        return 0;
    if (code == 404)
        return -ENOENT;
    if (code == 409)
        return strcmp(reason, "AlreadyExists") == 0 ? -EEXIST : -JX_ECONFLICT;
    if (code == 410)
        return -JX_EGONE;
    if (code == 400 || code == 422)
        return -EINVAL;
    if (code == 401 || code == 403)
        return -EACCES;
    if (code == 429 || code >= 500)
        return -EAGAIN;
    return -EPROTO;
}

/* "<message>" then each cause "<field>: <message>" of details.causes (422 Invalid). */
static void status_msg(struct sbuf *m, const json_t *st, long code)
{
    const char *msg = jx_str(st, "message");
    if (msg && *msg)
        sb_puts(m, msg);
    else
        sb_printf(m, "the server answered HTTP %ld", code);
    size_t i;
    const json_t *cause;
    json_array_foreach (jx_arr(jx_obj(st, "details"), "causes"), i, cause) {
        const char *f = jx_str(cause, "field"), *cm = jx_str(cause, "message");
        if (cm && (!msg || !strstr(msg, cm)))
            sb_printf(m, "%s %s%s%s", i ? ";" : ":", f ? f : "", f ? ": " : "", cm);
    }
}

void kc__decode(struct kc_req *r, CURLcode cc, long code, struct kc_resp *out)
{
    memset(out, 0, sizeof(*out));
    out->code = code;
    out->reason = "";
    sb_reset(&r->msg);
    if (cc != CURLE_OK && code == 0) {
        out->rc = cc == CURLE_OUT_OF_MEMORY ? -ENOMEM : -EIO;
        sb_printf(&r->msg, "%s %s: %s", r->method, r->path,
                  r->errbuf[0] ? r->errbuf : curl_easy_strerror(cc));
        out->msg = sb_str(&r->msg);
        return;
    }
    if (sb_failed(&r->resp)) {
        out->rc = -ENOMEM;
        out->msg = "answer too large or " ERR_OOM_MSG;
        return;
    }
    out->body = r->resp.len ? json_loadb(r->resp.s, r->resp.len, JSON_ALLOW_NUL, NULL) : NULL;
    const json_t *st = out->body;
    bool is_status = str_is_status(st);
    if (code >= 300 && is_status && jx_str(st, "reason"))
        out->reason = jx_str(st, "reason");
    out->rc = rc_of(code, out->reason);
    if (out->rc < 0) {
        sb_printf(&r->msg, "%s %s: ", r->method, r->path);
        if (is_status)
            status_msg(&r->msg, st, code);
        else
            sb_printf(&r->msg, "HTTP %ld", code);
    } else if (cc != CURLE_OK) {
        out->rc = -EIO;
        sb_printf(&r->msg, "%s %s: %s", r->method, r->path, curl_easy_strerror(cc));
    }
    out->msg = sb_str(&r->msg);
}
