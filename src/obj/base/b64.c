/* Base64 as Go's encoding/base64.StdEncoding (see b64.h). */
#include "obj/base/b64.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char ALPHABET[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int digit(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* One group of four characters (padding included) into 1..3 bytes at `o`; the byte count, or -1
 * when the group is not valid (padding anywhere but at the end of the last group). */
static int group(const char q[4], int last, unsigned char *o)
{
    int pad = (q[3] == '=') + (q[2] == '=' && q[3] == '=');
    if (pad && !last)
        return -1;
    uint32_t acc = 0;
    for (int i = 0; i < 4 - pad; i++) {
        int d = digit(q[i]);
        if (d < 0)
            return -1;
        acc |= (uint32_t)d << (18 - 6 * i);
    }
    o[0] = (unsigned char)(acc >> 16);
    o[1] = (unsigned char)(acc >> 8);
    o[2] = (unsigned char)acc;
    return 3 - pad;
}

int b64_decode(const char *in, size_t len, char **out, size_t *out_len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += in[i] != '\r' && in[i] != '\n';
    if (n % 4)
        return -EINVAL;
    unsigned char *buf = malloc(n / 4 * 3 + 1);
    if (!buf)
        return -ENOMEM;
    size_t o = 0, seen = 0;
    char q[4];
    int k = 0;
    for (size_t i = 0; i < len; i++) {
        if (in[i] == '\r' || in[i] == '\n')
            continue;
        q[k++] = in[i];
        seen++;
        if (k < 4)
            continue;
        k = 0;
        int got = group(q, seen == n, buf + o);
        if (got < 0) {
            free(buf);
            return -EINVAL;
        }
        o += (size_t)got;
    }
    buf[o] = '\0';
    *out = (char *)buf;
    *out_len = o;
    return 0;
}

char *b64_encode(const void *data, size_t len)
{
    const unsigned char *p = data;
    char *s = malloc((len + 2) / 3 * 4 + 1), *o = s;
    if (!s)
        return NULL;
    for (size_t i = 0; i < len; i += 3) {
        uint32_t acc = (uint32_t)p[i] << 16;
        if (i + 1 < len)
            acc |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < len)
            acc |= p[i + 2];
        *o++ = ALPHABET[acc >> 18 & 63];
        *o++ = ALPHABET[acc >> 12 & 63];
        *o++ = i + 1 < len ? ALPHABET[acc >> 6 & 63] : '=';
        *o++ = i + 2 < len ? ALPHABET[acc & 63] : '=';
    }
    *o = '\0';
    return s;
}
