#include "obj/tree/dns.h"

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <string.h>

/* Texts as apimachinery's RegexError() builds them (note the doubled space before "or"). */
#define RE_1123_LABEL "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
#define RE_1123_SUBDOMAIN RE_1123_LABEL "(\\." RE_1123_LABEL ")*"
#define RE_1035_LABEL "[a-z]([-a-z0-9]*[a-z0-9])?"
#define RE_QNAME "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
#define RE_LABEL_VALUE "(" RE_QNAME ")?"
#define RE_HTTP_PATH "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+"

#define MSG_1123_LABEL                                                                             \
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "       \
    "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "       \
    "regex used for validation is '" RE_1123_LABEL "')"
#define MSG_1123_SUBDOMAIN                                                                         \
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "          \
    "'-' or '.', and must start and end with an alphanumeric character (e.g. "                     \
    "'example.com', regex used for validation is '" RE_1123_SUBDOMAIN "')"
#define MSG_1035_LABEL                                                                             \
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start "           \
    "with an alphabetic character, and end with an alphanumeric character (e.g. "                  \
    "'my-name',  or 'abc-123', regex used for validation is '" RE_1035_LABEL "')"
#define MSG_LABEL_VALUE                                                                            \
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "       \
    "or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "          \
    "'my_value',  or '12345', regex used for validation is '" RE_LABEL_VALUE "')"
#define MSG_QNAME_BODY                                                                             \
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "       \
    "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "          \
    "for validation is '" RE_QNAME "')"
#define MSG_MAXLEN_253 "must be no more than 253 characters"

static bool is_lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool is_alnum(char c)
{
    return is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

/* [a-z0-9]([-a-z0-9]*[a-z0-9])? over s[0..n) */
static bool match_1123_label(const char *s, size_t n)
{
    if (n == 0 || !is_lower_alnum(s[0]) || !is_lower_alnum(s[n - 1]))
        return false;
    for (size_t i = 1; i + 1 < n; i++)
        if (!is_lower_alnum(s[i]) && s[i] != '-')
            return false;
    return true;
}

static bool match_1123_subdomain(const char *s, size_t n)
{
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && s[i] != '.')
            continue;
        if (!match_1123_label(s + start, i - start))
            return false;
        start = i + 1;
    }
    return true;
}

static bool match_1035_label(const char *s, size_t n)
{
    if (n == 0 || s[0] < 'a' || s[0] > 'z' || !is_lower_alnum(s[n - 1]))
        return false;
    for (size_t i = 1; i + 1 < n; i++)
        if (!is_lower_alnum(s[i]) && s[i] != '-')
            return false;
    return true;
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9] */
static bool match_qname(const char *s, size_t n)
{
    if (n == 0 || !is_alnum(s[0]) || !is_alnum(s[n - 1]))
        return false;
    for (size_t i = 1; i + 1 < n; i++)
        if (!is_alnum(s[i]) && !strchr("-_.", s[i]))
            return false;
    return true;
}

static bool match_http_path(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!is_alnum(s[i]) && !strchr("/-._~%!$&'()*+,;=:", s[i]))
            return false;
    return true;
}

static void msgs_push(struct dns_msgs *out, const char *m)
{
    if (out->n < DNS_MSGS_MAX)
        out->v[out->n++] = m;
}

size_t dns_1123_label(const char *s, struct dns_msgs *out)
{
    size_t n = strlen(s);
    out->n = 0;
    if (n > DNS1123_LABEL_MAX)
        msgs_push(out, DNS_MAXLEN63_MSG);
    if (!match_1123_label(s, n))
        msgs_push(out, match_1123_subdomain(s, n) ? "must not contain dots" : MSG_1123_LABEL);
    return out->n;
}

size_t dns_1123_subdomain(const char *s, struct dns_msgs *out)
{
    size_t n = strlen(s);
    out->n = 0;
    if (n > DNS1123_SUBDOMAIN_MAX)
        msgs_push(out, MSG_MAXLEN_253);
    if (!match_1123_subdomain(s, n))
        msgs_push(out, MSG_1123_SUBDOMAIN);
    return out->n;
}

