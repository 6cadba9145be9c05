/* kc (the REST client): TLS material handed to libcurl by path.  libcurl built with GnuTLS
 * (libcurl4-gnutls, the one TLS stack of the image) has no CURLOPT_CAINFO_BLOB,
 * CURLOPT_SSLCERT_BLOB nor CURLOPT_SSLKEY_BLOB, so each distinct PEM text lives in a sealed
 * memfd and libcurl opens it as /proc/self/fd/N: still never a file on disk, and it works on a
 * read-only root filesystem.  One memfd per distinct text, kept while the client lives (at most
 * KC_PEMFILES: the oldest goes when a rotated credential needs a new one). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kube/client/kc_int.h"

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? -errno : -EIO;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int memfd_of(const char *pem, size_t len)
{
    int fd = memfd_create("jaxset-tls", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return -errno;
    int rc = write_all(fd, pem, len);
    if (rc == 0 && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE |
                                              F_SEAL_SEAL) < 0)
        rc = -errno;
    if (rc < 0) {
        close(fd);
        return rc;
    }
    return fd;
}

static void drop_oldest(struct kc *c)
{
    struct kc_pemfile *f = &c->pemfiles[0];
    explicit_bzero(f->pem, f->len);
    free(f->pem);
    close(f->fd);
    memmove(f, f + 1, (--c->n_pemfiles) * sizeof(*f));
}

int kc__pemfile(struct kc *c, const char *pem, size_t len, char *path, size_t size)
{
    for (size_t i = 0; i < c->n_pemfiles; i++) {
        struct kc_pemfile *f = &c->pemfiles[i];
        if (f->len == len && memcmp(f->pem, pem, len) == 0) {
            snprintf(path, size, "/proc/self/fd/%d", f->fd);
            return 0;
        }
    }
    if (c->n_pemfiles == KC_PEMFILES)
        drop_oldest(c);
    char *copy = malloc(len ? len : 1);
    if (!copy)
        return -ENOMEM;
    memcpy(copy, pem, len);
    int fd = memfd_of(pem, len);
    if (fd < 0) {
        explicit_bzero(copy, len);
        free(copy);
        return fd;
    }
    c->pemfiles[c->n_pemfiles++] = (struct kc_pemfile){.pem = copy, .len = len, .fd = fd};
    snprintf(path, size, "/proc/self/fd/%d", fd);
    return 0;
}

void kc__pemfiles_free(struct kc *c)
{
    while (c->n_pemfiles)
        drop_oldest(c);
}
