/* qty: see qty.h.  The parser follows k8s.io/apimachinery pkg/api/resource: quantity.go
 * (parseQuantityString, ParseQuantity, CanonicalizeBytes), suffix.go (the suffixes and
 * interpret) and amount.go (AsCanonicalBytes, AsCanonicalBase1024Bytes).  Where ParseQuantity
 * takes its int64 fast path or its inf.Dec slow path the value is the same, so one exact path
 * does here: digits in a decimal buffer, times 2^exponent for a binary suffix, rounded up to a
 * billionth, capped at 2^63-1 for BinarySI. */
#include "obj/base/qty.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef unsigned __int128 qty_u128;

#define QTY_BUF 160 /* working digits: QTY_DIGITS, 2^60's 19, a product by an int64's 19 */
#define NANO (-9)   /* ParseQuantity rounds up to 10^-9 */

/* A magnitude: sum of d[i] * 10^(i + e), least significant digit first. */
struct dig {
    unsigned char d[QTY_BUF];
    int n;
    long long e;
};

/* ---- digits ------------------------------------------------------------------------------ */

/* Drops high and low zeros: n is 0 for zero, else d[0] and d[n-1] are not 0. */
static void dig_trim(struct dig *x)
{
    int low = 0;
    while (x->n > 0 && x->d[x->n - 1] == 0)
        x->n--;
    while (low < x->n && x->d[low] == 0)
        low++;
    memmove(x->d, x->d + low, (size_t)(x->n - low));
    x->n -= low;
    x->e = x->n ? x->e + low : 0;
}

/* x *= m; false when the buffer cannot hold the product. */
static bool dig_mul(struct dig *x, unsigned long long m)
{
    qty_u128 carry = 0;
    for (int i = 0; i < x->n; i++) {
        qty_u128 t = (qty_u128)x->d[i] * m + carry;
        x->d[i] = (unsigned char)(t % 10);
        carry = t / 10;
    }
    for (; carry; carry /= 10) {
        if (x->n == QTY_BUF)
            return false;
        x->d[x->n++] = (unsigned char)(carry % 10);
    }
    return true;
}

/* x += 10^(i + e) for digit index i >= 0; false when the buffer cannot hold it. */
static bool dig_add_unit(struct dig *x, int i)
{
    for (; i < x->n && x->d[i] == 9; i++)
        x->d[i] = 0;
    if (i >= QTY_BUF)
        return false;
    while (x->n <= i)
        x->d[x->n++] = 0;
    x->d[i]++;
    return true;
}

/* Position of the most significant digit (trimmed, non-zero x). */
static long long dig_top(const struct dig *x)
{
    return x->e + x->n - 1;
}

/* The digit of x at 10^p. */
static int dig_at(const struct dig *x, long long p)
{
    return p < x->e || p > dig_top(x) ? 0 : x->d[p - x->e];
}

/* -1, 0, 1 comparing the trimmed magnitudes a and b. */
static int dig_cmp(const struct dig *a, const struct dig *b)
{
    if (!a->n || !b->n)
        return (a->n > 0) - (b->n > 0);
    if (dig_top(a) != dig_top(b))
        return dig_top(a) < dig_top(b) ? -1 : 1;
    for (int i = 0; i < a->n || i < b->n; i++) { /* from the top down, both at once */
        int da = dig_at(a, dig_top(a) - i), db = dig_at(b, dig_top(b) - i);
        if (da != db)
            return da < db ? -1 : 1;
    }
    return 0;
}

static void dig_from_str(struct dig *x, const char *s, size_t n, long long e)
{
    x->n = (int)n;
    x->e = e;
    for (size_t i = 0; i < n; i++)
        x->d[i] = (unsigned char)(s[n - 1 - i] - '0');
}

static void dig_from_qty(struct dig *x, const struct qty *q)
{
    dig_from_str(x, q->sig, q->n, q->exp);
}

/* Rounds x up to a multiple of 10^NANO (ParseQuantity: inf.RoundUp at Nano). */
static bool dig_round_nano(struct dig *x)
{
    if (!x->n || x->e >= NANO)
        return true;
    long long cut = NANO - x->e;
    bool sticky = false;
    for (long long i = 0; i < cut && i < x->n; i++)
        sticky |= x->d[i] != 0;
    int keep = cut >= x->n ? 0 : x->n - (int)cut;
    memmove(x->d, x->d + (x->n - keep), (size_t)keep);
    x->n = keep;
    x->e = NANO;
    return !sticky || dig_add_unit(x, 0);
}

