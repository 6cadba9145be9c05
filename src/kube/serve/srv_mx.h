/* srv_mx (metrics): a small Prometheus registry (counters, gauges, histograms with labels) and its
 * text exposition, format 0.0.4, written byte for byte as client_golang writes it
 * (prometheus/common expfmt/text_create.go, MetricFamilyToText), so that what scrapes the Go
 * controller scrapes this one the same way.
 *
 * Single-threaded: the registry belongs to the thread that owns the controller's state.
 *
 *     struct srv_mx *m = srv_mx_new();
 *     const char *const labels[] = {"jobset_name", "namespace", NULL};
 *     struct srv_mx_fam *failed = srv_mx_counter(m, "jobset_failed_total",
 *                                        "The total number of failed JobSets", labels);
 *     srv_mx_add(failed, 1, "train", "default");
 *     char *text = srv_mx_render(m);      // caller frees
 *
 * As client_golang does:
 *   - a family's series are written sorted by label values, and a series' labels sorted by
 *     label name (`{controller="jobset",name="jobset"}` for labels declared name, controller);
 *   - a family with labels and no series is not written at all; one without labels always has
 *     its single series (0 until changed);
 *   - numbers are Go's strconv.FormatFloat(v, 'g', -1, 64): 0, 1, 0.5, 123456, 1e+06,
 *     9.999999999999999e-06, +Inf, NaN; histogram counts too (they are written as floats);
 *   - HELP text escapes \ and newline; label values escape \, " and newline;
 *   - a histogram's buckets are cumulative, `le` last among the labels, then a "+Inf" bucket,
 *     _sum and _count; an observation equal to a bound counts in that bound's bucket.
 * Unlike client_golang, families are written in registration order (not sorted by name).
 *
 * Misuse that Go answers with a panic (an invalid name, a label named "le" on a histogram,
 * bounds not increasing, a second registration of a name with another type or other labels) is
 * refused with NULL here; every operation on a NULL family does nothing, so a controller whose
 * registration failed keeps running without that series.
 */
#ifndef JX_KUBE_SERVE_SRV_MX_H
#define JX_KUBE_SERVE_SRV_MX_H

#include <stddef.h>

#include "obj/base/sbuf.h"

/* Most labels a family may have. */
#define SRV_MX_MAX_LABELS 8

struct srv_mx;     /* the registry */
struct srv_mx_fam; /* one metric family, owned by the registry */

struct srv_mx *srv_mx_new(void); /* NULL on out of memory */
void srv_mx_free(struct srv_mx *m); /* frees its families too; NULL-safe */

/* Registers a family: `name` ([a-zA-Z_:][a-zA-Z0-9_:]*), `help` (any text), `labels` a
 * NULL-terminated list of label names ([a-zA-Z_][a-zA-Z0-9_]*, not starting with "__", no
 * duplicates, at most SRV_MX_MAX_LABELS), or NULL for none.  Strings are copied.  Registering a
 * name again returns the family already registered when type, labels (and buckets) are the same,
 * and NULL otherwise.  NULL on out of memory or invalid input. */
struct srv_mx_fam *srv_mx_counter(struct srv_mx *m, const char *name, const char *help,
                          const char *const *labels);
struct srv_mx_fam *srv_mx_gauge(struct srv_mx *m, const char *name, const char *help,
                        const char *const *labels);
/* `buckets`: the upper bounds, strictly increasing, at least one; a last +Inf is dropped (the
 * "+Inf" bucket is always written).  No label may be named "le". */
struct srv_mx_fam *srv_mx_histogram(struct srv_mx *m, const char *name, const char *help,
                            const char *const *labels, const double *buckets, size_t n_buckets);

/* The operations take the label values after `v`: exactly as many `const char *` as the family
 * has label names, in the order the names were given (NULL counts as "").  A series is created
 * on first use, as client_golang's WithLabelValues does.  No-ops on a NULL family or a family of
 * another type. */
void srv_mx_add(struct srv_mx_fam *f, double v, ...);     /* counter += v (v < 0 ignored); gauge += v;
                                                     NaN ignored */
void srv_mx_set(struct srv_mx_fam *f, double v, ...);     /* gauge = v; counter = v (for values kept
                                                     elsewhere, e.g. CPU seconds from /proc) */
void srv_mx_observe(struct srv_mx_fam *f, double v, ...); /* histogram: one observation */
void srv_mx_touch(struct srv_mx_fam *f, ...);             /* creates the series (0, or an empty
                                                     histogram) if absent, as Go's
                                                     WithLabelValues with nothing observed */

/* The series' value: a counter's or gauge's value, a histogram's observation count; 0 when the
 * series does not exist (it is not created).  For tests. */
double srv_mx_value(struct srv_mx_fam *f, ...);
size_t srv_mx_series_count(const struct srv_mx_fam *f); /* number of series of the family */

/* Called by srv_mx_render before it writes anything, to refresh values read from elsewhere (the
 * process's memory and CPU from /proc).  One hook per registry; NULL clears it. */
typedef void (*srv_mx_collect_fn)(struct srv_mx *m, void *arg);
void srv_mx_set_collector(struct srv_mx *m, srv_mx_collect_fn fn, void *arg);

/* The text exposition of every family (after running the collector).  Caller frees; NULL on
 * out of memory. */
char *srv_mx_render(struct srv_mx *m);
/* The same appended to `b` (an out of memory is sb_failed(b)); nothing for a NULL registry. */
void srv_mx_render_to(struct srv_mx *m, struct sbuf *b);

/* Writes `v` as Go's strconv.FormatFloat(v, 'g', -1, 64) with expfmt's special cases (+Inf,
 * -Inf, NaN) into buf (SRV_MX_NUM_MAX bytes); returns buf. */
#define SRV_MX_NUM_MAX 32
char *srv_mx_format_number(double v, char buf[SRV_MX_NUM_MAX]);

#endif
