/* jaxset submit FILE... [--dry-run=client|server] [--wait]: sends jobs to a cluster after the
 * validation `jaxset validate` does (nothing is sent when anything is invalid).  JobSets,
 * JAXJobs and TrainJobs are created as themselves (their controllers run them), with the
 * files' ConfigMaps, Secrets and training runtimes first; an AIchor manifest becomes the
 * JobSet it converts to.  A 422 from the server is printed as validate prints a local error,
 * "FILE: FIELD: ERROR". */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/util/cli.h"
#include "cli/backend/verbs.h"
#include "obj/tree/jx.h"
#include "obj/base/ktime.h"
#include "obj/base/sbuf.h"
#include "obj/tree/yaml.h"

/* One object to send. */
struct item {
    const struct kc_res *kind;
    json_t *obj;        /* owned */
    const char *source; /* borrowed: a file name or a manifest's source */
    bool job;
};

struct submit {
    struct cluster c;
    struct manifest_opts load;
    const char **files;
    size_t n_files;
    const char *dry_run; /* NULL, "client" or "server" */
    bool wait;
    long long timeout_ms;
    struct item *items;
    size_t n;
};

static bool is_aichor(const json_t *d)
{
    const char *kind = jx_str(d, "kind");
    if (kind)
        return !strcmp(kind, "AIchorManifest");
    return jx_str(jx_obj(d, "spec"), "operator") && jx_obj(jx_obj(d, "spec"), "types");
}

/* The JobSet an AIchor manifest converted to, without what only a server sets, nor the
 * namespace defaulting gave it (an AIchor manifest names none: -n or the context's). */
static json_t *converted(const struct manifest *m)
{
    json_t *js = json_deep_copy(m->jobset), *meta = jx_obj(js, "metadata");
    json_object_del(js, "status");
    json_object_del(meta, "namespace");
    json_object_del(meta, "uid");
    json_object_del(meta, "resourceVersion");
    json_object_del(meta, "creationTimestamp");
    return js;
}

static int add(struct submit *s, const struct kc_res *k, json_t *obj, const char *source)
{
    if (!obj)
        return -ENOMEM;
    s->items[s->n++] = (struct item){k, obj, source, k->family != JOB_KIND_OTHER};
    return 0;
}

/* The objects of one file: jobs matched in order with the loaded manifests (*next). */
static int collect_file(struct submit *s, const char *file, const struct manifest_set *set,
                        size_t *next)
{
    json_t *docs = NULL, *d;
    struct err e = {{0}};
    size_t i;
    int rc = 0;
    if (yaml_decode_file(file, &docs, &e) < 0) {
        fprintf(stderr, "%s\n", e.msg);
        return -EINVAL;
    }
    struct item *nv = realloc(s->items, (s->n + json_array_size(docs) + 1) * sizeof(*nv));
    if (!nv)
        rc = -ENOMEM;
    else
        s->items = nv;
    json_array_foreach (docs, i, d) {
        const struct kc_res *k = kc_res_of(d);
        bool aichor = is_aichor(d);
        if (rc < 0 || (!aichor && !k))
            continue;
        if ((aichor || k->family != JOB_KIND_OTHER) && *next < set->n) {
            const struct manifest *m = &set->v[(*next)++];
            rc = add(s, aichor ? kc_res_find("jobset") : k,
                     aichor ? converted(m) : json_incref(d), m->source);
        } else if (!aichor && k->family == JOB_KIND_OTHER && strcmp(k->kind, "Job") &&
                   strcmp(k->kind, "Pod") && strcmp(k->kind, "Event")) {
            rc = add(s, k, json_incref(d), file);
        }
    }
    json_decref(docs);
    return rc;
}

/* kubectl: an object's own namespace must be the one -n names. */
static int check_namespaces(const struct submit *s)
{
    for (size_t i = 0; i < s->n; i++) {
        const char *ns = jx_str(jx_obj(s->items[i].obj, "metadata"), "namespace");
        if (ns && s->c.k.namespace_ && strcmp(ns, s->c.k.namespace_) &&
            s->items[i].kind->namespaced) {
            fprintf(stderr, "%s: metadata.namespace: Invalid value: \"%s\": does not match the "
                    "namespace \"%s\" of -n; pass --namespace=%s to send it\n",
                    s->items[i].source, ns, s->c.k.namespace_, ns);
            return EXIT_INVALID;
        }
    }
    return EXIT_OK;
}

