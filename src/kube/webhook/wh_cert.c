/* The webhook certificates (see wh_cert.h), made and checked with GnuTLS's x509 API: the same
 * TLS stack libmicrohttpd serves them with and libcurl (libcurl4-gnutls) talks to the API
 * server with, so that the image carries one. */
#include "kube/webhook/wh_cert.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

static void wipe_free(char *s)
{
    if (s)
        explicit_bzero(s, strlen(s));
    free(s);
}

void wh_cert_release(struct wh_cert *c)
{
    if (!c)
        return;
    free(c->ca_crt);
    wipe_free(c->ca_key);
    free(c->tls_crt);
    wipe_free(c->tls_key);
    memset(c, 0, sizeof(*c));
}

int wh_cert_copy(struct wh_cert *dst, const struct wh_cert *src)
{
    struct wh_cert t = {
        .ca_crt = src->ca_crt ? strdup(src->ca_crt) : NULL,
        .ca_key = src->ca_key ? strdup(src->ca_key) : NULL,
        .tls_crt = src->tls_crt ? strdup(src->tls_crt) : NULL,
        .tls_key = src->tls_key ? strdup(src->tls_key) : NULL,
    };
    wh_cert_release(dst);
    if ((src->ca_crt && !t.ca_crt) || (src->ca_key && !t.ca_key) ||
        (src->tls_crt && !t.tls_crt) || (src->tls_key && !t.tls_key)) {
        wh_cert_release(&t);
        return -ENOMEM;
    }
    *dst = t;
    return 0;
}

/* An IPv4 or IPv6 literal's bytes in *ip (16), their count, or 0 for a DNS name. */
static size_t ip_of(const char *h, unsigned char *ip)
{
    if (inet_pton(AF_INET, h, ip) == 1)
        return 4;
    if (inet_pton(AF_INET6, h, ip) == 1)
        return 16;
    return 0;
}

/* ---- making ---------------------------------------------------------------------------- */

static int new_key(gnutls_x509_privkey_t *k)
{
    if (gnutls_x509_privkey_init(k) < 0)
        return -1;
    return gnutls_x509_privkey_generate(*k, GNUTLS_PK_ECDSA,
                                        GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0);
}

/* The fields both certificates have: version 3, a random positive serial, O=jaxset and `cn`,
 * valid from a minute before `now` for `validity_s` seconds after it, `key`'s public key. */
static int set_common(gnutls_x509_crt_t x, gnutls_x509_privkey_t key, const char *cn,
                      int64_t now, int64_t validity_s)
{
    unsigned char serial[16];
    if (gnutls_rnd(GNUTLS_RND_NONCE, serial, sizeof(serial)) < 0)
        return -1;
    serial[0] &= 0x7f;
    serial[0] |= 0x01; /* no leading zero byte: DER keeps all 16 */
    if (gnutls_x509_crt_set_version(x, 3) < 0 ||
        gnutls_x509_crt_set_serial(x, serial, sizeof(serial)) < 0 ||
        gnutls_x509_crt_set_activation_time(x, (time_t)(now - 60)) < 0 ||
        gnutls_x509_crt_set_expiration_time(x, (time_t)(now + validity_s)) < 0 ||
        gnutls_x509_crt_set_key(x, key) < 0)
        return -1;
    if (gnutls_x509_crt_set_dn_by_oid(x, GNUTLS_OID_X520_ORGANIZATION_NAME, 0, "jaxset", 6) < 0 ||
        gnutls_x509_crt_set_dn_by_oid(x, GNUTLS_OID_X520_COMMON_NAME, 0, cn,
                                      (unsigned)strlen(cn)) < 0)
        return -1;
    return 0;
}

/* The key identifier of `x`'s public key (SHA-1 of it, RFC 5280 4.2.1.2 method 1). */
static int key_id(gnutls_x509_crt_t x, unsigned char *id, size_t *n)
{
    *n = 20;
    return gnutls_x509_crt_get_key_id(x, GNUTLS_KEYID_USE_SHA1, id, n);
}

static int make_ca(gnutls_x509_crt_t ca, gnutls_x509_privkey_t key, int64_t now,
                   int64_t validity_s)
{
    unsigned char id[20];
    size_t n;
    if (set_common(ca, key, "jaxset-ca", now, validity_s) < 0 ||
        gnutls_x509_crt_set_basic_constraints(ca, 1, -1) < 0 ||
        gnutls_x509_crt_set_key_usage(ca, GNUTLS_KEY_KEY_CERT_SIGN | GNUTLS_KEY_CRL_SIGN |
                                              GNUTLS_KEY_DIGITAL_SIGNATURE) < 0 ||
        key_id(ca, id, &n) < 0 || gnutls_x509_crt_set_subject_key_id(ca, id, n) < 0)
        return -1;
    return gnutls_x509_crt_sign2(ca, ca, key, GNUTLS_DIG_SHA256, 0) < 0 ? -1 : 0;
}

