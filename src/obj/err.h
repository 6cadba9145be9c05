/* err: a short human-readable error message filled where a failure happens.
 *
 * Library functions return 0 (or a count) on success and a negative errno on failure; when they
 * take a `struct err *` they also write a one-line message into it (NULL is allowed and means
 * "no message wanted").  Messages never end with a newline.
 *
 * A message is a one-line diagnostic, bounded by design so that callers can keep it by value
 * (`struct err e = {{0}}`, read e.msg) without freeing anything: one longer than ERR_MSG_MAX - 1
 * bytes (a message quoting a very long user string) is cut at a UTF-8 character boundary and
 * ends in "...", so it stays valid text and says it was cut. */
#ifndef JX_ERR_H
#define JX_ERR_H

#include <stddef.h>

/* A message quotes at most one path (< PATH_MAX, 4096) and a short text. */
#define ERR_MSG_MAX 5120

struct err {
    char msg[ERR_MSG_MAX];
};

/* Formats into e->msg (cut as above past ERR_MSG_MAX); returns `rc` so callers can write
 * `return err_set(e, -EINVAL, "...")`.  e may be NULL. */
int err_set(struct err *e, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Prefixes the existing message with "<prefix>: " (cut as above). e may be NULL. */
void err_prefix(struct err *e, const char *prefix);

#endif
