/* The controller's admission webhooks: the HTTPS server (kube/wh_adm.h handlers of
 * wh_jobset.h) on --webhook-port, and the certificates behind it, managed as upstream JobSet's
 * internal certificate management does (kubernetes-sigs/jobset pkg/util/cert, running
 * open-policy-agent/cert-controller's rotator):
 *   - the Secret --webhook-secret-namespace/--webhook-secret-name holds ca.crt, ca.key, tls.crt
 *     and tls.key; certificates found there are reused while valid (kube/wh_cert.h), else a new
 *     CA and serving certificate are made and written back (optimistic concurrency: a replica
 *     that loses the race reads the winner's);
 *   - the CA bundle is written into every webhook of the Mutating/ValidatingWebhookConfiguration
 *     named by the flags (created from the built-in definitions when absent and
 *     --webhook-url-base is given, as a laptop or a control plane without kube-proxy needs);
 *   - the pair is made again when a quarter of its validity (at most 90 days) is left, and the
 *     server takes the new one without closing its listening socket.
 * The sync runs on the loop's thread; its requests are short (kc_call outside a fiber lets the
 * other requests and watches progress).  Keys live in memory only, unless --webhook-cert-dir
 * asks for files. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/jobset/features.h"
#include "kube/ctl/ctl_int.h"
#include "kube/status/status_srv.h"
#include "kube/webhook/wh_adm.h"
#include "kube/client/kc_log.h"
#include "kube/cache/cache_store.h"
#include "kube/webhook/wh_jobset.h"
#include "kube/webhook/wh_cert.h"
#include "kube/webhook/wh_config.h"
#include "obj/base/b64.h"
#include "obj/base/fs.h"
#include "obj/tree/jx.h"
#include "obj/base/ktime.h"
#include "obj/base/sbuf.h"

#define LOGGER "webhook"
#define RESYNC_MS 30000
#define RETRY_MS 2000
#define LOOKAHEAD_MAX_S (90LL * 24 * 3600)
#define ADMREG "/apis/admissionregistration.k8s.io/v1/"

/* One webhook path: its handler, and the webhook server's metrics. */
struct wh_route {
    struct wh_adm_route adm;
    struct ctl_wh *w;
};

struct ctl_wh {
    struct srv_http *srv;
    struct wh_ctx ctx;
    struct wh_route routes[8];
    /* controller-runtime's webhook series (pkg/webhook/internal/metrics) */
    struct srv_mx_fam *requests, *latency, *in_flight;
    struct wh_cert served;
    char *hosts[4];
    size_t n_hosts;
    const char *secret_ns;
    int64_t next_ms; /* monotonic time of the next sync */
    int64_t lookahead_s;
    unsigned long rotations;
    /* Trainer's status server (kube/status), with the TrainJobStatus gate: the webhooks'
     * certificate, its own port; status_base the https://host:port its pods are given */
    struct status_srv *status;
    char *status_base;
};

static json_t *jobset_get(void *arg, const char *ns, const char *name)
{
    struct ctl *c = arg;
    return cache_store_get(cache_inf_store(c->jobsets), ns, name);
}

static int runtime_get(void *arg, bool cluster, const char *ns, const char *name, json_t **out)
{
    struct ctl *c = arg;
    struct cache_inf *inf = cluster ? c->cruntimes : c->runtimes;
    *out = NULL;
    if (!inf)
        return -ENOSYS;
    *out = cache_store_get(cache_inf_store(inf), cluster ? "" : (ns ? ns : ""), name);
    return 0;
}

/* The JobSet webhook's look-up of existing claims (wh_ctx.pvcs_get), made when the review
 * comes, as upstream's client Get reads the claim (kubernetes-sigs/jobset
 * pkg/webhooks/jobset_webhook.go validateVolumeClaimPolicies; RBAC persistentvolumeclaims
 * `get`, `list`).  A few claims are read by name; more (a JobSet may name 2500) with one list of
 * the namespace's claims, so that one review costs at most one request per few claims. */
