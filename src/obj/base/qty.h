/* qty: Kubernetes resource quantities (k8s.io/apimachinery pkg/api/resource, quantity.go), read
 * with ParseQuantity's grammar and limits and held exactly: any value apimachinery keeps (its
 * int64Amount, or the inf.Dec it falls back to when a value does not fit int64) is kept here as
 * a decimal significand and exponent, rounded up to a billionth (Nano) as ParseQuantity rounds,
 * a binary (Ki..Ei) value capped at 2^63-1 as ParseQuantity caps it.  Written in the canonical
 * form Quantity.String() gives ("1.5" -> "1500m", "1.5Gi" -> "1536Mi", "1e3" -> "1e3", 6000 ->
 * "6k"), added and multiplied as Quantity.Add does.
 *
 * Two limits of jaxset's own, past which a string apimachinery reads is -ERANGE here: at most
 * QTY_DIGITS significant digits, and an exponent of 32 bits (apimachinery keeps a suffix's
 * exponent in an int32 and wraps a larger one: "1e4294967296" would be 1 there).
 *
 * All functions are pure and thread-safe; nothing to free. */
#ifndef JX_QTY_H
#define JX_QTY_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#define QTY_DIGITS 64 /* significant digits of a quantity */
#define QTY_MAX 96    /* a formatted quantity, with its NUL */

/* The errors of the parsers, each with apimachinery's message (qty_strerror). */
#define QTY_EFORMAT (-EINVAL) /* ErrFormatWrong: "quantities must match the regular ..." */
#define QTY_ENUMERIC (-EDOM)  /* ErrNumeric: "unable to parse numeric part of quantity" */
#define QTY_ESUFFIX (-EILSEQ) /* ErrSuffix: "unable to parse quantity's suffix" */
#define QTY_ERANGE (-ERANGE)  /* valid for apimachinery, past what jaxset holds (above) */

/* The regular expression apimachinery's message names (quantity.go, splitREString). */
#define QTY_REGEX "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"

enum qty_fmt { QTY_DECIMAL_SI, QTY_BINARY_SI, QTY_DECIMAL_EXPONENT };

struct qty {
    long long exp;         /* the value is (neg ? -1 : 1) * sig * 10^exp */
    unsigned char n;       /* digits in sig; 0: the value is 0 */
    bool neg;              /* never for 0 */
    enum qty_fmt fmt;      /* the suffix it was written with: how it is written back */
    char sig[QTY_DIGITS];  /* '0'..'9', the first and the last not '0'; no NUL */
};

/* ParseQuantity of the n bytes at s (any bytes: a NUL is not a quantity's).  0, or one of
 * the errors above; *out is 0 on error. */
int qty_parse_n(const char *s, size_t n, struct qty *out);
/* The same of a NUL-terminated string. */
int qty_parse_str(const char *s, struct qty *out);
/* A quantity as the API server decodes one from JSON (Quantity.UnmarshalJSON): null is 0; a
 * string is read with its leading and trailing white space trimmed; a number as its JSON text
 * (a real as Go's encoding/json writes it, which is how kubectl sends YAML numbers); anything
 * else as its text, which is never a quantity.  0 or an error above. */
int qty_parse(const json_t *v, struct qty *out);

/* apimachinery's message for an error of the parsers (static), or jaxset's for QTY_ERANGE. */
const char *qty_strerror(int rc);

/* v with format fmt. */
void qty_from_int(long long v, enum qty_fmt fmt, struct qty *out);

/* -1, 0 or 1 as a is below, equal to or above b (Quantity.Cmp). */
int qty_cmp(const struct qty *a, const struct qty *b);
/* -1, 0 or 1 (Quantity.Sign). */
int qty_sign(const struct qty *q);

/* a += b * n, exactly; a takes b's format when it was 0 (Quantity.Add's rule).  0, or
 * QTY_ERANGE (a is then unchanged) when the result is past what a quantity holds here. */
int qty_add_mul(struct qty *a, const struct qty *b, long long n);

/* Quantity.ScaledValue(scale): q / 10^scale rounded up away from zero (Value() is scale 0,
 * MilliValue() scale -3), into *out.  0, or QTY_ERANGE when it does not fit an int64 (where
 * apimachinery returns a wrapped value). */
int qty_scaled_value(const struct qty *q, int scale, long long *out);

/* Whether MilliValue() % 1000 == 0, the API server's test of a whole number (kubernetes
 * pkg/apis/core/validation ValidateResourceQuantityValue): true for 2 and for 1.9999 (whose
 * thousandths round up to 2000), false for 1.5; computed exactly for any value. */
bool qty_milli_whole(const struct qty *q);

/* Writes q's canonical form (Quantity.String()) into out (QTY_MAX bytes).  Where
 * apimachinery's form would not read back as the same value, the exponent form is written
 * instead: a DecimalSI value past the E suffix (1000E is "1e21", apimachinery writes "1"), a
 * BinarySI sum past 2^63-1 (written as DecimalSI: its binary form would read back capped). */
void qty_format(const struct qty *q, char out[QTY_MAX]);

#endif
