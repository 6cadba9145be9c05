/* manifest: files -> defaulted, validated JobSets (see manifest.h). */
#include "api/convert/manifest.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/schema/bounds.h"
#include "api/convert/convert.h"
#include "api/schema/keys.h"
#include "api/jobset/local_ann.h"
#include "api/jobset/policy_warn.h"
#include "api/schema/schema.h"
#include "api/admit/trainjob_admission.h"
#include "obj/base/sha1.h"
#include "obj/tree/jx.h"
#include "obj/tree/yaml.h"

/* DOC_OTHER: a well-formed object of a kind jaxset does not run (a ConfigMap, a Service, a
 * scheduler's Workload...): skipped with a line, or refused under strict_kinds. */
enum doc_kind {
    DOC_UNKNOWN,
    DOC_JOBSET,
    DOC_JAXJOB,
    DOC_TRAINJOB,
    DOC_RUNTIME,
    DOC_AICHOR,
    DOC_OTHER
};

static const struct {
    const char *api_version; /* NULL: any */
    const char *kind;
    enum doc_kind doc;
} kinds[] = {
    {JOBSET_GROUP_VERSION, JOBSET_KIND, DOC_JOBSET},
    {"kubeflow.org/v1", "JAXJob", DOC_JAXJOB},
    {"trainer.kubeflow.org/v1alpha1", "TrainJob", DOC_TRAINJOB},
    {"trainer.kubeflow.org/v1alpha1", "TrainingRuntime", DOC_RUNTIME},
    {"trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime", DOC_RUNTIME},
    {NULL, "AIchorManifest", DOC_AICHOR},
};
#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))
#define SUPPORTED_KINDS                                                                        \
    "\"JobSet\", \"JAXJob\", \"TrainJob\", \"TrainingRuntime\", \"ClusterTrainingRuntime\", "   \
    "\"AIchorManifest\""

struct doc {
    const char *file;
    size_t index;   /* 0-based position in its file */
    size_t n_runnable; /* runnable documents in its file */
    json_t *obj;    /* borrowed from the file's array */
    enum doc_kind kind;
    const char *kind_name;
};

/* Classifies one document; on a kind/apiVersion problem appends a field error. AIchor
 * manifests may omit kind (AIchor defaults it), so a document with spec.operator and
 * spec.types and no kind is taken as one. */
static enum doc_kind classify(const json_t *d, const char **kind_name, struct ferr_list *errs)
{
    const char *kind = jx_str(d, "kind"), *av = jx_str(d, "apiVersion");
    if (!json_is_object(d)) {
        ferr_add(errs, FERR_INVALID, "", d, "a document must be a mapping");
        return DOC_UNKNOWN;
    }
    if (!kind && jx_str(jx_obj(d, "spec"), "operator") && jx_obj(jx_obj(d, "spec"), "types"))
        kind = "AIchorManifest";
    *kind_name = "unknown";
    if (!kind) {
        ferr_add(errs, FERR_REQUIRED, "kind", NULL, "supported values: " SUPPORTED_KINDS);
        return DOC_UNKNOWN;
    }
    for (size_t i = 0; i < N_KINDS; i++) {
        if (strcmp(kinds[i].kind, kind) != 0)
            continue;
        if (!kinds[i].api_version || (av && strcmp(av, kinds[i].api_version) == 0)) {
            *kind_name = kinds[i].kind;
            return kinds[i].doc;
        }
        if (!av)
            ferr_add(errs, FERR_REQUIRED, "apiVersion", NULL, "must be \"%s\" for kind %s",
                     kinds[i].api_version, kind);
        else
            ferr_add(errs, FERR_NOT_SUPPORTED, "apiVersion", json_object_get(d, "apiVersion"),
                     "\"%s\"", kinds[i].api_version);
        return DOC_UNKNOWN;
    }
    if (av && *av && *kind) /* another kind of object, as files beside jobs often hold */
        return DOC_OTHER;
    ferr_add(errs, FERR_NOT_SUPPORTED, "kind", json_object_get(d, "kind"), SUPPORTED_KINDS);
    return DOC_UNKNOWN;
}

