/* sbuf: a growable string buffer, always NUL-terminated, for text whose length the input
 * decides (paths under a user-given directory, messages quoting user strings, request URLs).
 * Out of memory (or going past `max`) is sticky: appends after it do nothing, and the caller
 * checks sb_failed() (or the NULL of sb_detach) once at the end.
 *
 *     struct sbuf b = SBUF_INIT;
 *     sb_printf(&b, "%s/logs/%s.log", dir, pod);
 *     char *path = sb_detach(&b);   // NULL on failure; caller frees
 */
#ifndef JX_SBUF_H
#define JX_SBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct sbuf {
    char *s;     /* NUL-terminated contents, NULL until the first append */
    size_t len;  /* bytes before the NUL */
    size_t cap;  /* allocated bytes */
    size_t max;  /* most bytes the contents may reach; 0: no limit */
    bool failed; /* an append failed (no memory, or past max): contents are incomplete */
};

#define SBUF_INIT {0}

/* The contents ("" when nothing was appended). */
const char *sb_str(const struct sbuf *b);
bool sb_failed(const struct sbuf *b);

void sb_append(struct sbuf *b, const char *s, size_t n);
void sb_puts(struct sbuf *b, const char *s);
void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vprintf(struct sbuf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* Empties the buffer, keeping its memory; clears the failure. */
void sb_reset(struct sbuf *b);

/* Hands the contents over (caller frees) and empties the buffer; NULL when an append failed
 * (the buffer is freed then). */
char *sb_detach(struct sbuf *b);

void sb_free(struct sbuf *b);

/* One formatted string, malloc'd; NULL on out of memory. */
char *sb_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
