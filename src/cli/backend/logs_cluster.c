/* logs_cluster: `logs` on a cluster: the pods/log of a job's pods through the API server, every
 * selected pod's lines prefixed "[<pod hostname>] " as local runs print them ("[<hostname>/
 * <container>] " for pods of several containers) unless one log alone is printed.  Without
 * -f, one pod after the other in JAX process order; with -f, every pod's stream at once, line
 * by line, and a watch of the job's pods starts the streams of pods created later (a gang
 * restart's), until the job is Completed or Failed and every stream has ended. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/schema/keys.h"
#include "cli/util/cli.h"
#include "cli/backend/job_state.h"
#include "cli/backend/kpods.h"
#include "cli/backend/backend_int.h"
#include "obj/tree/jx.h"
#include "obj/base/ktime.h"
#include "obj/base/sbuf.h"

/* One container's log. */
struct stream {
    struct lc *l;
    char *uid, *pod, *container, *prefix; /* owned */
    struct kc_watch *w;                   /* while streaming */
    bool done;                            /* ended for good (pod gone or finished) */
    bool first;                           /* opened before the follow began: --tail/--since */
    int64_t retry_ms;                     /* when to try again after "waiting to start" */
    int color;                            /* prefix colour (its JAX process), -1: none */
    long long attempt;                    /* its pod's restart attempt, -1: unknown */
};

struct lc {
    const struct backend_logs *a;
    struct cluster *c;
    const struct kc_res *k;
    const char *name;
    struct kpods_ids ids;
    json_t *jobset;
    struct stream **v;  /* each allocated alone: callbacks hold them */
    size_t n, open;
    char *rv;           /* the pods' last version seen (follow) */
    bool prefix, color;
    int rc;
};

static bool selected(const struct lc *l, const json_t *pod)
{
    const json_t *meta = jx_obj(pod, "metadata");
    const char *name = jx_str(meta, "name"), *host = kpods_hostname(pod);
    if (l->a->pod && strcmp(l->a->pod, name ? name : "") && strcmp(l->a->pod, host ? host : ""))
        return false;
    if (l->a->rj) {
        const char *rj = jx_get_meta(meta, "labels", LBL_RJ_NAME);
        const char *rt = jx_get_meta(meta, "labels", "training.kubeflow.org/replica-type");
        if ((!rj || strcmp(rj, l->a->rj)) && (!rt || strcasecmp(rt, l->a->rj)))
            return false;
    }
    if (l->a->attempt >= 0 && kpods_attempt(pod) != l->a->attempt)
        return false;
    return l->a->process_id < 0 || kpods_process_id(&l->ids, pod) == l->a->process_id;
}

static struct stream *find(struct lc *l, const char *uid, const char *container)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->v[i]->uid, uid) && !strcmp(l->v[i]->container, container))
            return l->v[i];
    return NULL;
}

/* The streams of a pod's containers (those -c names), added once. */
static int add_pod(struct lc *l, const json_t *pod, bool first)
{
    const json_t *cs = jx_arr(jx_obj(pod, "spec"), "containers"), *c;
    const char *uid = jx_str(jx_obj(pod, "metadata"), "uid");
    size_t i, n = json_array_size(cs);
    json_array_foreach (cs, i, c) {
        const char *cn = jx_str(c, "name");
        if (!uid || !cn || (l->a->container && strcmp(cn, l->a->container)) || find(l, uid, cn))
            continue;
        struct stream **nv = realloc(l->v, (l->n + 1) * sizeof(*nv)), *s;
        if (!nv)
            return -ENOMEM;
        l->v = nv;
        if (!(s = calloc(1, sizeof(*s))))
            return -ENOMEM;
        l->v[l->n++] = s;
        long long id = kpods_process_id(&l->ids, pod);
        *s = (struct stream){.l = l, .first = first, .attempt = kpods_attempt(pod),
                             .color = !l->color ? -1 : id >= 0 ? (int)(id % 8) : (int)(l->n % 8)};
        s->uid = strdup(uid);
        s->pod = strdup(jx_str(jx_obj(pod, "metadata"), "name"));
        s->container = strdup(cn);
        s->prefix = n > 1 && !l->a->container ? sb_fmt("[%s/%s] ", kpods_hostname(pod), cn)
                                              : sb_fmt("[%s] ", kpods_hostname(pod));
        if (!s->uid || !s->pod || !s->container || !s->prefix)
            return -ENOMEM;
    }
    return 0;
}

