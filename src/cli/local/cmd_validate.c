/* jaxset validate FILE...: checks every manifest fully, prints one summary line per job.  With
 * --errors=json every error line is followed by the same error as one line of JSON (docs/cli.md,
 * "Errors for programs"), which the Python SDK reads instead of the text. */
#include "cli/util/cli.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "api/schema/keys.h"
#include "local/run/runner.h"

static void summary(const struct manifest *m)
{
    const struct js_view *v = &m->view;
    if (m->admitted_only) { /* --cluster: a runtime alone, or the warnings say what fails */
        printf("%s: valid: %s%s\n", m->source, m->kind,
               strcmp(m->kind, "TrainJob") == 0 ? " (admitted; jaxset's controller will fail it)"
                                                : "");
        return;
    }
    long long jobs = 0, pods = 0;
    for (size_t i = 0; i < v->n_rj; i++) {
        jobs += v->rj[i].replicas;
        pods += v->rj[i].replicas * v->rj[i].pods_per_job;
    }
    printf("%s: valid: JobSet %s/%s", m->source, v->ns, v->name);
    if (strcmp(m->kind, JOBSET_KIND) != 0)
        printf(" (from %s)", m->kind);
    printf(", %zu replicated job%s, %lld job%s, %lld pod%s", v->n_rj, v->n_rj == 1 ? "" : "s",
           jobs, jobs == 1 ? "" : "s", pods, pods == 1 ? "" : "s");
    if (m->rt.flavor != JAXRT_OFF)
        printf(", JAX (%s): %lld processes, coordinator %s:%d", jaxrt_flavor_name(m->rt.flavor),
               m->rt.num_processes, m->rt.coord_host, m->rt.port);
    printf("\n");
}

struct files {
    const char **v;
    size_t n;
    bool cluster; /* --cluster: only what an API server and the controllers check */
    bool json;    /* --errors=json */
    bool images;  /* --images, or JAXSET_IMAGES=1: what `run --images` would refuse */
    struct manifest_opts load; /* --validate, --strict-kinds, --feature-gates */
};

enum { OPT_CLUSTER = 256, OPT_ERRORS, OPT_IMAGES };

/* One error as a line of JSON on stderr: {"file", "field", "type", "value", "detail",
 * "message"}; type, value and detail null when the error has none (an error of a whole file,
 * or one `jaxset run` would refuse: field ""). */
static void error_json(const char *file, const char *field, const char *type,
                       const char *value, const char *detail, const char *message)
{
    json_t *o = json_pack("{s:s, s:s, s:s?, s:s?, s:s?, s:s}", "file", file, "field", field,
                          "type", type, "value", value, "detail", detail, "message", message);
    if (o && json_dumpf(o, stderr, JSON_COMPACT) == 0)
        fputc('\n', stderr);
    json_decref(o);
}

/* The field error e of `source`: its line, "<source>: <path>: <type>...", then its JSON. */
static void field_error(const char *source, const struct ferr *e)
{
    char *line = ferr_format(e);
    fprintf(stderr, "%s: %s\n", source, line ? line : "(" ERR_OOM_MSG ")");
    if (line) /* the line is "<path>: <message>" (obj/tree/ferr.h) */
        error_json(source, e->path, ferr_type_name(e->type), e->value, e->detail,
                   line + strlen(e->path) + 2);
    free(line);
}

/* An error that stopped the loading, "<file>: <message>" (or about "the files"), and its JSON
 * naming the file given that it starts with. */
static void load_error(const struct files *f, const char *msg)
{
    const char *file = "";
    fprintf(stderr, "%s\n", msg);
    for (size_t i = 0; i < f->n; i++) {
        size_t len = strlen(f->v[i]);
        if (len > strlen(file) && !strncmp(msg, f->v[i], len) && !strncmp(msg + len, ": ", 2))
            file = f->v[i];
    }
    error_json(file, "", NULL, NULL, NULL, *file ? msg + strlen(file) + 2 : msg);
}