/* True when runtime document `d` is the one a TrainJob in namespace `ns` names. */
static bool runtime_matches(const struct doc *d, const char *kind, const char *name,
                            const char *ns)
{
    const json_t *meta = jx_obj(d->obj, "metadata");
    const char *rname = jx_str(meta, "name"), *rns = jx_str(meta, "namespace");
    if (d->kind != DOC_RUNTIME || strcmp(d->kind_name, kind) != 0)
        return false;
    if (!rname || strcmp(rname, name) != 0)
        return false;
    /* a namespaced TrainingRuntime must live in the TrainJob's namespace */
    return strcmp(kind, "TrainingRuntime") != 0 ||
           strcmp(rns ? rns : "default", ns ? ns : "default") == 0;
}

/* Finds the training runtime a TrainJob names (kind default ClusterTrainingRuntime). */
static const struct doc *find_runtime(const struct doc *docs, size_t n, const json_t *tj)
{
    const json_t *ref = jx_path(tj, "spec.runtimeRef");
    const char *name = jx_str(ref, "name"), *kind = jx_str(ref, "kind");
    const char *ns = jx_str(jx_obj(tj, "metadata"), "namespace");
    for (size_t i = 0; name && i < n; i++)
        if (runtime_matches(&docs[i], kind ? kind : "ClusterTrainingRuntime", name, ns))
            return &docs[i];
    return NULL;
}

/* The file's base name without directories or extension: the AIchor fallback job name. */
static void base_name(const char *file, char *out, size_t n)
{
    char tmp[FPATH_MAX];
    snprintf(tmp, sizeof(tmp), "%s", file);
    snprintf(out, n, "%s", basename(tmp));
    char *dot = strchr(out, '.');
    if (dot)
        *dot = 0;
}

static json_t *convert(const struct doc *d, const struct doc *docs, size_t n, bool cluster,
                       struct ferr_list *errs)
{
    char fallback[FPATH_MAX];
    switch (d->kind) {
    case DOC_JOBSET:
        return json_deep_copy(d->obj);
    case DOC_JAXJOB:
        return conv_jaxjob_ex(d->obj, cluster, errs);
    case DOC_TRAINJOB: {
        const struct doc *rt = find_runtime(docs, n, d->obj);
        return conv_trainjob(d->obj, rt ? rt->obj : NULL, errs);
    }
    case DOC_AICHOR:
        base_name(d->file, fallback, sizeof(fallback));
        return conv_aichor(d->obj, fallback, errs);
    default:
        return NULL;
    }
}

/* An API server turns generateName into a name with 5 random characters; here they come
 * from a hash of the prefix so the same manifest always yields the same objects. */
static int assign_name(json_t *meta)
{
    const char *gen = jx_str(meta, "generateName");
    static const char alnum[] = "bcdfghjklmnpqrstvwxz2456789";
    uint8_t h[SHA1_LEN];
    struct sha1 sh;
    char name[FPATH_MAX];
    if (jx_str(meta, "name") && *jx_str(meta, "name"))
        return 0;
    if (!gen)
        return 0;
    sha1_init(&sh);
    sha1_update(&sh, gen, strlen(gen));
    sha1_final(&sh, h);
    int n = snprintf(name, sizeof(name), "%s", gen);
    for (int i = 0; i < 5 && n + i < (int)sizeof(name) - 1; i++)
        name[n + i] = alnum[h[i] % (sizeof(alnum) - 1)];
    name[n + 5 < (int)sizeof(name) ? n + 5 : (int)sizeof(name) - 1] = 0;
    return jx_set_str(meta, "name", name);
}

/* A JobSet read from a file has no uid yet (an API server assigns one).  Children carry the
 * uid in labels and owner references, so give it a stable one derived from namespace/name:
 * the same manifest always renders the same objects. */
static int assign_uid(json_t *js)
{
    json_t *meta = jx_ensure_obj(js, "metadata");
    if (!meta || assign_name(meta) < 0)
        return -ENOMEM;
    if (jx_str(meta, "uid"))
        return 0;
    char in[FPATH_MAX], uid[40];
    uint8_t h[SHA1_LEN];
    struct sha1 sh;
    const char *ns = jx_str(meta, "namespace"), *name = jx_str(meta, "name");
    int n = snprintf(in, sizeof(in), "jaxset:%s/%s", ns ? ns : "default", name ? name : "");
    sha1_init(&sh);
    sha1_update(&sh, in, (size_t)n < sizeof(in) ? (size_t)n : sizeof(in) - 1);
    sha1_final(&sh, h);
    h[6] = (unsigned char)((h[6] & 0x0f) | 0x50); /* RFC 4122 version 5 */
    h[8] = (unsigned char)((h[8] & 0x3f) | 0x80);
    snprintf(uid, sizeof(uid),
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", h[0], h[1],
             h[2], h[3], h[4], h[5], h[6], h[7], h[8], h[9], h[10], h[11], h[12], h[13], h[14],
             h[15]);
    return jx_set_str(meta, "uid", uid);
}

