/* gz (see gz.h).  zlib.h gives the types and constants only: its functions are called through
 * the pointers dlsym finds, so nothing links libz (zlib's inflateInit2 is a macro over
 * inflateInit2_, which checks the version and struct size its caller was compiled with). */
#include "obj/base/gz.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>

#define ZLIB_CONST
#include <zlib.h>

/* windowBits of inflateInit2: a 32 KiB window (15), a gzip header and trailer only (+16). */
#define GZ_WINDOW (15 + 16)

struct zlib_api {
    int (*init2)(z_streamp, int, const char *, int);
    int (*run)(z_streamp, int);
    int (*end)(z_streamp);
};

/* The library's entry points, loaded once per process (as the dynamic loader's own state). */
static struct zlib_api zlib;
static int state; /* 0 not tried, 1 loaded, -1 missing */
static char why[256];

/* NULL when the library cannot be loaded (`why` says why). */
static const struct zlib_api *api(void)
{
    if (state == 0) {
        void *h = dlopen(GZ_ZLIB, RTLD_NOW | RTLD_LOCAL);
        const char *msg = h ? NULL : dlerror();
        zlib.init2 = h ? (int (*)(z_streamp, int, const char *, int))dlsym(h, "inflateInit2_")
                       : NULL;
        zlib.run = h ? (int (*)(z_streamp, int))dlsym(h, "inflate") : NULL;
        zlib.end = h ? (int (*)(z_streamp))dlsym(h, "inflateEnd") : NULL;
        state = zlib.init2 && zlib.run && zlib.end ? 1 : -1;
        if (state < 0)
            snprintf(why, sizeof(why), "%s", msg ? msg : "no inflateInit2_, inflate or inflateEnd");
        if (msg)
            dlerror(); /* copied: a second call frees glibc's copy of the message */
        if (state < 0 && h)
            dlclose(h);
    }
    return state > 0 ? &zlib : NULL;
}

int gz_inflate(const void *gz, size_t gz_len, void *out, size_t len, struct err *e)
{
    const struct zlib_api *z = api();
    if (!z)
        return err_set(e, -ENOSYS, GZ_ZLIB " (zlib) cannot be loaded: %s", why);
    if (gz_len >= UINT_MAX || len >= UINT_MAX)
        return err_set(e, -EOVERFLOW, "gzip stream of %zu bytes for %zu: too long", gz_len, len);
    z_stream zs = {.next_in = gz, .avail_in = (uInt)gz_len, .next_out = out,
                   .avail_out = (uInt)len};
    int zrc = z->init2(&zs, GZ_WINDOW, ZLIB_VERSION, (int)sizeof(zs));
    if (zrc != Z_OK)
        return zrc == Z_MEM_ERROR ? err_oom(e) : err_set(e, -EPROTO, "inflateInit2 failed");
    /* Z_FINISH: the whole content in one call; a full `out` before the end is Z_BUF_ERROR */
    zrc = z->run(&zs, Z_FINISH);
    int rc = 0;
    if (zrc == Z_MEM_ERROR)
        rc = err_oom(e);
    else if (zrc != Z_STREAM_END || zs.total_out != len || zs.avail_in != 0)
        rc = err_set(e, -EPROTO, "not a gzip stream of %zu bytes (%s)", len,
                     zs.msg ? zs.msg
                     : zrc != Z_STREAM_END ? "more content, or the stream is cut"
                     : zs.total_out != len ? "less content"
                                           : "bytes after the stream");
    z->end(&zs);
    return rc;
}
