/* module: see module.h. */
#include "obj/base/module.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void *module_open(const char *file)
{
    char exe[PATH_MAX], path[PATH_MAX + sizeof(JAXSET_MODULES_FROM_BIN) + NAME_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    slash[1] = '\0';
    snprintf(path, sizeof(path), "%s%s", exe, file);
    if (access(path, F_OK) < 0)
        snprintf(path, sizeof(path), "%s%s/%s", exe, JAXSET_MODULES_FROM_BIN, file);
    return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}
