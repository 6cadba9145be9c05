/* Kubernetes name validators: exact messages and boundaries. */
#include "obj/tree/dns.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s_msgs.h"
#define MAX63 "must be no more than 63 characters"
#define MAX253 "must be no more than 253 characters"

typedef size_t (*dns_fn)(const char *, struct dns_msgs *);

/* "@N" + suffix in an input means N times 'a' followed by the suffix. */
struct dcase {
    const char *fn;
    const char *in;
    const char *want[DNS_MSGS_MAX]; /* all messages, in order */
};

static const struct dcase cases[] = {
    {"1123", "my-name", {NULL}},
    {"1123", "123-abc", {NULL}},
    {"1123", "a", {NULL}},
    {"1123", "0", {NULL}},
    {"1123", "@63", {NULL}},
    {"1123", "@64", {MAX63}},
    {"1123", "", {L1123}},
    {"1123", "-a", {L1123}},
    {"1123", "a-", {L1123}},
    {"1123", "My", {L1123}},
    {"1123", "a_b", {L1123}},
    {"1123", "a.b", {"must not contain dots"}},
    {"1123", "@64.b", {MAX63, "must not contain dots"}},
    {"1123", "@64_", {MAX63, L1123}},
    {"sub", "example.com", {NULL}},
    {"sub", "a", {NULL}},
    {"sub", "1.2.3", {NULL}},
    {"sub", "@253", {NULL}},
    {"sub", "@254", {MAX253}},
    {"sub", "", {S1123}},
    {"sub", "a..b", {S1123}},
    {"sub", ".a", {S1123}},
    {"sub", "a.", {S1123}},
    {"sub", "a.-b", {S1123}},
    {"sub", "Example.com", {S1123}},
    {"sub", "@254_", {MAX253, S1123}},
    {"1035", "my-name", {NULL}},
    {"1035", "abc-123", {NULL}},
    {"1035", "a", {NULL}},
    {"1035", "@63", {NULL}},
    {"1035", "@64", {MAX63}},
    {"1035", "1abc", {L1035}},
    {"1035", "0", {L1035}},
    {"1035", "", {L1035}},
    {"1035", "a-", {L1035}},
    {"1035", "a.b", {L1035}},
    {"1035", "aB", {L1035}},
    {"value", "", {NULL}},
    {"value", "MyValue", {NULL}},
    {"value", "my_value", {NULL}},
    {"value", "1.2-3_x", {NULL}},
    {"value", "@63", {NULL}},
    {"value", "@64", {MAX63}},
    {"value", "_a", {LVAL}},
    {"value", "a b", {LVAL}},
    {"value", "a/b", {LVAL}},
    {"value", "@63.", {MAX63, LVAL}},
    {"qname", "app", {NULL}},
    {"qname", "MyName", {NULL}},
    {"qname", "example.com/MyName", {NULL}},
    {"qname", "jobset.sigs.k8s.io/jobset-name", {NULL}},
    {"qname", "@63", {NULL}},
    {"qname", "@64", {"name part " MAX63}},
    {"qname", "", {"name part must be non-empty", "name part " QNAME}},
    {"qname", "a/", {"name part must be non-empty", "name part " QNAME}},
    {"qname", "/a", {"prefix part must be non-empty"}},
    {"qname", "Example.com/a", {"prefix part " S1123}},
    {"qname", "-a", {"name part " QNAME}},
    {"qname",
     "a/b/c",
     {"a qualified name " QNAME " with an optional DNS subdomain prefix and '/' (e.g. "
      "'example.com/MyName')"}},
    {"qname", "@254/x", {"prefix part " MAX253}},
};

static dns_fn fn_of(const char *name)
{
    static const struct {
        const char *name;
        dns_fn fn;
    } fns[] = {
        {"1123", dns_1123_label},   {"sub", dns_1123_subdomain},   {"1035", dns_1035_label},
        {"value", dns_label_value}, {"qname", dns_qualified_name},
    };

    for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
        if (strcmp(fns[i].name, name) == 0)
            return fns[i].fn;
    fail_msg("unknown validator %s", name);
    return NULL;
}

/* Expands "@N<rest>" into N 'a's followed by <rest>. */
static char *expand(const char *in)
{
    if (in[0] != '@')
        return strdup(in);
    char *end;
    size_t n = strtoul(in + 1, &end, 10);
    char *out = malloc(n + strlen(end) + 1);
    assert_non_null(out);
    memset(out, 'a', n);
    memcpy(out + n, end, strlen(end) + 1);
    return out;
}

