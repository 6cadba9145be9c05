/* Placeholder until the decoder lands. */
#include "obj/yaml.h"

#include <errno.h>

int yaml_decode(const char *buf, size_t len, json_t **out_docs, struct err *err)
{
    (void)buf, (void)len, (void)out_docs;
    return err_set(err, -ENOSYS, "yaml: not implemented");
}

int yaml_decode_file(const char *path, json_t **out_docs, struct err *err)
{
    (void)path, (void)out_docs;
    return err_set(err, -ENOSYS, "yaml: not implemented");
}

char *yaml_encode(const json_t *v)
{
    (void)v;
    return NULL;
}
