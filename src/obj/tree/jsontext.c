/* JSON text rewriting for the YAML decoder (see jsontext.h). */
#include "obj/tree/jsontext.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool jsontext_is_json(const char *buf, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n')
            continue;
        return buf[i] == '{';
    }
    return false;
}

/* The value of "\uXXXX" at s (6 bytes available), or -1 when it is not one. */
static long hex4(const char *s, size_t avail)
{
    long v = 0;
    if (avail < 6 || s[0] != '\\' || s[1] != 'u')
        return -1;
    for (int i = 2; i < 6; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

static size_t utf8_put(char *o, uint32_t cp)
{
    if (cp < 0x10000) { /* only U+FFFD and BMP characters reach here as 3 bytes */
        o[0] = (char)(0xE0 | cp >> 12);
        o[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | cp >> 18);
    o[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    o[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* At an escape inside a string: writes its replacement to o and returns the input bytes it
 * consumed, or 0 when the escape is left as written. */
static size_t surrogate_at(const char *s, size_t avail, char *o, size_t *wrote)
{
    long hi = hex4(s, avail);
    if (hi < 0xD800 || hi > 0xDFFF)
        return 0;
    long lo = hi <= 0xDBFF ? hex4(s + 6, avail - 6) : -1;
    if (lo >= 0xDC00 && lo <= 0xDFFF) {
        *wrote = utf8_put(o, (uint32_t)(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)));
        return 12;
    }
    *wrote = utf8_put(o, 0xFFFD);
    return 6;
}

/* Bytes of a raw YAML line break other than CR and LF at s: NEL (U+0085), LS (U+2028) or PS
 * (U+2029), which JSON strings may hold as they are; 0 for anything else. */
static size_t yaml_break_at(const char *s, size_t avail)
{
    const unsigned char *u = (const unsigned char *)s;
    if (avail >= 2 && u[0] == 0xC2 && u[1] == 0x85)
        return 2;
    if (avail >= 3 && u[0] == 0xE2 && u[1] == 0x80 && (u[2] == 0xA8 || u[2] == 0xA9))
        return 3;
    return 0;
}

/* At a byte inside a string: writes its replacement to o and returns the input bytes it
 * consumed; *changed is set when the text differs. */
static size_t string_byte_at(const char *s, size_t avail, char *o, size_t *wrote, bool *changed)
{
    size_t used = s[0] == '\\' ? surrogate_at(s, avail, o, wrote) : 0;
    if (used) {
        *changed = true;
        return used;
    }
    if (s[0] == '\\') { /* any other escape: copy it whole so an escaped quote stays inside */
        used = avail > 1 ? 2 : 1;
        memcpy(o, s, used);
        *wrote = used;
        return used;
    }
    if ((used = yaml_break_at(s, avail))) { /* as its escape: libyaml would fold it */
        unsigned cp = used == 2 ? 0x85u : (unsigned char)s[2] == 0xA8 ? 0x2028u : 0x2029u;
        *wrote = (size_t)snprintf(o, 7, "\\u%04x", cp);
        *changed = true;
        return used;
    }
    o[0] = s[0];
    *wrote = 1;
    return 1;
}

/* Room for the rewrite: escapes never grow, each raw break grows to 6 bytes at most. */
static size_t rewrite_cap(const char *buf, size_t len)
{
    size_t breaks = 0;
    for (size_t i = 0; i + 1 < len; i++)
        breaks += yaml_break_at(buf + i, len - i) != 0;
    return len + 4 * breaks + 1;
}

int jsontext_rewrite(const char *buf, size_t len, char **out, size_t *out_len)
{
    size_t n = 0, cap = rewrite_cap(buf, len);
    bool in_str = false, changed = false;
    if (!memmem(buf, len, "\\u", 2) && cap == len + 1)
        return 0;
    char *o = malloc(cap + 6); /* + one escape written in full by snprintf */
    if (!o)
        return -ENOMEM;
    for (size_t i = 0; i < len;) {
        size_t used, wrote;
        if (in_str) {
            used = string_byte_at(buf + i, len - i, o + n, &wrote, &changed);
            in_str = !(used == 1 && buf[i] == '"');
        } else {
            in_str = buf[i] == '"';
            o[n] = buf[i];
            wrote = used = 1;
        }
        n += wrote;
        i += used;
    }
    if (!changed) {
        free(o);
        return 0;
    }
    o[n] = 0;
    *out = o;
    *out_len = n;
    return 1;
}
