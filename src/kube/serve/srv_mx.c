/* The metrics registry: families and their series (see srv_mx.h).  The text is written by
 * srv_mx_render.c.  Behaviour follows prometheus/client_golang (prometheus/vec.go,
 * histogram.go newHistogram, desc.go NewDesc). */
#include "kube/serve/srv_mx.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kube/serve/srv_mx_int.h"

/* client_golang's DefBuckets, for a histogram registered without bounds. */
static const double def_buckets[] = {.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10};

struct srv_mx *srv_mx_new(void)
{
    return calloc(1, sizeof(struct srv_mx));
}

static void fam_free(struct srv_mx_fam *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->tab_cap; i++)
        free(f->tab[i]);
    free(f->tab);
    for (size_t i = 0; i < f->n_labels; i++)
        free(f->labels[i]);
    free(f->bounds);
    free(f->name);
    free(f->help);
    free(f);
}

void srv_mx_free(struct srv_mx *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n_fams; i++)
        fam_free(m->fams[i]);
    free(m->fams);
    free(m);
}

void srv_mx_set_collector(struct srv_mx *m, srv_mx_collect_fn fn, void *arg)
{
    if (!m)
        return;
    m->collect = fn;
    m->collect_arg = arg;
}

/* ---- registration ---------------------------------------------------------------------- */

static bool valid_name(const char *s, bool colon)
{
    if (!s || !*s)
        return false;
    for (const char *p = s; *p; p++) {
        bool alpha = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' ||
                     (colon && *p == ':');
        if (!alpha && !(p > s && *p >= '0' && *p <= '9'))
            return false;
    }
    return true;
}

static bool valid_labels(const char *const *labels, enum srv_mx_type type, size_t *n)
{
    size_t k = 0;
    for (; labels && labels[k]; k++) {
        if (k == SRV_MX_MAX_LABELS || !valid_name(labels[k], false) ||
            strncmp(labels[k], "__", 2) == 0 ||
            (type == SRV_MX_T_HISTOGRAM && strcmp(labels[k], "le") == 0))
            return false;
        for (size_t j = 0; j < k; j++)
            if (strcmp(labels[j], labels[k]) == 0)
                return false;
    }
    *n = k;
    return true;
}

/* Whether the family already registered under a name is the one asked for again. */
static bool same_family(const struct srv_mx_fam *f, enum srv_mx_type type, const char *const *labels,
                        size_t n_labels, const double *bounds, size_t n_bounds)
{
    if (f->type != type || f->n_labels != n_labels || f->n_bounds != n_bounds)
        return false;
    for (size_t i = 0; i < n_labels; i++)
        if (strcmp(f->labels[f->slot_of[i]], labels[i]) != 0)
            return false;
    for (size_t i = 0; i < n_bounds; i++)
        if (f->bounds[i] != bounds[i])
            return false;
    return true;
}

/* Copies the label names sorted by name, remembering where each declared one went. */
static bool fam_set_labels(struct srv_mx_fam *f, const char *const *labels, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t pos = 0;
        for (size_t j = 0; j < n; j++)
            pos += strcmp(labels[j], labels[i]) < 0;
        f->slot_of[i] = pos;
    }
    for (size_t i = 0; i < n; i++) {
        f->labels[f->slot_of[i]] = strdup(labels[i]);
        f->n_labels++;
    }
    for (size_t i = 0; i < n; i++)
        if (!f->labels[i])
            return false;
    return true;
}

static struct srv_mx_fam *fam_new(enum srv_mx_type type, const char *name, const char *help,
                              const char *const *labels, size_t n_labels, const double *bounds,
                              size_t n_bounds)
{
    struct srv_mx_fam *f = calloc(1, sizeof(*f));
    if (!f)
        return NULL;
    f->type = type;
    f->name = strdup(name);
    f->help = strdup(help ? help : "");
    bool ok = f->name && f->help && fam_set_labels(f, labels, n_labels);
    if (ok && n_bounds) {
        f->bounds = malloc(n_bounds * sizeof(double));
        ok = f->bounds != NULL;
        if (ok)
            memcpy(f->bounds, bounds, n_bounds * sizeof(double));
        f->n_bounds = ok ? n_bounds : 0;
    }
    /* A family without labels has its one series from the start, as in client_golang. */
    if (ok && n_labels == 0)
        srv_mx_touch(f);
    if (!ok || (n_labels == 0 && f->n_series == 0)) {
        fam_free(f);
        return NULL;
    }
    return f;
}

