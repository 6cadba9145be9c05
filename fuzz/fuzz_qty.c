/* fuzz_qty: any bytes given to the quantity parser (obj/base/qty.c).  Whatever they are, the
 * parser returns one of its errors or a well-formed quantity (at most QTY_DIGITS significant
 * digits, no leading or trailing zero, no negative zero), and a quantity's canonical form reads
 * back as the same value.  The same bytes as a JSON string read as
 * their trimmed text does; as a JSON document they read without harm.  Split at the first ',',
 * the two halves compare both ways alike and add up exactly (a + b - b is a).  Built as a
 * libFuzzer target with clang (-DJAXSET_FUZZ=ON) and linked with fuzz/replay.c as the CTest test
 * fuzz/fuzz_qty. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj/base/qty.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fz_die(const char *why, const char *s, size_t n)
{
    fprintf(stderr, "fuzz_qty: %s: \"%.*s\"\n", why, (int)n, s);
    abort();
}

static bool fz_known(int rc)
{
    return rc == 0 || rc == QTY_EFORMAT || rc == QTY_ENUMERIC || rc == QTY_ESUFFIX ||
           rc == QTY_ERANGE;
}

/* The struct's own rules. */
static bool fz_well_formed(const struct qty *q)
{
    if (q->n == 0)
        return !q->neg && q->exp == 0;
    if (q->n > QTY_DIGITS || q->sig[0] == '0' || q->sig[q->n - 1] == '0' || q->exp < -9)
        return false;
    for (int i = 0; i < q->n; i++)
        if (q->sig[i] < '0' || q->sig[i] > '9')
            return false;
    return true;
}

/* The canonical form reads back as the same value (not always as the same text: BinarySI
 * 2000 is written "2000", which reads back as DecimalSI "2k", as in apimachinery). */
static void fz_round_trip(const struct qty *q, const char *s, size_t n)
{
    char out[QTY_MAX];
    struct qty back;
    long long v;
    qty_format(q, out);
    if (strlen(out) >= QTY_MAX - 1 || strspn(out, "-0123456789eEinumkKMGTP") != strlen(out))
        fz_die("canonical form out of shape", s, n);
    if (qty_parse_str(out, &back) != 0)
        fz_die("canonical form does not read back", out, strlen(out));
    if (qty_cmp(q, &back) != 0)
        fz_die("canonical form reads back as another value", out, strlen(out));
    for (int scale = -9; scale <= 18; scale += 3)
        (void)qty_scaled_value(q, scale, &v);
    (void)qty_milli_whole(q);
}

/* a + b - b is a, when the sum is held; a - a is 0. */
static void fz_arith(const struct qty *a, const struct qty *b, const char *s, size_t n)
{
    struct qty x = *a, zero = *a;
    if (qty_cmp(a, b) != -qty_cmp(b, a))
        fz_die("comparison not antisymmetric", s, n);
    if (qty_add_mul(&x, b, 1) == 0 && qty_add_mul(&x, b, -1) == 0 && qty_cmp(&x, a) != 0)
        fz_die("a + b - b is not a", s, n);
    if (qty_add_mul(&zero, a, -1) != 0 || qty_sign(&zero) != 0)
        fz_die("a - a is not 0", s, n);
    x = *b;
    if (qty_add_mul(&x, a, 3) == 0 && !fz_well_formed(&x))
        fz_die("a sum out of shape", s, n);
    fz_round_trip(&x, s, n);
}

static int fz_parse(const char *s, size_t n, struct qty *q)
{
    int rc = qty_parse_n(s, n, q);
    if (!fz_known(rc) || (rc == 0 && !fz_well_formed(q)))
        fz_die("parse out of shape", s, n);
    if (rc == 0)
        fz_round_trip(q, s, n);
    return rc;
}

/* As a JSON string: the text trimmed of white space, read the same; as a document: no harm. */
static void fz_json(const char *s, size_t n, int rc, const struct qty *q)
{
    struct qty j;
    json_t *str = json_stringn_nocheck(s, n), *doc = json_loadb(s, n, JSON_DECODE_ANY, NULL);
    int jrc = str ? qty_parse(str, &j) : 0;
    if (str && rc == 0 && (jrc != 0 || qty_cmp(&j, q) != 0))
        fz_die("as a JSON string it reads otherwise", s, n);
    if (str && jrc == 0)
        fz_round_trip(&j, s, n);
    if (doc && qty_parse(doc, &j) == 0)
        fz_round_trip(&j, s, n);
    json_decref(str);
    json_decref(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    const char *comma = memchr(s, ',', size);
    struct qty q, a, b;
    int rc = fz_parse(s, size, &q);
    fz_json(s, size, rc, &q);
    if (comma && fz_parse(s, (size_t)(comma - s), &a) == 0 &&
        fz_parse(comma + 1, size - (size_t)(comma - s) - 1, &b) == 0)
        fz_arith(&a, &b, s, size);
    return 0;
}
