#include "obj/base/ktime.h"

#include <errno.h>
#include <stdbool.h>
#include <time.h>

#define SEC_PER_DAY 86400

/* A broken-down UTC time. */
struct kt_civil {
    int year, mon, day, hour, min, sec, ms;
};

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = floor_div(y, 400);
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* The date of a day count since 1970-01-01 (Howard Hinnant's civil_from_days). */
static void civil_from_days(int64_t days, struct kt_civil *c)
{
    int64_t z = days + 719468;
    int64_t era = floor_div(z, 146097);
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    c->day = (int)(doy - (153 * mp + 2) / 5 + 1);
    c->mon = (int)(mp < 10 ? mp + 3 : mp - 9);
    c->year = (int)(yoe + era * 400 + (c->mon <= 2));
}

static int days_in_month(int y, int m)
{
    static const int dm[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : dm[m - 1];
}

/* ---- format -------------------------------------------------------------------------------- */

/* Splits ms into UTC fields; -ERANGE outside KT_MIN_MS..KT_MAX_MS. */
static int kt_split(int64_t ms, struct kt_civil *c)
{
    if (ms < KT_MIN_MS || ms > KT_MAX_MS)
        return -ERANGE;
    int64_t secs = floor_div(ms, 1000);
    int64_t days = floor_div(secs, SEC_PER_DAY);
    int sod = (int)(secs - days * SEC_PER_DAY);
    civil_from_days(days, c);
    c->hour = sod / 3600;
    c->min = sod / 60 % 60;
    c->sec = sod % 60;
    c->ms = (int)(ms - secs * 1000);
    return 0;
}

/* Writes the n low decimal digits of v (>= 0) at p, then `sep`; returns the end. */
static char *kt_put(char *p, int v, int n, char sep)
{
    for (int i = n - 1; i >= 0; i--, v /= 10)
        p[i] = (char)('0' + v % 10);
    p[n] = sep;
    return p + n + 1;
}

/* metav1.Time ("...:05Z") or, with `micro`, metav1.MicroTime ("...:05.000000Z"). */
static int kt_print(int64_t ms, char out[KT_RFC3339_MAX], bool micro)
{
    struct kt_civil c;
    char *p = out;
    out[0] = '\0';
    if (kt_split(ms, &c))
        return -ERANGE;
    p = kt_put(p, c.year, 4, '-');
    p = kt_put(p, c.mon, 2, '-');
    p = kt_put(p, c.day, 2, 'T');
    p = kt_put(p, c.hour, 2, ':');
    p = kt_put(p, c.min, 2, ':');
    p = kt_put(p, c.sec, 2, micro ? '.' : 'Z');
    if (micro)
        p = kt_put(p, c.ms * 1000, 6, 'Z');
    *p = '\0';
    return 0;
}

int kt_format(int64_t ms, char out[KT_RFC3339_MAX])
{
    return kt_print(ms, out, false);
}

int kt_format_micro(int64_t ms, char out[KT_RFC3339_MAX])
{
    return kt_print(ms, out, true);
}

/* ---- parse --------------------------------------------------------------------------------- */

/* A cursor over the input; once `ok` is false every step is a no-op. */
struct kt_scan {
    const char *p;
    bool ok;
};

static bool is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

/* Exactly n digits (Go's fixed getnum / parseUint). */
static int scan_digits(struct kt_scan *s, int n)
{
    int v = 0;
    for (int i = 0; i < n && s->ok; i++) {
        s->ok = is_digit(s->p[i]);
        v = v * 10 + (s->p[i] - '0');
    }
    if (!s->ok)
        return 0;
    s->p += n;
    return v;
}

/* One or two digits, as Go's general parser reads the hour of layout "15". */
static int scan_hour(struct kt_scan *s)
{
    if (s->ok && is_digit(s->p[0]) && !is_digit(s->p[1]))
        return *s->p++ - '0';
    return scan_digits(s, 2);
}

static void scan_char(struct kt_scan *s, char ch)
{
    if (s->ok && *s->p == ch)
        s->p++;
    else
        s->ok = false;
}

/* Optional ("." | ",") digit+, truncated to milliseconds. */
static int scan_fraction(struct kt_scan *s)
{
    int ms = 0, scale = 100;
    if (!s->ok || (*s->p != '.' && *s->p != ',') || !is_digit(s->p[1]))
        return 0;
    for (s->p++; is_digit(*s->p); s->p++, scale /= 10)
        ms += (*s->p - '0') * scale;
    return ms;
}

/* "Z" or ("+" | "-") HH:MM with HH <= 24 and MM <= 60, then the end of the input.  Returns
 * the offset east of UTC in minutes. */
static int scan_zone(struct kt_scan *s)
{
    if (s->ok && *s->p == 'Z') {
        s->p++;
        s->ok = *s->p == '\0';
        return 0;
    }
    char sign = s->ok ? *s->p : '\0';
    s->ok = sign == '+' || sign == '-';
    s->p += s->ok;
    int hh = scan_digits(s, 2);
    scan_char(s, ':');
    int mm = scan_digits(s, 2);
    s->ok = s->ok && *s->p == '\0' && hh <= 24 && mm <= 60;
    return (sign == '-' ? -1 : 1) * (hh * 60 + mm);
}

static bool kt_valid(const struct kt_civil *c)
{
    return c->mon >= 1 && c->mon <= 12 && c->day >= 1 &&
           c->day <= days_in_month(c->year, c->mon) && c->hour <= 23 && c->min <= 59 &&
           c->sec <= 59;
}

int kt_parse(const char *str, int64_t *out_ms)
{
    struct kt_scan s = {str, str != NULL};
    struct kt_civil c;
    c.year = scan_digits(&s, 4);
    scan_char(&s, '-');
    c.mon = scan_digits(&s, 2);
    scan_char(&s, '-');
    c.day = scan_digits(&s, 2);
    scan_char(&s, 'T');
    c.hour = scan_hour(&s);
    scan_char(&s, ':');
    c.min = scan_digits(&s, 2);
    scan_char(&s, ':');
    c.sec = scan_digits(&s, 2);
    c.ms = scan_fraction(&s);
    int off_min = scan_zone(&s);
    if (!s.ok || !kt_valid(&c))
        return -EINVAL;
    int64_t mins = (days_from_civil(c.year, c.mon, c.day) * 24 + c.hour) * 60 + c.min - off_min;
    *out_ms = (mins * 60 + c.sec) * 1000 + c.ms;
    return 0;
}

/* ---- clocks -------------------------------------------------------------------------------- */

static int64_t clock_ms(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t kt_now_ms(void)
{
    return clock_ms(CLOCK_REALTIME);
}

int64_t kt_mono_ms(void)
{
    return clock_ms(CLOCK_MONOTONIC);
}

int64_t kt_boot_ms(void)
{
    return clock_ms(CLOCK_BOOTTIME);
}

void kt_steady_init(struct kt_steady *c)
{
    c->boot0_ms = kt_boot_ms();
    c->wall0_ms = kt_now_ms();
}

int64_t kt_steady_now(const struct kt_steady *c)
{
    return c->wall0_ms + (kt_boot_ms() - c->boot0_ms);
}

void kt_sleep_ms(int64_t ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}