size_t dns_1035_label(const char *s, struct dns_msgs *out)
{
    size_t n = strlen(s);
    out->n = 0;
    if (n > DNS1035_LABEL_MAX)
        msgs_push(out, DNS_MAXLEN63_MSG);
    if (!match_1035_label(s, n))
        msgs_push(out, MSG_1035_LABEL);
    return out->n;
}

size_t dns_label_value(const char *s, struct dns_msgs *out)
{
    size_t n = strlen(s);
    out->n = 0;
    if (n > DNS_LABEL_VALUE_MAX)
        msgs_push(out, DNS_MAXLEN63_MSG);
    if (n > 0 && !match_qname(s, n))
        msgs_push(out, MSG_LABEL_VALUE);
    return out->n;
}

static void qname_prefix(const char *p, size_t n, struct dns_msgs *out)
{
    if (n == 0) {
        msgs_push(out, "prefix part must be non-empty");
        return;
    }
    if (n > DNS1123_SUBDOMAIN_MAX)
        msgs_push(out, "prefix part " MSG_MAXLEN_253);
    if (!match_1123_subdomain(p, n))
        msgs_push(out, "prefix part " MSG_1123_SUBDOMAIN);
}

size_t dns_qualified_name(const char *s, struct dns_msgs *out)
{
    const char *slash = strchr(s, '/');
    const char *name = s;
    out->n = 0;
    if (slash && strchr(slash + 1, '/')) {
        msgs_push(out, "a qualified name " MSG_QNAME_BODY
                       " with an optional DNS subdomain prefix and '/' (e.g. "
                       "'example.com/MyName')");
        return out->n;
    }
    if (slash) {
        qname_prefix(s, (size_t)(slash - s), out);
        name = slash + 1;
    }
    size_t n = strlen(name);
    if (n == 0)
        msgs_push(out, "name part must be non-empty");
    else if (n > DNS_QUALIFIED_NAME_MAX)
        msgs_push(out, "name part " DNS_MAXLEN63_MSG);
    if (!match_qname(name, n))
        msgs_push(out, "name part " MSG_QNAME_BODY);
    return out->n;
}

static int add_part(struct ferr_list *errs, const char *path, const char *p, size_t n,
                    const char *msg)
{
    json_t *v = json_stringn(p, n);
    if (!v)
        return -ENOMEM;
    int rc = ferr_add(errs, FERR_INVALID, path, v, "%s", msg);
    json_decref(v);
    return rc;
}

int dns_domain_prefixed_path(const char *s, const char *path, struct ferr_list *errs)
{
    size_t before = errs->n;
    int rc = 0;
    if (!*s)
        return ferr_add(errs, FERR_REQUIRED, path, NULL, NULL) < 0 ? -ENOMEM : 1;
    const char *slash = strchr(s, '/');
    if (!slash || slash == s || !slash[1]) {
        rc = add_part(errs, path, s, strlen(s),
                      "must be a domain-prefixed path (such as \"acme.io/foo\")");
        return rc < 0 ? rc : 1;
    }
    size_t hn = (size_t)(slash - s);
    char host[DNS1123_SUBDOMAIN_MAX + 2];
    struct dns_msgs m = {0};
    if (hn > DNS1123_SUBDOMAIN_MAX) {
        m.n = 0;
        msgs_push(&m, MSG_MAXLEN_253);
        if (!match_1123_subdomain(s, hn))
            msgs_push(&m, MSG_1123_SUBDOMAIN);
    } else {
        memcpy(host, s, hn);
        host[hn] = '\0';
        dns_1123_subdomain(host, &m);
    }
    for (size_t i = 0; i < m.n && rc == 0; i++)
        rc = add_part(errs, path, s, hn, m.v[i]);
    if (rc == 0 && !match_http_path(slash + 1, strlen(slash + 1)))
        rc = add_part(errs, path, slash + 1, strlen(slash + 1),
                      "Invalid path (regex used for validation is '" RE_HTTP_PATH "')");
    return rc < 0 ? rc : (int)(errs->n - before);
}
