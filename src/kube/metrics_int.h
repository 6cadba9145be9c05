/* metrics' insides, shared by metrics.c (registry, series) and metrics_render.c (text). */
#ifndef JX_KUBE_METRICS_INT_H
#define JX_KUBE_METRICS_INT_H

#include <stdint.h>

#include "kube/metrics.h"

enum mx_type { MX_T_COUNTER, MX_T_GAUGE, MX_T_HISTOGRAM };

/* One series: one allocation holding the struct, its label values (pointers, then the strings)
 * and a histogram's bucket counts. */
struct mx_series {
    uint64_t hash;
    double value;      /* counter or gauge value; a histogram's sum */
    uint64_t count;    /* histogram: observations */
    uint64_t *buckets; /* histogram: observations per bound, not cumulative (n_bounds) */
    const char *vals[]; /* label values in the family's written (name-sorted) order */
};

struct mx_fam {
    enum mx_type type;
    char *name;
    char *help;
    size_t n_labels;
    char *labels[MX_MAX_LABELS];    /* sorted by name: the order they are written in */
    size_t slot_of[MX_MAX_LABELS];  /* declared position -> index in labels */
    double *bounds;                 /* histogram upper bounds, increasing, no +Inf */
    size_t n_bounds;
    struct mx_series **tab;         /* open addressing, linear probing, power-of-two size */
    size_t tab_cap;
    size_t n_series;
};

struct mx {
    struct mx_fam **fams; /* registration order */
    size_t n_fams;
    size_t cap_fams;
    mx_collect_fn collect;
    void *collect_arg;
};

#endif
