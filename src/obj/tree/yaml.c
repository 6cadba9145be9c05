/* yaml: YAML text <-> JSON trees (see yaml.h).
 *
 * Decoding walks libyaml's event stream and builds jansson values directly; plain scalars are
 * typed the way go-yaml v2 does it for kubectl (ys_* below).  Encoding writes block-style text
 * directly (ye_* below); it never relies on libyaml's emitter, so the quoting rules are ours and
 * match the decoder exactly. */
#include "obj/tree/yaml.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "obj/tree/jsontext.h"

#define YD_DEPTH_MAX 1000          /* nested collections in one document */
#define YD_EXPAND_MAX 1000000u     /* nodes produced by aliases, per input (alias bombs) */
#define YD_ALIAS_RANGE_LOW 400000.0 /* go-yaml's alias_ratio_range_low, here in bytes */
#define YD_ALIAS_RANGE_HIGH 4000000.0 /* go-yaml's alias_ratio_range_high, here in bytes */
#define YE_SIMPLE_KEY_MAX 1000     /* libyaml refuses implicit keys over 1024 characters */
#define YS_TAG(t) "tag:yaml.org,2002:" t

/* ---------------------------------------------------------------------------------------------
 * Scalar resolution (go-yaml v2 resolve(): YAML 1.1 as kubectl sees it)
 * ------------------------------------------------------------------------------------------- */

enum ys_kind { YS_STR, YS_NULL, YS_BOOL, YS_INT, YS_UINT, YS_REAL };

struct ys {
    enum ys_kind kind;
    int b;
    json_int_t i;
    unsigned long long u; /* YS_UINT: above INT64_MAX, kept as a real in JSON */
    double r;
};

static const char *const ys_kind_name[] = {
    [YS_STR] = "str", [YS_NULL] = "null", [YS_BOOL] = "bool",
    [YS_INT] = "int", [YS_UINT] = "int",  [YS_REAL] = "float",
};

struct ys_word {
    const char *s;
    enum ys_kind kind;
    int b;
    double r;
};

static const struct ys_word ys_words[] = {
    {"y", YS_BOOL, 1, 0},         {"Y", YS_BOOL, 1, 0},          {"yes", YS_BOOL, 1, 0},
    {"Yes", YS_BOOL, 1, 0},       {"YES", YS_BOOL, 1, 0},        {"true", YS_BOOL, 1, 0},
    {"True", YS_BOOL, 1, 0},      {"TRUE", YS_BOOL, 1, 0},       {"on", YS_BOOL, 1, 0},
    {"On", YS_BOOL, 1, 0},        {"ON", YS_BOOL, 1, 0},         {"n", YS_BOOL, 0, 0},
    {"N", YS_BOOL, 0, 0},         {"no", YS_BOOL, 0, 0},         {"No", YS_BOOL, 0, 0},
    {"NO", YS_BOOL, 0, 0},        {"false", YS_BOOL, 0, 0},      {"False", YS_BOOL, 0, 0},
    {"FALSE", YS_BOOL, 0, 0},     {"off", YS_BOOL, 0, 0},        {"Off", YS_BOOL, 0, 0},
    {"OFF", YS_BOOL, 0, 0},       {"~", YS_NULL, 0, 0},          {"null", YS_NULL, 0, 0},
    {"Null", YS_NULL, 0, 0},      {"NULL", YS_NULL, 0, 0},       {".nan", YS_REAL, 0, NAN},
    {".NaN", YS_REAL, 0, NAN},    {".NAN", YS_REAL, 0, NAN},     {".inf", YS_REAL, 0, INFINITY},
    {".Inf", YS_REAL, 0, INFINITY}, {".INF", YS_REAL, 0, INFINITY},
    {"+.inf", YS_REAL, 0, INFINITY}, {"+.Inf", YS_REAL, 0, INFINITY},
    {"+.INF", YS_REAL, 0, INFINITY}, {"-.inf", YS_REAL, 0, -INFINITY},
    {"-.Inf", YS_REAL, 0, -INFINITY}, {"-.INF", YS_REAL, 0, -INFINITY},
};

/* Integer prefixes understood by Go's strconv.ParseInt(s, 0, 64). */
static const struct {
    char c;
    unsigned base;
} ys_prefixes[] = {{'x', 16}, {'X', 16}, {'o', 8}, {'O', 8}, {'b', 2}, {'B', 2}};

#define YS_WORD_MAX 5 /* the longest of ys_words: every longer scalar is none of them */

static int ys_word(const char *s, size_t n, struct ys *y)
{
    for (size_t i = 0; n <= YS_WORD_MAX && i < sizeof(ys_words) / sizeof(ys_words[0]); i++) {
        const struct ys_word *w = &ys_words[i];
        if (strlen(w->s) == n && memcmp(w->s, s, n) == 0) {
            y->kind = w->kind;
            y->b = w->b;
            y->r = w->r;
            return 1;
        }
    }
    return 0;
}

static int ys_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return 99;
}

/* Go's strconv.ParseUint(s, 0, 64) on a string without sign or '_': 0 ok, -1 syntax error,
 * -2 out of range. */
static int ys_parse_uint(const char *s, unsigned long long *out)
{
    unsigned base = 10;
    if (s[0] == '0' && s[1]) {
        base = 8;
        s++;
        for (size_t i = 0; i < sizeof(ys_prefixes) / sizeof(ys_prefixes[0]); i++)
            if (s[0] == ys_prefixes[i].c) {
                base = ys_prefixes[i].base;
                s++;
                break;
            }
    }
    if (!*s)
        return -1;
    unsigned long long v = 0;
    int range = 0;
    for (; *s; s++) {
        unsigned d = (unsigned)ys_digit(*s);
        if (d >= base)
            return -1;
        if (v > (ULLONG_MAX - d) / base)
            range = 1;
        v = v * base + d;
    }
    *out = v;
    return range ? -2 : 0;
}

/* ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ (go-yaml's yamlStyleFloat) */
static int ys_float_syntax(const char *s)
{
    size_t lead = 0, frac = 0, exp = 0;
    if (*s == '+' || *s == '-')
        s++;
    while (*s >= '0' && *s <= '9')
        s++, lead++;
    if (*s == '.') {
        for (s++; *s >= '0' && *s <= '9'; s++)
            frac++;
        if (!lead && !frac)
            return 0;
    } else if (!lead) {
        return 0;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        for (; *s >= '0' && *s <= '9'; s++)
            exp++;
        if (!exp)
            return 0;
    }
    return *s == 0;
}

/* A float Go's ParseFloat accepts (overflow to infinity is an error there: the text stays a
 * string). */
static int ys_float(const char *s, struct ys *y)
{
    if (!ys_float_syntax(s))
        return 0;
    double d = strtod(s, NULL);
    if (isinf(d))
        return 0;
    y->kind = YS_REAL;
    y->r = d;
    return 1;
}

/* Integer (any base, sign, '_' removed) or float; `p` is NUL-terminated without '_'. */
static void ys_number_plain(const char *p, struct ys *y)
{
    int neg = p[0] == '-';
    const char *m = p + (p[0] == '-' || p[0] == '+');
    unsigned long long u = 0;
    int rc = ys_parse_uint(m, &u);
    if (rc == 0 && u <= (unsigned long long)INT64_MAX) {
        y->kind = YS_INT;
        y->i = neg ? -(json_int_t)u : (json_int_t)u;
        return;
    }
    if (rc == 0 && neg && u == (unsigned long long)INT64_MAX + 1) {
        y->kind = YS_INT;
        y->i = INT64_MIN;
        return;
    }
    if (rc == 0 && m == p) {
        y->kind = YS_UINT;
        y->u = u;
        y->r = (double)u;
        return;
    }
    if (!ys_float(p, y))
        y->kind = YS_STR;
}

/* go-yaml drops every '_' before parsing numbers, except after a leading '.'. */
static int ys_number(const char *s, size_t n, struct ys *y)
{
    char small[64];
    char *p = n < sizeof(small) ? small : malloc(n + 1);
    if (!p)
        return -ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] != '_' || s[0] == '.')
            p[k++] = s[i];
    p[k] = 0;
    ys_number_plain(p, y);
    if (p != small)
        free(p);
    return 0;
}

/* Types an untagged plain scalar. */
static int ys_plain(const char *s, size_t n, struct ys *y)
{
    memset(y, 0, sizeof(*y));
    y->kind = YS_STR;
    if (n == 0) {
        y->kind = YS_NULL;
        return 0;
    }
    if (memchr(s, 0, n) || ys_word(s, n, y))
        return 0;
    if ((s[0] >= '0' && s[0] <= '9') || s[0] == '+' || s[0] == '-' || s[0] == '.')
        return ys_number(s, n, y);
    return 0;
}

enum ys_want { YW_ANY, YW_STR, YW_NULL, YW_BOOL, YW_INT, YW_FLOAT };

static const struct {
    const char *tag;
    enum ys_want want;
    const char *name;
} ys_tags[] = {
    {YS_TAG("str"), YW_STR, "str"},       {YS_TAG("binary"), YW_STR, "binary"},
    {YS_TAG("null"), YW_NULL, "null"},    {YS_TAG("bool"), YW_BOOL, "bool"},
    {YS_TAG("int"), YW_INT, "int"},       {YS_TAG("float"), YW_FLOAT, "float"},
};

/* Index into ys_tags, or -1 (unknown tags, "!" included, make strings). */
static int ys_tag_index(const char *tag)
{
    for (size_t i = 0; i < sizeof(ys_tags) / sizeof(ys_tags[0]); i++)
        if (strcmp(tag, ys_tags[i].tag) == 0)
            return (int)i;
    return -1;
}

/* Whether the resolved `y` satisfies `want`; an int asked as a float becomes one. */
static int ys_fits(struct ys *y, enum ys_want want)
{
    static const enum ys_kind kinds[] = {[YW_NULL] = YS_NULL, [YW_BOOL] = YS_BOOL};
    switch (want) {
    case YW_INT:
        return y->kind == YS_INT || y->kind == YS_UINT;
    case YW_FLOAT:
        if (y->kind == YS_INT)
            y->r = (double)y->i;
        if (y->kind == YS_INT || y->kind == YS_UINT)
            y->kind = YS_REAL;
        return y->kind == YS_REAL;
    case YW_NULL:
    case YW_BOOL:
        return y->kind == kinds[want];
    default:
        return 1;
    }
}

/* Resolves a scalar: tag (NULL when none), plain (untagged plain style).  -EINVAL when a tag
 * asks for a type the text cannot have; *tag_name then names that tag. */
static int ys_resolve(const char *s, size_t n, const char *tag, int plain, struct ys *y,
                      const char **tag_name)
{
    int t = tag ? ys_tag_index(tag) : -1;
    enum ys_want want = t >= 0 ? ys_tags[t].want : (!tag && plain) ? YW_ANY : YW_STR;
    if (want == YW_STR) {
        memset(y, 0, sizeof(*y));
        y->kind = YS_STR;
        return 0;
    }
    int rc = ys_plain(s, n, y);
    if (rc < 0)
        return rc;
    if (!ys_fits(y, want)) {
        *tag_name = ys_tags[t].name;
        return -EINVAL;
    }
    return 0;
}

static json_t *ys_json(const struct ys *y, const char *s, size_t n)
{
    switch (y->kind) {
    case YS_NULL:
        return json_null();
    case YS_BOOL:
        return json_boolean(y->b);
    case YS_INT:
        return json_integer(y->i);
    case YS_UINT:
    case YS_REAL:
        return json_real(y->r);
    default:
        return json_stringn(s, n);
    }
}

