#include "obj/base/err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define ERR_CUT_MARK "..."

#define JX_ERR_MSG_(name, msg) msg,
#define JX_ERR_NAME_(name, msg) #name,
static const char *const jx_err_msgs[] = {JX_ERR_TABLE(JX_ERR_MSG_)};
static const char *const jx_err_names[] = {JX_ERR_TABLE(JX_ERR_NAME_)};

const char *err_str(int rc)
{
    int code = -rc;
    if (code > JX_ERR_BEFORE_FIRST_ && code < JX_ERR_END_)
        return jx_err_msgs[code - JX_ERR_BASE];
    return strerror(code);
}

const char *err_name(int rc)
{
    int code = -rc;
    if (code > JX_ERR_BEFORE_FIRST_ && code < JX_ERR_END_)
        return jx_err_names[code - JX_ERR_BASE];
    return NULL;
}

/* msg holds the first ERR_MSG_MAX - 1 bytes of a longer text: ends it at a character
 * boundary with the cut mark. */
static void err_mark_cut(char *msg)
{
    size_t end = ERR_MSG_MAX - sizeof(ERR_CUT_MARK);
    while (end > 0 && ((unsigned char)msg[end] & 0xc0) == 0x80)
        end--; /* msg[end] continues a character that began before it */
    memcpy(msg + end, ERR_CUT_MARK, sizeof(ERR_CUT_MARK));
}

int err_set(struct err *e, int rc, const char *fmt, ...)
{
    if (!e)
        return rc;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof(e->msg))
        err_mark_cut(e->msg);
    return rc;
}

void err_prefix(struct err *e, const char *prefix)
{
    if (!e)
        return;
    size_t plen = strlen(prefix) + 2, old = strlen(e->msg);
    if (plen >= sizeof(e->msg)) { /* the prefix alone fills the message */
        memcpy(e->msg, prefix, sizeof(e->msg) - 1);
        e->msg[sizeof(e->msg) - 1] = '\0';
        err_mark_cut(e->msg);
        return;
    }
    size_t keep = old < sizeof(e->msg) - plen ? old : sizeof(e->msg) - 1 - plen;
    memmove(e->msg + plen, e->msg, keep);
    e->msg[plen + keep] = '\0';
    memcpy(e->msg, prefix, plen - 2);
    memcpy(e->msg + plen - 2, ": ", 2);
    if (keep < old)
        err_mark_cut(e->msg);
}

int err_oom(struct err *e)
{
    return err_set(e, -ENOMEM, ERR_OOM_MSG);
}
