/* What a failed container said last: the end of its log file, reduced to what a person needs to
 * see at a glance.  A Python traceback gives its last frame and its exception line (torchrun's
 * root-cause table is the model: pytorch/pytorch torch/distributed/elastic/multiprocessing/
 * errors/error_handler.py and __init__.py, ChildFailedError.format_msg); any other output its
 * last few lines, as the kubelet's FallbackToLogsOnError takes the end of a log for a terminated
 * container's message (kubernetes/kubernetes pkg/kubelet/kuberuntime/kuberuntime_container.go,
 * tailLogs). */
#include "local/store/store_excerpt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "obj/base/sbuf.h"

#define EXCERPT_READ 16384   /* the end of the log that is read */
#define EXCERPT_LINES 5      /* lines kept when there is no traceback */
#define EXCERPT_LINE_MAX 240 /* bytes kept of one line */
#define EXCERPT_MAX_LINES 1024

struct excerpt_lines {
    char *v[EXCERPT_MAX_LINES];
    size_t n;
};

/* The last EXCERPT_READ bytes of the file at path, NUL-terminated, from a line start; NULL
 * when it cannot be read or is empty. */
static char *read_tail(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    struct stat st;
    char *buf = NULL;
    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) < 0 || st.st_size <= 0 || !(buf = malloc(EXCERPT_READ + 1)))
        goto out;
    off_t from = st.st_size > EXCERPT_READ ? st.st_size - EXCERPT_READ : 0;
    ssize_t n = pread(fd, buf, EXCERPT_READ, from);
    if (n <= 0) {
        free(buf);
        buf = NULL;
        goto out;
    }
    buf[n] = 0;
    if (from > 0) { /* drop the line cut in the middle */
        char *nl = strchr(buf, '\n');
        memmove(buf, nl ? nl + 1 : buf + n, strlen(nl ? nl + 1 : buf + n) + 1);
    }
out:
    close(fd);
    return buf;
}

/* Splits buf into lines in place; a line rewritten with '\r' (a progress bar) keeps its last
 * version. */
static void split_lines(char *buf, struct excerpt_lines *l)
{
    l->n = 0;
    for (char *s = buf; *s;) {
        char *nl = strchr(s, '\n');
        if (nl)
            *nl = 0;
        char *cr;
        while ((cr = strrchr(s, '\r')) && cr[1] == 0)
            *cr = 0;
        if (cr)
            s = cr + 1;
        if (l->n == EXCERPT_MAX_LINES) { /* keep the last ones */
            memmove(l->v, l->v + 1, (EXCERPT_MAX_LINES - 1) * sizeof(*l->v));
            l->n--;
        }
        l->v[l->n++] = s;
        if (!nl)
            break;
        s = nl + 1;
    }
}

static bool blank(const char *s)
{
    return s[strspn(s, " \t")] == 0;
}

/* The length of the valid UTF-8 sequence at s (no overlong form, surrogate or code point past
 * U+10FFFF: what JSON takes), 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
    static const unsigned long min[] = {0, 0, 0x80, 0x800, 0x10000};
    size_t n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3
                           : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
    unsigned long cp = n == 1 ? s[0] : n == 2 ? s[0] & 0x1f : n == 3 ? s[0] & 0x0f : s[0] & 0x07;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if (n == 0 || cp < min[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

/* Appends line s as text safe for a terminal and for JSON: escape sequences dropped, other
 * control characters and invalid UTF-8 as '?', at most EXCERPT_LINE_MAX bytes. */
static void put_line(struct sbuf *b, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t kept = 0;
    while (*p && kept < EXCERPT_LINE_MAX) {
        if (*p == 0x1b) { /* ESC [ params final, or ESC and one character */
            p++;
            if (*p == '[')
                for (p++; *p && (*p < 0x40 || *p > 0x7e); p++)
                    ;
            p += *p != 0;
            continue;
        }
        size_t n = utf8_len(p);
        if (n == 0 || (n == 1 && (*p < 0x20 || *p == 0x7f) && *p != '\t')) {
            sb_append(b, "?", 1);
            p++;
            kept++;
            continue;
        }
        sb_append(b, (const char *)p, n);
        p += n;
        kept += n;
    }
    if (*p)
        sb_puts(b, "...");
}

static void put(struct sbuf *b, const char *s)
{
    if (b->len)
        sb_puts(b, "\n");
    put_line(b, s);
}

/* The last frame and the exception line of the last traceback; false when there is none (or
 * no exception line follows it). */
static bool traceback(const struct excerpt_lines *l, struct sbuf *b)
{
    size_t t = l->n, frame = 0, exc = 0;
    for (size_t i = 0; i < l->n; i++)
        if (!strncmp(l->v[i], "Traceback (most recent call last):", 34))
            t = i;
    for (size_t i = t + 1; i < l->n && !exc; i++) {
        if (!strncmp(l->v[i], "  File \"", 8))
            frame = i;
        else if (l->v[i][0] && l->v[i][0] != ' ')
            exc = i;
    }
    if (t == l->n || !frame || !exc)
        return false;
    put(b, l->v[frame] + 2);
    const char *src = frame + 1 < exc ? l->v[frame + 1] : NULL;
    if (src && !strncmp(src, "    ", 4) && !strchr("^~", src[strspn(src, " ")]))
        put(b, src);
    put(b, l->v[exc]);
    return true;
}

char *store_excerpt_log(const char *path)
{
    struct sbuf b = SBUF_INIT;
    struct excerpt_lines *l = malloc(sizeof(*l));
    char *buf = l ? read_tail(path) : NULL;
    if (!buf)
        goto out;
    split_lines(buf, l);
    if (!traceback(l, &b)) {
        size_t first = l->n, kept = 0;
        while (first > 0 && kept < EXCERPT_LINES)
            kept += !blank(l->v[--first]);
        for (size_t i = first; i < l->n; i++)
            if (!blank(l->v[i]))
                put(&b, l->v[i]);
    }
out:
    free(buf);
    free(l);
    if (!b.len) {
        sb_free(&b);
        return NULL;
    }
    return sb_detach(&b);
}

char *store_excerpt_line(const char *message)
{
    const char *last = strrchr(message, '\n');
    if (!last)
        return strdup(message);
    if (strncmp(message, "File \"", 6) != 0)
        return strdup(last + 1);
    return sb_fmt("%s (%.*s)", last + 1, (int)strcspn(message, "\n"), message);
}