/* Go's strconv.FormatFloat(d, 'g', -1, 32), with sigs.k8s.io/yaml's names for the specials. */
static void ys_format_f32(double d, char *out, size_t cap)
{
    const double lim = ldexp(2.0 - ldexp(1.0, -24), 127); /* rounds to float infinity */
    if (isnan(d) || fabs(d) >= lim) {
        snprintf(out, cap, "%s", isnan(d) ? ".nan" : d > 0 ? ".inf" : "-.inf");
        return;
    }
    float f = (float)d;
    char e[32];
    int p = 1;
    for (; p <= 9; p++) {
        snprintf(e, sizeof(e), "%.*e", p - 1, (double)f);
        if (strtof(e, NULL) == f || p == 9)
            break;
    }
    long exp = strtol(strchr(e, 'e') + 1, NULL, 10);
    if (exp < -4 || exp >= 6)
        snprintf(out, cap, "%s", e);
    else
        snprintf(out, cap, "%.*f", p - 1 - (int)exp > 0 ? p - 1 - (int)exp : 0, (double)f);
}

/* The string a resolved key becomes (sigs.k8s.io/yaml's key conversion); malloc'd. */
static char *ys_key_text(const struct ys *y, const char *s, size_t n, size_t *out_len)
{
    char tmp[48];
    switch (y->kind) {
    case YS_STR:
        break;
    case YS_NULL:
    case YS_BOOL:
        snprintf(tmp, sizeof(tmp), "%s", y->kind == YS_NULL ? "null" : y->b ? "true" : "false");
        break;
    case YS_INT:
        snprintf(tmp, sizeof(tmp), "%" JSON_INTEGER_FORMAT, y->i);
        break;
    case YS_UINT:
        snprintf(tmp, sizeof(tmp), "%llu", y->u);
        break;
    default:
        ys_format_f32(y->r, tmp, sizeof(tmp));
        break;
    }
    if (y->kind != YS_STR) {
        s = tmp;
        n = strlen(tmp);
    }
    char *k = malloc(n + 1);
    if (k) {
        memcpy(k, s, n);
        k[n] = 0;
        *out_len = n;
    }
    return k;
}

/* ---------------------------------------------------------------------------------------------
 * Decoder
 * ------------------------------------------------------------------------------------------- */

struct yd_anchor {
    json_t *node;  /* anchored collection, or NULL for a scalar */
    char *raw;     /* scalar: its text (raw_len bytes), tag and style, resolved again per use */
    size_t raw_len;
    char *tag;
    int plain;
    size_t count;  /* nodes in the anchored value (aliases inside counted in full) */
    size_t bytes;  /* its size (yd.bytes), aliases inside counted in full */
    int height;    /* nesting levels of the anchored value */
};

struct yd {
    yaml_parser_t parser;
    const char *buf;
    size_t len;
    struct err *err;
    struct yd_anchor *anchors;
    size_t n_anchors, cap_anchors;
    json_t *anchor_index; /* anchor name -> index into anchors */
    size_t nodes;         /* nodes built so far */
    size_t expanded;      /* nodes copied through aliases */
    size_t bytes;         /* this document's size: each node's scalar bytes and 1 */
    size_t alias_bytes;   /* the part of it copied through aliases */
    int depth;            /* collections open around the current node */
    int height;           /* nesting levels of the node built last */
};

struct yd_key {
    char *s;
    size_t n;
    int merge;
};

struct yd_map {
    json_t *obj;
    json_t *seen; /* explicit keys: those may not repeat, and win over merged ones */
    int height;
};

static int yd_node(struct yd *d, const yaml_event_t *ev, json_t **out);

