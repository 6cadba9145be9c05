/* AdmissionReview v1 decoding, dispatching and answering (see wh_adm.h). */
#include "kube/webhook/wh_adm.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/client/kc_log.h"
#include "obj/base/b64.h"
#include "obj/tree/jpatch.h"
#include "obj/tree/jx.h"
#include "obj/base/sbuf.h"

#define LOGGER "webhook"

void wh_adm_result_release(struct wh_adm_result *r)
{
    free(r->message);
    json_decref(r->causes);
    json_decref(r->details);
    json_decref(r->mutated);
    json_decref(r->warnings);
    memset(r, 0, sizeof(*r));
}

int wh_adm_deny(struct wh_adm_result *r, int code, const char *reason, const char *fmt, ...)
{
    va_list ap;
    struct sbuf b = {0};
    va_start(ap, fmt);
    sb_vprintf(&b, fmt, ap);
    va_end(ap);
    if (sb_failed(&b)) {
        sb_free(&b);
        return -ENOMEM;
    }
    free(r->message);
    r->message = sb_detach(&b);
    r->denied = true;
    r->code = code;
    r->reason = reason;
    return 0;
}

/* The kind of cause (metav1.CauseType) of a field error. */
static const char *cause_type(enum ferr_type t)
{
    switch (t) {
    case FERR_INVALID: return "FieldValueInvalid";
    case FERR_REQUIRED: return "FieldValueRequired";
    case FERR_NOT_SUPPORTED: return "FieldValueNotSupported";
    case FERR_DUPLICATE: return "FieldValueDuplicate";
    case FERR_FORBIDDEN: return "FieldValueForbidden";
    case FERR_TOO_LONG: return "FieldValueTooLong";
    case FERR_TOO_MANY: return "FieldValueTooMany";
    case FERR_NOT_FOUND: return "FieldValueNotFound";
    case FERR_UNKNOWN_FIELD: return "FieldValueInvalid";
    case FERR_INTERNAL: break;
    }
    return "InternalError";
}

int wh_adm_deny_invalid(struct wh_adm_result *r, const char *group, const char *kind, const char *name,
                     const struct ferr_list *errs)
{
    struct sbuf b = {0};
    json_t *causes = json_array();
    /* schema.GroupKind String(): the kind alone for the core group */
    sb_printf(&b, "%s%s%s \"%s\" is invalid: %s", kind, *group ? "." : "", group,
              name ? name : "", errs->n > 1 ? "[" : "");
    for (size_t i = 0; causes && i < errs->n; i++) {
        char *line = ferr_format(&errs->v[i]);
        if (!line)
            break;
        sb_printf(&b, "%s%s", i ? ", " : "", line);
        /* the cause's message is the line less its "<path>: " */
        size_t pl = strlen(errs->v[i].path ? errs->v[i].path : "");
        const char *msg = pl && strncmp(line, errs->v[i].path, pl) == 0 && line[pl] == ':'
                              ? line + pl + 2 : line;
        json_array_append_new(causes, json_pack("{s:s,s:s,s:s}", "reason",
                                                cause_type(errs->v[i].type), "message", msg,
                                                "field", errs->v[i].path ? errs->v[i].path : ""));
        free(line);
    }
    if (errs->n > 1)
        sb_puts(&b, "]");
    if (sb_failed(&b) || !causes || json_array_size(causes) != errs->n) {
        sb_free(&b);
        json_decref(causes);
        return -ENOMEM;
    }
    free(r->message);
    json_decref(r->causes);
    json_decref(r->details);
    r->message = sb_detach(&b);
    r->causes = causes;
    r->details = json_pack("{s:s,s:s,s:s}", "name", name ? name : "", "group", group, "kind",
                           kind);
    r->denied = true;
    r->code = 422;
    r->reason = "Invalid";
    return r->details ? 0 : -ENOMEM;
}