static int check(struct manifest *m)
{
    int rc = js_default(m->jobset);
    if (rc < 0)
        return rc;
    rc = m->cluster ? js_validate_cluster(m->jobset, &m->gates, &m->errs, &m->warnings)
                    : js_validate_gated(m->jobset, &m->gates, &m->errs);
    if (rc != 0)
        return rc < 0 ? rc : 0;
    rc = assign_uid(m->jobset);
    if (rc < 0)
        return rc;
    rc = js_view_init(&m->view, m->jobset);
    if (rc < 0)
        return rc;
    m->have_view = true;
    rc = jaxrt_init(&m->rt, m->jobset, &m->view, &m->errs);
    if (rc >= 0)
        rc = local_ann_restart_grace(m->jobset, &m->restart_grace_s, &m->errs);
    if (rc >= 0)
        rc = policy_pattern_warnings(m->jobset, &m->warnings);
    return rc < 0 ? rc : 0;
}

/* The schema of a document; NULL for an AIchor manifest of another operator than jax (its
 * conversion refuses it, and its fields are that operator's). */
static const struct sch_type *doc_schema(const struct doc *d)
{
    const char *op = jx_str(jx_obj(d->obj, "spec"), "operator");
    switch (d->kind) {
    case DOC_JOBSET:
        return &sch_jobset;
    case DOC_JAXJOB:
        return &sch_jaxjob;
    case DOC_TRAINJOB:
        return &sch_trainjob;
    case DOC_RUNTIME:
        return strcmp(d->kind_name, "TrainingRuntime") == 0 ? &sch_training_runtime
                                                            : &sch_cluster_training_runtime;
    case DOC_AICHOR:
        return !op || strcmp(op, "jax") == 0 ? &sch_aichor : NULL;
    default:
        return NULL;
    }
}

/* Unknown fields of one document: errors (strict), or dropped from the document as an API
 * server drops them, with a warning (warn) or silently (ignore). */
static int check_doc(const struct doc *d, const char *where, enum manifest_validate mode,
                     struct manifest *m)
{
    const struct sch_type *t = doc_schema(d);
    if (!t)
        return 0;
    if (mode == MANIFEST_VALIDATE_STRICT)
        return sch_check(d->obj, t, where, &m->errs);
    return sch_prune(d->obj, t, where, mode == MANIFEST_VALIDATE_WARN ? &m->warnings : NULL);
}

/* Unknown fields of the document as the user wrote it and, for a TrainJob, of its runtime
 * (said to be in that runtime; a runtime two TrainJobs share is warned about once). */
static int check_fields(struct manifest *m, const struct doc *d, const struct doc *docs,
                        size_t n, enum manifest_validate mode)
{
    const struct doc *rt = d->kind == DOC_TRAINJOB ? find_runtime(docs, n, d->obj) : NULL;
    const char *name = jx_str(jx_obj(rt ? rt->obj : NULL, "metadata"), "name");
    char *where = NULL;
    int rc = check_doc(d, NULL, mode, m);
    if (rc < 0 || !rt)
        return rc;
    if (asprintf(&where, "in %s \"%s\"", rt->kind_name, name ? name : "") < 0)
        return -ENOMEM;
    rc = check_doc(rt, where, mode, m);
    free(where);
    return rc;
}

/* Errors found in a converted JobSet (from index `from` on) name the user's fields instead
 * (convert.h, conv_user_path), those of a TrainJob's runtime saying so. */
static int relocate_errs(struct manifest *m, size_t from, const struct doc *d,
                         const struct doc *docs, size_t n)
{
    const struct doc *rt = d->kind == DOC_TRAINJOB ? find_runtime(docs, n, d->obj) : NULL;
    const char *name = jx_str(jx_obj(rt ? rt->obj : NULL, "metadata"), "name");
    char *where = NULL;
    int rc = 0;
    if (rt && asprintf(&where, "in %s \"%s\"", rt->kind_name, name ? name : "") < 0)
        return -ENOMEM;
    for (size_t i = from; rc == 0 && i < m->errs.n; i++) {
        bool in_rt = false;
        char *path = conv_user_path(m->kind, d->obj, rt ? rt->obj : NULL, m->errs.v[i].path,
                                    &in_rt);
        if (path)
            rc = ferr_move_to(&m->errs.v[i], path, in_rt ? where : NULL);
    }
    free(where);
    return rc < 0 ? rc : ferr_list_drop_repeats(&m->errs, from);
}