#define PVC_GETS_MAX 8

static int pvc_list(struct ctl *c, const char *ns, const char *const *names, size_t n,
                    json_t **outs, struct err *e)
{
    char *path = ctl__path("/api/v1", "persistentvolumeclaims", ns, NULL, NULL);
    json_t *list = NULL, *item, *index = json_object(); /* name -> its place in names */
    int rc = path && index ? kc_call(c->kc, "GET", path, NULL, NULL, &list, e) : err_oom(e);
    size_t i;
    for (i = 0; rc == 0 && i < n; i++)
        rc = json_object_set_new(index, names[i], json_integer((json_int_t)i)) < 0 ? err_oom(e)
                                                                                : 0;
    json_array_foreach (rc == 0 ? jx_arr(list, "items") : NULL, i, item) {
        const char *name = jx_str(jx_obj(item, "metadata"), "name");
        json_t *at = name ? json_object_get(index, name) : NULL;
        if (at && !outs[json_integer_value(at)])
            outs[json_integer_value(at)] = json_incref(item);
    }
    json_decref(index);
    json_decref(list);
    free(path);
    return rc;
}

static int pvcs_get(void *arg, const char *ns, const char *const *names, size_t n, json_t **outs,
                    struct err *e)
{
    struct ctl *c = arg;
    int rc = 0;
    if (n > PVC_GETS_MAX)
        rc = pvc_list(c, ns, names, n, outs, e);
    for (size_t i = 0; n <= PVC_GETS_MAX && rc == 0 && i < n; i++) {
        char *path = ctl__path("/api/v1", "persistentvolumeclaims", ns, names[i], NULL);
        rc = path ? kc_call(c->kc, "GET", path, NULL, NULL, &outs[i], e) : err_oom(e);
        rc = rc == -ENOENT ? 0 : rc;
        free(path);
    }
    for (size_t i = 0; rc < 0 && i < n; i++) {
        json_decref(outs[i]);
        outs[i] = NULL;
    }
    return rc;
}

/* The host of "https://host[:port][/path]" (brackets of an IPv6 literal removed); caller
 * frees. */
static char *url_host(const char *url)
{
    const char *h = strstr(url, "://");
    h = h ? h + 3 : url;
    if (*h == '[') {
        const char *end = strchr(h, ']');
        return end ? strndup(h + 1, (size_t)(end - h - 1)) : NULL;
    }
    return strndup(h, strcspn(h, ":/"));
}

static int hosts_init(struct ctl_wh *w, const struct ctl_opts *o, const char *svc_ns)
{
    if (o->webhook_url_base) {
        w->hosts[w->n_hosts++] = url_host(o->webhook_url_base);
    } else {
        w->hosts[w->n_hosts++] = sb_fmt("%s.%s.svc", o->webhook_service_name, svc_ns);
        w->hosts[w->n_hosts++] = sb_fmt("%s.%s.svc.cluster.local", o->webhook_service_name,
                                        svc_ns);
    }
    for (size_t i = 0; i < w->n_hosts; i++)
        if (!w->hosts[i] || !*w->hosts[i])
            return -EINVAL;
    return 0;
}

/* ---- the Secret ------------------------------------------------------------------------ */

static char *secret_path(const struct ctl *c)
{
    return ctl__path("/api/v1", "secrets", c->wh->secret_ns, c->o->webhook_secret_name, NULL);
}

static char *data_key(const json_t *secret, const char *key)
{
    const char *v = jx_str(jx_obj(secret, "data"), key);
    char *out = NULL;
    size_t n = 0;
    if (!v || b64_decode(v, strlen(v), &out, &n) < 0)
        return NULL;
    return out; /* b64_decode NUL-terminates */
}

static void from_secret(const json_t *secret, struct wh_cert *out)
{
    out->ca_crt = data_key(secret, "ca.crt");
    out->ca_key = data_key(secret, "ca.key");
    out->tls_crt = data_key(secret, "tls.crt");
    out->tls_key = data_key(secret, "tls.key");
}

