/* gz: gzip streams (RFC 1952) inflated with zlib, which gz loads with dlopen on first use
 * (GZ_ZLIB) instead of linking it, so that a program that never inflates never maps it:
 * `jaxset run` maps libc, jansson and libyaml alone (tests/local/test_lean.py).  zlib1g is
 * Debian's Priority: required; building needs zlib.h only (zlib1g-dev).  What `jaxset crds`
 * prints is built into the binary gzip-compressed (scripts/embed_files.cmake). */
#ifndef JX_OBJ_GZ_H
#define JX_OBJ_GZ_H

#include <stddef.h>

#include "obj/base/err.h"

/* The zlib gz loads (the dynamic loader's search: ldconfig's cache, /lib, /usr/lib). */
#define GZ_ZLIB "libz.so.1"

/* Inflates the one gzip stream gz[0..gz_len) into out, whose `len` bytes its content must fill
 * exactly.  Returns 0; -ENOSYS when GZ_ZLIB cannot be loaded, -EPROTO when the stream is
 * broken, truncated, followed by more bytes or its content is not `len` bytes long, -EOVERFLOW
 * when a length exceeds what one zlib call takes (4 GiB), -ENOMEM; with a message in `e`. */
int gz_inflate(const void *gz, size_t gz_len, void *out, size_t len, struct err *e);

#endif