static json_t *status_of(const struct wh_adm_result *r)
{
    json_t *st = json_pack("{s:s,s:s,s:s,s:i}", "apiVersion", "v1", "kind", "Status", "status",
                           "Failure", "code", r->code ? r->code : 403);
    if (!st)
        return NULL;
    if (r->message)
        json_object_set_new(st, "message", json_string(r->message));
    if (r->reason)
        json_object_set_new(st, "reason", json_string(r->reason));
    if (r->details || r->causes) {
        json_t *d = r->details ? json_deep_copy(r->details) : json_object();
        if (d && r->causes)
            json_object_set(d, "causes", r->causes);
        json_object_set_new(st, "details", d);
    }
    return st;
}

/* response.patch and patchType from the difference between `original` and r->mutated. */
static int add_patch(json_t *resp, const json_t *original, const json_t *mutated)
{
    json_t *ops = jpatch_diff(original, mutated);
    if (!ops)
        return -ENOMEM;
    int rc = 0;
    if (json_array_size(ops) > 0) {
        char *text = json_dumps(ops, JSON_COMPACT);
        char *b64 = text ? b64_encode(text, strlen(text)) : NULL;
        rc = b64 && json_object_set_new(resp, "patch", json_string(b64)) == 0 &&
                     json_object_set_new(resp, "patchType", json_string("JSONPatch")) == 0
                 ? 0 : -ENOMEM;
        free(b64);
        free(text);
    }
    json_decref(ops);
    return rc;
}

json_t *wh_adm_response(const char *uid, const json_t *original, const struct wh_adm_result *r)
{
    json_t *resp = json_pack("{s:s,s:b}", "uid", uid ? uid : "", "allowed", !r->denied);
    json_t *review = resp ? json_pack("{s:s,s:s,s:o}", "apiVersion", "admission.k8s.io/v1",
                                      "kind", "AdmissionReview", "response", resp)
                          : NULL;
    if (!review)
        return NULL;
    int rc = 0;
    if (r->denied)
        rc = json_object_set_new(resp, "status", status_of(r));
    else if (r->mutated)
        rc = add_patch(resp, original, r->mutated);
    if (rc == 0 && r->warnings && json_array_size(r->warnings) > 0)
        rc = json_object_set(resp, "warnings", r->warnings);
    if (rc < 0) {
        json_decref(review);
        return NULL;
    }
    return review;
}

static int answer(struct sbuf *body, const char **ctype, json_t *review)
{
    char *text = review ? json_dumps(review, JSON_COMPACT) : NULL;
    json_decref(review);
    if (!text)
        return 500;
    sb_puts(body, text);
    free(text);
    *ctype = "application/json";
    return 200;
}

/* controller-runtime's admission.Decoder (pkg/webhook/admission/decode.go) refuses, with
 * admission.Errored(400), a request whose object does not decode into the kind: `null`, a
 * string, a number.  A CREATE or UPDATE (the only operations whose object must be one) is
 * refused so, rather than allowed because the handler found nothing to check. */
static bool object_unreadable(const json_t *q, const char **which)
{
    const char *op = jx_str(q, "operation");
    if (!op || (strcmp(op, "CREATE") != 0 && strcmp(op, "UPDATE") != 0))
        return false;
    *which = "object";
    if (!json_is_object(json_object_get(q, "object")))
        return true;
    *which = "oldObject";
    return strcmp(op, "UPDATE") == 0 && !json_is_object(json_object_get(q, "oldObject"));
}

static const char *json_kind(const json_t *v)
{
    static const char *names[] = {"an object", "an array", "a string", "a number", "a number",
                                  "true", "false", "null"};
    return v ? names[json_typeof(v)] : "missing";
}

/* The operations of admission.k8s.io/v1 (k8s.io/api admission/v1 Operation).  Any other is
 * answered as controller-runtime's validators answer it (pkg/webhook/admission
 * validator_custom.go, Handle: `default: return Errored(http.StatusBadRequest,
 * fmt.Errorf("unknown operation request %q", req.Operation))`), on every path: its defaulter
 * (defaulter_custom.go) has no such case and would default the object as for a CREATE, but no
 * API server sends another operation, so a review that names one is refused, not patched. */
