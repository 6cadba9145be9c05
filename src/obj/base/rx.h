/* rx: regular expressions with Go's regexp (RE2) semantics, for patterns users write for the
 * upstream Go controllers (e.g. JobSet's failurePolicy.rules[].onJobFailureMessagePatterns,
 * matched with regexp.MatchString in kubernetes-sigs/jobset pkg/controllers/failure_policy.go).
 * A thin C interface over libre2 (rx_re2.cc, loaded on first use by rx.c): (?i) flags, \d
 * classes, non-greedy repetition and UTF-8 behave as in Go; backreferences and lookaround are
 * errors, as in Go.  Without the module, rx_compile fails with -ENOSYS and a message. */
#ifndef JX_RX_H
#define JX_RX_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rx;

/* Compiles `pattern` (NUL-terminated).  Returns 0 and *out (free with rx_free), -EINVAL with
 * *errmsg set to RE2's message (malloc'd, caller frees; NULL when errmsg is NULL), -ENOSYS when
 * the RE2 module is missing (with *errmsg), or -ENOMEM. */
int rx_compile(const char *pattern, struct rx **out, char **errmsg);

/* True when the pattern matches somewhere in text[0..len) (unanchored, as Go's MatchString). */
bool rx_search(const struct rx *re, const char *text, size_t len);

void rx_free(struct rx *re);

/* Compiles, searches and frees in one call: 1 match, 0 no match, -EINVAL invalid pattern,
 * -ENOMEM. */
int rx_match_once(const char *pattern, const char *text);

#ifdef __cplusplus
}
#endif

#endif