/* Into q, trimmed; QTY_ERANGE past QTY_DIGITS digits or a 32-bit exponent. */
static int dig_to_qty(struct dig *x, bool neg, enum qty_fmt fmt, struct qty *q)
{
    dig_trim(x);
    if (x->n > QTY_DIGITS || x->e > INT_MAX || x->e < (long long)INT_MIN + 2)
        return QTY_ERANGE;
    memset(q, 0, sizeof(*q));
    q->n = (unsigned char)x->n;
    q->exp = x->e;
    q->neg = neg && x->n > 0;
    q->fmt = fmt;
    for (int i = 0; i < x->n; i++)
        q->sig[i] = (char)('0' + x->d[x->n - 1 - i]);
    return 0;
}

/* ---- the scanner and the suffixes -------------------------------------------------------- */

/* parseQuantityString's parts: the numerator without its leading zeros ("" is "0"), the
 * denominator, the suffix. */
struct scan {
    bool neg;
    bool digit; /* the number has a digit: inf.Dec's SetString of it would succeed */
    const char *num, *den, *sfx;
    size_t nnum, nden, nsfx;
};

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_sfx_char(char c)
{
    return c && memchr("eEinumkKMGTP", c, 12) != NULL;
}

/* Digits from pos: their count. */
static size_t digits(const char *s, size_t n, size_t pos)
{
    size_t i = pos;
    while (i < n && is_digit(s[i]))
        i++;
    return i - pos;
}

/* The suffix at pos: letters, a sign, digits, and nothing after them (else QTY_EFORMAT). */
static int scan_suffix(const char *s, size_t n, size_t pos, struct scan *o)
{
    o->sfx = s + pos;
    o->nsfx = n - pos;
    while (pos < n && is_sfx_char(s[pos]))
        pos++;
    if (pos < n && (s[pos] == '-' || s[pos] == '+'))
        pos++;
    pos += digits(s, n, pos);
    return pos < n ? QTY_EFORMAT : 0;
}

/* parseQuantityString (quantity.go), on n bytes. */
static int scan(const char *s, size_t n, struct scan *o)
{
    size_t pos = 0;
    memset(o, 0, sizeof(*o));
    if (n > 0 && (s[0] == '-' || s[0] == '+'))
        o->neg = s[pos++] == '-';
    for (; pos < n && s[pos] == '0'; pos++)
        o->digit = true;
    o->num = s + pos;
    o->nnum = digits(s, n, pos);
    pos += o->nnum;
    o->digit |= o->nnum > 0 || pos == n; /* all zeros, or nothing: the number is "0" */
    if (pos < n && s[pos] == '.') {
        o->den = s + ++pos;
        o->nden = digits(s, n, pos);
        pos += o->nden;
        o->digit |= o->nden > 0;
    }
    return pos < n ? scan_suffix(s, n, pos, o) : 0;
}

struct sfx {
    const char *s;
    int base, exp;
    enum qty_fmt fmt;
};

/* suffix.go's tables (newSuffixer), the decimal ones first as interpret looks them up. */
static const struct sfx sfxs[] = {
    {"", 10, 0, QTY_DECIMAL_SI},   {"n", 10, -9, QTY_DECIMAL_SI}, {"u", 10, -6, QTY_DECIMAL_SI},
    {"m", 10, -3, QTY_DECIMAL_SI}, {"k", 10, 3, QTY_DECIMAL_SI},  {"M", 10, 6, QTY_DECIMAL_SI},
    {"G", 10, 9, QTY_DECIMAL_SI},  {"T", 10, 12, QTY_DECIMAL_SI}, {"P", 10, 15, QTY_DECIMAL_SI},
    {"E", 10, 18, QTY_DECIMAL_SI}, {"Ki", 2, 10, QTY_BINARY_SI},  {"Mi", 2, 20, QTY_BINARY_SI},
    {"Gi", 2, 30, QTY_BINARY_SI},  {"Ti", 2, 40, QTY_BINARY_SI},  {"Pi", 2, 50, QTY_BINARY_SI},
    {"Ei", 2, 60, QTY_BINARY_SI},
};

