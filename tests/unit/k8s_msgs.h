/* k8s_msgs: Kubernetes' own validation messages, shared by the tests that assert them. */
#ifndef JX_K8S_MSGS_H
#define JX_K8S_MSGS_H

#define L1123                                                                                      \
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "       \
    "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "       \
    "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
#define S1123                                                                                      \
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "          \
    "'-' or '.', and must start and end with an alphanumeric character (e.g. "                     \
    "'example.com', regex used for validation is "                                                 \
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
#define L1035                                                                                      \
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start "           \
    "with an alphabetic character, and end with an alphanumeric character (e.g. "                  \
    "'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
#define LVAL                                                                                       \
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "       \
    "or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "          \
    "'my_value',  or '12345', regex used for validation is "                                       \
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
#define QNAME                                                                                      \
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "       \
    "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "          \
    "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"

#endif
