/* b64: standard base64 (RFC 4648 section 4, '+' '/' and '=' padding) as Go's
 * encoding/base64.StdEncoding reads and writes it, which is how Kubernetes carries []byte
 * fields in JSON and YAML (kubeconfig's *-data fields, a Secret's data, ExecCredential's
 * cluster.certificate-authority-data). */
#ifndef JX_OBJ_B64_H
#define JX_OBJ_B64_H

#include <stddef.h>

/* Decodes `in[0..len)` as StdEncoding.Decode does: '\r' and '\n' anywhere are skipped, the
 * rest must be whole groups of four characters of the alphabet, '=' only as the padding of the
 * last group.  Returns 0 with *out (malloc'd, caller frees; NUL-terminated for convenience,
 * *out_len bytes before the NUL), -EINVAL on input that is not base64 (*out untouched), or
 * -ENOMEM. */
int b64_decode(const char *in, size_t len, char **out, size_t *out_len);

/* Encodes `len` bytes with padding, no line breaks.  A malloc'd string (caller frees), or NULL
 * on out of memory. */
char *b64_encode(const void *data, size_t len);

#endif