/* The colours of local runs' prefixes (local/run/runner_pod.c), by JAX process. */
static const char *const colors[] = {"\033[36m", "\033[32m", "\033[33m", "\033[35m",
                                     "\033[34m", "\033[91m", "\033[92m", "\033[96m"};

static void on_line(void *arg, const char *line, size_t len)
{
    struct stream *s = arg;
    if (s->l->prefix && s->color >= 0)
        printf("%s%.*s\033[0m ", colors[s->color % 8], (int)strlen(s->prefix) - 1, s->prefix);
    else if (s->l->prefix)
        fputs(s->prefix, stdout);
    fwrite(line, 1, len, stdout);
    putchar('\n');
    fflush(stdout);
}

static void on_end(void *arg, int rc, long code, const char *msg)
{
    struct stream *s = arg;
    s->w = NULL;
    s->l->open--;
    if (rc < 0 && code == 400 && strstr(msg, "waiting to start")) {
        s->retry_ms = kt_mono_ms() + 500; /* the kubelet has not started it yet */
        return;
    }
    s->done = true;
    if (rc < 0 && code != 404) /* a pod deleted under a stream just ends it */
        fprintf(stderr, "jaxset logs: %s: %s\n", s->pod, msg);
}

static char *log_path(const struct lc *l, const struct stream *s)
{
    const struct backend_logs *a = l->a;
    struct sbuf b = SBUF_INIT;
    char *c = kc_escape(s->container);
    sb_printf(&b, "/api/v1/namespaces/%s/pods/%s/log?container=%s", l->c->ns, s->pod,
              c ? c : "");
    if (a->follow)
        sb_puts(&b, "&follow=true");
    if (a->previous)
        sb_puts(&b, "&previous=true");
    if (s->first && a->tail >= 0)
        sb_printf(&b, "&tailLines=%lld", a->tail);
    if (s->first && a->since_s >= 0)
        sb_printf(&b, "&sinceSeconds=%lld", a->since_s > 0 ? a->since_s : 1);
    free(c);
    return c ? sb_detach(&b) : (sb_free(&b), NULL);
}

static int open_stream(struct lc *l, struct stream *s)
{
    char *path = log_path(l, s);
    s->retry_ms = 0;
    s->w = path ? kc_stream(l->c->kc, path, on_line, on_end, s) : NULL;
    free(path);
    if (!s->w)
        return -ENOMEM;
    l->open++;
    return 0;
}

/* Whether the streams' pods belong to more than one restart attempt. */
static bool several_attempts(const struct lc *l)
{
    for (size_t i = 1; i < l->n; i++)
        if (l->v[i]->attempt != l->v[0]->attempt)
            return true;
    return false;
}

/* Without -f: each log in turn, to its end; under "--- restart attempt N ---" lines, as a
 * local run's logs, when the pods of several attempts are still there. */
static void one_by_one(struct lc *l)
{
    bool headers = several_attempts(l);
    for (size_t i = 0; i < l->n && l->rc == EXIT_OK; i++) {
        struct stream *s = l->v[i];
        if (headers && (i == 0 || s->attempt != l->v[i - 1]->attempt))
            printf("--- restart attempt %lld ---\n", s->attempt);
        if (open_stream(l, s) < 0) {
            l->rc = EXIT_CLUSTER;
            break;
        }
        while (s->w)
            kc_run(l->c->kc, 1000, NULL, 0, NULL);
        if (s->retry_ms)
            fprintf(stderr, "jaxset logs: %s: container \"%s\" is waiting to start\n", s->pod,
                    s->container);
    }
}

/* Opens the streams not yet open that may be: new ones, and those whose container was
 * waiting. */
static void open_due(struct lc *l)
{
    int64_t now = kt_mono_ms();
    for (size_t i = 0; i < l->n; i++) {
        struct stream *s = l->v[i];
        if (s->done || s->w)
            continue;
        if (s->retry_ms <= now && open_stream(l, s) < 0)
            l->rc = EXIT_CLUSTER;
    }
}

static int on_pod(void *arg, const char *type, json_t *pod)
{
    struct lc *l = arg;
    const char *rv = jx_str(jx_obj(pod, "metadata"), "resourceVersion");
    char *copy = rv ? strdup(rv) : NULL;
    if (copy) {
        free(l->rv);
        l->rv = copy;
    }
    if (strcmp(type, "DELETED") && selected(l, pod) && add_pod(l, pod, false) < 0)
        l->rc = EXIT_CLUSTER;
    return 0;
}

