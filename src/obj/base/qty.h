/* qty: Kubernetes resource quantities held exactly (k8s.io/apimachinery pkg/api/resource,
 * quantity.go): parsed into thousandths of the base unit, added and multiplied, and written in
 * the canonical form Quantity.String() gives ("500m" x 2 -> "1", "1Gi" x 2 -> "2Gi",
 * "1500" -> "1500", 6000 -> "6k").
 *
 * Precision below a thousandth is rounded up (a sum of requests never shrinks); a value past
 * 2^63 thousandths is refused.  The exponent form ("1e3") is read and written as DecimalSI.
 * All functions are pure and thread-safe. */
#ifndef JX_QTY_H
#define JX_QTY_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#define QTY_MAX 40 /* a formatted quantity, with its NUL */

struct qty {
    long long milli; /* >= 0 */
    bool binary;     /* written with Ki, Mi, ... (BinarySI) */
};

/* A quantity from a string ("1Gi", "500m", "2", "1.5", "1e3") or a JSON number.  0, or
 * -EINVAL (not a quantity, negative) / -ERANGE (too large). */
int qty_parse(const json_t *v, struct qty *out);

/* a += b * n, the format of `a` kept unless a is zero (Quantity.Add's rule).  0 or -ERANGE. */
int qty_add_mul(struct qty *a, const struct qty *b, long long n);

/* Writes q's canonical form into out (QTY_MAX bytes). */
void qty_format(const struct qty *q, char out[QTY_MAX]);

#endif
