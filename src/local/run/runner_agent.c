/* Upstream's in-place restart agent in a manifest (kubernetes-sigs/jobset
 * cmd/in-place-restart-agent, site/static/examples/in-place-restart): a container named
 * in-place-restart-agent (or whose image is .../in-place-restart-agent) with no command, the
 * image's entrypoint being the agent.  Locally there is no image, and jaxset itself plays the
 * agent (runner_ipr.c), so the container gets the command that does what is left of it:
 *   - main-container mode (env WORKER_COMMAND): the agent runs WORKER_COMMAND with $SHELL -c
 *     (bash when the container sets no SHELL) once its barrier is lifted, and exits with the
 *     worker's status: here the container runs exactly that;
 *   - sidecar mode (no WORKER_COMMAND): the agent only holds the barrier and restarts the pod;
 *     here the sidecar idles (sleep infinity) and is stopped with the pod. */
#include "local/run/runner_int.h"

#include <errno.h>
#include <string.h>

#include "obj/tree/jx.h"

#define AGENT_NAME "in-place-restart-agent"

/* The image's repository ends in /in-place-restart-agent (any registry, tag or digest). */
bool runner__agent_image(const char *image)
{
    if (!image)
        return false;
    size_t n = strcspn(image, "@");
    const char *slash = NULL;
    for (const char *s = image; s < image + n; s++)
        slash = *s == '/' ? s : slash;
    const char *repo = slash ? slash + 1 : image;
    size_t len = strlen(AGENT_NAME);
    return strncmp(repo, AGENT_NAME, len) == 0 && (repo[len] == ':' || repo[len] == '@' ||
                                                   repo + len == image + n);
}

static bool is_agent(const json_t *c)
{
    const char *name = jx_str(c, "name");
    if (json_array_size(jx_arr(c, "command")) || json_array_size(jx_arr(c, "args")))
        return false;
    return (name && strcmp(name, AGENT_NAME) == 0) || runner__agent_image(jx_str(c, "image"));
}

/* The literal value of env variable `name` of container c, NULL when unset or not literal. */
static const char *env_value(const json_t *c, const char *name)
{
    return jx_str(jx_named(jx_arr(c, "env"), name), "value");
}

static int agent_command(json_t *c)
{
    const char *worker = env_value(c, "WORKER_COMMAND");
    const char *shell = env_value(c, "SHELL");
    json_t *cmd = worker && *worker
                      ? json_pack("[s,s,s]", shell && *shell ? shell : "bash", "-c", worker)
                      : json_pack("[s,s]", "sleep", "infinity");
    return json_object_set_new(c, "command", cmd) < 0 ? -ENOMEM : 0;
}

int runner__agent_commands(json_t *pod_spec)
{
    static const char *const lists[] = {"initContainers", "containers"};
    for (size_t l = 0; l < 2; l++) {
        size_t i;
        json_t *c;
        json_array_foreach (jx_arr(pod_spec, lists[l]), i, c)
            if (is_agent(c) && agent_command(c) < 0)
                return -ENOMEM;
    }
    return 0;
}

json_t *runner__agent_container(const json_t *c)
{
    if (!is_agent(c))
        return json_incref((json_t *)c);
    json_t *copy = json_deep_copy(c);
    if (copy && agent_command(copy) < 0) {
        json_decref(copy);
        return NULL;
    }
    return copy;
}
