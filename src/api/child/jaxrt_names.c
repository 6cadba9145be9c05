/* The names and flavours of the JAX runtime (see jaxrt.h). */
#include "api/child/jaxrt.h"

#include <string.h>

static const char *const common_names[] = {
    "JAX_COORDINATOR_ADDRESS", "JAX_NUM_PROCESSES", "JAX_PROCESS_ID", "JAX_COORDINATOR_PORT",
    NULL,
};
/* PYTHONUNBUFFERED=1 is injected too, but it carries no identity: a user's own stands beside
 * it, as upstream's JAXJob controller allows (the injected entry comes last and wins). */
static const char *const jaxjob_names[] = {
    "COORDINATOR_ADDRESS", "COORDINATOR_PORT", "NUM_PROCESSES", "PROCESS_ID", NULL,
};
static const char *const aichor_names[] = {
    "JAXOPERATOR_COORDINATOR_ADDRESS", "JAXOPERATOR_COORDINATOR_HOST",
    "JAXOPERATOR_NUM_PROCESSES", "JAXOPERATOR_PROCESS_ID", NULL,
};

static const struct {
    const char *name;
    enum jaxrt_flavor flavor;
} flavors[] = {
    {"jobset", JAXRT_JOBSET},     {"true", JAXRT_JOBSET},     {"jaxjob", JAXRT_JAXJOB},
    {"trainjob", JAXRT_TRAINJOB}, {"aichor", JAXRT_AICHOR},
};

const char *jaxrt_flavor_name(enum jaxrt_flavor f)
{
    for (size_t i = 0; i < sizeof(flavors) / sizeof(flavors[0]); i++)
        if (flavors[i].flavor == f)
            return flavors[i].name;
    return "off";
}

enum jaxrt_flavor jaxrt_flavor_parse(const char *s)
{
    for (size_t i = 0; s && i < sizeof(flavors) / sizeof(flavors[0]); i++)
        if (strcmp(flavors[i].name, s) == 0)
            return flavors[i].flavor;
    return JAXRT_OFF;
}

static bool in(const char *const *list, const char *name)
{
    for (; *list; list++)
        if (strcmp(*list, name) == 0)
            return true;
    return false;
}

bool jaxrt_is_reserved(enum jaxrt_flavor f, const char *name)
{
    if (f == JAXRT_OFF || !name)
        return false;
    if (in(common_names, name))
        return true;
    if (f == JAXRT_JAXJOB && in(jaxjob_names, name))
        return true;
    return f == JAXRT_AICHOR && in(aichor_names, name);
}

bool jaxrt_is_id_var(enum jaxrt_flavor f, const char *name)
{
    if (f == JAXRT_OFF || !name)
        return false;
    return strcmp(name, "JAX_PROCESS_ID") == 0 ||
           (f == JAXRT_JAXJOB && strcmp(name, "PROCESS_ID") == 0) ||
           (f == JAXRT_AICHOR && strcmp(name, "JAXOPERATOR_PROCESS_ID") == 0);
}

bool jaxrt_is_num_var(enum jaxrt_flavor f, const char *name)
{
    if (f == JAXRT_OFF || !name)
        return false;
    return strcmp(name, "JAX_NUM_PROCESSES") == 0 ||
           (f == JAXRT_JAXJOB && strcmp(name, "NUM_PROCESSES") == 0) ||
           (f == JAXRT_AICHOR && strcmp(name, "JAXOPERATOR_NUM_PROCESSES") == 0);
}
