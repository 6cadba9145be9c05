/* wh_cert: the webhook server's certificates, as upstream JobSet's internal certificate
 * management makes them (kubernetes-sigs/jobset pkg/util/cert, which runs
 * open-policy-agent/cert-controller's rotator): a self-signed CA and a serving certificate it
 * signs for the webhook Service's DNS names (or the addresses of --webhook-url-base), kept in a
 * Secret under ca.crt, ca.key, tls.crt and tls.key, and made again before they expire.
 * Keys are ECDSA P-256 (GnuTLS); everything is PEM in memory, nothing is written to disk. */
#ifndef JX_KUBE_WEBHOOK_WH_CERT_H
#define JX_KUBE_WEBHOOK_WH_CERT_H

#include <stddef.h>
#include <stdint.h>

#include "obj/base/err.h"

struct wh_cert {
    char *ca_crt, *ca_key, *tls_crt, *tls_key; /* PEM, owned (keys wiped when released) */
};

/* A new CA and a serving certificate for `hosts` (DNS names; IPv4/IPv6 literals become IP
 * addresses), both valid from a minute ago for `validity_s` seconds from `now` (Unix seconds).
 * 0 or -errno with a message; *out is released first. */
int wh_cert_generate(const char *const *hosts, size_t n_hosts, int64_t now, int64_t validity_s,
                    struct wh_cert *out, struct err *e);

/* Whether `c` can be served: all four parse, each key matches its certificate, the serving
 * certificate is signed by the CA and names every host, and neither expires within
 * `lookahead_s` of `now`.  0 when it can (*not_after, may be NULL: when the first of the two
 * expires), 1 when a new pair is needed (*why, may be NULL: a static reason), -ENOMEM. */
int wh_cert_check(const struct wh_cert *c, const char *const *hosts, size_t n_hosts, int64_t now,
                 int64_t lookahead_s, int64_t *not_after, const char **why);

/* Copies `src` into *dst (released first).  0 or -ENOMEM. */
int wh_cert_copy(struct wh_cert *dst, const struct wh_cert *src);
void wh_cert_release(struct wh_cert *c);

#endif
