/* status_srv: Trainer's status server in the cluster controller (status_srv.h). */
#include "kube/status/status_srv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/kubeflow/trainjob_report.h"
#include "kube/client/kc_log.h"
#include "kube/serve/srv_status.h"
#include "obj/base/sbuf.h"
#include "obj/tree/jx.h"

#define LOGGER "statusserver"
#define SA_PREFIX "system:serviceaccount:"
#define POD_NAME_KEY "authentication.kubernetes.io/pod-name"
#define JOBSET_LABEL "jobset.sigs.k8s.io/jobset-name"

struct status_srv {
    struct kc *kc;
    struct srv_http *srv;
    struct srv_status_ops ops;
    struct srv_http_route route;
};

/* Whether `review`'s answer lets its bearer write TrainJob ns/name: authenticated for the
 * audience, a ServiceAccount of ns, bound to a pod; that pod's name in *pod. */
static bool reviewed(const json_t *review, const char *ns, const char *aud, const char **pod)
{
    const json_t *st = jx_obj(review, "status"), *user = jx_obj(st, "user");
    const char *who = jx_str(user, "username");
    size_t i, n = strlen(SA_PREFIX) + strlen(ns);
    const json_t *a;
    bool for_aud = false;
    json_array_foreach (jx_arr(st, "audiences"), i, a)
        for_aud = for_aud || (json_is_string(a) && !strcmp(json_string_value(a), aud));
    *pod = json_string_value(json_array_get(jx_arr(jx_obj(user, "extra"), POD_NAME_KEY), 0));
    return json_is_true(json_object_get(st, "authenticated")) && for_aud && who &&
           !strncmp(who, SA_PREFIX, strlen(SA_PREFIX)) &&
           !strncmp(who + strlen(SA_PREFIX), ns, strlen(ns)) && who[n] == ':' && *pod;
}

/* Whether pod ns/pod belongs to TrainJob ns/name's JobSet: 1, 0, or < 0 (could not tell). */
static int pod_of(struct status_srv *s, const char *ns, const char *pod, const char *name)
{
    char *ens = kc_escape(ns), *epod = kc_escape(pod);
    char *path = ens && epod ? sb_fmt("/api/v1/namespaces/%s/pods/%s", ens, epod) : NULL;
    json_t *got = NULL;
    struct err e = {{0}};
    int rc = path ? kc_call(s->kc, "GET", path, NULL, NULL, &got, &e) : -ENOMEM;
    const char *js = jx_get_meta(jx_obj(got, "metadata"), "labels", JOBSET_LABEL);
    int ok = rc == -ENOENT ? 0 : rc < 0 ? rc : js && !strcmp(js, name);
    if (rc < 0 && rc != -ENOENT)
        kc_log(KC_LOG_ERROR, LOGGER, NULL, "reading pod %s/%s: %s", ns, pod, e.msg);
    json_decref(got);
    free(path);
    free(ens);
    free(epod);
    return ok;
}

static int authorize(void *arg, const char *token, const char *ns, const char *name)
{
    struct status_srv *s = arg;
    char aud[1024];
    struct err e = {{0}};
    const char *pod = NULL;
    if (!*token || tjs_report_audience(ns, name, aud, sizeof(aud)) < 0)
        return 0;
    json_t *review = json_pack("{s:s,s:s,s:{s:s,s:[s]}}", "apiVersion",
                               "authentication.k8s.io/v1", "kind", "TokenReview", "spec",
                               "token", token, "audiences", aud);
    json_t *got = NULL;
    int rc = review ? kc_call(s->kc, "POST", "/apis/authentication.k8s.io/v1/tokenreviews",
                              review, NULL, &got, &e)
                    : -ENOMEM;
    if (rc < 0)
        kc_log(KC_LOG_ERROR, LOGGER, NULL, "TokenReview: %s", e.msg);
    int ok = rc < 0 ? rc : reviewed(got, ns, aud, &pod) ? pod_of(s, ns, pod, name) : 0;
    json_decref(review);
    json_decref(got);
    return ok;
}

/* Status().Apply(trainJob with status.trainerStatus, ForceOwnership, FieldOwner). */
static int apply(void *arg, const char *ns, const char *name, const json_t *ts, char **message)
{
    struct status_srv *s = arg;
    char *ens = kc_escape(ns), *ename = kc_escape(name);
    char *path = ens && ename ? sb_fmt("/apis/trainer.kubeflow.org/v1alpha1/namespaces/%s/"
                                       "trainjobs/%s/status?fieldManager=%s&force=true",
                                       ens, ename, TJS_REPORT_FIELD_OWNER)
                              : NULL;
    json_t *obj = json_pack("{s:s,s:s,s:{s:s,s:s},s:{s:O}}", "apiVersion",
                            "trainer.kubeflow.org/v1alpha1", "kind", "TrainJob", "metadata",
                            "name", name, "namespace", ns, "status", "trainerStatus", ts);
    struct err e = {{0}};
    int rc = path && obj ? kc_call(s->kc, "PATCH", path, obj, "application/apply-patch+yaml",
                                   NULL, &e)
                         : -ENOMEM;
    if (rc == -EINVAL)
        *message = strdup(e.msg);
    else if (rc < 0 && rc != -ENOENT)
        kc_log(KC_LOG_ERROR, LOGGER, NULL, "writing TrainJob %s/%s's status: %s", ns, name,
               e.msg);
    json_decref(obj);
    free(path);
    free(ens);
    free(ename);
    return rc;
}

int status_srv_serve(struct status_srv **sp, struct kc *kc, const char *bind, const char *cert,
                     const char *key, struct err *e)
{
    struct status_srv *s = *sp;
    if (s)
        return srv_http_set_tls(s->srv, cert, key, e);
    if (!(s = calloc(1, sizeof(*s))))
        return err_oom(e);
    s->kc = kc;
    s->ops = (struct srv_status_ops){.authorize = authorize, .apply = apply, .arg = s};
    s->route = srv_status_route(&s->ops);
    /* upstream's http.Server: ReadTimeout and WriteTimeout 10 s, IdleTimeout 120 s */
    struct srv_http_limits l = {.request_max = TJS_REPORT_MAX_BODY, .timeout_s = 120,
                                .header_timeout_s = 10, .max_conns = 256, .tls_cert = cert,
                                .tls_key = key};
    int rc = srv_http_start_with(bind, &s->route, 1, &l, &s->srv, e);
    if (rc < 0) {
        free(s);
        return rc;
    }
    kc_log(KC_LOG_INFO, LOGGER, NULL, "serving TrainJob status reports over HTTPS on port %d",
           srv_http_port(s->srv));
    *sp = s;
    return 0;
}

int status_srv_fd(const struct status_srv *s)
{
    return s ? srv_http_fd(s->srv) : -1;
}

long status_srv_timeout_ms(const struct status_srv *s)
{
    return s ? srv_http_timeout_ms(s->srv) : -1;
}

void status_srv_run(struct status_srv *s)
{
    if (s)
        srv_http_run(s->srv);
}

void status_srv_stop(struct status_srv *s)
{
    if (!s)
        return;
    srv_http_stop(s->srv);
    free(s);
}
