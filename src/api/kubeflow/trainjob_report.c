/* trainjob_report: Trainer's status server, less the transport (trainjob_report.h). */
#include "api/kubeflow/trainjob_report.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/kubeflow/trainjob_init.h"
#include "obj/base/ktime.h"
#include "obj/base/sbuf.h"
#include "obj/tree/ferr.h"
#include "obj/tree/jx.h"

#define ROUTE_HEAD "/apis/trainer.kubeflow.org/v1alpha1/namespaces/"
#define MAX_METRICS 256
#define MAX_METRIC_LEN 64

int tjs_report_audience(const char *ns, const char *name, char *buf, size_t n)
{
    int len = snprintf(buf, n, "trainer.kubeflow.org/v1alpha1/namespaces/%s/trainjobs/%s/status",
                       ns, name);
    return len < 0 || (size_t)len >= n ? -ERANGE : len;
}

int tjs_report_path(const char *ns, const char *name, char *buf, size_t n)
{
    int len = snprintf(buf, n, ROUTE_HEAD "%s/trainjobs/%s/status", ns, name);
    return len < 0 || (size_t)len >= n ? -ERANGE : len;
}

/* One non-empty segment of p up to the next '/', copied into out; the rest, or NULL. */
static const char *segment(const char *p, char out[TJS_REPORT_NAME_MAX])
{
    size_t len = strcspn(p, "/");
    if (len == 0 || len >= TJS_REPORT_NAME_MAX || p[len] != '/')
        return NULL;
    memcpy(out, p, len);
    out[len] = '\0';
    return p + len + 1;
}

bool tjs_report_route(const char *path, char ns[TJS_REPORT_NAME_MAX],
                      char name[TJS_REPORT_NAME_MAX])
{
    if (!path || strncmp(path, ROUTE_HEAD, strlen(ROUTE_HEAD)) != 0)
        return false;
    const char *p = segment(path + strlen(ROUTE_HEAD), ns);
    if (!p || strncmp(p, "trainjobs/", 10) != 0)
        return false;
    p = segment(p + 10, name);
    return p && strcmp(p, "status") == 0;
}