static const char *ns_of(const struct submit *s, const struct item *it)
{
    const char *ns = jx_str(jx_obj(it->obj, "metadata"), "namespace");
    return ns ? ns : s->c.ns;
}

/* A refused object: 422 causes one per line as `validate` prints them; others one line. */
static int refused(struct submit *s, const struct item *it, const struct kc_cli_resp *r)
{
    const json_t *cause;
    size_t i, n = 0;
    cluster_status_line(&s->c, r);
    if (r->code == 422) {
        json_array_foreach (jx_arr(jx_obj(r->body, "details"), "causes"), i, cause) {
            const char *f = jx_str(cause, "field"), *m = jx_str(cause, "message");
            fprintf(stderr, "%s: %s%s%s\n", it->source, f ? f : "", f ? ": " : "",
                    m ? m : "invalid");
            n++;
        }
    }
    if (n)
        return EXIT_INVALID;
    char buf[1024], q[KC_RES_QUALIFIED_MAX];
    if (r->code == 404 && !jx_str(jx_obj(r->body, "details"), "name")) {
        fprintf(stderr, "jaxset submit: %s: the cluster does not serve %s/%s (is its "
                "CustomResourceDefinition installed?)\n", it->source,
                kc_res_qualified(it->kind, q), it->kind->version);
        return EXIT_CLUSTER;
    }
    fprintf(stderr, "jaxset submit: %s: %s\n", it->source,
            kc_cli_message(s->c.kc, r, buf, sizeof(buf)));
    return cluster_exit_status(r);
}

/* POSTs one object (`dry`: with dryRun=All, saying nothing unless --dry-run=server). */
static int send_one(struct submit *s, struct item *it, bool dry)
{
    char q[KC_RES_QUALIFIED_MAX];
    const char *name = jx_str(jx_obj(it->obj, "metadata"), "name");
    const char *mark = !s->dry_run ? "" : !strcmp(s->dry_run, "server") ? " (server dry run)"
                                                                         : " (dry run)";
    int rc = EXIT_OK;
    if (s->dry_run && !strcmp(s->dry_run, "client")) {
        printf("%s/%s created%s\n", kc_res_qualified(it->kind, q), name ? name : "", mark);
        return EXIT_OK;
    }
    char *path = kc_res_path(it->kind, ns_of(s, it), NULL, NULL), *full = NULL;
    if (path && dry)
        full = sb_fmt("%s?dryRun=All", path);
    struct kc_cli_resp r;
    if (!path || (dry && !full)) {
        free(path);
        return EXIT_CLUSTER;
    }
    if (cluster_request(&s->c, "POST", full ? full : path, it->obj, &r) < 0) {
        rc = refused(s, it, &r);
    } else if (dry && !s->dry_run) {
        /* the check before the real creation: quiet */
    } else {
        const char *got = jx_str(jx_obj(r.body, "metadata"), "name");
        json_t *meta = jx_obj(it->obj, "metadata");
        if (got && meta) /* generateName: the name the server gave, for --wait */
            jx_set_str(meta, "name", got);
        printf("%s/%s created%s\n", kc_res_qualified(it->kind, q), got ? got : "", mark);
    }
    fflush(stdout);
    kc_cli_resp_free(&r);
    free(path);
    free(full);
    return rc;
}

/* The files' other objects first (what the jobs read), then the jobs; every one is tried, the
 * worst status is returned. */
static int send_pass(struct submit *s, bool dry)
{
    int worst = EXIT_OK;
    for (int jobs = 0; jobs < 2; jobs++)
        for (size_t i = 0; i < s->n; i++) {
            if (s->items[i].job != (bool)jobs)
                continue;
            int rc = send_one(s, &s->items[i], dry);
            if (rc == EXIT_CLUSTER) /* no cluster to talk to: once is enough */
                return rc;
            if (rc != EXIT_OK && (worst == EXIT_OK || rc > worst))
                worst = rc;
        }
    return worst;
}

/* Every object is first sent with dryRun=All, so that what the server refuses (a field, a
 * name taken, a missing namespace or CRD) stops everything before anything is created. */
static int send_all(struct submit *s)
{
    bool client = s->dry_run && !strcmp(s->dry_run, "client");
    int rc = send_pass(s, !client);
    return rc != EXIT_OK || s->dry_run ? rc : send_pass(s, false);
}