/* The directory of `file` as an absolute path (the current one for "-"), malloc'd. */
static char *file_dir(const char *file)
{
    char *copy = strdup(file), *abs = NULL;
    const char *dir = !copy || !strcmp(file, "-") ? "." : dirname(copy);
    if (copy)
        abs = realpath(dir, NULL);
    if (!abs && copy)
        abs = strdup(dir);
    free(copy);
    return abs;
}

/* Under --cluster: what the cluster's controller would fail becomes warnings saying so; the
 * manifest stays valid without a JobSet. */
static int admitted_only(struct manifest *m)
{
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < m->errs.n; i++) {
        char *path = strdup(m->errs.v[i].path);
        rc = path ? ferr_move_to(&m->errs.v[i], path, "admitted; the TrainJob will fail in "
                                                      "jaxset's TrainJob controller")
                  : -ENOMEM;
    }
    if (rc == 0)
        rc = ferr_list_move(&m->warnings, &m->errs);
    if (m->have_view) {
        jaxrt_release(&m->rt);
        js_view_release(&m->view);
        m->have_view = false;
    }
    json_decref(m->jobset);
    m->jobset = NULL;
    m->admitted_only = true;
    return rc;
}

/* A TrainJob's admission (api/admit/trainjob_admission.h), then its JobSet. */
static int make_trainjob(struct manifest *m, const struct doc *d, const struct doc *docs,
                         size_t n)
{
    const struct doc *rt = find_runtime(docs, n, d->obj);
    int rc = tja_admit_create(d->obj, rt ? rt->obj : NULL, m->cluster, &m->errs, &m->warnings);
    if (rc < 0 || (m->cluster && m->errs.n > 0))
        return rc;
    size_t from = m->errs.n;
    m->jobset = convert(d, docs, n, m->cluster, &m->errs);
    if (!m->jobset && m->errs.n == from)
        return -ENOMEM;
    if (m->jobset && (rc = check(m)) == 0)
        rc = relocate_errs(m, from, d, docs, n);
    if (rc == 0 && m->cluster && m->errs.n > 0)
        rc = admitted_only(m);
    return rc;
}

/* A runtime created on its own (cluster mode only: runtime_alone): its CRD's and webhook's
 * rules, the deprecation warning; the webhook's not for a runtime labelled
 * trainer.kubeflow.org/webhook-validation: disabled, which the API server does not send it. */
static int make_runtime(struct manifest *m, const struct doc *d)
{
    bool hook = !tja_webhook_validation_disabled(d->obj);
    int rc = tja_runtime_crd_rules(d->obj, &m->errs);
    if (rc == 0 && hook)
        rc = tja_runtime_webhook_rules(d->obj, &m->errs);
    bool oom = false;
    char *w = rc == 0 && hook ? tja_deprecation_warning(d->obj, false, &oom) : NULL;
    if (w && ferr_add_str(&m->warnings, FERR_INVALID, "metadata.labels", "deprecated", "%s",
                          w) < 0)
        oom = true;
    free(w);
    m->admitted_only = true;
    return rc < 0 || oom ? -ENOMEM : 0;
}