static bool op_known(const char *op)
{
    static const char *const ops[] = {"CREATE", "UPDATE", "DELETE", "CONNECT"};
    for (size_t i = 0; op && i < sizeof(ops) / sizeof(ops[0]); i++)
        if (strcmp(op, ops[i]) == 0)
            return true;
    return false;
}

static int deny_op(struct wh_adm_result *r, const json_t *q)
{
    const json_t *op = json_object_get(q, "operation");
    char *shown = json_is_string(op) ? ferr_render(op) : NULL;
    int rc = json_is_string(op) && !shown
                 ? -ENOMEM
                 : wh_adm_deny(r, 400, "BadRequest", "unknown operation request %s",
                               shown ? shown : "\"\"");
    free(shown);
    return rc;
}

/* ---- numbers no 64 bits hold ----------------------------------------------------------------
 * An integer beyond int64 (`replicas: 9223372036854775808`) is valid JSON that jansson will
 * not decode ("too big integer"), and kube-apiserver sends a custom resource as it was written,
 * its schema check coming after the mutating webhooks.  Such a review is decoded again with the
 * number's text replaced by a marker string (further such numbers read as reals, with
 * JSON_DECODE_INT_AS_REAL: the review is refused anyway), so that it is answered with its uid and
 * a field error at the number's place instead of "not JSON".  A review jansson decodes is never
 * decoded this way. */
#define BIG_MARK "\"\\u0000jaxset-big-number\\u0000\""
#define BIG_MARK_VALUE "\0jaxset-big-number" /* and the NUL that ends the literal */
#define BIG_MARK_LEN sizeof(BIG_MARK_VALUE)

