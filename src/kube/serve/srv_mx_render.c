/* The text exposition format 0.0.4 of a registry, written as prometheus/common
 * expfmt/text_create.go writes it (MetricFamilyToText, writeSample, writeFloat,
 * writeEscapedString), series sorted as client_golang's internal.MetricSorter sorts them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/serve/srv_mx_int.h"
#include "obj/base/sbuf.h"

/* Go's strconv.FormatFloat(v, 'g', -1, 64): the shortest digits that read back as v; %e
 * notation when the decimal exponent is < -4 or >= 6 (ftoa.go: "if precision was the shortest
 * possible, use precision 6 for this decision"), else plain decimal without trailing zeros. */
static void format_shortest(double v, char *buf, size_t size)
{
    char e[40];
    for (int p = 1; p <= 17; p++) {
        snprintf(e, sizeof(e), "%.*e", p - 1, v);
        if (strtod(e, NULL) == v)
            break;
    }
    /* e is [-]d[.ddd]e(+|-)XX: split into sign, digits and exponent. */
    const char *p = e;
    char digits[24];
    size_t nd = 0;
    bool neg = *p == '-';
    if (neg)
        p++;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9' && nd < sizeof(digits) - 1)
            digits[nd++] = *p;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = '\0';
    int x = *p == 'e' ? (int)strtol(p + 1, NULL, 10) : 0;
    char out[SRV_MX_NUM_MAX + 8];
    size_t n = 0;
    if (neg)
        out[n++] = '-';
    if (x < -4 || x >= 6) {
        out[n++] = digits[0];
        if (nd > 1) {
            out[n++] = '.';
            memcpy(out + n, digits + 1, nd - 1);
            n += nd - 1;
        }
        n += (size_t)snprintf(out + n, sizeof(out) - n, "e%c%02d", x < 0 ? '-' : '+', abs(x));
    } else if (x < 0) {
        out[n++] = '0';
        out[n++] = '.';
        for (int i = -1; i > x; i--)
            out[n++] = '0';
        memcpy(out + n, digits, nd);
        n += nd;
    } else {
        for (size_t i = 0; i <= (size_t)x || i < nd; i++) {
            if (i == (size_t)x + 1)
                out[n++] = '.';
            out[n++] = i < nd ? digits[i] : '0';
        }
    }
    /* At most 25 characters ("-d.<16 digits>e-308"); copied with the bound that -Os's
     * -Wformat-truncation cannot prove for "%s". */
    size_t len = n < size ? n : size - 1;
    memcpy(buf, out, len);
    buf[len] = '\0';
}

char *srv_mx_format_number(double v, char buf[SRV_MX_NUM_MAX])
{
    if (v == 1)
        snprintf(buf, SRV_MX_NUM_MAX, "1");
    else if (v == 0)
        snprintf(buf, SRV_MX_NUM_MAX, "0");
    else if (v == -1)
        snprintf(buf, SRV_MX_NUM_MAX, "-1");
    else if (isnan(v))
        snprintf(buf, SRV_MX_NUM_MAX, "NaN");
    else if (isinf(v))
        snprintf(buf, SRV_MX_NUM_MAX, v > 0 ? "+Inf" : "-Inf");
    else
        format_shortest(v, buf, SRV_MX_NUM_MAX);
    return buf;
}

/* Escapes \ and newline, and " too when `quote` (writeEscapedString). */
static void put_escaped(struct sbuf *b, const char *s, bool quote)
{
    const char *run = s;
    for (; *s; s++) {
        const char *rep = *s == '\\' ? "\\\\" : *s == '\n' ? "\\n"
                        : (quote && *s == '"') ? "\\\"" : NULL;
        if (!rep)
            continue;
        sb_append(b, run, (size_t)(s - run));
        sb_puts(b, rep);
        run = s + 1;
    }
    sb_append(b, run, (size_t)(s - run));
}

static void put_number(struct sbuf *b, double v)
{
    char num[SRV_MX_NUM_MAX];
    sb_puts(b, srv_mx_format_number(v, num));
}

/* name+suffix{labels[,le="bound"]} value\n */
static void put_sample(struct sbuf *b, const struct srv_mx_fam *f, const char *suffix,
                       const struct srv_mx_series *s, const double *le, double v)
{
    sb_puts(b, f->name);
    sb_puts(b, suffix);
    for (size_t i = 0; i < f->n_labels; i++) {
        sb_puts(b, i ? "," : "{");
        sb_puts(b, f->labels[i]);
        sb_puts(b, "=\"");
        put_escaped(b, s->vals[i], true);
        sb_puts(b, "\"");
    }
    if (le) {
        sb_puts(b, f->n_labels ? ",le=\"" : "{le=\"");
        put_number(b, *le);
        sb_puts(b, "\"");
    }
    if (f->n_labels || le)
        sb_puts(b, "}");
    sb_puts(b, " ");
    put_number(b, v);
    sb_puts(b, "\n");
}

static void put_series(struct sbuf *b, const struct srv_mx_fam *f, const struct srv_mx_series *s)
{
    if (f->type != SRV_MX_T_HISTOGRAM) {
        put_sample(b, f, "", s, NULL, s->value);
        return;
    }
    uint64_t cum = 0;
    for (size_t i = 0; i < f->n_bounds; i++) {
        cum += s->buckets[i];
        put_sample(b, f, "_bucket", s, &f->bounds[i], (double)cum);
    }
    double inf = INFINITY;
    put_sample(b, f, "_bucket", s, &inf, (double)s->count);
    put_sample(b, f, "_sum", s, NULL, s->value);
    put_sample(b, f, "_count", s, NULL, (double)s->count);
}

static int cmp_series(const void *a, const void *b, void *arg)
{
    const struct srv_mx_series *x = *(const struct srv_mx_series *const *)a;
    const struct srv_mx_series *y = *(const struct srv_mx_series *const *)b;
    size_t n = *(const size_t *)arg;
    for (size_t i = 0; i < n; i++) {
        int c = strcmp(x->vals[i], y->vals[i]);
        if (c)
            return c;
    }
    return 0;
}

static bool put_family(struct sbuf *b, const struct srv_mx_fam *f)
{
    static const char *const types[] = {"counter", "gauge", "histogram"};
    if (f->n_series == 0)
        return true;
    struct srv_mx_series **all = malloc(f->n_series * sizeof(*all));
    if (!all)
        return false;
    size_t n = 0;
    for (size_t i = 0; i < f->tab_cap; i++)
        if (f->tab[i])
            all[n++] = f->tab[i];
    size_t n_labels = f->n_labels;
    qsort_r(all, n, sizeof(*all), cmp_series, &n_labels);
    sb_printf(b, "# HELP %s ", f->name);
    put_escaped(b, f->help, false);
    sb_printf(b, "\n# TYPE %s %s\n", f->name, types[f->type]);
    for (size_t i = 0; i < n; i++)
        put_series(b, f, all[i]);
    free(all);
    return true;
}

void srv_mx_render_to(struct srv_mx *m, struct sbuf *b)
{
    if (!m)
        return;
    if (m->collect)
        m->collect(m, m->collect_arg);
    for (size_t i = 0; i < m->n_fams && !sb_failed(b); i++)
        if (!put_family(b, m->fams[i]))
            b->failed = true;
}

char *srv_mx_render(struct srv_mx *m)
{
    if (!m)
        return NULL;
    struct sbuf b = SBUF_INIT;
    srv_mx_render_to(m, &b);
    return sb_detach(&b);
}