/* --wait: every job sent, until Completed (1 when one failed). */
static int wait_all(struct submit *s)
{
    struct backend_wait_for f;
    int worst = EXIT_OK;
    int64_t deadline = s->timeout_ms > 0 ? kt_mono_ms() + s->timeout_ms : 0;
    backend_wait_for_parse("submit", "Completed", &f);
    for (size_t i = 0; i < s->n; i++) {
        const struct item *it = &s->items[i];
        if (!it->job)
            continue;
        struct cluster c = s->c;
        c.ns = ns_of(s, it);
        const char *name = jx_str(jx_obj(it->obj, "metadata"), "name");
        int rc = backend_wait_cluster_job(&c, it->kind, name, &f, deadline, false);
        if (rc != EXIT_OK && (worst == EXIT_OK || rc > worst))
            worst = rc;
    }
    return worst;
}

/* cli_load of the files, with the cluster's runtimes their TrainJobs name (not sent). */
static int load(struct submit *s, bool client, struct manifest_set *set)
{
    char *tmp = NULL;
    int rc = client ? EXIT_OK : submit_runtimes(&s->c, s->files, s->n_files, &tmp);
    if (rc != EXIT_OK)
        return rc;
    s->files[s->n_files] = tmp; /* files has room for one more (cmd_submit) */
    rc = cli_load(s->files, s->n_files + (tmp != NULL), &s->load, set);
    s->files[s->n_files] = NULL;
    if (tmp)
        unlink(tmp);
    free(tmp);
    return rc;
}

static int submit(struct submit *s)
{
    struct manifest_set set;
    size_t next = 0;
    bool client = s->dry_run && !strcmp(s->dry_run, "client");
    int rc = load(s, client, &set);
    if (rc != EXIT_OK) {
        cluster_close(&s->c);
        return rc;
    }
    for (size_t i = 0; rc == EXIT_OK && i < s->n_files; i++)
        if (collect_file(s, s->files[i], &set, &next) < 0)
            rc = EXIT_INVALID;
    if (rc == EXIT_OK)
        rc = check_namespaces(s);
    if (rc == EXIT_OK && !client && !s->c.kc)
        rc = cluster_connect(&s->c);
    if (rc == EXIT_OK) {
        rc = send_all(s);
        if (rc == EXIT_OK && s->wait && !s->dry_run)
            rc = wait_all(s);
    }
    cluster_close(&s->c);
    manifest_set_release(&set);
    return rc;
}

static int on_arg(void *ctx, int code, const char *arg)
{
    struct submit *s = ctx;
    int rc = cluster_opt(&s->c, code, arg);
    if (rc == -1)
        rc = cli_load_opt("submit", code, arg, &s->load);
    if (rc != -1)
        return rc;
    switch (code) {
    case 'D':
        arg = arg ? cli_output_value(arg) : "client";
        if (strcmp(arg, "client") && strcmp(arg, "server") && strcmp(arg, "none"))
            return cli_usage_error("submit", "--dry-run must be client, server or none");
        s->dry_run = strcmp(arg, "none") ? arg : NULL;
        return EXIT_OK;
    case 'W': s->wait = true; return EXIT_OK;
    case 'T':
        if ((s->timeout_ms = cli_duration_ms(arg)) < 0)
            return cli_usage_error("submit", "--timeout takes a duration such as 10m");
        return EXIT_OK;
    case CLI_OPERAND: s->files[s->n_files++] = arg; return EXIT_OK;
    default: return cli_usage_error("submit", "unknown option");
    }
}

int cmd_submit(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLUSTER_LONGOPTS, CLI_VALIDATE_LONGOPT, CLI_STRICT_KINDS_LONGOPT,
        CLI_FEATURE_GATES_LONGOPT, {"dry-run", optional_argument, NULL, 'D'},
        {"wait", no_argument, NULL, 'W'}, {"timeout", required_argument, NULL, 'T'}, {0}};
    struct submit s = {.c = cluster_new("submit"),
                       .files = calloc((size_t)argc + 1, sizeof(char *))};
    int rc = s.files ? cli_parse(argc, argv, CLUSTER_SHORTOPTS, longopts, on_arg, &s)
                     : EXIT_INVALID;
    if (rc == EXIT_OK && s.n_files == 0)
        rc = cli_usage_error("submit", "no FILE given");
    if (rc == EXIT_OK)
        rc = submit(&s);
    for (size_t i = 0; i < s.n; i++)
        json_decref(s.items[i].obj);
    free(s.items);
    free(s.files);
    return rc;
}