/* Whether the job has ended (or is gone): nothing more will be logged. */
static bool job_over(struct lc *l)
{
    struct kc_cli_resp r;
    struct job_state v;
    char *path = kc_res_path(l->k, l->c->ns, l->name, NULL);
    bool over = true;
    if (path && cluster_request(l->c, "GET", path, NULL, &r) == 0) {
        over = job_state_read(l->k->family, r.body, &v) == 0 &&
               job_state_terminal(&v);
        job_state_release(&v);
    } else if (path && r.rc != -ENOENT) {
        over = false; /* a passing error: look again */
    }
    if (path)
        kc_cli_resp_free(&r);
    free(path);
    return over;
}

/* --pod P naming a pod (not a hostname) whose every stream ended: as `kubectl logs -f pod/P`,
 * nothing more will come (a restart makes a pod of another name). */
static bool named_pod_over(const struct lc *l)
{
    bool named = false;
    for (size_t i = 0; l->a->pod && i < l->n; i++) {
        if (!l->v[i]->done)
            return false;
        named |= !strcmp(l->v[i]->pod, l->a->pod);
    }
    return named;
}

/* -f: every stream at once, new pods' too, until the job is over and every stream ended (or
 * the one pod --pod names ended). */
static void follow(struct lc *l)
{
    char *list = kc_res_path(kc_res_find("pods"), l->c->ns, NULL, NULL);
    char *sel = kpods_selector(l->k, l->name);
    struct err e = {{0}};
    if (!list || !sel)
        l->rc = EXIT_CLUSTER;
    while (l->rc == EXIT_OK) {
        open_due(l);
        if (l->open == 0 && (named_pod_over(l) || job_over(l)))
            break;
        int rc = kc_cli_watch(l->c->kc, list, sel, l->rv, kt_mono_ms() + 1000, on_pod, l, &e);
        if (rc == -JX_EGONE) {
            free(l->rv);
            l->rv = NULL;
        } else if (rc < 0) {
            fprintf(stderr, "jaxset logs: %s\n", e.msg);
            l->rc = EXIT_CLUSTER;
        }
    }
    free(list);
    free(sel);
}

static int start(struct lc *l)
{
    json_t *obj = NULL, *pods = NULL, *p;
    size_t i, n = 0;
    int rc = cluster_get(l->c, l->k, l->name, &obj);
    if (rc == EXIT_OK)
        rc = kpods_list(l->c, "pods", l->k, l->name, &pods);
    if (rc != EXIT_OK) {
        json_decref(obj);
        return rc;
    }
    if (l->k->family == JOB_KIND_JOBSET)
        l->jobset = json_incref(obj);
    else if (l->k->family == JOB_KIND_TRAINJOB)
        cluster_get(l->c, kc_res_find("jobset"), l->name, &l->jobset);
    kpods_ids_init(&l->ids, l->jobset);
    kpods_sort(pods, &l->ids);
    l->color = cli_color(1, false);
    json_array_foreach (pods, i, p)
        if (selected(l, p)) {
            n++;
            if (add_pod(l, p, true) < 0)
                rc = EXIT_CLUSTER;
        }
    /* several logs, or a follow that a restart may bring more pods to */
    l->prefix = l->a->prefix || l->n > 1 ||
                (l->a->follow && l->a->process_id < 0 && !l->a->pod && l->ids.have_rt &&
                 l->ids.rt.num_processes > 1);
    json_decref(obj);
    json_decref(pods);
    if (rc == EXIT_OK && n == 0 && !l->a->follow) {
        fprintf(stderr, "jaxset logs: no pod of %s matches\n", l->name);
        rc = EXIT_INVALID;
    }
    return rc;
}

int logs_cluster(struct backend *b, const struct backend_logs *a)
{
    struct lc l = {.a = a, .c = b->c, .k = a->k, .name = a->name};
    int rc;
    rc = start(&l);
    if (rc == EXIT_OK) {
        if (a->follow)
            follow(&l);
        else
            one_by_one(&l);
        rc = l.rc;
    }
    for (size_t i = 0; i < l.n; i++) {
        if (l.v[i]->w)
            kc_watch_cancel(l.v[i]->w);
        free(l.v[i]->uid);
        free(l.v[i]->pod);
        free(l.v[i]->container);
        free(l.v[i]->prefix);
        free(l.v[i]);
    }
    free(l.v);
    free(l.rv);
    kpods_ids_release(&l.ids);
    json_decref(l.jobset);
    return rc;
}