static int put_data(json_t *data, const char *key, const char *pem)
{
    char *v = b64_encode(pem, strlen(pem));
    int rc = v ? jx_set_str(data, key, v) : -ENOMEM;
    free(v);
    return rc;
}

/* Writes `cert` into `secret` (a new one when NULL): POST or PUT.  0, -JX_ECONFLICT (someone else
 * wrote first), -errno. */
static int write_secret(struct ctl *c, json_t *secret, const struct wh_cert *cert, struct err *e)
{
    json_t *s = secret ? json_incref(secret)
                       : json_pack("{s:s,s:s,s:{s:s,s:s},s:s}", "apiVersion", "v1", "kind",
                                   "Secret", "metadata", "name", c->o->webhook_secret_name,
                                   "namespace", c->wh->secret_ns, "type", "Opaque");
    json_t *data = s ? json_object() : NULL;
    char *path = secret ? secret_path(c)
                        : ctl__path("/api/v1", "secrets", c->wh->secret_ns, NULL, NULL);
    int rc = -ENOMEM;
    if (!data || !path || put_data(data, "ca.crt", cert->ca_crt) < 0 ||
        put_data(data, "ca.key", cert->ca_key) < 0 ||
        put_data(data, "tls.crt", cert->tls_crt) < 0 ||
        put_data(data, "tls.key", cert->tls_key) < 0) {
        rc = err_oom(e);
        goto out;
    }
    rc = jx_set_new(s, "data", data); /* takes data, also on failure */
    data = NULL;
    if (rc < 0) {
        rc = err_oom(e);
        goto out;
    }
    rc = kc_call(c->kc, secret ? "PUT" : "POST", path, s, NULL, NULL, e);
    if (rc == -EEXIST)
        rc = -JX_ECONFLICT;
out:
    json_decref(data);
    json_decref(s);
    free(path);
    return rc;
}

/* The pair to serve: the Secret's when valid, else a new one written there.  0, or -errno
 * (-JX_ECONFLICT: lost a race, read again soon). */
static int sync_secret(struct ctl *c, struct wh_cert *out, int64_t *not_after, struct err *e)
{
    struct ctl_wh *w = c->wh;
    char *path = secret_path(c);
    json_t *secret = NULL;
    const char *why = "the Secret does not exist";
    int64_t now = (int64_t)time(NULL);
    if (!path)
        return err_oom(e);
    int rc = kc_call(c->kc, "GET", path, NULL, NULL, &secret, e);
    free(path);
    if (rc < 0 && rc != -ENOENT)
        return rc;
    if (secret) {
        from_secret(secret, out);
        rc = wh_cert_check(out, (const char *const *)w->hosts, w->n_hosts, now, w->lookahead_s,
                          not_after, &why);
        if (rc <= 0) {
            json_decref(secret);
            return rc < 0 ? err_set(e, rc, ERR_OOM_MSG) : 0;
        }
    }
    kc_log(KC_LOG_INFO, LOGGER, NULL, "making a new CA and serving certificate for %s (%s)",
         w->hosts[0], why);
    int64_t validity_s = c->o->webhook_cert_validity_ms / 1000;
    rc = wh_cert_generate((const char *const *)w->hosts, w->n_hosts, now, validity_s, out, e);
    if (rc == 0)
        rc = write_secret(c, secret, out, e);
    if (rc == 0) {
        *not_after = now + validity_s;
        w->rotations++;
    }
    json_decref(secret);
    return rc;
}

/* ---- the webhook configurations ---------------------------------------------------------- */