static int add_names(gnutls_x509_crt_t x, const char *const *hosts, size_t n_hosts)
{
    for (size_t i = 0; i < n_hosts; i++) {
        unsigned char ip[16];
        size_t n = ip_of(hosts[i], ip);
        int rc = n ? gnutls_x509_crt_set_subject_alt_name(x, GNUTLS_SAN_IPADDRESS, ip,
                                                          (unsigned)n, GNUTLS_FSAN_APPEND)
                   : gnutls_x509_crt_set_subject_alt_name(x, GNUTLS_SAN_DNSNAME, hosts[i],
                                                          (unsigned)strlen(hosts[i]),
                                                          GNUTLS_FSAN_APPEND);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static int make_serving(gnutls_x509_crt_t crt, gnutls_x509_privkey_t key, gnutls_x509_crt_t ca,
                        gnutls_x509_privkey_t ca_key, const char *const *hosts, size_t n_hosts,
                        int64_t now, int64_t validity_s)
{
    unsigned char id[20];
    size_t n;
    if (set_common(crt, key, hosts[0], now, validity_s) < 0 ||
        gnutls_x509_crt_set_basic_constraints(crt, 0, -1) < 0 ||
        gnutls_x509_crt_set_key_usage(crt, GNUTLS_KEY_DIGITAL_SIGNATURE |
                                               GNUTLS_KEY_KEY_ENCIPHERMENT) < 0 ||
        gnutls_x509_crt_set_key_purpose_oid(crt, GNUTLS_KP_TLS_WWW_SERVER, 0) < 0 ||
        key_id(ca, id, &n) < 0 || gnutls_x509_crt_set_authority_key_id(crt, id, n) < 0 ||
        add_names(crt, hosts, n_hosts) < 0)
        return -1;
    return gnutls_x509_crt_sign2(crt, ca, ca_key, GNUTLS_DIG_SHA256, 0) < 0 ? -1 : 0;
}

/* A datum GnuTLS allocated as a NUL-terminated string of ours (the datum is freed). */
static char *str_of(gnutls_datum_t *d, int rc)
{
    char *s = NULL;
    if (rc >= 0 && d->data && (s = malloc((size_t)d->size + 1))) {
        memcpy(s, d->data, d->size);
        s[d->size] = '\0';
    }
    if (d->data) {
        explicit_bzero(d->data, d->size);
        gnutls_free(d->data);
    }
    d->data = NULL;
    return s;
}

static char *crt_pem(gnutls_x509_crt_t x)
{
    gnutls_datum_t d = {0};
    return str_of(&d, gnutls_x509_crt_export2(x, GNUTLS_X509_FMT_PEM, &d));
}

/* PKCS #8, unencrypted ("PRIVATE KEY"), as Go's tls.X509KeyPair and OpenSSL read it. */
static char *key_pem(gnutls_x509_privkey_t k)
{
    gnutls_datum_t d = {0};
    return str_of(&d, gnutls_x509_privkey_export2_pkcs8(k, GNUTLS_X509_FMT_PEM, NULL,
                                                         GNUTLS_PKCS_PLAIN, &d));
}

int wh_cert_generate(const char *const *hosts, size_t n_hosts, int64_t now, int64_t validity_s,
                    struct wh_cert *out, struct err *e)
{
    gnutls_x509_privkey_t ca_key = NULL, key = NULL;
    gnutls_x509_crt_t ca = NULL, crt = NULL;
    struct wh_cert t = {0};
    int rc = -EIO;
    wh_cert_release(out);
    if (n_hosts == 0 || new_key(&ca_key) < 0 || new_key(&key) < 0 ||
        gnutls_x509_crt_init(&ca) < 0 || gnutls_x509_crt_init(&crt) < 0)
        goto out;
    if (make_ca(ca, ca_key, now, validity_s) < 0 ||
        make_serving(crt, key, ca, ca_key, hosts, n_hosts, now, validity_s) < 0)
        goto out;
    t.ca_crt = crt_pem(ca);
    t.ca_key = key_pem(ca_key);
    t.tls_crt = crt_pem(crt);
    t.tls_key = key_pem(key);
    if (!t.ca_crt || !t.ca_key || !t.tls_crt || !t.tls_key)
        goto out;
    *out = t;
    memset(&t, 0, sizeof(t));
    rc = 0;
out:
    if (rc < 0)
        err_set(e, rc, "cannot make the webhook certificates (GnuTLS)");
    wh_cert_release(&t);
    if (ca)
        gnutls_x509_crt_deinit(ca);
    if (crt)
        gnutls_x509_crt_deinit(crt);
    if (ca_key)
        gnutls_x509_privkey_deinit(ca_key);
    if (key)
        gnutls_x509_privkey_deinit(key);
    return rc;
}

/* ---- checking -------------------------------------------------------------------------- */

struct parsed {
    gnutls_x509_crt_t ca, crt;
    gnutls_x509_privkey_t ca_key, key;
};

static gnutls_datum_t datum_of(const char *pem)
{
    return (gnutls_datum_t){(unsigned char *)(uintptr_t)pem, (unsigned)strlen(pem)};
}

static int read_crt(gnutls_x509_crt_t *x, const char *pem)
{
    gnutls_datum_t d;
    if (!pem || gnutls_x509_crt_init(x) < 0)
        return -1;
    d = datum_of(pem);
    return gnutls_x509_crt_import(*x, &d, GNUTLS_X509_FMT_PEM) < 0 ? -1 : 0;
}

static int read_key(gnutls_x509_privkey_t *k, const char *pem)
{
    gnutls_datum_t d;
    if (!pem || gnutls_x509_privkey_init(k) < 0)
        return -1;
    d = datum_of(pem);
    return gnutls_x509_privkey_import2(*k, &d, GNUTLS_X509_FMT_PEM, NULL, 0) < 0 ? -1 : 0;
}

static void parsed_free(struct parsed *p)
{
    if (p->ca)
        gnutls_x509_crt_deinit(p->ca);
    if (p->crt)
        gnutls_x509_crt_deinit(p->crt);
    if (p->ca_key)
        gnutls_x509_privkey_deinit(p->ca_key);
    if (p->key)
        gnutls_x509_privkey_deinit(p->key);
}

/* Whether `k` is the private half of `x`'s public key (their key identifiers agree). */
static bool key_matches(gnutls_x509_crt_t x, gnutls_x509_privkey_t k)
{
    unsigned char a[32], b[32];
    size_t na = sizeof(a), nb = sizeof(b);
    if (gnutls_x509_crt_get_key_id(x, GNUTLS_KEYID_USE_SHA256, a, &na) < 0 ||
        gnutls_x509_privkey_get_key_id(k, GNUTLS_KEYID_USE_SHA256, b, &nb) < 0)
        return false;
    return na == nb && memcmp(a, b, na) == 0;
}

/* Whether the CA signed `crt` (times are checked against the caller's clock, not here). */
static bool signed_by(gnutls_x509_crt_t crt, gnutls_x509_crt_t ca)
{
    unsigned status = 1;
    unsigned flags = GNUTLS_VERIFY_DISABLE_TIME_CHECKS | GNUTLS_VERIFY_DISABLE_TRUSTED_TIME_CHECKS;
    return gnutls_x509_crt_verify(crt, &ca, 1, flags, &status) >= 0 && status == 0;
}

static bool names_host(gnutls_x509_crt_t x, const char *h)
{
    unsigned char ip[16];
    size_t n = ip_of(h, ip);
    if (n)
        return gnutls_x509_crt_check_ip(x, ip, (unsigned)n, 0) != 0;
    return gnutls_x509_crt_check_hostname2(x, h, GNUTLS_VERIFY_DO_NOT_ALLOW_WILDCARDS) != 0;
}

static const char *reason_of(const struct parsed *p, const char *const *hosts, size_t n_hosts)
{
    if (!key_matches(p->ca, p->ca_key) || !key_matches(p->crt, p->key))
        return "a key does not match its certificate";
    if (!signed_by(p->crt, p->ca))
        return "the serving certificate is not signed by the CA";
    for (size_t i = 0; i < n_hosts; i++)
        if (!names_host(p->crt, hosts[i]))
            return "the serving certificate does not name every host";
    return NULL;
}

int wh_cert_check(const struct wh_cert *c, const char *const *hosts, size_t n_hosts, int64_t now,
                 int64_t lookahead_s, int64_t *not_after, const char **why)
{
    struct parsed p = {0};
    const char *reason = NULL;
    int64_t end = 0;
    if (read_crt(&p.ca, c->ca_crt) < 0 || read_crt(&p.crt, c->tls_crt) < 0 ||
        read_key(&p.ca_key, c->ca_key) < 0 || read_key(&p.key, c->tls_key) < 0)
        reason = "a certificate or key is missing or does not parse";
    else
        reason = reason_of(&p, hosts, n_hosts);
    if (!reason) {
        int64_t a = (int64_t)gnutls_x509_crt_get_expiration_time(p.ca);
        int64_t b = (int64_t)gnutls_x509_crt_get_expiration_time(p.crt);
        end = a < b ? a : b;
        if (end - lookahead_s <= now)
            reason = "the certificates expire soon";
    }
    parsed_free(&p);
    if (not_after)
        *not_after = end;
    if (why)
        *why = reason;
    return reason ? 1 : 0;
}