/* strconv.ParseInt(s, 10, 64): an optional sign and at least one digit, in int64's range. */
static bool parse_int64(const char *s, size_t n, long long *out)
{
    bool neg = n > 0 && s[0] == '-';
    size_t i = n > 0 && (s[0] == '-' || s[0] == '+');
    unsigned long long v = 0, max = neg ? (unsigned long long)LLONG_MAX + 1 : LLONG_MAX;
    if (i == n)
        return false;
    for (; i < n; i++) {
        if (!is_digit(s[i]) || v > (max - (unsigned)(s[i] - '0')) / 10)
            return false;
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    *out = neg ? (long long)(0 - v) : (long long)v;
    return true;
}

/* suffixHandler.interpret: a suffix of the tables, or "e"/"E" and an int64 exponent (which
 * apimachinery narrows to int32: past that, QTY_ERANGE here). */
static int interpret(const struct scan *sc, struct sfx *out)
{
    long long e;
    for (size_t i = 0; i < sizeof(sfxs) / sizeof(sfxs[0]); i++)
        if (strlen(sfxs[i].s) == sc->nsfx && (!sc->nsfx || !memcmp(sfxs[i].s, sc->sfx, sc->nsfx))) {
            *out = sfxs[i];
            return 0;
        }
    if (sc->nsfx < 2 || (sc->sfx[0] != 'e' && sc->sfx[0] != 'E') ||
        !parse_int64(sc->sfx + 1, sc->nsfx - 1, &e))
        return QTY_ESUFFIX;
    if (e < INT_MIN || e > INT_MAX)
        return QTY_ERANGE;
    *out = (struct sfx){"", 10, (int)e, QTY_DECIMAL_EXPONENT};
    return 0;
}

/* Whether ParseQuantity takes its inf.Dec path for a number without digits ("." and the
 * like, whose numerator is "0" and denominator ""): there SetString fails (ErrNumeric). */
static bool slow_without_digits(const struct sfx *x)
{
    if (x->base == 2) /* precision = 15 - len(num) - int32(float32(exponent)*3/10) - 1 */
        return 15 - 1 - (int)((float)x->exp * 3 / 10) - 1 < 0;
    return x->exp < NANO; /* scale < Nano */
}

/* ---- parsing ----------------------------------------------------------------------------- */

/* The digit of numerator || denominator at index i. */
static char num_digit(const struct scan *sc, size_t i)
{
    return i < sc->nnum ? sc->num[i] : sc->den[i - sc->nnum];
}

/* The digits of the number into x, times 10^shift; for a decimal suffix (nano) those below
 * 10^NANO are only rounded up from.  QTY_ERANGE past QTY_DIGITS significant digits. */
static int load(const struct scan *sc, long long shift, bool nano, struct dig *x)
{
    size_t len = sc->nnum + sc->nden, first = 0, last = len;
    memset(x, 0, sizeof(*x));
    while (first < len && num_digit(sc, first) == '0')
        first++;
    while (last > first && num_digit(sc, last - 1) == '0')
        last--;
    if (first == last)
        return 0;
    /* digit i is at 10^(nnum - 1 - i + shift) */
    long long top = (long long)sc->nnum - 1 + shift, end = (long long)last;
    bool sticky = nano && top - (end - 1) < NANO;
    if (sticky)
        end = top - NANO + 1 > (long long)first ? top - NANO + 1 : (long long)first;
    if (end - (long long)first > QTY_DIGITS)
        return QTY_ERANGE;
    x->n = (int)(end - (long long)first);
    x->e = top - (end - 1);
    for (int k = 0; k < x->n; k++)
        x->d[k] = (unsigned char)(num_digit(sc, (size_t)end - 1 - (size_t)k) - '0');
    if (sticky && !x->n)
        x->e = NANO; /* every digit below a billionth: 1n */
    return !sticky || dig_add_unit(x, (int)(NANO - x->e)) ? 0 : QTY_ERANGE;
}

/* 2^63-1, the most a BinarySI quantity holds (ParseQuantity's maxAllowed). */
static void dig_max_allowed(struct dig *x)
{
    dig_from_str(x, "9223372036854775807", 19, 0);
}

/* ParseQuantity's value for a scanned number and its suffix. */
static int build(const struct scan *sc, const struct sfx *sf, struct qty *out)
{
    struct dig x, max;
    enum qty_fmt fmt = sf->fmt;
    int rc = load(sc, sf->base == 10 ? sf->exp : 0, sf->base == 10, &x);
    for (int e = sf->base == 2 ? sf->exp : 0; rc == 0 && e > 0; e -= 30)
        rc = dig_mul(&x, 1ull << (e < 30 ? e : 30)) ? 0 : QTY_ERANGE;
    if (rc == 0 && !dig_round_nano(&x))
        rc = QTY_ERANGE;
    if (rc < 0)
        return rc;
    dig_trim(&x);
    dig_max_allowed(&max);
    if (fmt == QTY_BINARY_SI && dig_cmp(&x, &max) > 0)
        x = max;
    if (fmt == QTY_BINARY_SI && x.n && dig_top(&x) < 0)
        fmt = QTY_DECIMAL_SI; /* between 0 and 1: "avoids rounding and hopefully confusion" */
    return dig_to_qty(&x, sc->neg, fmt, out);
}

int qty_parse_n(const char *s, size_t n, struct qty *out)
{
    struct scan sc;
    struct sfx sf;
    int rc;
    memset(out, 0, sizeof(*out));
    if (n == 0)
        return QTY_EFORMAT;
    if (n == 1 && s[0] == '0')
        return 0;
    if ((rc = scan(s, n, &sc)) < 0 || (rc = interpret(&sc, &sf)) < 0)
        return rc;
    if (!sc.digit && slow_without_digits(&sf))
        return QTY_ENUMERIC;
    rc = build(&sc, &sf, out);
    if (rc < 0)
        memset(out, 0, sizeof(*out));
    return rc;
}

int qty_parse_str(const char *s, struct qty *out)
{
    return qty_parse_n(s, strlen(s), out);
}

/* ---- JSON -------------------------------------------------------------------------------- */

/* The length of the white space (Go's unicode.IsSpace, in UTF-8) at s, 0 when none. */
static size_t space_at(const char *s, size_t n)
{
    static const char *const wide[] = {"\xc2\x85", "\xc2\xa0", "\xe1\x9a\x80", "\xe2\x80\xa8",
                                       "\xe2\x80\xa9", "\xe2\x80\xaf", "\xe2\x81\x9f",
                                       "\xe3\x80\x80"};
    if (n > 0 && s[0] && strchr(" \t\n\v\f\r", s[0]))
        return 1;
    if (n >= 3 && !memcmp(s, "\xe2\x80", 2) && (unsigned char)s[2] >= 0x80 &&
        (unsigned char)s[2] <= 0x8a)
        return 3; /* U+2000..U+200A */
    for (size_t i = 0; i < sizeof(wide) / sizeof(wide[0]); i++)
        if (n >= strlen(wide[i]) && !memcmp(s, wide[i], strlen(wide[i])))
            return strlen(wide[i]);
    return 0;
}

/* The length of the white space ending at s + n, 0 when none. */
static size_t space_before(const char *s, size_t n)
{
    for (size_t k = 1; k <= 3 && k <= n; k++)
        if (space_at(s + n - k, k) == k)
            return k;
    return 0;
}

/* strings.TrimSpace, then ParseQuantity (Quantity.UnmarshalJSON). */
static int parse_trimmed(const char *s, size_t n, struct qty *out)
{
    size_t k;
    while ((k = space_at(s, n)) > 0)
        s += k, n -= k;
    while ((k = space_before(s, n)) > 0)
        n -= k;
    return qty_parse_n(s, n, out);
}

/* A real as Go's encoding/json writes a float64: the shortest digits that read back, in
 * 'f' form from 1e-6 up to 1e21, else in 'e' form with no leading zero in the exponent. */
static void real_text(double v, char out[64])
{
    char e[40], *x;
    int p = 1;
    for (; p < 17; p++) {
        snprintf(e, sizeof(e), "%.*e", p - 1, v);
        if (strtod(e, NULL) == v)
            break;
    }
    snprintf(e, sizeof(e), "%.*e", p - 1, v);
    x = strchr(e, 'e');
    long ex = strtol(x + 1, NULL, 10);
    double a = fabs(v);
    if (a != 0 && (a < 1e-6 || a >= 1e21)) {
        snprintf(x, sizeof(e) - (size_t)(x - e), "e%c%ld", ex < 0 ? '-' : '+', labs(ex));
        snprintf(out, 64, "%s", e);
        return;
    }
    long frac = p - 1 - ex; /* digits after the point */
    snprintf(out, 64, "%.*f", frac > 0 ? (int)frac : 0, v);
}

int qty_parse(const json_t *v, struct qty *out)
{
    char buf[64];
    memset(out, 0, sizeof(*out));
    if (!v || json_is_null(v))
        return 0;
    if (json_is_string(v))
        return parse_trimmed(json_string_value(v), json_string_length(v), out);
    if (json_is_integer(v))
        snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v) && isfinite(json_real_value(v)))
        real_text(json_real_value(v), buf);
    else
        return QTY_EFORMAT; /* true, false, an object, an array: their text is none */
    return qty_parse_str(buf, out);
}

