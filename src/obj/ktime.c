/* Kubernetes timestamps (see ktime.h).  Calendar arithmetic after Howard Hinnant's
 * days_from_civil / civil_from_days (proleptic Gregorian, any year). */
#include "obj/ktime.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int64_t kt_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = floor_div(y, 400);
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t days, int64_t *y, int *m, int *d)
{
    int64_t z = days + 719468;
    int64_t era = floor_div(z, 146097);
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

static int days_in_month(int y, int m)
{
    static const int dm[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : dm[m - 1];
}

/* Exactly n decimal digits at *p (advanced past them) within [lo, hi]. */
static bool digits(const char **p, int n, int lo, int hi, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        char ch = (*p)[i];
        if (ch < '0' || ch > '9')
            return false;
        v = v * 10 + (ch - '0');
    }
    *p += n;
    *out = v;
    return v >= lo && v <= hi;
}

static bool lit(const char **p, char c)
{
    if (**p != c)
        return false;
    (*p)++;
    return true;
}

/* "[.frac | ,frac]" -> milliseconds (truncated); false when a separator has no digit. */
static bool fraction(const char **p, int *ms)
{
    int scale = 100;
    *ms = 0;
    if ((**p != '.' && **p != ',') || (*p)[1] < '0' || (*p)[1] > '9')
        return true;
    for ((*p)++; **p >= '0' && **p <= '9'; (*p)++, scale /= 10)
        *ms += (**p - '0') * scale;
    return true;
}

/* "Z" or "±hh:mm" and the end of the string -> offset east of UTC in seconds. */
static bool zone(const char *p, int *off)
{
    int oh, om;
    char sign = *p;
    if (sign == 'Z' && p[1] == '\0') {
        *off = 0;
        return true;
    }
    if ((sign != '+' && sign != '-') || !(p++, digits(&p, 2, 0, 23, &oh)) || !lit(&p, ':') ||
        !digits(&p, 2, 0, 59, &om) || *p)
        return false;
    *off = (sign == '-' ? -1 : 1) * (oh * 3600 + om * 60);
    return true;
}

int kt_parse(const char *s, int64_t *out_ms)
{
    const char *p = s;
    int y, mo, d, h, mi, sec, ms, off;
    if (!p || !digits(&p, 4, 0, 9999, &y) || !lit(&p, '-') || !digits(&p, 2, 1, 12, &mo) ||
        !lit(&p, '-') || !digits(&p, 2, 1, 31, &d) || d > days_in_month(y, mo) ||
        !lit(&p, 'T') || !digits(&p, 2, 0, 23, &h) || !lit(&p, ':') ||
        !digits(&p, 2, 0, 59, &mi) || !lit(&p, ':') || !digits(&p, 2, 0, 59, &sec) ||
        !fraction(&p, &ms) || !zone(p, &off))
        return -EINVAL;
    int64_t t = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - off;
    *out_ms = t * 1000 + ms;
    return 0;
}

int kt_format(int64_t ms, char out[KT_RFC3339_MAX])
{
    int64_t y;
    int mo, d;
    out[0] = '\0';
    if (ms < KT_MIN_MS || ms > KT_MAX_MS)
        return -ERANGE;
    int64_t secs = floor_div(ms, 1000);
    int64_t days = floor_div(secs, 86400);
    int64_t sod = secs - days * 86400;
    civil_from_days(days, &y, &mo, &d);
    snprintf(out, KT_RFC3339_MAX, "%04lld-%02d-%02dT%02d:%02d:%02dZ", (long long)y, mo, d,
             (int)(sod / 3600), (int)(sod / 60 % 60), (int)(sod % 60));
    return 0;
}