static void test_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct dcase *t = &cases[i];
        char *in = expand(t->in);
        struct dns_msgs m;
        size_t n = fn_of(t->fn)(in, &m);
        size_t want_n = 0;
        while (want_n < DNS_MSGS_MAX && t->want[want_n])
            want_n++;
        if (n != want_n || m.n != n)
            fail_msg("case %zu %s(%s): %zu messages, want %zu%s%s", i, t->fn, t->in, n, want_n,
                     n ? ": first: " : "", n ? m.v[0] : "");
        for (size_t k = 0; k < n; k++)
            if (strcmp(m.v[k], t->want[k]) != 0)
                fail_msg("case %zu %s(%s) message %zu:\n got  %s\n want %s", i, t->fn, t->in, k,
                         m.v[k], t->want[k]);
        free(in);
    }
}

struct pcase {
    const char *in;
    const char *want; /* all errors, one per line, or "" */
};

static const struct pcase pcases[] = {
    {"jobset.sigs.k8s.io/jobset-controller", ""},
    {"acme.io/foo", ""},
    {"kueue.x-k8s.io/multikueue", ""},
    {"", "spec.managedBy: Required value\n"},
    {"acme.io", "spec.managedBy: Invalid value: \"acme.io\": must be a domain-prefixed path "
                "(such as \"acme.io/foo\")\n"},
    {"/foo", "spec.managedBy: Invalid value: \"/foo\": must be a domain-prefixed path (such "
             "as \"acme.io/foo\")\n"},
    {"acme.io/", "spec.managedBy: Invalid value: \"acme.io/\": must be a domain-prefixed path "
                 "(such as \"acme.io/foo\")\n"},
    {"Acme.io/foo", "spec.managedBy: Invalid value: \"Acme.io\": " S1123 "\n"},
    {"acme.io/a b", "spec.managedBy: Invalid value: \"a b\": Invalid path (regex used for "
                    "validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')\n"},
    {"acme.io/a/b~c", ""},
};

static void test_domain_prefixed_path(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(pcases) / sizeof(pcases[0]); i++) {
        struct ferr_list l;
        ferr_list_init(&l);
        int rc = dns_domain_prefixed_path(pcases[i].in, "spec.managedBy", &l);
        assert_int_equal(rc, (int)l.n);
        if (strcmp(tu_ferrs(&l), pcases[i].want) != 0)
            fail_msg("case %zu (%s):\n got  %s\n want %s", i, pcases[i].in, tu_ferrs(&l),
                     pcases[i].want);
        ferr_list_release(&l);
    }
}

static void test_long_host(void **state)
{
    (void)state;
    char in[300];
    memset(in, 'a', 254);
    memcpy(in + 254, "/x", 3);
    struct ferr_list l;
    ferr_list_init(&l);
    assert_int_equal(dns_domain_prefixed_path(in, "p", &l), 1);
    assert_non_null(strstr(tu_ferrs(&l), ": " MAX253 "\n"));
    ferr_list_release(&l);
}

/* Go's `$` (no (?m)) matches only at the end of the text, so Kubernetes' anchored regexes
 * refuse a newline anywhere, a final one included; POSIX and PCRE `$` would let "a\n" pass. */
static void test_a_newline_is_refused_even_at_the_end(void **state)
{
    (void)state;
    static const struct {
        dns_fn fn;
        const char *in;
    } nl[] = {
        {dns_1123_label, "worker\n"}, {dns_1123_label, "\nworker"}, {dns_1123_label, "a\nb"},
        {dns_1123_subdomain, "a.b\n"}, {dns_1035_label, "a\n"},       {dns_label_value, "a\n"},
        {dns_qualified_name, "a\n"},  {dns_qualified_name, "x.io\n/a"},
    };
    for (size_t i = 0; i < sizeof(nl) / sizeof(nl[0]); i++) {
        struct dns_msgs m;
        if (nl[i].fn(nl[i].in, &m) == 0)
            fail_msg("case %zu: a newline passed", i);
    }
    struct ferr_list l;
    ferr_list_init(&l);
    assert_int_equal(dns_domain_prefixed_path("acme.io/a\n", "p", &l), 1);
    ferr_list_release(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_domain_prefixed_path),
        cmocka_unit_test(test_long_host),
        cmocka_unit_test(test_a_newline_is_refused_even_at_the_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