static int make_manifest(struct manifest *m, const struct doc *d, const struct doc *docs,
                         size_t n, enum manifest_validate mode)
{
    int rc;
    ferr_list_init(&m->errs);
    ferr_list_init(&m->warnings);
    m->restart_grace_s = -1;
    if (d->n_runnable > 1)
        rc = asprintf(&m->source, "%s#%zu", d->file, d->index + 1);
    else
        rc = asprintf(&m->source, "%s", d->file);
    if (rc < 0) {
        m->source = NULL;
        return -ENOMEM;
    }
    if (!(m->dir = file_dir(d->file)))
        return -ENOMEM;
    m->doc = json_incref(d->obj);
    struct ferr_list kerrs;
    ferr_list_init(&kerrs);
    enum doc_kind k = classify(d->obj, &m->kind, &kerrs);
    if (k == DOC_OTHER) /* only with strict_kinds */
        ferr_add(&kerrs, FERR_NOT_SUPPORTED, "kind", json_object_get(d->obj, "kind"),
                 SUPPORTED_KINDS);
    if (k == DOC_UNKNOWN || k == DOC_OTHER)
        return ferr_list_move(&m->errs, &kerrs);
    if ((rc = bounds_check(d->obj, &m->errs)) != 0) /* what no API server would take */
        return rc < 0 ? rc : 0;
    if ((rc = check_fields(m, d, docs, n, mode)) < 0)
        return rc;
    if (k == DOC_TRAINJOB)
        return m->errs.n && m->cluster ? 0 : make_trainjob(m, d, docs, n);
    if (k == DOC_RUNTIME)
        return make_runtime(m, d);
    m->jobset = convert(d, docs, n, m->cluster, &m->errs);
    if (!m->jobset)
        return m->errs.n ? 0 : -ENOMEM;
    size_t from = m->errs.n;
    rc = check(m);
    if (rc == 0 && k != DOC_JOBSET)
        rc = relocate_errs(m, from, d, docs, n);
    return rc;
}

static bool runnable(enum doc_kind k)
{
    return k != DOC_RUNTIME && k != DOC_OTHER;
}

/* A v1 ConfigMap or Secret: kept for the env references that name it. */
static bool config_object(const struct doc *d)
{
    const char *av = jx_str(d->obj, "apiVersion"), *k = jx_str(d->obj, "kind");
    return d->kind == DOC_OTHER && av && !strcmp(av, "v1") && k &&
           (!strcmp(k, "ConfigMap") || !strcmp(k, "Secret"));
}

/* "file: skipped v1 Service web" into the set's list of skipped documents. */
static int note_skipped(struct manifest_set *s, const struct doc *d)
{
    const json_t *meta = jx_obj(d->obj, "metadata");
    const char *name = jx_str(meta, "name") ? jx_str(meta, "name") : jx_str(meta, "generateName");
    char *line = NULL;
    if (asprintf(&line, "%s: skipped %s %s%s%s (not a job jaxset runs)", d->file,
                 jx_str(d->obj, "apiVersion"), jx_str(d->obj, "kind"), name ? " " : "",
                 name ? name : "") < 0)
        return -ENOMEM;
    char **nv = realloc(s->skipped, (s->n_skipped + 1) * sizeof(*nv));
    if (!nv) {
        free(line);
        return -ENOMEM;
    }
    s->skipped = nv;
    s->skipped[s->n_skipped++] = line;
    return 0;
}

static bool runnable(enum doc_kind k);

/* Under --cluster, a runtime in files that hold no TrainJob is checked as its creation is
 * (a TrainJob's runtime may have been updated into a state its creation would refuse, which
 * the runtime webhook admits: it is checked with the TrainJob, tja_admit_create). */
static bool runtime_alone(const struct manifest_opts *o, const struct doc *d,
                          const struct doc *docs, size_t n)
{
    if (!o || !o->cluster || d->kind != DOC_RUNTIME)
        return false;
    for (size_t i = 0; i < n; i++)
        if (docs[i].kind == DOC_TRAINJOB)
            return false;
    return true;
}

/* Records in each of the last `n_file` documents how many of them can run. */
static void count_runnable(struct doc *docs, size_t n, size_t n_file)
{
    size_t k = 0;
    for (size_t i = n - n_file; i < n; i++)
        k += runnable(docs[i].kind);
    for (size_t i = n - n_file; i < n; i++)
        docs[i].n_runnable = k;
}

/* Appends document i of a file's array, classified. */
static int append_doc(struct doc **docs, size_t *n, size_t *cap, const char *file, json_t *arr,
                      size_t i)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 8;
        struct doc *nd = realloc(*docs, c * sizeof(*nd));
        if (!nd)
            return -ENOMEM;
        *docs = nd;
        *cap = c;
    }
    struct ferr_list scratch; /* kind errors are reported per manifest later */
    struct doc *d = &(*docs)[(*n)++];
    ferr_list_init(&scratch);
    *d = (struct doc){.file = file, .index = i, .obj = json_array_get(arr, i)};
    d->kind = classify(d->obj, &d->kind_name, &scratch);
    ferr_list_release(&scratch);
    return 0;
}