static int sync_config(struct ctl *c, bool mutating, const char *ca_b64, struct err *e)
{
    const struct ctl_opts *o = c->o;
    const char *name = mutating ? o->webhook_mutating_name : o->webhook_validating_name;
    char *path = sb_fmt(ADMREG "%s/%s", mutating ? "mutatingwebhookconfigurations"
                                                 : "validatingwebhookconfigurations", name);
    json_t *cfg = NULL;
    if (!path)
        return err_oom(e);
    int rc = kc_call(c->kc, "GET", path, NULL, NULL, &cfg, e);
    bool create = rc == -ENOENT && o->webhook_url_base;
    if (create) {
        cfg = wh_config_new(mutating, name, c->wh->secret_ns, o->webhook_service_name,
                           o->webhook_url_base);
        rc = cfg ? 0 : err_oom(e);
    }
    if (rc == 0)
        rc = wh_config_inject(cfg, ca_b64, o->webhook_url_base);
    if (rc > 0) {
        char *dir = create ? sb_fmt(ADMREG "%s", mutating ? "mutatingwebhookconfigurations"
                                                          : "validatingwebhookconfigurations")
                           : NULL;
        rc = kc_call(c->kc, create ? "POST" : "PUT", create ? dir : path, cfg, NULL, NULL, e);
        free(dir);
        if (rc == 0)
            kc_log(KC_LOG_INFO, LOGGER, NULL, "%s %s %s with the CA bundle",
                 create ? "created" : "updated",
                 mutating ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration",
                 name);
    }
    json_decref(cfg);
    free(path);
    return rc;
}

/* ---- serving ------------------------------------------------------------------------------ */

