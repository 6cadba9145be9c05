/* write_all: write(2) until everything is out, retrying on EINTR; 0 or -1.  Shared by the
 * libc-only bench programs (each is one file built with plain cc). */
#ifndef BENCH_WRITE_ALL_H
#define BENCH_WRITE_ALL_H

#include <errno.h>
#include <stddef.h>
#include <unistd.h>

static inline int write_all(int fd, const char *buf, size_t len)
{
    while (len) {
        ssize_t w = write(fd, buf, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        buf += w;
        len -= (size_t)w;
    }
    return 0;
}

#endif
