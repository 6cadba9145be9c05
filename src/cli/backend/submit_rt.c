/* submit_rt: the training runtimes the files' TrainJobs name but no file holds, read from the
 * cluster, as the TrainJob controller will read them (kubeflow/trainer
 * pkg/controller/trainjob_controller.go, Reconcile: the runtime of spec.runtimeRef), so that
 * `submit` validates a TrainJob with its runtime without sending that runtime again. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/util/cli.h"
#include "cli/backend/verbs.h"
#include "obj/tree/jx.h"
#include "obj/tree/yaml.h"

static bool is_runtime(const json_t *d, const char *kind, const char *name)
{
    const char *k = jx_str(d, "kind"), *n = jx_str(jx_obj(d, "metadata"), "name");
    return k && n && !strcmp(k, kind) && !strcmp(n, name);
}

/* Whether a document of `docs` is the runtime kind/name. */
static bool given(const json_t *docs, const char *kind, const char *name)
{
    const json_t *d;
    size_t i;
    json_array_foreach (docs, i, d)
        if (is_runtime(d, kind, name))
            return true;
    return false;
}

/* Every document of the files, in one array (files that do not decode are left to cli_load,
 * which reports them). */
static json_t *all_docs(const char *const *files, size_t n)
{
    json_t *all = json_array();
    for (size_t f = 0; all && f < n; f++) {
        json_t *docs = NULL;
        struct err e = {{0}};
        if (yaml_decode_file(files[f], &docs, &e) == 0)
            json_array_extend(all, docs);
        json_decref(docs);
    }
    return all;
}

/* The runtime a TrainJob names, read from the cluster, added to `out` (once); a runtime the
 * cluster does not have is left for validation to report. */
static int fetch(struct cluster *c, const json_t *tj, json_t *docs, json_t *out)
{
    const json_t *ref = jx_obj(jx_obj(tj, "spec"), "runtimeRef");
    const char *name = jx_str(ref, "name"), *kind = jx_str(ref, "kind");
    const struct kc_res *r;
    json_t *rt = NULL;
    kind = kind ? kind : "ClusterTrainingRuntime"; /* upstream's default */
    if (!name || given(docs, kind, name) || given(out, kind, name) || !(r = kc_res_find(kind)))
        return EXIT_OK;
    if (!c->kc && cluster_connect(c) != EXIT_OK)
        return EXIT_CLUSTER;
    int rc = cluster_get(c, r, name, &rt);
    if (rc == EXIT_INVALID) /* not there: the TrainJob's validation says so */
        return EXIT_OK;
    if (rc == EXIT_OK) {
        json_object_del(rt, "status");
        json_object_set_new(rt, "apiVersion", json_string("trainer.kubeflow.org/v1alpha1"));
        json_object_set_new(rt, "kind", json_string(kind));
        json_array_append(out, rt);
    }
    json_decref(rt);
    return rc;
}

/* The runtimes as one file of JSON documents in $TMPDIR; its path (malloc'd) or NULL. */
static char *write_docs(const json_t *rts)
{
    const char *dir = getenv("TMPDIR");
    char *path = NULL;
    if (asprintf(&path, "%s/jaxset-runtimes-XXXXXX", dir && *dir ? dir : "/tmp") < 0)
        return NULL;
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    const json_t *d;
    size_t i;
    bool ok = f != NULL;
    json_array_foreach (rts, i, d)
        ok = ok && fputs("---\n", f) >= 0 && json_dumpf(d, f, JSON_COMPACT) == 0 &&
             fputc('\n', f) != EOF;
    if (f && fclose(f) != 0)
        ok = false;
    else if (!f && fd >= 0)
        close(fd);
    if (!ok) {
        if (fd >= 0)
            unlink(path);
        free(path);
        return NULL;
    }
    return path;
}

int submit_runtimes(struct cluster *c, const char *const *files, size_t n, char **tmp)
{
    json_t *docs = all_docs(files, n), *rts = json_array();
    const json_t *d;
    size_t i;
    int rc = docs && rts ? EXIT_OK : EXIT_CLUSTER;
    *tmp = NULL;
    json_array_foreach (docs, i, d) {
        const char *kind = jx_str(d, "kind");
        if (rc == EXIT_OK && kind && !strcmp(kind, "TrainJob"))
            rc = fetch(c, d, docs, rts);
    }
    if (rc == EXIT_OK && json_array_size(rts) && !(*tmp = write_docs(rts))) {
        fprintf(stderr, "jaxset submit: cannot write the cluster's runtimes to a temporary "
                        "file\n");
        rc = EXIT_CLUSTER;
    }
    json_decref(docs);
    json_decref(rts);
    return rc;
}
