/* qty: see qty.h.  The canonical form follows Quantity.CanonicalizeBytes: BinarySI for a whole
 * number of at least 1024 (the largest power of 1024 that divides it), else DecimalSI (the
 * largest power of 1000 that divides it, from "m" up to "E"). */
#include "obj/base/qty.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct unit {
    const char *sfx;
    int base, exp; /* base^exp */
};

static const struct unit units[] = {
    {"Ki", 1024, 1}, {"Mi", 1024, 2}, {"Gi", 1024, 3}, {"Ti", 1024, 4}, {"Pi", 1024, 5},
    {"Ei", 1024, 6}, {"n", 10, -9},   {"u", 10, -6},   {"m", 10, -3},   {"", 10, 0},
    {"k", 10, 3},    {"M", 10, 6},    {"G", 10, 9},    {"T", 10, 12},   {"P", 10, 15},
    {"E", 10, 18},
};

static bool mul_ok(long long *x, long long m)
{
    return !__builtin_mul_overflow(*x, m, x);
}

/* digits[0..n) (frac of them after the point) * base^exp * 1000, exactly, rounded up; false
 * on overflow. */
static bool scale(const char *digits, size_t n, int frac, int base, int exp, long long *out)
{
    long long v = 0, div = 1;
    int pow10 = 3 - frac + (base == 10 ? exp : 0);
    for (size_t i = 0; i < n; i++)
        if (!mul_ok(&v, 10) || __builtin_add_overflow(v, digits[i] - '0', &v))
            return false;
    for (int i = 0; base == 1024 && i < exp; i++)
        if (!mul_ok(&v, 1024))
            return false;
    for (; pow10 > 0; pow10--)
        if (!mul_ok(&v, 10))
            return false;
    for (; pow10 < 0; pow10++)
        if (!mul_ok(&div, 10)) {
            *out = v != 0; /* far below a thousandth: rounded up */
            return true;
        }
    *out = v / div + (v % div != 0);
    return true;
}

static int parse_str(const char *s, struct qty *out)
{
    char digits[64];
    size_t n = 0;
    int frac = -1, exp10 = 0;
    if (*s == '+')
        s++;
    for (; (*s >= '0' && *s <= '9') || (*s == '.' && frac < 0); s++) {
        if (*s == '.') {
            frac = 0;
            continue;
        }
        if (n + 1 >= sizeof(digits))
            return -ERANGE;
        digits[n++] = *s;
        frac += frac >= 0;
    }
    if (n == 0)
        return -EINVAL;
    frac = frac < 0 ? 0 : frac;
    if ((*s == 'e' || *s == 'E') && s[1]) {
        char *end;
        long e = strtol(s + 1, &end, 10);
        if (*end || e < -30 || e > 30)
            return -EINVAL;
        exp10 = (int)e;
        s = end;
    }
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        const struct unit *u = &units[i];
        if (strcmp(s, u->sfx) != 0)
            continue;
        out->binary = u->base == 1024;
        return scale(digits, n, frac, u->base, u->base == 1024 ? u->exp : u->exp + exp10,
                     &out->milli)
                   ? 0
                   : -ERANGE;
    }
    return -EINVAL;
}

int qty_parse(const json_t *v, struct qty *out)
{
    char buf[64];
    memset(out, 0, sizeof(*out));
    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
        return parse_str(buf, out);
    }
    if (json_is_real(v) && json_real_value(v) >= 0 && json_real_value(v) < 9e15) {
        snprintf(buf, sizeof(buf), "%.6f", json_real_value(v));
        return parse_str(buf, out);
    }
    return json_is_string(v) ? parse_str(json_string_value(v), out) : -EINVAL;
}

int qty_add_mul(struct qty *a, const struct qty *b, long long n)
{
    long long x = b->milli;
    if (a->milli == 0)
        a->binary = b->binary;
    if (n < 0 || !mul_ok(&x, n) || __builtin_add_overflow(a->milli, x, &a->milli))
        return -ERANGE;
    return 0;
}

void qty_format(const struct qty *q, char out[QTY_MAX])
{
    static const char *const bin[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    static const char *const dec[] = {"m", "", "k", "M", "G", "T", "P", "E"};
    long long v = q->milli;
    size_t i = 0;
    if (q->binary && v % 1000 == 0 && v >= 1024 * 1000LL) {
        for (v /= 1000; i + 1 < 7 && v % 1024 == 0; i++)
            v /= 1024;
        snprintf(out, QTY_MAX, "%lld%s", v, bin[i]);
        return;
    }
    for (; v != 0 && i + 1 < 8 && v % 1000 == 0; i++)
        v /= 1000;
    snprintf(out, QTY_MAX, "%lld%s", v, v == 0 ? "" : dec[i]);
}
