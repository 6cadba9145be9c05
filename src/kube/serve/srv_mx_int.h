/* metrics' insides, shared by srv_mx.c (registry, series) and srv_mx_render.c (text). */
#ifndef JX_KUBE_SERVE_SRV_MX_INT_H
#define JX_KUBE_SERVE_SRV_MX_INT_H

#include <stdint.h>

#include "kube/serve/srv_mx.h"

enum srv_mx_type { SRV_MX_T_COUNTER, SRV_MX_T_GAUGE, SRV_MX_T_HISTOGRAM };

/* One series: one allocation holding the struct, its label values (pointers, then the strings)
 * and a histogram's bucket counts. */
struct srv_mx_series {
    uint64_t hash;
    double value;      /* counter or gauge value; a histogram's sum */
    uint64_t count;    /* histogram: observations */
    uint64_t *buckets; /* histogram: observations per bound, not cumulative (n_bounds) */
    const char *vals[]; /* label values in the family's written (name-sorted) order */
};

struct srv_mx_fam {
    enum srv_mx_type type;
    char *name;
    char *help;
    size_t n_labels;
    char *labels[SRV_MX_MAX_LABELS];    /* sorted by name: the order they are written in */
    size_t slot_of[SRV_MX_MAX_LABELS];  /* declared position -> index in labels */
    double *bounds;                 /* histogram upper bounds, increasing, no +Inf */
    size_t n_bounds;
    struct srv_mx_series **tab;         /* open addressing, linear probing, power-of-two size */
    size_t tab_cap;
    size_t n_series;
};

struct srv_mx {
    struct srv_mx_fam **fams; /* registration order */
    size_t n_fams;
    size_t cap_fams;
    srv_mx_collect_fn collect;
    void *collect_arg;
};

#endif