/* cli_load with --errors=json: the same lines, each error's followed by its JSON line. */
static int load_json(const struct files *f, struct manifest_set *s)
{
    struct err e = {{0}};
    bool unknown = false;
    if (manifest_load_opts(f->v, f->n, &f->load, s, &e) < 0) {
        load_error(f, e.msg);
        return EXIT_INVALID;
    }
    for (size_t i = 0; i < s->n_skipped; i++)
        fprintf(stderr, "%s\n", s->skipped[i]);
    for (size_t i = 0; i < s->n; i++)
        for (size_t k = 0; k < s->v[i].warnings.n; k++) {
            char *line = ferr_format(&s->v[i].warnings.v[k]);
            fprintf(stderr, "Warning: %s: %s\n", s->v[i].source, line ? line : "(" ERR_OOM_MSG ")");
            free(line);
        }
    if (manifest_set_errors(s) == 0)
        return EXIT_OK;
    for (size_t i = 0; i < s->n; i++)
        for (size_t k = 0; k < s->v[i].errs.n; k++) {
            field_error(s->v[i].source, &s->v[i].errs.v[k]);
            unknown |= s->v[i].errs.v[k].type == FERR_UNKNOWN_FIELD;
        }
    if (unknown)
        fprintf(stderr, "(unknown fields are errors, as with kubectl's default "
                        "--validate=strict; --validate=warn or --validate=ignore accepts them)\n");
    manifest_set_release(s);
    return EXIT_INVALID;
}

static int on_arg(void *ctx, int code, const char *arg)
{
    struct files *f = ctx;
    if (code == OPT_CLUSTER) {
        f->cluster = true;
        f->load.cluster = true;
        return EXIT_OK;
    }
    if (code == OPT_IMAGES) {
        f->images = true;
        return EXIT_OK;
    }
    if (code == OPT_ERRORS) {
        if (strcmp(arg, "json") && strcmp(arg, "text"))
            return cli_usage_error("validate", "--errors must be text or json");
        f->json = !strcmp(arg, "json");
        return EXIT_OK;
    }
    int rc = cli_load_opt("validate", code, arg, &f->load);
    if (rc >= 0)
        return rc;
    if (code != CLI_OPERAND)
        return cli_usage_error("validate", "unknown option");
    f->v[f->n++] = arg;
    return EXIT_OK;
}

/* What `run` would refuse on this machine, with run's own message.  0 or EXIT_INVALID. */
static int check_local(const struct manifest *m, bool json, bool images)
{
    struct err e = {{0}};
    if (runner_check(m, images, &e) == 0)
        return EXIT_OK;
    fprintf(stderr, "%s: %s\n", m->source, e.msg);
    if (json)
        error_json(m->source, "", NULL, NULL, NULL, e.msg);
    return EXIT_INVALID;
}

int cmd_validate(int argc, char **argv)
{
    static const struct option longopts[] = {{"cluster", no_argument, NULL, OPT_CLUSTER},
                                             {"errors", required_argument, NULL, OPT_ERRORS},
                                             CLI_VALIDATE_LONGOPT, CLI_STRICT_KINDS_LONGOPT,
                                             {"images", no_argument, NULL, OPT_IMAGES},
                                             CLI_FEATURE_GATES_LONGOPT, {0}};
    const char *img_env = getenv("JAXSET_IMAGES");
    struct files f = {.v = calloc((size_t)argc, sizeof(*f.v)),
                      .images = img_env && strcmp(img_env, "1") == 0};
    struct manifest_set s;
    if (!f.v)
        return EXIT_INVALID;
    int rc = cli_parse(argc, argv, "", longopts, on_arg, &f);
    if (rc == EXIT_OK && f.n == 0)
        rc = cli_usage_error("validate", "no file given");
    if (rc == EXIT_OK)
        rc = f.json ? load_json(&f, &s) : cli_load(f.v, f.n, &f.load, &s);
    free(f.v);
    f.v = NULL;
    if (rc != EXIT_OK)
        return rc;
    for (size_t i = 0; i < s.n; i++)
        if (f.cluster || check_local(&s.v[i], f.json, f.images) == EXIT_OK)
            summary(&s.v[i]);
        else
            rc = EXIT_INVALID;
    manifest_set_release(&s);
    return rc;
}
