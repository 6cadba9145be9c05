/* wh_adm (admission): Kubernetes admission webhooks over the controller's HTTPS server — the
 * AdmissionReview v1 (admission.k8s.io/v1) request and response, as controller-runtime's
 * pkg/webhook/admission serves them: each path decodes the review, calls its handler with
 * `request`, and answers with the same uid, `allowed`, a `status` (metav1.Status) when refused,
 * and for a mutation a base64 JSONPatch (patchType "JSONPatch") computed from the object the
 * handler returns.  A body that is not an AdmissionReview v1 is answered as controller-runtime
 * does: HTTP 200 with allowed false and status code 400; so is a review whose operation is not
 * one of admission.k8s.io/v1's (`unknown operation request "FROB"`, as its validators answer).
 * A review holding a number no 64 bits hold (which jansson does not decode) is answered with its
 * uid and a field error at the number's place. */
#ifndef JX_KUBE_WEBHOOK_WH_ADM_H
#define JX_KUBE_WEBHOOK_WH_ADM_H

#include <jansson.h>
#include <stdbool.h>

#include "kube/serve/srv_http.h"
#include "obj/tree/ferr.h"

/* What a handler decides.  Defaults (zeroed): allowed, no change. */
struct wh_adm_result {
    bool denied;
    int code;            /* Status.code when denied (default 403; 422 for field errors) */
    const char *reason;  /* Status.reason (e.g. "Invalid"); static */
    char *message;       /* Status.message; owned (wh_adm_result_release) */
    json_t *causes;      /* Status.details.causes ([{reason, message, field}]); owned */
    json_t *details;     /* Status.details base ({name, group, kind}); owned */
    json_t *mutated;     /* the object as it should be stored (a mutation); owned */
    json_t *warnings;    /* array of strings; owned */
};
void wh_adm_result_release(struct wh_adm_result *r);

/* Denies with HTTP-like code and a message (printf).  0 or -ENOMEM. */
int wh_adm_deny(struct wh_adm_result *r, int code, const char *reason, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Denies with the field errors `errs` as apierrors.NewInvalid does for `kind` in `group`:
 * code 422, reason Invalid, message `<Kind>.<group> "<name>" is invalid: <e>` (several errors:
 * "[<e1>, <e2>]"), one cause per error.  0 or -ENOMEM. */
int wh_adm_deny_invalid(struct wh_adm_result *r, const char *group, const char *kind, const char *name,
                     const struct ferr_list *errs);

/* Decides about request `req` (the AdmissionReview's `request`, borrowed).  Returns 0 (r
 * filled), or -errno: the review is then answered as an internal error (code 500). */
typedef int (*wh_adm_fn)(void *arg, const json_t *req, struct wh_adm_result *r);

/* The khttpd POST handler of a webhook path: `arg` must point at a struct wh_adm_route. */
struct wh_adm_route {
    wh_adm_fn fn;
    void *arg;
};
int wh_adm_serve(void *arg, const char *path, const char *req, size_t req_len, struct sbuf *body,
              const char **content_type);

/* The response object of one review (exposed for the unit tests): a new AdmissionReview with
 * the request's uid; `original` is the request's object (for the patch).  NULL on OOM. */
json_t *wh_adm_response(const char *uid, const json_t *original, const struct wh_adm_result *r);

#endif
