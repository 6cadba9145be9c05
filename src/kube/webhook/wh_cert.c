/* The webhook certificates (see wh_cert.h), made and checked with OpenSSL. */
#include "kube/webhook/wh_cert.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "obj/base/sbuf.h"

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

/* ---- making ---------------------------------------------------------------------------- */

static bool is_ip(const char *h)
{
    ASN1_OCTET_STRING *a = a2i_IPADDRESS(h);
    if (!a)
        return false;
    ASN1_OCTET_STRING_free(a);
    return true;
}

static int add_ext(X509 *cert, X509 *issuer, int nid, const char *value)
{
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    if (!ext)
        return -1;
    int ok = X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
    return ok ? 0 : -1;
}

/* An unsigned certificate for `key` named `cn`, issued by `issuer` (itself when NULL). */
static X509 *make_cert(EVP_PKEY *key, const char *cn, X509 *issuer, int64_t now,
                       int64_t validity_s)
{
    X509 *x = X509_new();
    time_t t = (time_t)now;
    unsigned char serial[16];
    BIGNUM *bn = NULL;
    if (!x || RAND_bytes(serial, sizeof(serial)) != 1)
        goto fail;
    serial[0] &= 0x7f;
    if (!(bn = BN_bin2bn(serial, sizeof(serial), NULL)) ||
        !BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) || !X509_set_version(x, 2) ||
        !X509_time_adj_ex(X509_getm_notBefore(x), 0, -60, &t) ||
        !X509_time_adj_ex(X509_getm_notAfter(x), (int)(validity_s / 86400),
                          (long)(validity_s % 86400), &t) ||
        !X509_set_pubkey(x, key))
        goto fail;
    X509_NAME *name = X509_get_subject_name(x);
    if (!X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, (const unsigned char *)"jaxset", -1,
                                    -1, 0) ||
        !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1,
                                    0) ||
        !X509_set_issuer_name(x, X509_get_subject_name(issuer ? issuer : x)))
        goto fail;
    BN_free(bn);
    return x;
fail:
    BN_free(bn);
    X509_free(x);
    return NULL;
}

static char *pem_of(int (*write)(BIO *, void *), void *obj)
{
    BIO *b = BIO_new(BIO_s_mem());
    char *out = NULL, *data;
    if (b && write(b, obj) == 1) {
        long n = BIO_get_mem_data(b, &data);
        if (n > 0 && (out = malloc((size_t)n + 1))) {
            memcpy(out, data, (size_t)n);
            out[n] = '\0';
        }
    }
    BIO_free(b);
    return out;
}

static int write_crt(BIO *b, void *x)
{
    return PEM_write_bio_X509(b, x);
}

static int write_key(BIO *b, void *k)
{
    return PEM_write_bio_PrivateKey(b, k, NULL, NULL, 0, NULL, NULL);
}

static char *san_of(const char *const *hosts, size_t n)
{
    struct sbuf b = {0};
    for (size_t i = 0; i < n; i++)
        sb_printf(&b, "%s%s:%s", i ? "," : "", is_ip(hosts[i]) ? "IP" : "DNS", hosts[i]);
    if (sb_failed(&b) || b.len == 0) {
        sb_free(&b);
        return NULL;
    }
    return sb_detach(&b);
}