static bool num_char(char c)
{
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

/* The review with the number that ends at `end` (jansson's error position) replaced by the
 * marker, or NULL when that does not decode either; *text: the number as written (caller
 * frees). */
static json_t *load_marked(const char *req, size_t len, size_t end, char **text)
{
    size_t start = end;
    while (start > 0 && start <= len && num_char(req[start - 1]))
        start--;
    if (start == end || end > len)
        return NULL;
    struct sbuf b = SBUF_INIT;
    json_error_t je;
    sb_append(&b, req, start);
    sb_puts(&b, BIG_MARK);
    sb_append(&b, req + end, len - end);
    json_t *review = sb_failed(&b) ? NULL
                                   : json_loadb(sb_str(&b), b.len,
                                                JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, &je);
    sb_free(&b);
    *text = review ? strndup(req + start, end - start) : NULL;
    if (!*text) {
        json_decref(review);
        return NULL;
    }
    return review;
}

static bool is_mark(const json_t *v)
{
    return json_is_string(v) && json_string_length(v) == BIG_MARK_LEN &&
           memcmp(json_string_value(v), BIG_MARK_VALUE, BIG_MARK_LEN) == 0;
}

/* Writes after the first `at` bytes of path[FPATH_MAX] the place of the marker under `v`
 * ("spec.replicatedJobs[0].replicas"); false when it is not there.  jansson's depth limit
 * bounds the recursion. */
static bool find_mark(const json_t *v, char *path, size_t at)
{
    const char *k;
    json_t *c;
    size_t i;
    if (is_mark(v))
        return true;
    if (json_is_object(v)) {
        json_object_foreach ((json_t *)v, k, c) {
            snprintf(path + at, FPATH_MAX - at, "%s%s", at ? "." : "", k);
            if (find_mark(c, path, strlen(path)))
                return true;
        }
    } else if (json_is_array(v)) {
        json_array_foreach (v, i, c) {
            snprintf(path + at, FPATH_MAX - at, "[%zu]", i);
            if (find_mark(c, path, strlen(path)))
                return true;
        }
    }
    path[at] = '\0';
    return false;
}

/* Refuses a review holding the number `text`: with a field error (apierrors.NewInvalid's form,
 * 422) at its place in request.object, as the API server's schema check would name it; a
 * number elsewhere (or the object itself), with a 400 naming its place in the review. */
static int deny_big(struct wh_adm_result *r, const json_t *review, const json_t *q,
                    const char *text)
{
    char path[FPATH_MAX] = "";
    const json_t *obj = json_object_get(q, "object");
    const char *kind = jx_str(jx_obj(q, "kind"), "kind");
    const char *group = jx_str(jx_obj(q, "kind"), "group");
    const char *why = strpbrk(text, ".eE") ? "must be a number a 64-bit float can hold"
                                            : "must be an integer of at most 64 bits";
    if (!kind || !find_mark(obj, path, 0) || !*path) {
        find_mark(review, path, 0);
        return wh_adm_deny(r, 400, "BadRequest", "%s: Invalid value: %s: %s", path, text, why);
    }
    struct ferr_list errs;
    ferr_list_init(&errs);
    ferr_add_raw(&errs, FERR_INVALID, path, text, "%s", why);
    const char *name = jx_str(jx_obj(obj, "metadata"), "name");
    int rc = errs.rc < 0 ? errs.rc
                         : wh_adm_deny_invalid(r, group ? group : "", kind,
                                               name ? name : jx_str(q, "name"), &errs);
    ferr_list_release(&errs);
    return rc;
}

/* ---- serving ------------------------------------------------------------------------------- */

/* What a review gets before its handler: 1 (refused: r filled), 0 (the handler decides), or
 * -ENOMEM.  `big`: the number that made the review undecodable, or NULL. */
static int precheck(const json_t *review, const json_t *q, const char *big,
                    struct wh_adm_result *r)
{
    const char *api = jx_str(review, "apiVersion"), *kind = jx_str(review, "kind");
    const char *which = NULL;
    int rc;
    if (!review || !q || !jx_str(q, "uid") || !api || strcmp(api, "admission.k8s.io/v1") != 0 ||
        !kind || strcmp(kind, "AdmissionReview") != 0)
        rc = wh_adm_deny(r, 400, "BadRequest", "%s",
                         !review ? "the request body is not JSON"
                                 : "the request body is not an admission.k8s.io/v1 "
                                   "AdmissionReview with request.uid");
    else if (!op_known(jx_str(q, "operation")))
        rc = deny_op(r, q);
    else if (big)
        rc = deny_big(r, review, q, big);
    else if (object_unreadable(q, &which))
        rc = wh_adm_deny(r, 400, "BadRequest", "request.%s is %s, not an object to admit", which,
                         json_kind(json_object_get(q, which)));
    else
        return 0;
    return rc < 0 ? rc : 1;
}

int wh_adm_serve(void *arg, const char *path, const char *req, size_t req_len, struct sbuf *body,
              const char **content_type)
{
    const struct wh_adm_route *route = arg;
    struct wh_adm_result r = {0};
    json_error_t je;
    char *big = NULL;
    json_t *review = json_loadb(req, req_len, JSON_ALLOW_NUL, &je);
    if (!review && json_error_code(&je) == json_error_numeric_overflow && je.position > 0)
        review = load_marked(req, req_len, (size_t)je.position, &big);
    const json_t *q = jx_obj(review, "request");
    int rc = precheck(review, q, big, &r);
    if (rc == 0 && (rc = route->fn(route->arg, q, &r)) < 0) {
        wh_adm_result_release(&r);
        kc_log(KC_LOG_ERROR, LOGGER, NULL, "%s: %s", path, err_str(rc));
        rc = wh_adm_deny(&r, 500, "InternalError", "%s: %s", path, err_str(rc));
    }
    if (r.denied)
        kc_log(KC_LOG_DEBUG, LOGGER, NULL, "%s denied %s %s/%s: %s", path, jx_str(q, "operation"),
             jx_str(q, "namespace"), jx_str(q, "name"), r.message ? r.message : "");
    json_t *resp = rc < 0 ? NULL : wh_adm_response(jx_str(q, "uid"), jx_obj(q, "object"), &r);
    int status = rc < 0 ? 500 : answer(body, content_type, resp);
    wh_adm_result_release(&r);
    json_decref(review);
    free(big);
    return status;
}
