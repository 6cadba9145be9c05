/* ktime: time as Kubernetes objects carry it.  One unit everywhere: int64 milliseconds since
 * the Unix epoch (UTC).
 *
 * Timestamps are metav1.Time: RFC 3339 in UTC with second precision ("2006-01-02T15:04:05Z"),
 * written as k8s.io/apimachinery pkg/apis/meta/v1/time.go marshals them, and read as Go's
 * time.Parse(time.RFC3339, s) reads them (golang/go src/time/format_rfc3339.go and format.go):
 *   - exactly "YYYY-MM-DDTHH:MM:SS" with an upper-case 'T', years 0000-9999, a day that exists
 *     in that month (leap years by the Gregorian rule), hours 00-23, minutes and seconds
 *     00-59 (no leap second);
 *   - then optionally a fraction of a second, '.' or ',' and one or more digits (kept to the
 *     millisecond, truncated);
 *   - then 'Z' (upper case) or a numeric offset "+hh:mm" / "-hh:mm" (hh 00-23, mm 00-59),
 *     converted to UTC; nothing after it. */
#ifndef JX_KTIME_H
#define JX_KTIME_H

#include <stdint.h>

#define KT_RFC3339_MAX 32 /* "YYYY-MM-DDTHH:MM:SSZ" and its NUL, with room */
#define KT_MIN_MS (-62167219200000LL) /* 0000-01-01T00:00:00Z */
#define KT_MAX_MS 253402300799999LL   /* 9999-12-31T23:59:59.999Z */

/* The wall clock (CLOCK_REALTIME) in milliseconds. */
int64_t kt_now_ms(void);

/* Parses a timestamp as described above.  Returns 0 and *out_ms, or -EINVAL (also for NULL). */
int kt_parse(const char *s, int64_t *out_ms) __attribute__((warn_unused_result));

/* Formats `ms` (truncated to the second, rounding towards the past) into out.  Returns 0, or
 * -ERANGE with out = "" when the time is outside 0000-01-01..9999-12-31. */
int kt_format(int64_t ms, char out[KT_RFC3339_MAX]);

#endif