int wh_cert_generate(const char *const *hosts, size_t n_hosts, int64_t now, int64_t validity_s,
                    struct wh_cert *out, struct err *e)
{
    EVP_PKEY *ca_key = EVP_EC_gen("P-256"), *key = EVP_EC_gen("P-256");
    X509 *ca = NULL, *crt = NULL;
    char *san = san_of(hosts, n_hosts);
    struct wh_cert t = {0};
    int rc = -EIO;
    wh_cert_release(out);
    if (!ca_key || !key || !san)
        goto out;
    if (!(ca = make_cert(ca_key, "jaxset-ca", NULL, now, validity_s)) ||
        add_ext(ca, ca, NID_basic_constraints, "critical,CA:TRUE") < 0 ||
        add_ext(ca, ca, NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature") < 0 ||
        add_ext(ca, ca, NID_subject_key_identifier, "hash") < 0 ||
        !X509_sign(ca, ca_key, EVP_sha256()))
        goto out;
    if (!(crt = make_cert(key, hosts[0], ca, now, validity_s)) ||
        add_ext(crt, ca, NID_basic_constraints, "critical,CA:FALSE") < 0 ||
        add_ext(crt, ca, NID_key_usage, "critical,digitalSignature,keyEncipherment") < 0 ||
        add_ext(crt, ca, NID_ext_key_usage, "serverAuth") < 0 ||
        add_ext(crt, ca, NID_authority_key_identifier, "keyid:always") < 0 ||
        add_ext(crt, ca, NID_subject_alt_name, san) < 0 || !X509_sign(crt, ca_key, EVP_sha256()))
        goto out;
    t.ca_crt = pem_of(write_crt, ca);
    t.ca_key = pem_of(write_key, ca_key);
    t.tls_crt = pem_of(write_crt, crt);
    t.tls_key = pem_of(write_key, key);
    if (!t.ca_crt || !t.ca_key || !t.tls_crt || !t.tls_key)
        goto out;
    *out = t;
    memset(&t, 0, sizeof(t));
    rc = 0;
out:
    if (rc < 0)
        err_set(e, rc, "cannot make the webhook certificates (OpenSSL)");
    wh_cert_release(&t);
    free(san);
    X509_free(ca);
    X509_free(crt);
    EVP_PKEY_free(ca_key);
    EVP_PKEY_free(key);
    return rc;
}

/* ---- checking -------------------------------------------------------------------------- */

static X509 *read_crt(const char *pem)
{
    BIO *b = pem ? BIO_new_mem_buf(pem, -1) : NULL;
    X509 *x = b ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL;
    BIO_free(b);
    return x;
}

static EVP_PKEY *read_key(const char *pem)
{
    BIO *b = pem ? BIO_new_mem_buf(pem, -1) : NULL;
    EVP_PKEY *k = b ? PEM_read_bio_PrivateKey(b, NULL, NULL, NULL) : NULL;
    BIO_free(b);
    return k;
}

static int64_t not_after_of(X509 *x)
{
    struct tm tm;
    if (ASN1_TIME_to_tm(X509_get0_notAfter(x), &tm) != 1)
        return 0;
    return (int64_t)timegm(&tm);
}

static bool names_host(X509 *x, const char *h)
{
    if (is_ip(h))
        return X509_check_ip_asc(x, h, 0) == 1;
    return X509_check_host(x, h, 0, X509_CHECK_FLAG_NO_WILDCARDS, NULL) == 1;
}

int wh_cert_check(const struct wh_cert *c, const char *const *hosts, size_t n_hosts, int64_t now,
                 int64_t lookahead_s, int64_t *not_after, const char **why)
{
    X509 *ca = read_crt(c->ca_crt), *crt = read_crt(c->tls_crt);
    EVP_PKEY *ca_key = read_key(c->ca_key), *key = read_key(c->tls_key);
    EVP_PKEY *ca_pub = ca ? X509_get0_pubkey(ca) : NULL;
    const char *reason = NULL;
    int64_t end = 0;
    if (!ca || !crt || !ca_key || !key)
        reason = "a certificate or key is missing or does not parse";
    else if (X509_check_private_key(ca, ca_key) != 1 || X509_check_private_key(crt, key) != 1)
        reason = "a key does not match its certificate";
    else if (!ca_pub || X509_verify(crt, ca_pub) != 1)
        reason = "the serving certificate is not signed by the CA";
    for (size_t i = 0; !reason && i < n_hosts; i++)
        if (!names_host(crt, hosts[i]))
            reason = "the serving certificate does not name every host";
    if (!reason) {
        int64_t a = not_after_of(ca), b = not_after_of(crt);
        end = a < b ? a : b;
        if (end - lookahead_s <= now)
            reason = "the certificates expire soon";
    }
    ERR_clear_error();
    X509_free(ca);
    X509_free(crt);
    EVP_PKEY_free(ca_key);
    EVP_PKEY_free(key);
    if (not_after)
        *not_after = end;
    if (why)
        *why = reason;
    return reason ? 1 : 0;
}
