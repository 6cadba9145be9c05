/* ktime: time as Kubernetes writes and reads it.
 *
 * Every time in jaxset is an int64_t count of milliseconds since the Unix epoch (UTC, proleptic
 * Gregorian calendar, no leap seconds); negative values are times before 1970.
 *
 * Formatting follows k8s.io/apimachinery pkg/apis/meta/v1: metav1.Time marshals as RFC 3339 in
 * UTC truncated to whole seconds ("2006-01-02T15:04:05Z", micro_time.go's MicroTime as
 * "2006-01-02T15:04:05.000000Z").  Times are truncated toward the past, as Go does.
 *
 * Parsing accepts exactly what metav1.Time.UnmarshalJSON accepts, that is Go's
 * time.Parse(time.RFC3339, s) (golang/go src/time/format_rfc3339.go parseRFC3339, and when that
 * fast path refuses, the general parser of src/time/format.go):
 *
 *   YYYY-MM-DD "T" hh:mm:ss [("." | ",") digit+] ("Z" | ("+" | "-") HH:MM)
 *
 *   - year 0000-9999 (exactly four digits); month 01-12; day 01 to the length of that month
 *     (Feb 29 only in leap years: divisible by 4, centuries only when divisible by 400);
 *   - hour 0-23, minute 0-59, second 0-59 (Go rejects a leap second ":60");
 *   - "T" and "Z" are upper case only (Go compares them byte for byte: "t", "z" and a space
 *     instead of "T" are rejected);
 *   - quirks of Go's general parser, which the API server therefore accepts too: a one-digit
 *     hour ("T1:02:03Z"), "," before the fraction, and zone offsets up to +24:60 (the fast path
 *     allows 23:59; the general parser "allows offsets of 24 hours or 60 minutes");
 *   - a fraction of any length is truncated to milliseconds; an offset is subtracted to give
 *     UTC ("-00:00" is UTC).
 * Everything else (missing zone, "+0100", trailing text, an empty or short string) is rejected.
 */
#ifndef JX_OBJ_KTIME_H
#define JX_OBJ_KTIME_H

#include <stdint.h>

/* Size of a buffer that holds any formatted time, NUL included. */
#define KT_RFC3339_MAX 32

/* "No time": stands where Go code has the zero time.Time; sorts before every parsed time. */
#define KT_ZERO INT64_MIN

/* The formattable range: 0000-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z. */
#define KT_MIN_MS (-62167219200000LL)
#define KT_MAX_MS 253402300799999LL

/* Formats `ms` as metav1.Time does ("2024-05-01T12:00:00Z") into out[KT_RFC3339_MAX].
 * Returns 0, or -ERANGE outside KT_MIN_MS..KT_MAX_MS (out = ""). */
int kt_format(int64_t ms, char out[KT_RFC3339_MAX]);

/* Formats `ms` as metav1.MicroTime does ("2024-05-01T12:00:00.123000Z").  0 or -ERANGE as
 * kt_format. */
int kt_format_micro(int64_t ms, char out[KT_RFC3339_MAX]);

/* Parses an RFC 3339 time as Go's time.Parse(time.RFC3339, s) does (see above) into
 * milliseconds since the epoch.  Returns 0, or -EINVAL when s is NULL or not accepted
 * (*out_ms untouched). */
int kt_parse(const char *s, int64_t *out_ms) __attribute__((warn_unused_result));

/* The wall clock (CLOCK_REALTIME) in milliseconds since the epoch. */
int64_t kt_now_ms(void);

/* A monotonic clock (CLOCK_MONOTONIC) in milliseconds, for timeouts; its epoch is arbitrary. */
int64_t kt_mono_ms(void);

/* CLOCK_BOOTTIME in milliseconds: monotonic, and counting the time the machine was suspended,
 * as elapsed time does for a job; its epoch is arbitrary. */
int64_t kt_boot_ms(void);

/* Sleeps `ms` milliseconds, whatever signals come meanwhile. */
void kt_sleep_ms(int64_t ms);

/* A wall clock that cannot be stepped: it reads the wall clock once, then advances with
 * CLOCK_BOOTTIME.  Durations and deadlines computed from it ignore a step of the system clock
 * (settimeofday, NTP) while its times still format as wall-clock times.  Go's time.Now() does
 * the same with its monotonic reading, which time.Since and time.Until use (golang/go
 * src/time/time.go, "Monotonic Clocks"). */
struct kt_steady {
    int64_t wall0_ms, boot0_ms;
};

void kt_steady_init(struct kt_steady *c);
/* wall0 + (boot now - boot0): milliseconds since the epoch. */
int64_t kt_steady_now(const struct kt_steady *c);

#endif
