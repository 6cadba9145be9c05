/* yaml: YAML (and JSON) text <-> JSON trees, with kubectl's scalar rules.
 *
 * Decoding follows what `kubectl apply -f` does (sigs.k8s.io/yaml over go-yaml v2, YAML 1.1):
 *   - plain scalars: null (~, null, Null, NULL, empty), booleans (y, Y, yes, Yes, YES, n, N, no,
 *     No, NO, true, True, TRUE, false, False, FALSE, on, On, ON, off, Off, OFF), integers
 *     (decimal, 0x hex, 0o/0 octal, 0b binary, '_' separators, sign), floats (1.5, 1e3, .inf,
 *     -.Inf, .nan); everything else is a string;
 *   - quoted scalars (single or double), block scalars (| and >) and scalars tagged !!str stay
 *     strings; !!int, !!float, !!bool, !!null force the type (an impossible value is an error);
 *   - anchors, aliases and `<<` merge keys are resolved;
 *   - mapping keys always become strings (a key `on:` becomes "true", as kubectl does);
 *   - several documents separated by `---`; empty and null documents are skipped (kubectl);
 *   - JSON input is YAML and decodes the same way.
 * Integers beyond int64 become reals; duplicate mapping keys are an error (as in kubectl). */
#ifndef JX_YAML_H
#define JX_YAML_H

#include <jansson.h>
#include <stddef.h>

#include "obj/base/err.h"

/* Largest input accepted (bytes); larger input is an error, never a silent truncation. */
#define YAML_INPUT_MAX (64u * 1024u * 1024u)

/* Decodes every document of `buf[0..len)` into a new JSON array (*out_docs, one element per
 * non-empty document, caller decrefs).  On a syntax or typing error returns -EINVAL, leaves
 * *out_docs untouched and writes "line L, column C: <problem>" (1-based) into err.
 * -ENOMEM on allocation failure, -EFBIG over YAML_INPUT_MAX. */
int yaml_decode(const char *buf, size_t len, json_t **out_docs, struct err *err);

/* Same for a file ("-" is standard input).  I/O errors give a negative errno and a message
 * naming the file; decode errors are prefixed with the file name ("job.yaml: line 3, ..."). */
int yaml_decode_file(const char *path, json_t **out_docs, struct err *err);

/* Encodes one value as a YAML document in block style, keys in object order, strings quoted
 * whenever a plain scalar would decode to something else (so decode(encode(v)) == v).  No
 * leading "---".  Returns a malloc'd string (caller frees) or NULL on OOM. */
char *yaml_encode(const json_t *v);

#endif
