/* spew: the log writer of bench_local.  Writes BYTES bytes (default 256 MiB) of LINE-byte lines
 * (default 100, newline included) to stdout as fast as it can, in 64 KiB writes of whole lines.
 *
 *   spew [BYTES [LINE]]
 *
 * BYTES is rounded down to a whole number of lines.  Exits 0 once everything is written, 1 on a
 * write error.  Links nothing but libc. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "write_all.h"

#define SPEW_CHUNK (64 * 1024)

static long long arg(int argc, char **argv, int i, long long dflt, long long min)
{
    if (argc <= i)
        return dflt;
    char *end;
    long long v = strtoll(argv[i], &end, 10);
    return *argv[i] && !*end && v >= min ? v : -1;
}

int main(int argc, char **argv)
{
    static char buf[SPEW_CHUNK];
    long long total = arg(argc, argv, 1, 256LL << 20, 0);
    long long line = arg(argc, argv, 2, 100, 2);
    if (total < 0 || line < 0 || line > SPEW_CHUNK) {
        fprintf(stderr, "usage: spew [BYTES [LINE (2..%d)]]\n", SPEW_CHUNK);
        return 2;
    }
    size_t per = (size_t)(SPEW_CHUNK / line); /* lines per chunk */
    for (size_t l = 0; l < per; l++) {
        char *p = buf + l * (size_t)line;
        for (long long c = 0; c < line - 1; c++)
            p[c] = (char)('a' + (l + (size_t)c) % 26);
        p[line - 1] = '\n';
    }
    long long left = total / line;
    while (left > 0) {
        size_t n = left < (long long)per ? (size_t)left : per;
        if (write_all(1, buf, n * (size_t)line) < 0)
            return 1;
        left -= (long long)n;
    }
    return 0;
}
