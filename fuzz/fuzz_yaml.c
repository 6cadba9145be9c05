/* fuzz_yaml: any input either fails to decode cleanly or decodes into documents that survive
 * encode -> decode unchanged (and encode to the same text twice).  Built as a libFuzzer target
 * with clang (scripts/fuzz.sh) and linked with fuzz/replay.c as the CTest test fuzz/fuzz_yaml. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj/tree/yaml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* json_equal, except that object keys may hold NUL bytes (json_equal looks keys up as C
 * strings, so it would call two equal trees with such keys different). */
static int fz_equal(const json_t *a, const json_t *b)
{
    if (json_is_array(a) && json_is_array(b)) {
        if (json_array_size(a) != json_array_size(b))
            return 0;
        for (size_t i = 0; i < json_array_size(a); i++)
            if (!fz_equal(json_array_get(a, i), json_array_get(b, i)))
                return 0;
        return 1;
    }
    if (!json_is_object(a) || !json_is_object(b))
        return json_equal(a, b);
    if (json_object_size(a) != json_object_size(b))
        return 0;
    for (void *it = json_object_iter((json_t *)a); it; it = json_object_iter_next((json_t *)a, it)) {
        const json_t *bv =
            json_object_getn(b, json_object_iter_key(it), json_object_iter_key_len(it));
        if (!bv || !fz_equal(json_object_iter_value(it), bv))
            return 0;
    }
    return 1;
}

static void fz_die(const char *why, const json_t *doc, const char *text, const char *detail)
{
    char *want = json_dumps(doc, JSON_ENCODE_ANY | JSON_COMPACT);
    fprintf(stderr, "fuzz_yaml: %s%s%s\nvalue: %s\nencoded:\n%s\n", why, detail ? ": " : "",
            detail ? detail : "", want ? want : "(unprintable)", text ? text : "(none)");
    free(want);
    abort();
}

static void fz_roundtrip(const json_t *doc)
{
    json_t *again = NULL;
    struct err e = {{0}};
    char *text = yaml_encode(doc);
    if (!text)
        fz_die("yaml_encode failed", doc, NULL, NULL);
    if (yaml_decode(text, strlen(text), &again, &e) < 0)
        fz_die("encoded text does not decode", doc, text, e.msg);
    if (json_array_size(again) != 1 || !fz_equal(json_array_get(again, 0), doc))
        fz_die("decode(encode(v)) != v", doc, text, NULL);
    char *text2 = yaml_encode(json_array_get(again, 0));
    if (!text2 || strcmp(text, text2) != 0)
        fz_die("encoding is not stable", doc, text, text2);
    free(text2);
    free(text);
    json_decref(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *docs = NULL;
    struct err e = {{0}};
    if (yaml_decode((const char *)data, size, &docs, &e) < 0) {
        if (strncmp(e.msg, "line ", 5) != 0 && strcmp(e.msg, "out of memory") != 0)
            fz_die("decode error without a position", NULL, NULL, e.msg);
        return 0;
    }
    for (size_t i = 0; i < json_array_size(docs); i++)
        fz_roundtrip(json_array_get(docs, i));
    json_decref(docs);
    return 0;
}
