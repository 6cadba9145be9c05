/* fuzz_pack: any bytes given to the cache's packing (kube/cache/cache_pack.c).  Text without
 * control bytes (what compact JSON is made of) packs into no longer a string without a NUL that
 * unpacks to the same bytes; text with one is refused; and any bytes given to cache_unpack are
 * either refused or unpack into text without control bytes that packs back to no longer a
 * string.  Built as a libFuzzer target with clang (JAXSET_FUZZ) and linked with fuzz/replay.c
 * as the CTest test fuzz/fuzz_pack. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/cache/cache_pack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int has_control(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20)
            return 1;
    return 0;
}

static void check_text(const char *text)
{
    char *p = cache_pack(text);
    if (has_control(text)) {
        if (p)
            abort(); /* not compact JSON: refused */
        return;
    }
    size_t len = 0;
    char *back = p ? cache_unpack(p, &len) : NULL;
    if (p && (strlen(p) > strlen(text) || !back || len != strlen(text) || strcmp(back, text)))
        abort();
    free(back);
    free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = 0; /* up to the first NUL */
    check_text(s);
    char *u = cache_unpack(s, NULL);
    if (u) {
        if (has_control(u))
            abort();
        check_text(u);
    }
    free(u);
    free(s);
    return 0;
}
