/* jsontext: what a JSON decoder does to JSON text that a YAML 1.1 parser would refuse.
 *
 * kubectl reads a manifest whose first non-blank character is '{' as JSON
 * (k8s.io/apimachinery pkg/util/yaml, YAMLOrJSONDecoder), and JSON's \u escapes are UTF-16:
 * a character beyond U+FFFF is written as a surrogate pair ("\ud83d\ude00"), which libyaml
 * rejects; and a JSON string may hold U+0085 (NEL) as it is, which YAML folds as a line break.
 * jsontext rewrites such text so that the YAML decoder sees what a JSON decoder
 * would have produced. */
#ifndef JX_JSONTEXT_H
#define JX_JSONTEXT_H

#include <stdbool.h>
#include <stddef.h>

/* True when `buf` is read as JSON by kubectl: its first non-blank byte is '{'. */
bool jsontext_is_json(const char *buf, size_t len);

/* Rewrites, inside string literals, every "\uD8xx\uDCxx" surrogate pair to the UTF-8 bytes of
 * the character it encodes and every unpaired surrogate escape to U+FFFD (as Go's
 * encoding/json does), and every raw NEL, LS or PS character to its \u escape: JSON keeps
 * them byte for byte where libyaml would fold them as YAML line breaks.  Returns 1 with *out
 * (malloc'd, NUL-terminated, caller frees) and *out_len when something was rewritten, 0 when
 * nothing needed it (*out untouched), -ENOMEM. */
int jsontext_rewrite(const char *buf, size_t len, char **out, size_t *out_len);

#endif