static const char *const l_code_webhook[] = {"code", "webhook", NULL};
static const char *const l_webhook[] = {"webhook", NULL};
static const double b_latency[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

static void metrics_init(struct ctl_wh *w, struct srv_mx *mx)
{
    w->requests = srv_mx_counter(mx, "controller_runtime_webhook_requests_total",
                             "Total number of admission requests by HTTP status code.",
                             l_code_webhook);
    w->latency = srv_mx_histogram(mx, "controller_runtime_webhook_latency_seconds",
                              "Histogram of the latency of processing admission requests",
                              l_webhook, b_latency, sizeof(b_latency) / sizeof(b_latency[0]));
    w->in_flight = srv_mx_gauge(mx, "controller_runtime_webhook_requests_in_flight",
                            "Current number of admission requests being served.", l_webhook);
}

/* wh_adm_serve, counted and timed as controller-runtime's webhook server instruments itself. */
static int serve_hook(void *arg, const char *path, const char *req, size_t len,
                      struct sbuf *body, const char **ctype)
{
    struct wh_route *r = arg;
    struct ctl_wh *w = r->w;
    int64_t t0 = kt_mono_ms();
    srv_mx_add(w->in_flight, 1, path);
    int status = wh_adm_serve(&r->adm, path, req, len, body, ctype);
    srv_mx_add(w->in_flight, -1, path);
    char code[16];
    snprintf(code, sizeof(code), "%d", status);
    srv_mx_add(w->requests, 1, code, path);
    srv_mx_observe(w->latency, (double)(kt_mono_ms() - t0) / 1000.0, path);
    return status;
}

static int write_dir(const char *dir, const struct wh_cert *cert)
{
    static const char *const names[] = {"ca.crt", "tls.crt", "tls.key"};
    const char *data[] = {cert->ca_crt, cert->tls_crt, cert->tls_key};
    int rc = fs_mkdir_p(dir, 0700);
    for (size_t i = 0; rc == 0 && i < 3; i++) {
        char *p = sb_fmt("%s/%s", dir, names[i]);
        rc = p ? fs_write_private(p, data[i], strlen(data[i])) : -ENOMEM;
        free(p);
    }
    return rc;
}

static int serve(struct ctl *c, const struct wh_cert *cert, struct err *e)
{
    struct ctl_wh *w = c->wh;
    if (w->served.tls_crt && strcmp(w->served.tls_crt, cert->tls_crt) == 0 &&
        strcmp(w->served.tls_key, cert->tls_key) == 0)
        return 0;
    int rc;
    if (!w->srv) {
        char bind[300];
        snprintf(bind, sizeof(bind), "%s:%d", c->o->webhook_host ? c->o->webhook_host : "",
                 c->o->webhook_port);
        struct srv_http_route r[8] = {
            {.path = WH_PATH_MUTATE_JOBSET, .arg = &w->routes[0], .post = serve_hook},
            {.path = WH_PATH_VALIDATE_JOBSET, .arg = &w->routes[1], .post = serve_hook},
            {.path = WH_PATH_MUTATE_POD, .arg = &w->routes[2], .post = serve_hook},
            {.path = WH_PATH_VALIDATE_JAXJOB, .arg = &w->routes[3], .post = serve_hook},
            {.path = WH_PATH_VALIDATE_TRAINJOB, .arg = &w->routes[4], .post = serve_hook},
            {.path = WH_PATH_VALIDATE_POD, .arg = &w->routes[5], .post = serve_hook},
            {.path = WH_PATH_VALIDATE_TRAININGRUNTIME, .arg = &w->routes[6], .post = serve_hook},
            {.path = WH_PATH_VALIDATE_CLUSTERTRAININGRUNTIME, .arg = &w->routes[7],
             .post = serve_hook},
        };
        struct srv_http_limits l = {.tls_cert = cert->tls_crt, .tls_key = cert->tls_key,
                                  .max_conns = 256, .timeout_s = 30};
        rc = srv_http_start_with(bind, r, 8, &l, &w->srv, e);
        if (rc == 0)
            kc_log(KC_LOG_INFO, LOGGER, NULL, "serving webhooks over HTTPS on port %d",
                 srv_http_port(w->srv));
    } else {
        rc = srv_http_set_tls(w->srv, cert->tls_crt, cert->tls_key, e);
        if (rc == 0)
            kc_log(KC_LOG_INFO, LOGGER, NULL, "serving the new certificate");
    }
    if (rc == 0 && w->status_base) {
        char sbind[300];
        snprintf(sbind, sizeof(sbind), "%s:%d", c->o->webhook_host ? c->o->webhook_host : "",
                 c->o->status_port);
        rc = status_srv_serve(&w->status, c->kc, sbind, cert->tls_crt, cert->tls_key, e);
    }
    if (rc == 0 && c->o->webhook_cert_dir && write_dir(c->o->webhook_cert_dir, cert) < 0)
        kc_log(KC_LOG_ERROR, LOGGER, NULL, "cannot write the certificates to %s",
             c->o->webhook_cert_dir);
    if (rc == 0)
        rc = wh_cert_copy(&w->served, cert) < 0 ? err_oom(e) : 0;
    c->status_ca = rc == 0 && w->status_base ? w->served.ca_crt : NULL;
    c->status_base = c->status_ca ? w->status_base : NULL;
    return rc;
}

/* One sync; the ms until the next. */
static int64_t sync_all(struct ctl *c)
{
    struct wh_cert cert = {0};
    struct err e = {{0}};
    int64_t not_after = 0, delay = RETRY_MS;
    int rc = sync_secret(c, &cert, &not_after, &e);
    if (rc == 0)
        rc = serve(c, &cert, &e);
    char *ca = rc == 0 ? b64_encode(cert.ca_crt, strlen(cert.ca_crt)) : NULL;
    if (rc == 0 && !ca)
        rc = err_oom(&e);
    if (rc == 0)
        rc = sync_config(c, true, ca, &e);
    if (rc == 0)
        rc = sync_config(c, false, ca, &e);
    if (rc == 0) {
        int64_t due = (not_after - c->wh->lookahead_s - (int64_t)time(NULL)) * 1000;
        delay = due < RESYNC_MS ? (due < 1000 ? 1000 : due) : RESYNC_MS;
    } else {
        kc_log(rc == -JX_ECONFLICT ? KC_LOG_INFO : KC_LOG_ERROR, LOGGER, NULL,
             "certificates: %s (retrying)", rc == -JX_ECONFLICT ? "written by another replica"
                                                           : e.msg);
        if (rc == -JX_ECONFLICT)
            delay = 100;
    }
    free(ca);
    wh_cert_release(&cert);
    return delay;
}

/* ---- the loop's hooks -------------------------------------------------------------------- */

int ctl__wh_start(struct ctl *c, struct err *e)
{
    const struct ctl_opts *o = c->o;
    if (!o->webhooks)
        return 0;
    struct ctl_wh *w = calloc(1, sizeof(*w));
    if (!w)
        return err_oom(e);
    c->wh = w;
    w->secret_ns = o->webhook_secret_namespace ? o->webhook_secret_namespace
                                               : kc_namespace(c->kc);
    const char *svc_ns = o->webhook_service_namespace ? o->webhook_service_namespace
                                                      : w->secret_ns;
    int rc = hosts_init(w, o, svc_ns);
    if (rc < 0)
        return err_set(e, rc, rc == -ENOMEM ? ERR_OOM_MSG
                                            : "--webhook-url-base names no host");
    int64_t validity_s = o->webhook_cert_validity_ms / 1000;
    w->lookahead_s = validity_s / 4 < LOOKAHEAD_MAX_S ? validity_s / 4 : LOOKAHEAD_MAX_S;
    w->ctx = (struct wh_ctx){.gates = &o->gates, .jobset_get = jobset_get,
                             .runtime_get = runtime_get, .pvcs_get = pvcs_get, .arg = c};
    if (c->pods)
        w->ctx.place = (struct place_src){ctl__pods_named, ctl__node_get, c};
    w->ctx.place_gates = o->placement_gates;
    const wh_adm_fn fns[8] = {wh_jobset_default,   wh_jobset_validate,   wh_pod_default,
                              wh_jaxjob_validate,  wh_trainjob_validate, wh_pod_validate,
                              wh_runtime_validate, wh_runtime_validate};
    for (size_t i = 0; i < 8; i++)
        w->routes[i] = (struct wh_route){{fns[i], &w->ctx}, w};
    metrics_init(w, ctl__obs_registry(c));
    if (fg_enabled(&o->gates, FG_TRAINJOB_STATUS) &&
        !(w->status_base = sb_fmt("https://%s:%d", w->hosts[0], o->status_port)))
        return err_oom(e);
    w->next_ms = kt_mono_ms() + sync_all(c);
    return 0;
}

int64_t ctl__wh_tick(struct ctl *c)
{
    struct ctl_wh *w = c->wh;
    if (!w)
        return INT64_MAX;
    int64_t now = kt_mono_ms();
    if (now >= w->next_ms)
        w->next_ms = now + sync_all(c);
    return w->next_ms - kt_mono_ms();
}

size_t ctl__wh_fds(const struct ctl *c, int *fds, int64_t *next_ms)
{
    struct ctl_wh *w = c->wh;
    if (!w || !w->srv || srv_http_fd(w->srv) < 0)
        return 0;
    size_t n = 0;
    fds[n++] = srv_http_fd(w->srv);
    long t = srv_http_timeout_ms(w->srv), ts = status_srv_timeout_ms(w->status);
    if (status_srv_fd(w->status) >= 0)
        fds[n++] = status_srv_fd(w->status);
    if (t >= 0 && t < *next_ms)
        *next_ms = t;
    if (ts >= 0 && ts < *next_ms)
        *next_ms = ts;
    return n;
}

void ctl__wh_serve(struct ctl *c)
{
    if (!c->wh)
        return;
    srv_http_run(c->wh->srv);
    status_srv_run(c->wh->status);
}

void ctl__wh_stop(struct ctl *c)
{
    struct ctl_wh *w = c->wh;
    if (!w)
        return;
    srv_http_stop(w->srv);
    status_srv_stop(w->status);
    c->status_base = c->status_ca = NULL;
    free(w->status_base);
    wh_cert_release(&w->served);
    for (size_t i = 0; i < w->n_hosts; i++)
        free(w->hosts[i]);
    free(w);
    c->wh = NULL;
}
