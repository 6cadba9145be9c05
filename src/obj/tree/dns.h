/* dns: Kubernetes name validators (k8s.io/apimachinery/pkg/util/validation), returning
 * Kubernetes' own error texts, e.g. for dns_1123_label("a_b"):
 *
 *   a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and
 *   must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used
 *   for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')
 *
 * Every message is a static string: nothing to free.  All functions are pure and thread-safe. */
#ifndef JX_DNS_H
#define JX_DNS_H

#include "obj/tree/ferr.h"

#include <stddef.h>

#define DNS1123_LABEL_MAX 63
#define DNS1123_SUBDOMAIN_MAX 253
#define DNS1035_LABEL_MAX 63
#define DNS_LABEL_VALUE_MAX 63
#define DNS_QUALIFIED_NAME_MAX 63

/* The exact length message Kubernetes gives for a 63-character limit. */
#define DNS_MAXLEN63_MSG "must be no more than 63 characters"

#define DNS_MSGS_MAX 4

/* The messages of one check, in Kubernetes' order; n == 0 means valid. */
struct dns_msgs {
    size_t n;
    const char *v[DNS_MSGS_MAX];
};

/* Each fills *out (always) and returns out->n.  `s` must not be NULL. */
size_t dns_1123_label(const char *s, struct dns_msgs *out);     /* IsDNS1123Label */
size_t dns_1123_subdomain(const char *s, struct dns_msgs *out); /* IsDNS1123Subdomain */
size_t dns_1035_label(const char *s, struct dns_msgs *out);     /* IsDNS1035Label */
size_t dns_label_value(const char *s, struct dns_msgs *out);    /* IsValidLabelValue */
size_t dns_qualified_name(const char *s, struct dns_msgs *out); /* IsQualifiedName (label keys) */

/* IsDomainPrefixedPath ("acme.io/foo"): appends its field errors for `s` at `path` to `errs`
 * (Required for "", Invalid with the host or the path part as value otherwise).  Returns the
 * number of errors added or -ENOMEM. */
int dns_domain_prefixed_path(const char *s, const char *path, struct ferr_list *errs);

#endif
