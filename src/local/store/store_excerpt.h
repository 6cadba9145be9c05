/* store_excerpt: what a failed container said last, from its log file in the run directory:
 * a Python traceback's last frame and exception line, else the last lines (store_excerpt.c says
 * whose rules these are). */
#ifndef JX_STORE_EXCERPT_H
#define JX_STORE_EXCERPT_H

/* The end of the log at `path` reduced; malloc'd, NULL when there is nothing (or no memory).
 * store_excerpt_line: such a message on one line. */
char *store_excerpt_log(const char *path);
char *store_excerpt_line(const char *message);

#endif