const char *qty_strerror(int rc)
{
    switch (rc) {
    case QTY_EFORMAT:
        return "quantities must match the regular expression '" QTY_REGEX "'";
    case QTY_ENUMERIC:
        return "unable to parse numeric part of quantity";
    case QTY_ESUFFIX:
        return "unable to parse quantity's suffix";
    case QTY_ERANGE:
        return "jaxset holds quantities of at most 64 significant digits and a 32-bit exponent";
    default:
        return "not a quantity";
    }
}

/* ---- arithmetic -------------------------------------------------------------------------- */

void qty_from_int(long long v, enum qty_fmt fmt, struct qty *out)
{
    struct dig x = {.n = 0, .e = 0};
    unsigned long long m = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;
    for (; m; m /= 10)
        x.d[x.n++] = (unsigned char)(m % 10);
    (void)dig_to_qty(&x, v < 0, fmt, out);
}

int qty_sign(const struct qty *q)
{
    return q->n == 0 ? 0 : q->neg ? -1 : 1;
}

int qty_cmp(const struct qty *a, const struct qty *b)
{
    struct dig x, y;
    if (qty_sign(a) != qty_sign(b))
        return qty_sign(a) < qty_sign(b) ? -1 : 1;
    dig_from_qty(&x, a);
    dig_from_qty(&y, b);
    return a->neg ? -dig_cmp(&x, &y) : dig_cmp(&x, &y);
}

