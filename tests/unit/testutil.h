/* testutil: helpers shared by the cmocka unit tests. Include after cmocka's prerequisites. */
#ifndef JX_TESTUTIL_H
#define JX_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>
#include <jansson.h>

#include "obj/tree/ferr.h"

/* Absolute path of a file in the source tree (uses $JAXSET_SRC, set by CTest); static buffer. */
const char *tu_src(const char *rel);

/* Parses a JSON text (fails the test on error). New reference. */
json_t *tu_json(const char *text);

/* Parses a JSON text written with ' for " (so test tables stay readable). New reference. */
json_t *tu_qjson(const char *text);

/* Decodes a single-document YAML text (fails the test on error). New reference. */
json_t *tu_yaml(const char *text);

/* All errors of the list, one per line, joined into a static buffer (for assertions and
 * failure messages). */
const char *tu_ferrs(const struct ferr_list *l);

/* Asserts that some formatted error of `l` contains `needle`; prints all errors otherwise. */
#define tu_assert_ferr(l, needle) tu_assert_ferr_(l, needle, __FILE__, __LINE__)
void tu_assert_ferr_(const struct ferr_list *l, const char *needle, const char *file, int line);

/* A new empty directory /tmp/jaxset-<name>-XXXXXX (malloc'd; remove with tu_rmtree). */
char *tu_tmpdir(const char *name);
/* "<dir>/<rel>" in one of four rotating static buffers. */
const char *tu_path(const char *dir, const char *rel);
/* Writes `text` to <dir>/<rel>, creating the folders of `rel` (fails the test on error). */
void tu_write(const char *dir, const char *rel, const char *text);
/* rm -rf, not following symbolic links. */
void tu_rmtree(const char *dir);

#endif
