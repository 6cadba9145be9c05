/* rx (see rx.h): RE2 is loaded on first use from libjaxset_rx.so, the module built beside the
 * jaxset binary (and its tests), so that a run without failure-policy patterns never maps
 * libre2 and libstdc++ (about 1.1 MiB of resident memory). */
#include "obj/base/rx.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "obj/base/module.h"
#include "obj/base/rx_module.h"

#define RX_MODULE "libjaxset_rx.so"

struct rx_api {
    int (*compile)(const char *, struct rx **, char **);
    bool (*search)(const struct rx *, const char *, size_t);
    void (*free)(struct rx *);
};

/* The module's entry points, loaded once per process (as the dynamic loader's own state). */
static struct rx_api module;
static int state; /* 0 not tried, 1 loaded, -1 missing */

/* NULL when the module is missing (then no pattern compiles). */
static const struct rx_api *api(void)
{
    if (state == 0) {
        void *h = module_open(RX_MODULE);
        module.compile =
            h ? (int (*)(const char *, struct rx **, char **))dlsym(h, "rxm_compile") : NULL;
        module.search =
            h ? (bool (*)(const struct rx *, const char *, size_t))dlsym(h, "rxm_search") : NULL;
        module.free = h ? (void (*)(struct rx *))dlsym(h, "rxm_free") : NULL;
        state = module.compile && module.search && module.free ? 1 : -1;
    }
    return state > 0 ? &module : NULL;
}

int rx_compile(const char *pattern, struct rx **out, char **errmsg)
{
    const struct rx_api *a = api();
    if (!a) {
        if (errmsg)
            *errmsg = strdup(RX_MODULE " (RE2 support) is missing beside the jaxset binary "
                             "and in " JAXSET_MODULES_FROM_BIN " from it");
        return -ENOSYS;
    }
    return a->compile(pattern, out, errmsg);
}

bool rx_search(const struct rx *re, const char *text, size_t len)
{
    const struct rx_api *a = api();
    return a && re && a->search(re, text, len);
}

void rx_free(struct rx *re)
{
    const struct rx_api *a = re ? api() : NULL;
    if (a)
        a->free(re);
}

int rx_match_once(const char *pattern, const char *text)
{
    struct rx *r = NULL;
    int rc = rx_compile(pattern, &r, NULL);
    if (rc < 0)
        return rc;
    bool hit = rx_search(r, text, text ? strlen(text) : 0);
    rx_free(r);
    return hit ? 1 : 0;
}
