/* jsonpath: `-o jsonpath=TEMPLATE`, kubectl's common subset of its JSONPath templates
 * (k8s.io/client-go util/jsonpath): text, and expressions in braces: a path from the object
 * ("{.metadata.name}", "{.items[*].metadata.name}", "{.items[0].status}", "{.a['b.c']}",
 * "{.metadata.annotations.jaxset\.dev/run-state}"), a quoted string ("{\"\n\"}"), and
 * "{range PATH}...{end}", which renders its body once per value with paths relative to it.
 * Several values of one path are written space-separated; strings as they are, other values
 * as compact JSON; a field that is not there writes nothing (kubectl's default
 * --allow-missing-template-keys).  Filters, slices, recursive descent and functions are not
 * taken. */
#ifndef JX_CLI_JSONPATH_H
#define JX_CLI_JSONPATH_H

#include <jansson.h>

/* Renders `tmpl` on `obj`: a malloc'd string, or NULL with a message in *err (static) when the
 * template is not one of the forms above, or on OOM. */
char *jsonpath_render(const char *tmpl, const json_t *obj, const char **err);

#endif
