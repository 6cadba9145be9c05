/* Feature gates (see features.h). */
#include "api/jobset/features.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


enum fg_stage { FG_ALPHA, FG_BETA, FG_GA };

/* kubernetes-sigs/jobset pkg/features/features.go, defaultFeatureGates. */
static const struct fg_spec {
    const char *name;
    bool def;
    enum fg_stage stage;
    bool locked;
} specs[FG_N] = {
    [FG_IN_PLACE_RESTART] = {"InPlaceRestart", false, FG_ALPHA, false},
    [FG_RESTART_JOB] = {"RestartJob", false, FG_ALPHA, false},
    [FG_ELASTIC_JOBSET] = {"ElasticJobSet", false, FG_ALPHA, false},
    [FG_TLS_OPTIONS] = {"TLSOptions", true, FG_GA, true},
    /* kubeflow/trainer pkg/features/features.go */
    [FG_TRAINJOB_STATUS] = {"TrainJobStatus", false, FG_ALPHA, false},
};

#define FG_ALL_ALPHA "AllAlpha"
#define FG_ALL_BETA "AllBeta"
#define FG_KNOWN                                                                               \
    "AllAlpha, AllBeta, ElasticJobSet, InPlaceRestart, RestartJob, TLSOptions, TrainJobStatus"

const char *fg_name(enum fg_id id)
{
    return id < FG_N ? specs[id].name : "";
}

bool fg_enabled(const struct feature_gates *g, enum fg_id id)
{
    if (id >= FG_N)
        return false;
    if (!g)
        return specs[id].def;
    if (g->set[id])
        return g->on[id];
    signed char all = specs[id].stage == FG_ALPHA ? g->all_alpha
                      : specs[id].stage == FG_BETA ? g->all_beta
                                                   : 0;
    return all ? all > 0 : specs[id].def;
}

/* Go's strconv.ParseBool. */
static int parse_bool(const char *s, bool *out)
{
    static const char *const yes[] = {"1", "t", "T", "TRUE", "true", "True"};
    static const char *const no[] = {"0", "f", "F", "FALSE", "false", "False"};
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (strcmp(s, yes[i]) == 0 || strcmp(s, no[i]) == 0) {
            *out = strcmp(s, yes[i]) == 0;
            return 0;
        }
    }
    return -EINVAL;
}

/* One NAME=value into g (component-base featureGate.SetFromMap for one key). */
static int set_one(struct feature_gates *g, const char *name, bool v, struct err *e,
                   struct err *warn)
{
    if (strcmp(name, FG_ALL_ALPHA) == 0 || strcmp(name, FG_ALL_BETA) == 0) {
        *(strcmp(name, FG_ALL_ALPHA) == 0 ? &g->all_alpha : &g->all_beta) = v ? 1 : -1;
        return 0;
    }
    for (int i = 0; i < FG_N; i++) {
        const struct fg_spec *s = &specs[i];
        if (strcmp(name, s->name) != 0)
            continue;
        if (s->locked && v != s->def)
            return err_set(e, -EINVAL,
                           "cannot set feature gate %s to %s, feature is locked to %s", name,
                           v ? "true" : "false", s->def ? "true" : "false");
        if (s->stage == FG_GA)
            err_set(warn, 0, "Setting GA feature gate %s=%s. It will be removed in a future "
                             "release.", name, v ? "true" : "false");
        g->set[i] = true;
        g->on[i] = v;
        return 0;
    }
    return err_set(e, -EINVAL, "unrecognized feature gate: %s (known feature gates: " FG_KNOWN
                               ")", name);
}

/* Trims ASCII white space from both ends of s in place (Go's strings.TrimSpace). */
static char *trim(char *s)
{
    while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || (s[n - 1] >= '\t' && s[n - 1] <= '\r')))
        s[--n] = '\0';
    return s;
}

/* One "NAME=BOOL" item (cliflag.MapStringBool.Set for one item). */
static int set_item(struct feature_gates *g, char *item, struct err *e, struct err *warn)
{
    char *eq = strchr(item, '=');
    bool v;
    if (!eq)
        return err_set(e, -EINVAL, "missing bool value for %s", item);
    *eq = '\0';
    char *k = trim(item), *val = trim(eq + 1);
    if (parse_bool(val, &v) < 0)
        return err_set(e, -EINVAL,
                       "invalid value of %s=%s, err: strconv.ParseBool: parsing \"%s\": invalid "
                       "syntax",
                       k, val, val);
    return set_one(g, k, v, e, warn);
}

int fg_set(struct feature_gates *g, const char *value, struct err *e, struct err *warn)
{
    struct feature_gates tmp = *g;
    char *copy = strdup(value ? value : "");
    int rc = 0;
    err_set(warn, 0, "%s", "");
    if (!copy)
        return err_oom(e);
    for (char *item = copy, *next; rc == 0 && item; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = '\0';
        if (*item)
            rc = set_item(&tmp, item, e, warn);
    }
    free(copy);
    if (rc == 0)
        *g = tmp;
    return rc;
}

int fg_set_map(struct feature_gates *g, const json_t *map, struct err *e, struct err *warn)
{
    struct feature_gates tmp = *g;
    const char *k;
    json_t *v;
    err_set(warn, 0, "%s", "");
    if (!json_is_object(map))
        return err_set(e, -EINVAL, "featureGates: must be a map of feature gate names to "
                                   "booleans");
    json_object_foreach ((json_t *)map, k, v) {
        if (!json_is_boolean(v))
            return err_set(e, -EINVAL, "featureGates.%s: must be true or false", k);
        int rc = set_one(&tmp, k, json_is_true(v), e, warn);
        if (rc < 0)
            return rc;
    }
    *g = tmp;
    return 0;
}

char *fg_format(const struct feature_gates *g, char *out, size_t n)
{
    size_t off = 0;
    if (n)
        out[0] = '\0';
    for (int i = 0; i < FG_N && off < n; i++) {
        bool on = fg_enabled(g, (enum fg_id)i);
        if (on == specs[i].def)
            continue;
        int w = snprintf(out + off, n - off, "%s%s=%s", off ? "," : "", specs[i].name,
                         on ? "true" : "false");
        off += w > 0 ? (size_t)w : 0;
    }
    return out;
}