__attribute__((format(printf, 3, 4))) static int yd_fail(struct yd *d, yaml_mark_t m,
                                                         const char *fmt, ...)
{
    char msg[ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return err_set(d->err, -EINVAL, "line %zu, column %zu: %s", m.line + 1, m.column + 1, msg);
}

static int yd_oom(struct yd *d)
{
    return err_oom(d->err);
}

/* Line and column of a byte offset (reader errors carry only an offset). */
static yaml_mark_t yd_offset_mark(const struct yd *d, size_t off)
{
    yaml_mark_t m = {off, 0, 0};
    size_t bol = 0;
    for (size_t i = 0; i < off && i < d->len; i++)
        if (d->buf[i] == '\n') {
            m.line++;
            bol = i + 1;
        }
    m.column = off >= bol ? off - bol : 0;
    return m;
}

static int yd_parse_error(struct yd *d)
{
    const yaml_parser_t *p = &d->parser;
    if (p->error == YAML_MEMORY_ERROR)
        return yd_oom(d);
    yaml_mark_t m = p->problem_mark;
    if (p->error == YAML_READER_ERROR)
        m = yd_offset_mark(d, p->problem_offset);
    const char *problem = p->problem ? p->problem : "invalid YAML";
    if (p->context)
        return yd_fail(d, m, "%s %s", problem, p->context);
    return yd_fail(d, m, "%s", problem);
}

static int yd_next(struct yd *d, yaml_event_t *ev)
{
    if (!yaml_parser_parse(&d->parser, ev))
        return yd_parse_error(d);
    return 0;
}

static void yd_anchor_release(struct yd_anchor *a)
{
    json_decref(a->node);
    free(a->raw);
    free(a->tag);
    memset(a, 0, sizeof(*a));
}

static void yd_anchors_reset(struct yd *d)
{
    for (size_t i = 0; i < d->n_anchors; i++)
        yd_anchor_release(&d->anchors[i]);
    d->n_anchors = 0;
    json_object_clear(d->anchor_index);
}

static struct yd_anchor *yd_anchor_find(struct yd *d, const char *name)
{
    json_t *idx = json_object_get(d->anchor_index, name);
    return idx ? &d->anchors[json_integer_value(idx)] : NULL;
}

/* Records an anchor, taking what *a holds (released on failure too). */
static int yd_anchor_put(struct yd *d, const char *name, struct yd_anchor *a)
{
    struct yd_anchor *old = yd_anchor_find(d, name);
    if (old) {
        yd_anchor_release(old);
        *old = *a;
        return 0;
    }
    if (d->n_anchors == d->cap_anchors) {
        size_t cap = d->cap_anchors ? d->cap_anchors * 2 : 16;
        struct yd_anchor *v = realloc(d->anchors, cap * sizeof(*v));
        if (!v)
            goto oom;
        d->anchors = v;
        d->cap_anchors = cap;
    }
    if (json_object_set_new(d->anchor_index, name, json_integer((json_int_t)d->n_anchors)) < 0)
        goto oom;
    d->anchors[d->n_anchors++] = *a;
    return 0;
oom:
    yd_anchor_release(a);
    return yd_oom(d);
}

static int yd_anchor_scalar(struct yd *d, const yaml_event_t *ev)
{
    const char *tag = (const char *)ev->data.scalar.tag;
    struct yd_anchor a = {.raw_len = ev->data.scalar.length,
                          .plain = ev->data.scalar.plain_implicit,
                          .count = 1,
                          .bytes = ev->data.scalar.length + 1,
                          .height = 1};
    a.raw = malloc(a.raw_len + 1);
    a.tag = tag ? strdup(tag) : NULL;
    if (!a.raw || (tag && !a.tag)) {
        yd_anchor_release(&a);
        return yd_oom(d);
    }
    memcpy(a.raw, ev->data.scalar.value, a.raw_len);
    a.raw[a.raw_len] = 0;
    return yd_anchor_put(d, (const char *)ev->data.scalar.anchor, &a);
}

/* Resolves a scalar's text; on success *y is its type. */
static int yd_resolve(struct yd *d, const char *s, size_t n, const char *tag, int plain,
                      yaml_mark_t m, struct ys *y)
{
    const char *want = NULL;
    int rc = ys_resolve(s, n, tag, plain, y, &want);
    if (rc == -ENOMEM)
        return yd_oom(d);
    if (rc < 0)
        return yd_fail(d, m, "cannot decode !!%s `%.*s` as a !!%s", ys_kind_name[y->kind],
                       n > 64 ? 64 : (int)n, s, want);
    return 0;
}

static int yd_scalar_value(struct yd *d, const char *s, size_t n, const char *tag, int plain,
                           yaml_mark_t m, json_t **out)
{
    struct ys y;
    int rc = yd_resolve(d, s, n, tag, plain, m, &y);
    if (rc < 0)
        return rc;
    if (y.kind == YS_REAL && !isfinite(y.r))
        return yd_fail(d, m, "non-finite number not representable in JSON");
    *out = ys_json(&y, s, n);
    return *out ? 0 : yd_oom(d);
}

static int yd_scalar(struct yd *d, const yaml_event_t *ev, json_t **out)
{
    int rc = yd_scalar_value(d, (const char *)ev->data.scalar.value, ev->data.scalar.length,
                             (const char *)ev->data.scalar.tag, ev->data.scalar.plain_implicit,
                             ev->start_mark, out);
    if (rc < 0)
        return rc;
    d->nodes++;
    d->bytes += ev->data.scalar.length + 1;
    d->height = 1;
    if (ev->data.scalar.anchor && (rc = yd_anchor_scalar(d, ev)) < 0) {
        json_decref(*out);
        *out = NULL;
    }
    return rc;
}

/* go-yaml's allowedAliasRatio (gopkg.in/yaml.v3 decode.go; v2 alike): the share of a
 * document that may come from aliases, 99% up to the low end of the range, 10% from its high
 * end, scaled in between. */
static double yd_alias_ratio(double size)
{
    if (size <= YD_ALIAS_RANGE_LOW)
        return 0.99;
    if (size >= YD_ALIAS_RANGE_HIGH)
        return 0.10;
    return 0.99 - 0.89 * ((size - YD_ALIAS_RANGE_LOW) / (YD_ALIAS_RANGE_HIGH - YD_ALIAS_RANGE_LOW));
}

/* go-yaml's check in decoder.unmarshal (more than 100 aliased and 1000 in all, and an aliased
 * share over yd_alias_ratio), counted in bytes rather than nodes: go-yaml counts a 1 MB scalar
 * as one node, and 3,000 aliases of it made 3 GB. */
static bool yd_alias_excessive(const struct yd *d, const struct yd_anchor *a)
{
    double alias = (double)d->alias_bytes + (double)a->bytes;
    double size = (double)d->bytes + (double)a->bytes;
    return alias > 100 && size > 1000 && alias / size > yd_alias_ratio(size);
}

/* The anchor an alias names, charged against the expansion and depth limits. */
static int yd_alias_target(struct yd *d, const yaml_event_t *ev, struct yd_anchor **out)
{
    const char *name = (const char *)ev->data.alias.anchor;
    struct yd_anchor *a = yd_anchor_find(d, name);
    if (!a)
        return yd_fail(d, ev->start_mark, "unknown anchor \"%.64s\"", name);
    if (a->count > YD_EXPAND_MAX - d->expanded)
        return yd_fail(d, ev->start_mark, "aliases expand to more than %u nodes", YD_EXPAND_MAX);
    if (d->depth + a->height > YD_DEPTH_MAX)
        return yd_fail(d, ev->start_mark, "nesting deeper than %d levels", YD_DEPTH_MAX);
    if (yd_alias_excessive(d, a))
        return yd_fail(d, ev->start_mark, "document contains excessive aliasing");
    d->bytes += a->bytes;
    d->alias_bytes += a->bytes;
    d->expanded += a->count;
    d->nodes += a->count;
    d->height = a->height;
    *out = a;
    return 0;
}

static int yd_alias(struct yd *d, const yaml_event_t *ev, json_t **out)
{
    struct yd_anchor *a = NULL;
    int rc = yd_alias_target(d, ev, &a);
    if (rc < 0)
        return rc;
    if (!a->node)
        return yd_scalar_value(d, a->raw, a->raw_len, a->tag, a->plain, ev->start_mark, out);
    *out = json_deep_copy(a->node);
    return *out ? 0 : yd_oom(d);
}

/* Completes a collection: counts it, records its anchor, hands it out. */
static int yd_finish(struct yd *d, const yaml_char_t *anchor, json_t *node,
                     const size_t at0[2], int height, json_t **out)
{
    d->nodes++;
    d->bytes++;
    d->height = height + 1;
    if (anchor) {
        struct yd_anchor a = {.node = json_incref(node),
                              .count = d->nodes - at0[0],
                              .bytes = d->bytes - at0[1],
                              .height = d->height};
        int rc = yd_anchor_put(d, (const char *)anchor, &a);
        if (rc < 0) {
            json_decref(node);
            return rc;
        }
    }
    *out = node;
    return 0;
}

static int yd_enter(struct yd *d, const yaml_event_t *start)
{
    if (d->depth >= YD_DEPTH_MAX)
        return yd_fail(d, start->start_mark, "nesting deeper than %d levels", YD_DEPTH_MAX);
    d->depth++;
    return 0;
}

static int yd_seq_items(struct yd *d, json_t *arr, int *height)
{
    for (;;) {
        yaml_event_t ev;
        json_t *v = NULL;
        int rc = yd_next(d, &ev);
        if (rc < 0)
            return rc;
        if (ev.type == YAML_SEQUENCE_END_EVENT) {
            yaml_event_delete(&ev);
            return 0;
        }
        rc = yd_node(d, &ev, &v);
        yaml_event_delete(&ev);
        if (rc < 0)
            return rc;
        if (d->height > *height)
            *height = d->height;
        if (json_array_append_new(arr, v) < 0)
            return yd_oom(d);
    }
}

static int yd_sequence(struct yd *d, const yaml_event_t *start, json_t **out)
{
    size_t at0[2] = {d->nodes, d->bytes}; /* yd_finish */
    int height = 0;
    int rc = yd_enter(d, start);
    if (rc < 0)
        return rc;
    json_t *arr = json_array();
    rc = arr ? yd_seq_items(d, arr, &height) : yd_oom(d);
    d->depth--;
    if (rc < 0) {
        json_decref(arr);
        return rc;
    }
    return yd_finish(d, start->data.sequence_start.anchor, arr, at0, height, out);
}

/* The string a key scalar (or alias of one) stands for; `<<` is flagged as a merge. */
static int yd_key(struct yd *d, const yaml_event_t *ev, struct yd_key *k)
{
    const char *s, *tag;
    size_t n;
    int plain, rc;
    struct ys y;
    if (ev->type == YAML_SCALAR_EVENT) {
        s = (const char *)ev->data.scalar.value;
        n = ev->data.scalar.length;
        tag = (const char *)ev->data.scalar.tag;
        plain = ev->data.scalar.plain_implicit;
        if (!tag && plain && n == 2 && memcmp(s, "<<", 2) == 0) {
            k->merge = 1;
            return 0;
        }
        d->bytes += n + 1;
        if (ev->data.scalar.anchor && (rc = yd_anchor_scalar(d, ev)) < 0)
            return rc;
    } else if (ev->type == YAML_ALIAS_EVENT) {
        struct yd_anchor *a = NULL;
        if ((rc = yd_alias_target(d, ev, &a)) < 0)
            return rc;
        if (a->node)
            return yd_fail(d, ev->start_mark, "mapping key must be a scalar");
        s = a->raw, n = a->raw_len, tag = a->tag, plain = a->plain;
    } else {
        return yd_fail(d, ev->start_mark, "mapping key must be a scalar");
    }
    if ((rc = yd_resolve(d, s, n, tag, plain, ev->start_mark, &y)) < 0)
        return rc;
    k->s = ys_key_text(&y, s, n, &k->n);
    return k->s ? 0 : yd_oom(d);
}

/* `<<: {..}` or `<<: [{..}, ..]`: keys not yet in obj are added; earlier sources win. */
static int yd_merge(struct yd *d, json_t *obj, json_t *src, yaml_mark_t m)
{
    size_t n = json_is_array(src) ? json_array_size(src) : 1;
    for (size_t i = 0; i < n; i++) {
        json_t *one = json_is_array(src) ? json_array_get(src, i) : src;
        if (!json_is_object(one))
            return yd_fail(d, m, "map merge requires map or sequence of maps as the value");
    }
    for (size_t i = 0; i < n; i++) {
        json_t *one = json_is_array(src) ? json_array_get(src, i) : src;
        for (void *it = json_object_iter(one); it; it = json_object_iter_next(one, it)) {
            const char *key = json_object_iter_key(it);
            size_t len = json_object_iter_key_len(it);
            if (json_object_getn(obj, key, len))
                continue;
            if (json_object_setn(obj, key, len, json_object_iter_value(it)) < 0)
                return yd_oom(d);
        }
    }
    return 0;
}

/* Stores an explicit key; takes v. */
static int yd_map_set(struct yd *d, struct yd_map *m, const struct yd_key *k, json_t *v,
                      yaml_mark_t km)
{
    if (json_object_getn(m->seen, k->s, k->n)) {
        json_decref(v);
        return yd_fail(d, km, "duplicate key \"%.*s\"", k->n > 64 ? 64 : (int)k->n, k->s);
    }
    if (json_object_setn_new(m->seen, k->s, k->n, json_null()) < 0 ||
        json_object_setn_new(m->obj, k->s, k->n, v) < 0)
        return yd_oom(d);
    return 0;
}

static int yd_map_entry(struct yd *d, struct yd_map *m, const yaml_event_t *kev)
{
    struct yd_key k = {0};
    yaml_event_t vev;
    json_t *v = NULL;
    int rc = yd_key(d, kev, &k);
    if (rc < 0)
        goto out;
    if ((rc = yd_next(d, &vev)) < 0)
        goto out;
    rc = yd_node(d, &vev, &v);
    yaml_event_delete(&vev);
    if (rc < 0)
        goto out;
    if (d->height > m->height)
        m->height = d->height;
    if (!k.merge) {
        rc = yd_map_set(d, m, &k, v, kev->start_mark);
        v = NULL;
    } else {
        rc = yd_merge(d, m->obj, v, kev->start_mark);
    }
out:
    json_decref(v);
    free(k.s);
    return rc;
}

static int yd_map_entries(struct yd *d, struct yd_map *m)
{
    for (;;) {
        yaml_event_t kev;
        int rc = yd_next(d, &kev);
        if (rc < 0)
            return rc;
        if (kev.type == YAML_MAPPING_END_EVENT) {
            yaml_event_delete(&kev);
            return 0;
        }
        rc = yd_map_entry(d, m, &kev);
        yaml_event_delete(&kev);
        if (rc < 0)
            return rc;
    }
}

static int yd_mapping(struct yd *d, const yaml_event_t *start, json_t **out)
{
    size_t at0[2] = {d->nodes, d->bytes}; /* yd_finish */
    struct yd_map m = {json_object(), json_object(), 0};
    int rc = yd_enter(d, start);
    if (rc < 0)
        goto out;
    rc = m.obj && m.seen ? yd_map_entries(d, &m) : yd_oom(d);
    d->depth--;
    if (rc == 0) {
        rc = yd_finish(d, start->data.mapping_start.anchor, m.obj, at0, m.height, out);
        m.obj = NULL;
    }
out:
    json_decref(m.obj);
    json_decref(m.seen);
    return rc;
}

static int yd_node(struct yd *d, const yaml_event_t *ev, json_t **out)
{
    switch (ev->type) {
    case YAML_SCALAR_EVENT:
        return yd_scalar(d, ev, out);
    case YAML_ALIAS_EVENT:
        return yd_alias(d, ev, out);
    case YAML_SEQUENCE_START_EVENT:
        return yd_sequence(d, ev, out);
    case YAML_MAPPING_START_EVENT:
        return yd_mapping(d, ev, out);
    default:
        return yd_fail(d, ev->start_mark, "unexpected YAML event");
    }
}

/* One document (its DOCUMENT-START already read); a null document is skipped, as kubectl
 * skips empty ones. */
static int yd_document(struct yd *d, json_t *docs)
{
    yaml_event_t ev;
    json_t *v = NULL;
    yd_anchors_reset(d);
    d->bytes = d->alias_bytes = 0; /* go-yaml decodes, and counts, one document at a time */
    int rc = yd_next(d, &ev);
    if (rc < 0)
        return rc;
    rc = yd_node(d, &ev, &v);
    yaml_event_delete(&ev);
    if (rc < 0)
        return rc;
    if ((rc = yd_next(d, &ev)) < 0)
        goto out;
    yaml_event_delete(&ev);
    if (!json_is_null(v) && json_array_append(docs, v) < 0)
        rc = yd_oom(d);
out:
    json_decref(v);
    return rc;
}

static int yd_stream(struct yd *d, json_t *docs)
{
    for (;;) {
        yaml_event_t ev;
        int rc = yd_next(d, &ev);
        if (rc < 0)
            return rc;
        yaml_event_type_t type = ev.type;
        yaml_event_delete(&ev);
        if (type == YAML_STREAM_END_EVENT)
            return 0;
        if (type == YAML_DOCUMENT_START_EVENT && (rc = yd_document(d, docs)) < 0)
            return rc;
    }
}

int yaml_decode(const char *buf, size_t len, json_t **out_docs, struct err *err)
{
    struct yd d;
    json_t *docs = NULL;
    char *fixed = NULL;
    int rc;
    if (len > YAML_INPUT_MAX)
        return err_set(err, -EFBIG, "input too large: %zu bytes (limit %u)", len,
                       YAML_INPUT_MAX);
    /* JSON input: UTF-16 surrogate escapes become the characters they encode, raw line
     * breaks of YAML's own (NEL, LS, PS) inside strings stay characters */
    if (buf && jsontext_is_json(buf, len) && jsontext_rewrite(buf, len, &fixed, &len) < 0)
        return err_oom(err);
    buf = fixed ? fixed : buf;
    memset(&d, 0, sizeof(d));
    d.err = err;
    d.buf = buf ? buf : "";
    d.len = buf ? len : 0;
    if (!yaml_parser_initialize(&d.parser))
        return err_oom(err);
    yaml_parser_set_input_string(&d.parser, (const unsigned char *)d.buf, d.len);
    d.anchor_index = json_object();
    docs = json_array();
    rc = d.anchor_index && docs ? yd_stream(&d, docs) : yd_oom(&d);
    if (rc == 0) {
        *out_docs = docs;
        docs = NULL;
    }
    json_decref(docs);
    yd_anchors_reset(&d);
    free(d.anchors);
    json_decref(d.anchor_index);
    yaml_parser_delete(&d.parser);
    free(fixed);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Files
 * ------------------------------------------------------------------------------------------- */

/* Reads all of fd into a malloc'd buffer; -EFBIG past YAML_INPUT_MAX. */
static int yf_read(int fd, char **out, size_t *out_len)
{
    size_t cap = 0, n = 0;
    char *buf = NULL;
    int rc = 0;
    for (;;) {
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 65536;
            if (ncap > (size_t)YAML_INPUT_MAX + 1)
                ncap = (size_t)YAML_INPUT_MAX + 1;
            char *nb = ncap > cap ? realloc(buf, ncap) : NULL;
            if (!nb) {
                rc = ncap > cap ? -ENOMEM : -EFBIG;
                goto out;
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rc = -errno;
            goto out;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    if (n > YAML_INPUT_MAX)
        rc = -EFBIG;
out:
    if (rc < 0) {
        free(buf);
        return rc;
    }
    *out = buf;
    *out_len = n;
    return 0;
}

int yaml_decode_file(const char *path, json_t **out_docs, struct err *err)
{
    if (!path)
        return err_set(err, -EINVAL, "no file name");
    int is_stdin = strcmp(path, "-") == 0;
    const char *name = is_stdin ? "<stdin>" : path;
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return err_set(err, -e, "%s: %s", name, strerror(e));
    }
    char *buf = NULL;
    size_t len = 0;
    int rc = yf_read(fd, &buf, &len);
    if (!is_stdin)
        close(fd);
    if (rc == -EFBIG)
        return err_set(err, rc, "%s: file larger than %u bytes", name, YAML_INPUT_MAX);
    if (rc < 0)
        return err_set(err, rc, "%s: %s", name, strerror(-rc));
    rc = yaml_decode(buf, len, out_docs, err);
    free(buf);
    if (rc < 0)
        err_prefix(err, name);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Encoder
 * ------------------------------------------------------------------------------------------- */

struct ye {
    char *p;
    size_t n, cap;
    int oom;
};

static void ye_put(struct ye *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->cap - b->n < n + 1) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->n < n + 1 && cap < SIZE_MAX / 2)
            cap *= 2;
        char *p = cap - b->n >= n + 1 ? realloc(b->p, cap) : NULL;
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

static void ye_puts(struct ye *b, const char *s)
{
    ye_put(b, s, strlen(s));
}

static void ye_indent(struct ye *b, int n)
{
    static const char spaces[] = "                ";
    for (; n > 0; n -= 16)
        ye_put(b, spaces, n > 16 ? 16 : (size_t)n);
}

/* Code point at s (n > 0 bytes, UTF-8 as jansson guarantees); its length in *len. */
static uint32_t ye_cp(const unsigned char *s, size_t n, size_t *len)
{
    size_t l = s[0] < 0x80 ? 1 : s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
    static const unsigned char lead_mask[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
    if (l > n)
        l = 1;
    uint32_t c = s[0] & lead_mask[l];
    for (size_t i = 1; i < l; i++)
        c = (c << 6) | (s[i] & 0x3f);
    *len = l;
    return c;
}

/* Characters that must be escaped: YAML forbids them raw, or reads them as line breaks. */
static int ye_cp_special(uint32_t c)
{
    return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029 || c == 0xfeff ||
           c == 0xfffe || c == 0xffff;
}

static const char *ye_short_escape(uint32_t c)
{
    static const char *const esc[] = {
        ['\0'] = "\\0", ['\b'] = "\\b", ['\t'] = "\\t", ['\n'] = "\\n",
        ['\f'] = "\\f", ['\r'] = "\\r", ['"'] = "\\\"", ['\\'] = "\\\\",
    };
    return c < sizeof(esc) / sizeof(esc[0]) ? esc[c] : NULL;
}

static void ye_dquote(struct ye *b, const char *s, size_t n)
{
    size_t run = 0, i = 0;
    ye_put(b, "\"", 1);
    while (i < n) {
        size_t l;
        uint32_t c = ye_cp((const unsigned char *)s + i, n - i, &l);
        const char *esc = ye_short_escape(c);
        if (esc || ye_cp_special(c)) {
            char u[16]; /* "\\u" and up to 8 hex digits */
            ye_put(b, s + run, i - run);
            if (!esc)
                snprintf(u, sizeof(u), "\\u%04X", (unsigned)c);
            ye_puts(b, esc ? esc : u);
            run = i + l;
        }
        i += l;
    }
    ye_put(b, s + run, n - run);
    ye_put(b, "\"", 1);
}

/* Whether the characters of s may appear in a plain scalar. */
static int ye_plain_chars(const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t l;
        uint32_t c = ye_cp((const unsigned char *)s + i, n - i, &l);
        if (ye_cp_special(c) || (c == ':' && i + 1 < n && s[i + 1] == ' ') ||
            (c == '#' && i > 0 && s[i - 1] == ' '))
            return 0;
        i += l;
    }
    return 1;
}

/* Whether s can be written plain and decode back to the same string. */
static int ye_plain_ok(const char *s, size_t n)
{
    static const char lead[] = "-?:,[]{}#&*!|>'\"%@`";
    if (n == 0 || s[0] == ' ' || s[n - 1] == ' ' || s[n - 1] == ':')
        return 0;
    if (memchr(lead, s[0], sizeof(lead) - 1) && !(s[0] == '-' && n > 1 && s[1] != ' '))
        return 0;
    if (n >= 3 && (memcmp(s, "---", 3) == 0 || memcmp(s, "...", 3) == 0))
        return 0;
    if ((n == 2 && memcmp(s, "<<", 2) == 0) || !ye_plain_chars(s, n))
        return 0;
    /* YAML 1.1 base-60 numbers (12:30): go-yaml reads them as strings, other readers don't. */
    if (s[0] >= '0' && s[0] <= '9' && memchr(s, ':', n))
        return 0;
    struct ys y;
    return ys_plain(s, n, &y) == 0 && y.kind == YS_STR;
}

/* Multi-line text that reads well as a literal block (| style). */
static int ye_literal_ok(const char *s, size_t n)
{
    int content = 0;
    if (!memchr(s, '\n', n))
        return 0;
    for (size_t i = 0; i < n;) {
        size_t l;
        uint32_t c = ye_cp((const unsigned char *)s + i, n - i, &l);
        if (c != '\n' && ye_cp_special(c))
            return 0;
        content |= c != '\n';
        i += l;
    }
    return content;
}

/* `|` block at `indent` (the column of the enclosing collection); no final newline. */
static void ye_literal(struct ye *b, const char *s, size_t n, int indent)
{
    size_t trail = 0;
    while (trail < n && s[n - 1 - trail] == '\n')
        trail++;
    ye_puts(b, s[0] == ' ' || s[0] == '\n' ? "|2" : "|");
    ye_puts(b, trail == 0 ? "-" : trail == 1 ? "" : "+");
    const char *p = s, *end = s + n - trail;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
        ye_put(b, "\n", 1);
        if (l) {
            ye_indent(b, indent + 2);
            ye_put(b, p, l);
        }
        p += l + 1;
    }
    for (size_t i = 1; i < trail; i++)
        ye_put(b, "\n", 1);
}

static void ye_string(struct ye *b, const char *s, size_t n, int indent, int block_ok)
{
    if (ye_plain_ok(s, n))
        ye_put(b, s, n);
    else if (block_ok && ye_literal_ok(s, n))
        ye_literal(b, s, n, indent);
    else
        ye_dquote(b, s, n);
}

/* Shortest %g that reads back exactly, always recognisable as a float. */
static void ye_real(struct ye *b, double v)
{
    char tmp[40];
    for (int p = 15; p <= 17; p++) {
        snprintf(tmp, sizeof(tmp), "%.*g", p, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    ye_puts(b, tmp);
    if (!strpbrk(tmp, ".en"))
        ye_puts(b, ".0");
}

/* A scalar (or {} / []) without its newline; indent is the enclosing collection's column. */
static void ye_scalar(struct ye *b, const json_t *v, int indent, int block_ok)
{
    char tmp[32];
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        ye_puts(b, "{}");
        break;
    case JSON_ARRAY:
        ye_puts(b, "[]");
        break;
    case JSON_STRING:
        ye_string(b, json_string_value(v), json_string_length(v), indent, block_ok);
        break;
    case JSON_INTEGER:
        snprintf(tmp, sizeof(tmp), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        ye_puts(b, tmp);
        break;
    case JSON_REAL:
        ye_real(b, json_real_value(v));
        break;
    default:
        ye_puts(b, json_is_true(v) ? "true" : json_is_false(v) ? "false" : "null");
        break;
    }
}

static int ye_is_block(const json_t *v)
{
    return json_object_size(v) > 0 || json_array_size(v) > 0;
}

static void ye_map(struct ye *b, const json_t *obj, int indent, int first_inline);
static void ye_seq(struct ye *b, const json_t *arr, int indent, int first_inline);

/* A key: plain or double-quoted, in `? key` form when too long for an implicit key. */
static void ye_key(struct ye *b, const char *k, size_t n, int indent)
{
    struct ye q = {0};
    if (ye_plain_ok(k, n) && n <= YE_SIMPLE_KEY_MAX) {
        ye_put(b, k, n);
        return;
    }
    ye_dquote(&q, k, n);
    if (q.oom) {
        b->oom = 1;
    } else if (q.n <= YE_SIMPLE_KEY_MAX) {
        ye_put(b, q.p, q.n);
    } else {
        ye_puts(b, "? ");
        ye_put(b, q.p, q.n);
        ye_put(b, "\n", 1);
        ye_indent(b, indent);
    }
    free(q.p);
}

/* What follows `key:` in a mapping whose keys sit at `indent`. */
static void ye_value(struct ye *b, const json_t *v, int indent)
{
    if (json_object_size(v) > 0) {
        ye_put(b, "\n", 1);
        ye_map(b, v, indent + 2, 0);
    } else if (json_array_size(v) > 0) {
        ye_put(b, "\n", 1);
        ye_seq(b, v, indent, 0);
    } else {
        ye_put(b, " ", 1);
        ye_scalar(b, v, indent, 1);
        ye_put(b, "\n", 1);
    }
}

static void ye_map(struct ye *b, const json_t *obj, int indent, int first_inline)
{
    int first = 1;
    for (void *it = json_object_iter((json_t *)obj); it && !b->oom;
         it = json_object_iter_next((json_t *)obj, it)) {
        if (!first || !first_inline)
            ye_indent(b, indent);
        first = 0;
        ye_key(b, json_object_iter_key(it), json_object_iter_key_len(it), indent);
        ye_put(b, ":", 1);
        ye_value(b, json_object_iter_value(it), indent);
    }
}

/* Items as `- x` at column `indent` (kubectl style: no extra indent under a key). */
static void ye_seq(struct ye *b, const json_t *arr, int indent, int first_inline)
{
    for (size_t i = 0; i < json_array_size(arr) && !b->oom; i++) {
        const json_t *v = json_array_get(arr, i);
        if (i > 0 || !first_inline)
            ye_indent(b, indent);
        ye_put(b, "- ", 2);
        if (json_object_size(v) > 0) {
            ye_map(b, v, indent + 2, 1);
        } else if (json_array_size(v) > 0) {
            ye_seq(b, v, indent + 2, 1);
        } else {
            ye_scalar(b, v, indent, 1);
            ye_put(b, "\n", 1);
        }
    }
}

char *yaml_encode(const json_t *v)
{
    struct ye b = {0};
    if (!v)
        return NULL;
    if (json_is_object(v) && ye_is_block(v)) {
        ye_map(&b, v, 0, 0);
    } else if (ye_is_block(v)) {
        ye_seq(&b, v, 0, 0);
    } else {
        ye_scalar(&b, v, 0, 0);
        ye_put(&b, "\n", 1);
    }
    if (b.oom) {
        free(b.p);
        return NULL;
    }
    return b.p;
}