/* r = a + b (sub: a - b, a >= b), over the digits both span; false past the buffer. */
static bool dig_add(const struct dig *a, const struct dig *b, bool sub, struct dig *r)
{
    long long low = a->e < b->e ? a->e : b->e;
    long long top = dig_top(a) > dig_top(b) ? dig_top(a) : dig_top(b);
    int carry = 0;
    if (top - low + 2 > QTY_BUF)
        return false; /* no digit of one meets the other's: the sum has them all */
    r->e = low;
    r->n = (int)(top - low + 2);
    for (int i = 0; i < r->n; i++) {
        int t = dig_at(a, low + i) + (sub ? -1 : 1) * dig_at(b, low + i) + carry;
        carry = t < 0 ? -1 : t / 10;
        r->d[i] = (unsigned char)(t < 0 ? t + 10 : t % 10);
    }
    dig_trim(r);
    return true;
}

/* r = x + y for magnitudes x, y of signs nx, ny; *neg the sign of r. */
static bool dig_signed_add(const struct dig *x, bool nx, const struct dig *y, bool ny,
                           struct dig *r, bool *neg)
{
    bool x_big = dig_cmp(x, y) >= 0;
    *neg = x_big ? nx : ny;
    if (!x->n || !y->n) {
        *r = x->n ? *x : *y;
        return true;
    }
    if (nx == ny)
        return dig_add(x, y, false, r);
    return dig_add(x_big ? x : y, x_big ? y : x, true, r);
}

int qty_add_mul(struct qty *a, const struct qty *b, long long n)
{
    struct dig x, y, r;
    struct qty sum;
    bool neg;
    dig_from_qty(&x, a);
    dig_from_qty(&y, b);
    if (!dig_mul(&y, n < 0 ? 0 - (unsigned long long)n : (unsigned long long)n))
        return QTY_ERANGE;
    dig_trim(&y);
    if (!dig_signed_add(&x, a->neg, &y, b->neg != (n < 0), &r, &neg) ||
        dig_to_qty(&r, neg, a->n ? a->fmt : b->fmt, &sum) < 0)
        return QTY_ERANGE;
    *a = sum;
    return 0;
}

