/* rx_module: the entry points of the RE2 module (rx_re2.cc, built as libjaxset_rx.so beside
 * the jaxset binary), which obj/base/rx.c looks up with dlopen/dlsym.  Same contracts as rx.h. */
#ifndef JX_RX_MODULE_H
#define JX_RX_MODULE_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rx;

int rxm_compile(const char *pattern, struct rx **out, char **errmsg);
bool rxm_search(const struct rx *re, const char *text, size_t len);
void rxm_free(struct rx *re);

#ifdef __cplusplus
}
#endif

#endif
