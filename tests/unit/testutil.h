/* testutil: helpers shared by the cmocka unit tests. Include after cmocka's prerequisites. */
#ifndef JX_TESTUTIL_H
#define JX_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>
#include <jansson.h>

#include "obj/ferr.h"

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

#endif
