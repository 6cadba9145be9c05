/* sha1: SHA-1 (FIPS 180-4), for the identifiers that are part of the wire contract (the
 * JobSet job-key label, jaxset's stable uids).  Not for security.  Written here rather than
 * linking OpenSSL, whose start-up alone costs the supervisor megabytes of resident memory. */
#ifndef JX_SHA1_H
#define JX_SHA1_H

#include <stddef.h>
#include <stdint.h>

#define SHA1_LEN 20

struct sha1 {
    uint32_t h[5];
    uint64_t len;     /* bytes hashed so far */
    uint8_t buf[64];
    size_t used;
};

void sha1_init(struct sha1 *s);
void sha1_update(struct sha1 *s, const void *data, size_t n);
void sha1_final(struct sha1 *s, uint8_t out[SHA1_LEN]);

/* One-shot digest as 40 lowercase hex characters plus NUL. */
void sha1_hex(const void *data, size_t n, char out[41]);

#endif
