/* srv_status: Trainer's status endpoint over srv_http (srv_status.h). */
#include "kube/serve/srv_status.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/kubeflow/trainjob_report.h"

static const char json_ctype[] = "application/json";

/* A JSON answer with `code` (`v` taken); 500 when it cannot be written. */
static int reply(struct sbuf *body, const char **ctype, int code, json_t *v)
{
    char *text = v ? json_dumps(v, JSON_COMPACT) : NULL;
    json_decref(v);
    if (!text)
        return 500;
    sb_printf(body, "%s\n", text);
    free(text);
    *ctype = json_ctype;
    return code;
}

/* A metav1.Status refusal (badRequest). */
static int refuse(struct sbuf *body, const char **ctype, int code, const char *reason,
                  const char *message)
{
    return reply(body, ctype, code, tjs_report_failure(code, reason, message));
}

static int ok(struct sbuf *body, const char **ctype, const json_t *echo)
{
    return reply(body, ctype, 200, json_incref((json_t *)echo));
}

/* Content-Length past the limit (bodySizeLimitMiddleware's first check). */
static bool declared_too_big(const struct srv_http_call *c)
{
    const char *cl = srv_http_header(c, "Content-Length");
    char *end;
    unsigned long long n = cl ? strtoull(cl, &end, 10) : 0;
    return cl && (*end || n > TJS_REPORT_MAX_BODY);
}

static int apply(const struct srv_status_ops *ops, const char *ns, const char *name,
                 const struct tjs_report *r, struct sbuf *body, const char **ctype)
{
    char *message = NULL;
    int rc = ops->apply(ops->arg, ns, name, r->status, &message);
    int code = rc == 0 ? ok(body, ctype, r->echo)
               : rc == -ENOENT ? refuse(body, ctype, 404, "NotFound", "Train job not found")
               : rc == -EINVAL ? refuse(body, ctype, 422, "Invalid",
                                        message && *message ? message : "Validation failed")
                               : refuse(body, ctype, 500, "InternalError", "Internal error");
    free(message);
    return code;
}

int srv_status_call(void *arg, const struct srv_http_call *c, struct sbuf *body,
                    const char **ctype)
{
    const struct srv_status_ops *ops = arg;
    char ns[TJS_REPORT_NAME_MAX], name[TJS_REPORT_NAME_MAX], token[4096];
    if (declared_too_big(c))
        return refuse(body, ctype, 413, "RequestEntityTooLarge", "Payload too large");
    if (strcmp(c->method, "POST") != 0 || !tjs_report_route(c->path, ns, name))
        return refuse(body, ctype, 404, "NotFound", "Not found");
    tjs_report_token(srv_http_header(c, "Authorization"), token, sizeof(token));
    int auth = ops->authorize(ops->arg, token, ns, name);
    if (auth < 0)
        return refuse(body, ctype, 500, "InternalError", "Internal error");
    if (auth == 0)
        return refuse(body, ctype, 403, "Forbidden", "Forbidden");
    struct tjs_report r = {0};
    enum tjs_report_rc rc = c->too_big ? TJS_REPORT_PAYLOAD
                                       : tjs_report_parse(c->body, c->len, name, &r);
    int code;
    switch (rc) {
    case TJS_REPORT_APPLY: code = apply(ops, ns, name, &r, body, ctype); break;
    case TJS_REPORT_EMPTY: code = ok(body, ctype, r.echo); break;
    case TJS_REPORT_INVALID: code = refuse(body, ctype, 422, "Invalid", r.message); break;
    case TJS_REPORT_PAYLOAD:
        code = refuse(body, ctype, 422, "Invalid", "Invalid payload");
        break;
    default: code = refuse(body, ctype, 500, "InternalError", "Internal error"); break;
    }
    tjs_report_release(&r);
    return code;
}

struct srv_http_route srv_status_route(const struct srv_status_ops *ops)
{
    return (struct srv_http_route){.path = "/", .prefix = true, .call = srv_status_call,
                                   .arg = (void *)ops};
}
