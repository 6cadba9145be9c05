/* Upstream's in-place restart agent container in a manifest gets the command that does its part
 * locally (src/local/run/runner_agent.c); every other container is left alone. */
#include "local/run/runner_int.h"
#include "obj/tree/jx.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *cmd_of(const json_t *c)
{
    static char buf[512];
    char *s = json_dumps(json_object_get(c, "command"), JSON_COMPACT);
    snprintf(buf, sizeof(buf), "%s", s ? s : "-");
    free(s);
    return buf;
}

static const struct {
    const char *container, *command; /* command: "-" = none */
} cases[] = {
    /* main-container mode: the worker command, with the container's SHELL or bash */
    {"{'name':'in-place-restart-agent','env':[{'name':'WORKER_COMMAND','value':'python3 t.py'}]}",
     "[\"bash\",\"-c\",\"python3 t.py\"]"},
    {"{'name':'agent','image':'gcr.io/x/in-place-restart-agent:v1','env':[{'name':'SHELL',"
     "'value':'/bin/sh'},{'name':'WORKER_COMMAND','value':'echo hi'}]}",
     "[\"/bin/sh\",\"-c\",\"echo hi\"]"},
    {"{'name':'a','image':'in-place-restart-agent@sha256:abc','env':[{'name':'WORKER_COMMAND',"
     "'value':'true'}]}",
     "[\"bash\",\"-c\",\"true\"]"},
    /* sidecar mode: jaxset holds the barrier, the sidecar idles */
    {"{'name':'in-place-restart-agent','restartPolicy':'Always'}", "[\"sleep\",\"infinity\"]"},
    /* not the agent */
    {"{'name':'in-place-restart-agent','command':['my-agent']}", "[\"my-agent\"]"},
    {"{'name':'in-place-restart-agent','args':['x']}", "-"},
    {"{'name':'worker','image':'reg/in-place-restart-agent-fork:v1'}", "-"},
    {"{'name':'worker','image':'in-place-restart-agents'}", "-"},
    {"{'name':'worker','env':[{'name':'WORKER_COMMAND','value':'true'}]}", "-"},
};

static void test_agent_commands(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *c = tu_qjson(cases[i].container);
        char *before = json_dumps(c, JSON_SORT_KEYS);
        json_t *one = runner__agent_container(c); /* on a copy, c untouched */
        char *after = json_dumps(c, JSON_SORT_KEYS);
        if (strcmp(cmd_of(one), cases[i].command) != 0)
            fail_msg("case %zu: command %s, want %s", i, cmd_of(one), cases[i].command);
        assert_string_equal(before, after);
        json_t *spec = json_pack("{s:[o]}", "containers", c); /* in place, in a pod spec */
        assert_int_equal(runner__agent_commands(spec), 0);
        assert_string_equal(cmd_of(json_array_get(jx_arr(spec, "containers"), 0)),
                            cases[i].command);
        free(before);
        free(after);
        json_decref(one);
        json_decref(spec);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_agent_commands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