int qty_scaled_value(const struct qty *q, int scale, long long *out)
{
    long long k = q->exp - scale, whole = (long long)q->n + k;
    unsigned long long v = 0;
    *out = 0;
    if (q->n == 0)
        return 0;
    if (whole > 19)
        return QTY_ERANGE;
    for (long long i = 0; i < whole; i++) {
        unsigned d = i < q->n ? (unsigned)(q->sig[i] - '0') : 0;
        if (v > (ULLONG_MAX - d) / 10)
            return QTY_ERANGE;
        v = v * 10 + d;
    }
    v += k < 0; /* digits were cut, the last one not 0: rounded up */
    if (v > (unsigned long long)LLONG_MAX)
        return QTY_ERANGE;
    *out = q->neg ? -(long long)v : (long long)v;
    return 0;
}

bool qty_milli_whole(const struct qty *q)
{
    long long k = q->exp + 3, whole = (long long)q->n + k;
    if (q->n == 0 || k >= 3)
        return true;
    if (k >= 0 || whole < 3)
        return false; /* thousandths end in the significand's last digit, or are below 1000 */
    return !memcmp(q->sig + whole - 3, "999", 3); /* ...999 rounded up: ...000 */
}

/* ---- writing ----------------------------------------------------------------------------- */

/* x /= 1024 when it divides x exactly (x an integer, n digits most significant first). */
static bool div1024(char *x, size_t *n)
{
    char q[QTY_MAX];
    unsigned rem = 0;
    size_t m = 0;
    for (size_t i = 0; i < *n; i++) {
        rem = rem * 10 + (unsigned)(x[i] - '0');
        if (m || rem >= 1024)
            q[m++] = (char)('0' + rem / 1024);
        rem %= 1024;
    }
    if (rem || m == 0)
        return false;
    memcpy(x, q, m);
    *n = m;
    return true;
}

/* BinarySI (AsCanonicalBase1024Bytes): a whole number from 1024 to 2^63-1, as <n><Ki..Ei>;
 * false when it is not one (then DecimalSI is written, as apimachinery does below 1024 and for
 * fractions; a sum past 2^63-1 too, whose binary form ParseQuantity would read back capped). */
static bool format_binary(const struct qty *q, char *out)
{
    static const char *const bin[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    char x[QTY_MAX];
    if (q->exp < 0 || q->n + q->exp > QTY_DIGITS + 19)
        return false;
    size_t n = (size_t)(q->n + q->exp), i = 0;
    memset(x, '0', n);
    memcpy(x, q->sig, q->n);
    if (n < 4 || (n == 4 && memcmp(x, "1024", 4) < 0))
        return false; /* below 1024: "avoids rounding and hopefully confusion" */
    if (n > 19 || (n == 19 && memcmp(x, "9223372036854775807", 19) > 0))
        return false; /* a sum past maxAllowed: its binary form would read back capped */
    while (i + 1 < 7 && div1024(x, &n))
        i++;
    snprintf(out, QTY_MAX, "%s%.*s%s", q->neg ? "-" : "", (int)n, x, bin[i]);
    return true;
}

void qty_format(const struct qty *q, char out[QTY_MAX])
{
    static const char *const dec[] = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
    long long e = q->exp;
    int zeros = 0;
    if (q->n == 0) {
        snprintf(out, QTY_MAX, "0");
        return;
    }
    if (q->fmt == QTY_BINARY_SI && format_binary(q, out))
        return;
    while (e % 3 != 0) /* the mantissa times 10 until the exponent is a multiple of 3 */
        e--, zeros++;
    int len = snprintf(out, QTY_MAX, "%s%.*s%.*s", q->neg ? "-" : "", q->n, q->sig, zeros,
                       "00");
    if (q->fmt != QTY_DECIMAL_EXPONENT && e >= -9 && e <= 18)
        snprintf(out + len, (size_t)(QTY_MAX - len), "%s", dec[(e + 9) / 3]);
    else if (e != 0)
        snprintf(out + len, (size_t)(QTY_MAX - len), "e%lld", e);
}