/* Reads every file into `files_docs` (one array per file) and lists the documents. */
static int read_docs(const char *const *files, size_t n_files, json_t *files_docs,
                     struct doc **out_docs, size_t *out_n, struct err *err)
{
    size_t n = 0, cap = 0;
    struct doc *docs = NULL;
    int rc = 0;
    for (size_t f = 0; rc == 0 && f < n_files; f++) {
        json_t *arr = NULL;
        if ((rc = yaml_decode_file(files[f], &arr, err)) < 0)
            break;
        json_array_append_new(files_docs, arr);
        for (size_t i = 0; rc == 0 && i < json_array_size(arr); i++)
            if ((rc = append_doc(&docs, &n, &cap, files[f], arr, i)) < 0)
                err_set(err, rc, ERR_OOM_MSG);
        if (rc == 0)
            count_runnable(docs, n, json_array_size(arr));
    }
    if (rc < 0) {
        free(docs);
        return rc;
    }
    *out_docs = docs;
    *out_n = n;
    return 0;
}

int manifest_load(const char *const *files, size_t n_files, struct manifest_set *out,
                  struct err *err)
{
    return manifest_load_opts(files, n_files, NULL, out, err);
}

int manifest_load_opts(const char *const *files, size_t n_files,
                       const struct manifest_opts *opts, struct manifest_set *out,
                       struct err *err)
{
    enum manifest_validate mode = opts ? opts->validate : MANIFEST_VALIDATE_STRICT;
    bool strict_kinds = opts && opts->strict_kinds;
    struct doc *docs = NULL;
    size_t n = 0;
    struct manifest_set s = {0};
    json_t *files_docs = json_array();
    int rc = files_docs ? read_docs(files, n_files, files_docs, &docs, &n, err)
                        : err_oom(err);
    if (rc < 0)
        goto out;
    s.v = calloc(n ? n : 1, sizeof(*s.v));
    if (!s.v) {
        rc = err_oom(err);
        goto out;
    }
    if (!(s.objects = json_array())) {
        rc = err_oom(err);
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        if (config_object(&docs[i])) { /* read by env references (local/podenv/podenv.h) */
            if (json_array_append(s.objects, docs[i].obj) < 0) {
                rc = err_oom(err);
                goto out;
            }
            continue;
        }
        if (docs[i].kind == DOC_OTHER && !strict_kinds) {
            if ((rc = note_skipped(&s, &docs[i])) < 0) {
                err_set(err, rc, ERR_OOM_MSG);
                goto out;
            }
            continue;
        }
        if (!runnable(docs[i].kind) && docs[i].kind != DOC_OTHER &&
            !runtime_alone(opts, &docs[i], docs, n))
            continue;
        if (opts) {
            s.v[s.n].gates = opts->gates;
            s.v[s.n].cluster = opts->cluster;
        }
        rc = make_manifest(&s.v[s.n++], &docs[i], docs, n, mode);
        if (rc < 0) {
            err_set(err, rc, ERR_OOM_MSG);
            goto out;
        }
    }
    if (s.n == 0) {
        rc = err_set(err, -EINVAL, "%s: no JobSet, JAXJob, TrainJob or AIchorManifest found%s%s",
                     n_files == 1 ? files[0] : "the files",
                     s.n_skipped ? "; " : "", s.n_skipped ? strchr(s.skipped[0], ' ') + 1 : "");
        goto out;
    }
    for (size_t i = 0; i < s.n; i++)
        s.v[i].objects = s.objects;
    *out = s;
    s = (struct manifest_set){0};
    rc = 0;
out:
    manifest_set_release(&s);
    free(docs);
    json_decref(files_docs);
    return rc;
}

void manifest_set_release(struct manifest_set *s)
{
    for (size_t i = 0; s && i < s->n; i++) {
        struct manifest *m = &s->v[i];
        free(m->source);
        free(m->dir);
        ferr_list_release(&m->errs);
        ferr_list_release(&m->warnings);
        if (m->have_view) {
            jaxrt_release(&m->rt);
            js_view_release(&m->view);
        }
        json_decref(m->jobset);
        json_decref(m->doc);
    }
    for (size_t i = 0; s && i < s->n_skipped; i++)
        free(s->skipped[i]);
    if (s) {
        json_decref(s->objects);
        s->objects = NULL;
        free(s->v);
        free(s->skipped);
        s->v = NULL;
        s->skipped = NULL;
        s->n = s->n_skipped = 0;
    }
}

size_t manifest_set_errors(const struct manifest_set *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++)
        n += s->v[i].errs.n;
    return n;
}
