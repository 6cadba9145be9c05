/* table: aligned columns. */
#include "cli/util/table.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct table table_new(size_t ncol)
{
    return (struct table){.ncol = ncol ? ncol : 1};
}

void table_cell(struct table *t, const char *fmt, ...)
{
    char *s = NULL;
    va_list ap;
    va_start(ap, fmt);
    int len = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (len < 0) {
        t->oom = true;
        return;
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        char **nv = realloc(t->cells, cap * sizeof(*nv));
        if (!nv) {
            free(s);
            t->oom = true;
            return;
        }
        t->cells = nv;
        t->cap = cap;
    }
    t->cells[t->n++] = s;
}

int table_print(const struct table *t, FILE *out, int indent, int gap)
{
    return table_print_from(t, out, indent, gap, 0);
}

int table_print_from(const struct table *t, FILE *out, int indent, int gap, size_t first_row)
{
    size_t *width = calloc(t->ncol, sizeof(*width));
    if (!width)
        return -ENOMEM;
    for (size_t i = 0; i < t->n; i++) {
        size_t len = strlen(t->cells[i]);
        if (len > width[i % t->ncol])
            width[i % t->ncol] = len;
    }
    for (size_t i = first_row * t->ncol; i < t->n; i++) {
        size_t col = i % t->ncol;
        bool last = col == t->ncol - 1 || i == t->n - 1;
        if (col == 0)
            fprintf(out, "%*s", indent, "");
        if (last)
            fprintf(out, "%s\n", t->cells[i]);
        else
            fprintf(out, "%-*s%*s", (int)width[col], t->cells[i], gap, "");
    }
    free(width);
    return t->oom ? -ENOMEM : 0;
}

void table_free(struct table *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->cells[i]);
    free(t->cells);
    *t = table_new(t->ncol);
}

void table_field(int width, const char *label, const char *fmt, ...)
{
    va_list ap;
    printf("%-*s", width, label);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

int table_section(const char *title, struct table *t, int indent)
{
    int rc = 0;
    if (t->n <= t->ncol) {
        printf("%s  <none>\n", title);
    } else {
        printf("%s\n", title);
        rc = table_print(t, stdout, indent, 2);
    }
    table_free(t);
    return rc;
}
