/* Growable strings (see sbuf.h). */
#include "obj/base/sbuf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *sb_str(const struct sbuf *b)
{
    return b->s ? b->s : "";
}

bool sb_failed(const struct sbuf *b)
{
    return b->failed;
}

/* Room for `more` bytes and the NUL; false (and failed) when that cannot be had. */
static bool reserve(struct sbuf *b, size_t more)
{
    if (b->failed)
        return false;
    if (more > SIZE_MAX / 2 - b->len - 1 || (b->max && b->len + more > b->max)) {
        b->failed = true;
        return false;
    }
    size_t need = b->len + more + 1;
    if (need <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) {
        b->failed = true;
        return false;
    }
    b->s = s;
    b->cap = cap;
    return true;
}

void sb_append(struct sbuf *b, const char *s, size_t n)
{
    if (!reserve(b, n))
        return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void sb_puts(struct sbuf *b, const char *s)
{
    sb_append(b, s, strlen(s));
}

void sb_vprintf(struct sbuf *b, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    char probe[1];
    int n = vsnprintf(probe, sizeof(probe), fmt, ap);
    if (n < 0 || !reserve(b, (size_t)n)) {
        b->failed = true;
        va_end(again);
        return;
    }
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, again);
    va_end(again);
    b->len += (size_t)n;
}

void sb_printf(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(b, fmt, ap);
    va_end(ap);
}

void sb_reset(struct sbuf *b)
{
    b->len = 0;
    b->failed = false;
    if (b->s)
        b->s[0] = '\0';
}

char *sb_detach(struct sbuf *b)
{
    char *s = b->failed ? NULL : b->s;
    if (b->failed)
        free(b->s);
    else if (!s)
        s = calloc(1, 1);
    size_t max = b->max;
    memset(b, 0, sizeof(*b));
    b->max = max;
    return s;
}

void sb_free(struct sbuf *b)
{
    free(b->s);
    memset(b, 0, sizeof(*b));
}

char *sb_fmt(const char *fmt, ...)
{
    struct sbuf b = SBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&b, fmt, ap);
    va_end(ap);
    return sb_detach(&b);
}