static struct srv_mx_fam *srv_mx_register(struct srv_mx *m, enum srv_mx_type type, const char *name,
                                  const char *help, const char *const *labels,
                                  const double *bounds, size_t n_bounds)
{
    size_t n_labels;
    if (!m || !valid_name(name, true) || !valid_labels(labels, type, &n_labels))
        return NULL;
    for (size_t i = 0; i < m->n_fams; i++)
        if (strcmp(m->fams[i]->name, name) == 0)
            return same_family(m->fams[i], type, labels, n_labels, bounds, n_bounds)
                       ? m->fams[i]
                       : NULL;
    if (m->n_fams == m->cap_fams) {
        size_t cap = m->cap_fams ? 2 * m->cap_fams : 16;
        struct srv_mx_fam **fams = realloc(m->fams, cap * sizeof(*fams));
        if (!fams)
            return NULL;
        m->fams = fams;
        m->cap_fams = cap;
    }
    struct srv_mx_fam *f = fam_new(type, name, help, labels, n_labels, bounds, n_bounds);
    if (f)
        m->fams[m->n_fams++] = f;
    return f;
}

struct srv_mx_fam *srv_mx_counter(struct srv_mx *m, const char *name, const char *help,
                          const char *const *labels)
{
    return srv_mx_register(m, SRV_MX_T_COUNTER, name, help, labels, NULL, 0);
}

struct srv_mx_fam *srv_mx_gauge(struct srv_mx *m, const char *name, const char *help,
                        const char *const *labels)
{
    return srv_mx_register(m, SRV_MX_T_GAUGE, name, help, labels, NULL, 0);
}

struct srv_mx_fam *srv_mx_histogram(struct srv_mx *m, const char *name, const char *help,
                            const char *const *labels, const double *buckets, size_t n_buckets)
{
    if (n_buckets == 0 || !buckets) {
        buckets = def_buckets;
        n_buckets = sizeof(def_buckets) / sizeof(def_buckets[0]);
    }
    if (isinf(buckets[n_buckets - 1]) && buckets[n_buckets - 1] > 0)
        n_buckets--;
    for (size_t i = 0; i < n_buckets; i++)
        if (isnan(buckets[i]) || (i > 0 && !(buckets[i] > buckets[i - 1])))
            return NULL;
    if (n_buckets == 0)
        return NULL;
    return srv_mx_register(m, SRV_MX_T_HISTOGRAM, name, help, labels, buckets, n_buckets);
}

/* ---- series ---------------------------------------------------------------------------- */

/* FNV-1a over the values, each followed by a byte no UTF-8 text holds. */
static uint64_t hash_vals(const char *const *vals, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) {
        for (const unsigned char *p = (const unsigned char *)vals[i]; *p; p++)
            h = (h ^ *p) * 0x100000001b3ULL;
        h = (h ^ 0xff) * 0x100000001b3ULL;
    }
    return h;
}

static bool same_vals(const struct srv_mx_series *s, const char *const *vals, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s->vals[i], vals[i]) != 0)
            return false;
    return true;
}

static size_t align8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

static struct srv_mx_series *series_new(const struct srv_mx_fam *f, const char *const *vals,
                                    uint64_t hash)
{
    size_t nl = f->n_labels, nb = f->type == SRV_MX_T_HISTOGRAM ? f->n_bounds : 0;
    size_t off_b = align8(sizeof(struct srv_mx_series) + nl * sizeof(char *));
    size_t off_s = off_b + nb * sizeof(uint64_t), size = off_s;
    for (size_t i = 0; i < nl; i++)
        size += strlen(vals[i]) + 1;
    struct srv_mx_series *s = calloc(1, size);
    if (!s)
        return NULL;
    s->hash = hash;
    s->buckets = nb ? (uint64_t *)((char *)s + off_b) : NULL;
    char *p = (char *)s + off_s;
    for (size_t i = 0; i < nl; i++) {
        size_t len = strlen(vals[i]) + 1;
        memcpy(p, vals[i], len);
        s->vals[i] = p;
        p += len;
    }
    return s;
}

