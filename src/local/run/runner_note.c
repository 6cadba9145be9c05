/* The runner's notes: a line on the terminal (status_fd), the live line cleared first, and a
 * "Note" in events.log.  The bottom of the room: every other file says what it does here, and
 * this one calls none of them. */
#include "local/run/runner_int.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "local/store/rundir.h"
#include "obj/base/fs.h"
#include "obj/base/sbuf.h"

void runner__out(struct run *r, const char *s)
{
    (void)fs_write_all(r->o->status_fd, s, strlen(s)); /* a terminal gone: nothing to tell */
}

void runner__live_clear(struct run *r)
{
    if (r->o->live && r->last_line[0]) {
        runner__out(r, "\r\033[K");
        r->last_line[0] = 0;
    }
}

/* Remembers the first failure to keep the run's state: reported once, and the run then does
 * not end as a silent success (runner.c). */
void runner__state_failed(struct run *r, const char *what, int rc)
{
    if (r->state_errno)
        return;
    r->state_errno = rc;
    runner__note(r, "cannot keep the run's %s in %s: %s; the run goes on, but its record is "
                    "incomplete",
                 what, r->o->run_dir, strerror(-rc));
}

/* Notes and events quote paths and messages as long as the user made them: sbuf. */
void runner__note(struct run *r, const char *fmt, ...)
{
    struct sbuf msg = SBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&msg, fmt, ap);
    va_end(ap);
    runner__live_clear(r);
    runner__out(r, "jaxset: ");
    runner__out(r, sb_failed(&msg) ? "(" ERR_OOM_MSG ")" : sb_str(&msg));
    runner__out(r, "\n");
    if (r->events) {
        fprintf(r->events, "Note %s\n", sb_str(&msg));
        if (fflush(r->events) != 0)
            runner__state_failed(r, RD_EVENTS, -errno);
    }
    sb_free(&msg);
}
