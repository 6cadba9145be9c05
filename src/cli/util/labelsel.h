/* labelsel: kubectl's -l for the objects a local run keeps, as an API server matches them
 * (k8s.io/apimachinery pkg/labels/selector.go, Parse): requirements separated by commas,
 * each "key=value", "key==value", "key!=value", "key" (the label is there) or "!key" (it is
 * not).  The set-based forms ("key in (a,b)", "notin") are not taken. */
#ifndef JX_CLI_LABELSEL_H
#define JX_CLI_LABELSEL_H

#include <jansson.h>

/* Whether the labels of `obj` (metadata.labels) satisfy `selector` (NULL or "": everything):
 * 1 or 0; -EINVAL when the selector is not one of the forms above. */
int labelsel_match(const char *selector, const json_t *obj);

#endif
