/* table: columns aligned as kubectl's tab writer aligns them (each column as wide as its
 * widest cell, a gap between columns, the last column unpadded). */
#ifndef JX_CLI_TABLE_H
#define JX_CLI_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct table {
    size_t ncol, n, cap;
    char **cells; /* row after row, ncol cells each; owned */
    bool oom;     /* a cell could not be added: the table is incomplete */
};

/* An empty table of `ncol` columns (no allocation yet). */
struct table table_new(size_t ncol);

/* Appends one cell, printf-style; cells fill a row left to right, then the next row. */
void table_cell(struct table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints every row, `indent` spaces first, columns `gap` spaces apart at least (a last row
 * left incomplete ends at its last cell).  -ENOMEM when a cell was lost, else 0. */
int table_print(const struct table *t, FILE *out, int indent, int gap);

/* table_print of the rows from `first_row` on only, aligned with every row of the table (a
 * watch prints a header and rows once, then each new row as it comes, in the same columns). */
int table_print_from(const struct table *t, FILE *out, int indent, int gap, size_t first_row);

/* `kubectl describe`'s pieces: "<label padded to width><value>\n", and a table under a title
 * ("<title>  <none>" when it has only its header row; the table is freed).  -ENOMEM or 0. */
void table_field(int width, const char *label, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int table_section(const char *title, struct table *t, int indent);

/* Releases the cells; the table is empty again. */
void table_free(struct table *t);

#endif