static bool tab_grow(struct srv_mx_fam *f)
{
    size_t cap = f->tab_cap ? 2 * f->tab_cap : 16;
    struct srv_mx_series **tab = calloc(cap, sizeof(*tab));
    if (!tab)
        return false;
    for (size_t i = 0; i < f->tab_cap; i++) {
        struct srv_mx_series *s = f->tab[i];
        if (!s)
            continue;
        size_t j = (size_t)s->hash & (cap - 1);
        while (tab[j])
            j = (j + 1) & (cap - 1);
        tab[j] = s;
    }
    free(f->tab);
    f->tab = tab;
    f->tab_cap = cap;
    return true;
}

/* The series of `vals` (written order); created when absent and `create`.  NULL when absent
 * (and not created) or out of memory. */
static struct srv_mx_series *series_get(struct srv_mx_fam *f, const char *const *vals, bool create)
{
    uint64_t h = hash_vals(vals, f->n_labels);
    if (f->tab_cap) {
        for (size_t j = (size_t)h & (f->tab_cap - 1); f->tab[j]; j = (j + 1) & (f->tab_cap - 1))
            if (f->tab[j]->hash == h && same_vals(f->tab[j], vals, f->n_labels))
                return f->tab[j];
    }
    if (!create)
        return NULL;
    if ((f->n_series + 1) * 10 > f->tab_cap * 7 && !tab_grow(f))
        return NULL;
    struct srv_mx_series *s = series_new(f, vals, h);
    if (!s)
        return NULL;
    size_t j = (size_t)h & (f->tab_cap - 1);
    while (f->tab[j])
        j = (j + 1) & (f->tab_cap - 1);
    f->tab[j] = s;
    f->n_series++;
    return s;
}

/* Reads the family's label values from `ap` into `vals`, in written order. */
static void take_vals(const struct srv_mx_fam *f, va_list ap, const char **vals)
{
    for (size_t i = 0; i < f->n_labels; i++) {
        const char *v = va_arg(ap, const char *);
        vals[f->slot_of[i]] = v ? v : "";
    }
}

/* Declares `va_list ap` started after `last`, fetches the series of family `f` into `s`. */
#define SRV_MX_SERIES(f, last, create, s)                                                         \
    const char *vals_[SRV_MX_MAX_LABELS];                                                         \
    va_list ap;                                                                               \
    va_start(ap, last);                                                                       \
    take_vals(f, ap, vals_);                                                                  \
    va_end(ap);                                                                               \
    struct srv_mx_series *s = series_get(f, vals_, create)

void srv_mx_add(struct srv_mx_fam *f, double v, ...)
{
    if (!f || f->type == SRV_MX_T_HISTOGRAM || isnan(v) || (f->type == SRV_MX_T_COUNTER && v < 0))
        return;
    SRV_MX_SERIES(f, v, true, s);
    if (s)
        s->value += v;
}

void srv_mx_set(struct srv_mx_fam *f, double v, ...)
{
    if (!f || f->type == SRV_MX_T_HISTOGRAM)
        return;
    SRV_MX_SERIES(f, v, true, s);
    if (s)
        s->value = v;
}

void srv_mx_observe(struct srv_mx_fam *f, double v, ...)
{
    if (!f || f->type != SRV_MX_T_HISTOGRAM)
        return;
    SRV_MX_SERIES(f, v, true, s);
    if (!s)
        return;
    /* The first bound >= v (sort.SearchFloat64s in histogram.go findBucket); past the last
     * bound (or NaN) only the +Inf bucket, which is the count, takes it. */
    size_t lo = 0, hi = f->n_bounds;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->bounds[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < f->n_bounds && !isnan(v))
        s->buckets[lo]++;
    s->count++;
    s->value += v;
}

void srv_mx_touch(struct srv_mx_fam *f, ...)
{
    if (!f)
        return;
    SRV_MX_SERIES(f, f, true, s);
    (void)s;
}

double srv_mx_value(struct srv_mx_fam *f, ...)
{
    if (!f)
        return 0;
    SRV_MX_SERIES(f, f, false, s);
    if (!s)
        return 0;
    return f->type == SRV_MX_T_HISTOGRAM ? (double)s->count : s->value;
}

size_t srv_mx_series_count(const struct srv_mx_fam *f)
{
    return f ? f->n_series : 0;
}
