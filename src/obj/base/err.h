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

/* The one table of the codes jaxset gives a meaning of its own (as curl's CURLcode and libuv's
 * UV_ERRNO_MAP are theirs).  They are returned negated, like errno values, and start above every
 * errno so that they never mean one by accident; err_str() names any of the two.  Nothing else
 * in the tree gives an errno a private meaning.
 *   X(name, message) */
#define JX_ERR_TABLE(X)                                                                     \
    X(JX_ECONFLICT, "conflict: the object was changed since it was read (HTTP 409)")         \
    X(JX_EGONE, "gone: the resource version is too old (HTTP 410); list again")             \
    X(JX_EMISSINGKEY, "no such key in the ConfigMap or Secret")                                    \
    X(JX_ELEADERSHIP, "leader election lost")

#define JX_ERR_ENUM_(name, msg) name,
enum jx_err {
    JX_ERR_BASE = 4096, /* above every errno (Linux's end below 200) */
    JX_ERR_BEFORE_FIRST_ = JX_ERR_BASE - 1,
    JX_ERR_TABLE(JX_ERR_ENUM_)
    JX_ERR_END_
};
#undef JX_ERR_ENUM_

/* The message of a negative errno or of a negated JX_E* code ("Unknown error N" for neither);
 * static. */
const char *err_str(int rc);

/* The name of a negated JX_E* code ("JX_ECONFLICT"), or NULL for anything else; static. */
const char *err_name(int rc);

/* A message quotes at most one path (< PATH_MAX, 4096) and a short text. */
#define ERR_MSG_MAX 5120

struct err {
    char msg[ERR_MSG_MAX];
};

/* Formats into e->msg (cut as above past ERR_MSG_MAX); returns `rc` so callers can write
 * `return err_set(e, -EINVAL, "...")`.  e may be NULL. */
int err_set(struct err *e, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The one wording of an allocation failure, wherever it is reported. */
#define ERR_OOM_MSG "out of memory"

/* err_set(e, -ENOMEM, ERR_OOM_MSG): what an allocation failure reports; returns -ENOMEM.  e
 * may be NULL. */
int err_oom(struct err *e);

/* Prefixes the existing message with "<prefix>: " (cut as above). e may be NULL. */
void err_prefix(struct err *e, const char *prefix);

#endif