size_t tjs_report_token(const char *header, char *out, size_t n)
{
    /* strings.Fields, then exactly two fields, the first "Bearer" in any case */
    const char *f[3] = {0};
    size_t len[3] = {0}, k = 0;
    for (const char *p = header ? header : ""; *p && k < 3;) {
        while (isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        f[k] = p;
        while (*p && !isspace((unsigned char)*p))
            p++;
        len[k] = (size_t)(p - f[k]);
        k++;
    }
    if (n)
        out[0] = '\0';
    if (k != 2 || len[0] != 6 || strncasecmp(f[0], "Bearer", 6) != 0 || !n)
        return 0;
    size_t m = len[1] < n - 1 ? len[1] : n - 1;
    memcpy(out, f[1], m);
    out[m] = '\0';
    return m;
}

/* ---- decoding, as encoding/json decodes into UpdateTrainJobStatusRequest ------------------ */

struct tstatus {
    bool present;           /* TrainerStatus non-nil */
    bool has_pct, has_eta;  /* the *int32 fields non-nil */
    long long pct, eta;
    json_t *metrics;        /* [{"name","value"}] (owned); NULL: nil */
    bool has_time;          /* LastUpdatedTime non-zero */
    int64_t time_ms;
};

/* A *int32: null leaves it nil; an integer in range sets it; anything else is an error. */
static int dec_int32(const json_t *v, bool *has, long long *out)
{
    if (json_is_null(v)) {
        *has = false;
        return 0;
    }
    if (!json_is_integer(v) || json_integer_value(v) < INT32_MIN ||
        json_integer_value(v) > INT32_MAX)
        return -1;
    *has = true;
    *out = json_integer_value(v);
    return 0;
}

/* A string field of Metric: null leaves it as it is. */
static int dec_str(const json_t *v, json_t *metric, const char *key)
{
    if (json_is_null(v))
        return 0;
    if (!json_is_string(v))
        return -1;
    return json_object_set(metric, key, (json_t *)v) < 0 ? -2 : 0;
}

static int dec_metric(const json_t *v, json_t *list)
{
    json_t *m = json_pack("{s:s,s:s}", "name", "", "value", "");
    if (!m || json_array_append_new(list, m) < 0)
        return -2;
    if (json_is_null(v))
        return 0;
    if (!json_is_object(v))
        return -1;
    const char *key;
    json_t *x;
    json_object_foreach((json_t *)v, key, x) {
        int rc = !strcasecmp(key, "name") ? dec_str(x, m, "name")
                 : !strcasecmp(key, "value") ? dec_str(x, m, "value") : 0;
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* A slice: null makes it nil; an array replaces it. */
static int dec_metrics(const json_t *v, struct tstatus *t)
{
    json_decref(t->metrics);
    t->metrics = NULL;
    if (json_is_null(v))
        return 0;
    if (!json_is_array(v))
        return -1;
    if (!(t->metrics = json_array()))
        return -2;
    size_t i;
    const json_t *x;
    json_array_foreach(v, i, x) {
        int rc = dec_metric(x, t->metrics);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* metav1.Time.UnmarshalJSON: null is the zero time, else a string time.Parse(RFC3339) takes. */
static int dec_time(const json_t *v, struct tstatus *t)
{
    if (json_is_null(v)) {
        t->has_time = false;
        return 0;
    }
    if (!json_is_string(v) || kt_parse(json_string_value(v), &t->time_ms) < 0)
        return -1;
    t->has_time = true;
    return 0;
}

static int dec_status(const json_t *v, struct tstatus *t)
{
    if (json_is_null(v)) { /* a null pointer: nil again, its fields kept for none */
        json_decref(t->metrics);
        *t = (struct tstatus){0};
        return 0;
    }
    if (!json_is_object(v))
        return -1;
    t->present = true;
    const char *key;
    json_t *x;
    json_object_foreach((json_t *)v, key, x) {
        int rc = 0;
        if (!strcasecmp(key, "progressPercentage"))
            rc = dec_int32(x, &t->has_pct, &t->pct);
        else if (!strcasecmp(key, "estimatedRemainingSeconds"))
            rc = dec_int32(x, &t->has_eta, &t->eta);
        else if (!strcasecmp(key, "metrics"))
            rc = dec_metrics(x, t);
        else if (!strcasecmp(key, "lastUpdatedTime"))
            rc = dec_time(x, t);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int dec_request(const json_t *v, struct tstatus *t)
{
    if (json_is_null(v))
        return 0;
    if (!json_is_object(v))
        return -1;
    const char *key;
    json_t *x;
    json_object_foreach((json_t *)v, key, x) {
        if (!strcasecmp(key, "trainerStatus")) {
            int rc = dec_status(x, t);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

/* ---- encoding back, and the object the apply stores ------------------------------------ */

/* TrainerStatus as Go encodes it: `echo` omits empty metric fields and writes a zero time as
 * null (the response); the apply configuration keeps every metric field and the time as the
 * apply sends it (what is stored). */
static json_t *encode(const struct tstatus *t, bool echo)
{
    json_t *o = json_object();
    char when[KT_RFC3339_MAX];
    if (t->has_pct)
        json_object_set_new(o, "progressPercentage", json_integer(t->pct));
    if (t->has_eta)
        json_object_set_new(o, "estimatedRemainingSeconds", json_integer(t->eta));
    if (t->metrics && json_array_size(t->metrics)) {
        json_t *list = json_array();
        size_t i;
        const json_t *m;
        json_array_foreach(t->metrics, i, m) {
            json_t *c = json_object();
            const char *name = json_string_value(json_object_get(m, "name"));
            const char *value = json_string_value(json_object_get(m, "value"));
            if (!echo || *name)
                json_object_set_new(c, "name", json_string(name));
            if (!echo || *value)
                json_object_set_new(c, "value", json_string(value));
            json_array_append_new(list, c);
        }
        json_object_set_new(o, "metrics", list);
    }
    if (t->has_time && kt_format(t->time_ms, when) == 0)
        json_object_set_new(o, "lastUpdatedTime", json_string(when));
    else if (echo)
        json_object_set_new(o, "lastUpdatedTime", json_null());
    return o;
}

/* ---- validation, as the API server validates the CRD's status.trainerStatus ------------- */

#define TS_PATH "status.trainerStatus"

static void check_len(struct ferr_list *e, const char *path, const char *s)
{
    size_t n = strlen(s);
    if (n == 0)
        ferr_add_str(e, FERR_INVALID, path, s, "%s in body should be at least 1 chars long", path);
    else if (n > MAX_METRIC_LEN)
        ferr_add(e, FERR_TOO_LONG, path, NULL, "may not be more than %d bytes", MAX_METRIC_LEN);
}

static void check_int(struct ferr_list *e, const char *field, bool has, long long v,
                      long long max)
{
    char path[FPATH_MAX];
    fpath_field(path, TS_PATH, field);
    if (!has || (v >= 0 && v <= max))
        return;
    json_t *j = json_integer(v);
    if (v < 0)
        ferr_add(e, FERR_INVALID, path, j, "%s in body should be greater than or equal to 0",
                 path);
    else
        ferr_add(e, FERR_INVALID, path, j, "%s in body should be less than or equal to %lld",
                 path, max);
    json_decref(j);
}

/* The schema's errors, properties in order of their names as the CRD lists them, then the
 * CEL rule's. */
static void validate(const struct tstatus *t, struct ferr_list *e)
{
    check_int(e, "estimatedRemainingSeconds", t->has_eta, t->eta, INT32_MAX);
    size_t n = t->metrics ? json_array_size(t->metrics) : 0;
    char path[FPATH_MAX];
    if (n > MAX_METRICS) {
        json_t *j = json_integer((json_int_t)n);
        ferr_add(e, FERR_TOO_MANY, TS_PATH ".metrics", j, "must have at most %d items",
                 MAX_METRICS);
        json_decref(j);
    }
    for (size_t i = 0; i < n; i++) {
        const json_t *m = json_array_get(t->metrics, i);
        fpath_fmt(path, TS_PATH ".metrics[%zu].name", i);
        check_len(e, path, json_string_value(json_object_get(m, "name")));
        fpath_fmt(path, TS_PATH ".metrics[%zu].value", i);
        check_len(e, path, json_string_value(json_object_get(m, "value")));
    }
    check_int(e, "progressPercentage", t->has_pct, t->pct, 100);
    if (!t->has_time)
        ferr_add_str(e, FERR_INVALID, TS_PATH, "object",
                     "lastUpdatedTime is required when trainerStatus is present");
}

/* `TrainJob.trainer.kubeflow.org "NAME" is invalid: E` (several: [E1, E2]), as the API server
 * aggregates a field.ErrorList. */
static char *invalid_message(const struct ferr_list *e, const char *name)
{
    struct sbuf b = {0};
    sb_printf(&b, "TrainJob.trainer.kubeflow.org \"%s\" is invalid: %s", name,
              e->n > 1 ? "[" : "");
    for (size_t i = 0; i < e->n; i++) {
        char *line = ferr_format(&e->v[i]);
        sb_printf(&b, "%s%s", i ? ", " : "", line ? line : "");
        free(line);
    }
    if (e->n > 1)
        sb_puts(&b, "]");
    return sb_failed(&b) ? (sb_free(&b), NULL) : sb_detach(&b);
}

enum tjs_report_rc tjs_report_parse(const char *body, size_t len, const char *name,
                                    struct tjs_report *out)
{
    *out = (struct tjs_report){0};
    struct tstatus t = {0};
    enum tjs_report_rc rc = TJS_REPORT_PAYLOAD;
    json_t *v = json_loadb(body, len, JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK | JSON_ALLOW_NUL,
                           NULL);
    int d = v ? dec_request(v, &t) : -1;
    if (d < 0) {
        rc = d == -2 ? TJS_REPORT_NOMEM : TJS_REPORT_PAYLOAD;
        goto out;
    }
    rc = TJS_REPORT_NOMEM;
    if (!(out->echo = json_object()))
        goto out;
    if (!t.present) {
        rc = TJS_REPORT_EMPTY;
        goto out;
    }
    if (json_object_set_new(out->echo, "trainerStatus", encode(&t, true)) < 0)
        goto out;
    struct ferr_list e;
    ferr_list_init(&e);
    validate(&t, &e);
    if (e.rc < 0)
        rc = TJS_REPORT_NOMEM;
    else if (e.n)
        rc = (out->message = invalid_message(&e, name)) ? TJS_REPORT_INVALID : TJS_REPORT_NOMEM;
    else
        rc = (out->status = encode(&t, false)) ? TJS_REPORT_APPLY : TJS_REPORT_NOMEM;
    ferr_list_release(&e);
out:
    json_decref(v);
    json_decref(t.metrics);
    return rc;
}

void tjs_report_release(struct tjs_report *r)
{
    json_decref(r->echo);
    json_decref(r->status);
    free(r->message);
    *r = (struct tjs_report){0};
}

json_t *tjs_report_failure(int code, const char *reason, const char *message)
{
    return json_pack("{s:s,s:s,s:s,s:i}", "status", "Failure", "message", message, "reason",
                     reason, "code", code);
}

/* ---- the trainer pods' side ---------------------------------------------------------------- */

/* Replaces the item of `list` (an array, made when missing) named as `item` is, else appends
 * it; `item` taken.  0 or -ENOMEM. */
static int upsert(json_t *parent, const char *key, json_t *item)
{
    json_t *list = jx_ensure_arr(parent, key);
    const char *name = jx_str(item, "name");
    size_t i;
    json_t *x;
    if (!list || !item || !name) {
        json_decref(item);
        return -ENOMEM;
    }
    json_array_foreach (list, i, x)
        if (jx_str(x, "name") && !strcmp(jx_str(x, "name"), name))
            return json_array_set_new(list, i, item) < 0 ? -ENOMEM : 0;
    return json_array_append_new(list, item) < 0 ? -ENOMEM : 0;
}

static json_t *token_volume(const char *ns, const char *name)
{
    char aud[1024], cm[300];
    if (tjs_report_audience(ns, name, aud, sizeof(aud)) < 0)
        return NULL;
    snprintf(cm, sizeof(cm), "%s-tls-config", name);
    return json_pack("{s:s,s:{s:[{s:{s:s,s:i,s:s}},{s:{s:s,s:[{s:s,s:s}]}}]}}", "name",
                     TJS_REPORT_VOLUME, "projected", "sources", "serviceAccountToken",
                     "audience", aud, "expirationSeconds", TJS_REPORT_TOKEN_EXPIRY_S, "path",
                     "token", "configMap", "name", cm, "items", "key", "ca.crt", "path",
                     "ca.crt");
}

static int enforce_container(json_t *c, const char *url)
{
    int rc = upsert(c, "env", json_pack("{s:s,s:s}", "name", TJS_REPORT_ENV_URL, "value", url));
    if (rc == 0)
        rc = upsert(c, "env", json_pack("{s:s,s:s}", "name", TJS_REPORT_ENV_CA, "value",
                                        TJS_REPORT_MOUNT "/ca.crt"));
    if (rc == 0)
        rc = upsert(c, "env", json_pack("{s:s,s:s}", "name", TJS_REPORT_ENV_TOKEN, "value",
                                        TJS_REPORT_MOUNT "/token"));
    if (rc == 0)
        rc = upsert(c, "volumeMounts", json_pack("{s:s,s:s,s:b}", "name", TJS_REPORT_VOLUME,
                                                 "mountPath", TJS_REPORT_MOUNT, "readOnly", 1));
    return rc;
}

int tjs_report_enforce(json_t *jobset, const char *ns, const char *name, const char *url)
{
    char full[2048], path[1024];
    size_t i, k;
    json_t *rj, *c;
    if (tjs_report_path(ns, name, path, sizeof(path)) < 0 ||
        snprintf(full, sizeof(full), "%s%s", url, path) >= (int)sizeof(full))
        return -ENOMEM;
    json_array_foreach (jx_arr(jx_obj(jobset, "spec"), "replicatedJobs"), i, rj) {
        const char *step = jx_get_meta(jx_path(rj, "template.metadata"), "labels", TJI_ANCESTOR);
        json_t *pod = jx_path(rj, "template.spec.template.spec");
        if (!step || strcmp(step, "trainer") != 0 || !pod)
            continue;
        json_array_foreach (jx_arr(pod, "containers"), k, c)
            if (enforce_container(c, full) < 0)
                return -ENOMEM;
        if (upsert(pod, "volumes", token_volume(ns, name)) < 0)
            return -ENOMEM;
    }
    return 0;
}

json_t *tjs_report_configmap(const char *ns, const char *name, const char *uid, const char *ca)
{
    char cm[300];
    snprintf(cm, sizeof(cm), "%s-tls-config", name);
    return json_pack("{s:s,s:s,s:{s:s,s:s,s:[{s:s,s:s,s:s,s:s,s:b,s:b}]},s:{s:s}}", "apiVersion",
                     "v1", "kind", "ConfigMap", "metadata", "name", cm, "namespace", ns,
                     "ownerReferences", "apiVersion", "trainer.kubeflow.org/v1alpha1", "kind",
                     "TrainJob", "name", name, "uid", uid ? uid : "", "controller", 1,
                     "blockOwnerDeletion", 1, "data", "ca.crt", ca);
}
