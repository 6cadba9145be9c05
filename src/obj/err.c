#include "obj/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int err_set(struct err *e, int rc, const char *fmt, ...)
{
    if (!e)
        return rc;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
    return rc;
}

void err_prefix(struct err *e, const char *prefix)
{
    if (!e)
        return;
    char old[ERR_MSG_MAX];
    memcpy(old, e->msg, sizeof(old));
    snprintf(e->msg, sizeof(e->msg), "%s: %s", prefix, old);
}
