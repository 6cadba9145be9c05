/* img_cfg: an image's config applied to a container as the kubelet applies it, one row per
 * rule: command/args against ENTRYPOINT/CMD, env order and overrides, workingDir, the user
 * (the image's USER by id, name, name:group; runAsUser/runAsGroup over it), the default pull
 * policy. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "local/image/img.h"

static const char CONFIG[] = "{\"Entrypoint\":[\"/ep\",\"e1\"],\"Cmd\":[\"c1\",\"c2\"],"
                             "\"Env\":[\"PATH=/img/bin\",\"FOO=image\",\"BAR=image\"],"
                             "\"WorkingDir\":\"/work\",\"User\":\"app\"}";

struct argv_row {
    const char *name, *container, *want_cmd, *want_wd;
};

static const struct argv_row ARGV_ROWS[] = {
    {"neither: ENTRYPOINT + CMD", "{\"name\":\"c\"}", "[\"/ep\",\"e1\",\"c1\",\"c2\"]", "/work"},
    {"command alone: CMD dropped", "{\"name\":\"c\",\"command\":[\"/x\"]}", "[\"/x\"]", "/work"},
    {"args alone: ENTRYPOINT + args", "{\"name\":\"c\",\"args\":[\"a\"]}",
     "[\"/ep\",\"e1\",\"a\"]", "/work"},
    {"both: command + args", "{\"name\":\"c\",\"command\":[\"/x\"],\"args\":[\"a\"]}",
     "[\"/x\",\"a\"]", "/work"},
    {"workingDir of the container", "{\"name\":\"c\",\"workingDir\":\"/mine\"}",
     "[\"/ep\",\"e1\",\"c1\",\"c2\"]", "/mine"},
    {"the container's $(VAR) kept for expansion",
     "{\"name\":\"c\",\"command\":[\"$(A)\"],\"args\":[\"$$x\"]}", "[\"$(A)\",\"$$x\"]",
     "/work"},
};

/* An image's ENTRYPOINT and CMD are never expanded: their '$' doubled for podenv. */
static void test_image_strings_are_not_expanded(void **state)
{
    (void)state;
    json_t *cfg = tu_json("{\"Entrypoint\":[\"/bin/sh\",\"-c\"],\"Cmd\":[\"echo $(HOME) $$ $x\"]}");
    json_t *c = tu_json("{\"name\":\"c\"}");
    struct err e = {{0}};
    json_t *got = img_container(c, cfg, &e);
    json_t *want = tu_json("[\"/bin/sh\",\"-c\",\"echo $$(HOME) $$$$ $$x\"]");
    assert_non_null(got);
    assert_true(json_equal(json_object_get(got, "command"), want));
    json_decref(got);
    json_decref(want);
    json_decref(c);
    json_decref(cfg);
}

static void test_argv_rules(void **state)
{
    (void)state;
    json_t *cfg = tu_json(CONFIG);
    for (size_t i = 0; i < sizeof(ARGV_ROWS) / sizeof(ARGV_ROWS[0]); i++) {
        const struct argv_row *r = &ARGV_ROWS[i];
        struct err e = {{0}};
        json_t *c = tu_json(r->container), *want = tu_json(r->want_cmd);
        json_t *got = img_container(c, cfg, &e);
        if (!got || !json_equal(json_object_get(got, "command"), want) ||
            json_object_get(got, "args") ||
            strcmp(json_string_value(json_object_get(got, "workingDir")), r->want_wd))
            fail_msg("%s: %s", r->name, got ? json_dumps(got, 0) : e.msg);
        json_decref(got);
        json_decref(c);
        json_decref(want);
    }
    json_decref(cfg);
}

static void test_env_image_first_container_wins(void **state)
{
    (void)state;
    json_t *cfg = tu_json(CONFIG);
    json_t *c = tu_json("{\"name\":\"c\",\"env\":[{\"name\":\"BAR\",\"value\":\"mine\"},"
                        "{\"name\":\"X\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":"
                        "\"metadata.name\"}}}]}");
    struct err e = {{0}};
    json_t *got = img_container(c, cfg, &e);
    json_t *want = tu_json("[{\"name\":\"PATH\",\"value\":\"/img/bin\"},{\"name\":\"FOO\","
                           "\"value\":\"image\"},{\"name\":\"BAR\",\"value\":\"mine\"},"
                           "{\"name\":\"X\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":"
                           "\"metadata.name\"}}}]");
    assert_non_null(got);
    assert_true(json_equal(json_object_get(got, "env"), want));
    json_decref(got);
    json_decref(want);
    json_decref(c);
    json_decref(cfg);
}

static void test_nothing_to_run(void **state)
{
    (void)state;
    json_t *cfg = tu_json("{\"Env\":[\"A=b\"]}"), *c = tu_json("{\"name\":\"c\",\"image\":\"i\"}");
    struct err e = {{0}};
    assert_null(img_container(c, cfg, &e));
    assert_non_null(strstr(e.msg, "neither ENTRYPOINT nor CMD"));
    json_t *got = img_container(c, NULL, &e);
    assert_null(got);
    json_t *wd = tu_json("{\"name\":\"c\",\"command\":[\"x\"]}");
    got = img_container(wd, NULL, &e);
    assert_string_equal(json_string_value(json_object_get(got, "workingDir")), "/");
    json_decref(got);
    json_decref(wd);
    json_decref(c);
    json_decref(cfg);
}

struct user_row {
    const char *name, *user, *pod_sc, *ctr_sc;
    int rc;
    unsigned uid, gid;
};

static const struct user_row USER_ROWS[] = {
    {"no User: root", "", NULL, NULL, 0, 0, 0},
    {"a name: its passwd ids", "app", NULL, NULL, 0, 1000, 1000},
    {"an id alone: its passwd group", "1000", NULL, NULL, 0, 1000, 1000},
    {"an unknown id: group 0", "4242", NULL, NULL, 0, 4242, 0},
    {"name:group", "app:staff", NULL, NULL, 0, 1000, 50},
    {"uid:gid", "7:8", NULL, NULL, 0, 7, 8},
    {"an unknown name", "nobody-here", NULL, NULL, -1, 0, 0},
    {"an unknown group", "app:nogroup", NULL, NULL, -1, 0, 0},
    {"runAsUser of the pod over User", "app", "{\"runAsUser\":0}", NULL, 0, 0, 0},
    {"the container's over the pod's", "app", "{\"runAsUser\":5}", "{\"runAsUser\":6}", 0, 6, 0},
    {"runAsGroup alone", "app", NULL, "{\"runAsGroup\":50}", 0, 1000, 50},
    {"runAsUser over an unknown User", "nobody-here", "{\"runAsUser\":9}", NULL, 0, 9, 0},
};

static char *image_root(void)
{
    char *dir = strdup("/tmp/jaxset-img-XXXXXX"), path[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/etc", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(path, sizeof(path), "%s/etc/passwd", dir);
    FILE *f = fopen(path, "w");
    fputs("root:x:0:0:root:/root:/bin/sh\napp:x:1000:1000::/home/app:/bin/sh\n", f);
    fclose(f);
    snprintf(path, sizeof(path), "%s/etc/group", dir);
    f = fopen(path, "w");
    fputs("root:x:0:\napp:x:1000:\nstaff:x:50:app\n", f);
    fclose(f);
    return dir;
}

static void test_user_rules(void **state)
{
    (void)state;
    char *root = image_root(), cmd[300];
    for (size_t i = 0; i < sizeof(USER_ROWS) / sizeof(USER_ROWS[0]); i++) {
        const struct user_row *r = &USER_ROWS[i];
        json_t *cfg = json_pack("{s:s}", "User", r->user);
        json_t *pod = json_object(), *c = json_object();
        if (r->pod_sc)
            json_object_set_new(pod, "securityContext", tu_json(r->pod_sc));
        if (r->ctr_sc)
            json_object_set_new(c, "securityContext", tu_json(r->ctr_sc));
        unsigned uid = 99, gid = 99;
        struct err e = {{0}};
        int rc = img_user(pod, c, cfg, root, &uid, &gid, &e);
        if ((rc < 0) != (r->rc < 0) || (rc == 0 && (uid != r->uid || gid != r->gid)))
            fail_msg("%s: rc %d uid %u gid %u (%s)", r->name, rc, uid, gid, e.msg);
        json_decref(cfg);
        json_decref(pod);
        json_decref(c);
    }
    snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
    assert_int_equal(system(cmd), 0);
    free(root);
}

static void test_default_policy(void **state)
{
    (void)state;
    assert_string_equal(img_default_policy("busybox"), "Always");
    assert_string_equal(img_default_policy("busybox:latest"), "Always");
    assert_string_equal(img_default_policy("localhost:5000/busybox"), "Always");
    assert_string_equal(img_default_policy("localhost:5000/busybox:1.36"), "IfNotPresent");
    assert_string_equal(img_default_policy("busybox@sha256:abcd"), "IfNotPresent");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_argv_rules),
        cmocka_unit_test(test_env_image_first_container_wins),
        cmocka_unit_test(test_nothing_to_run),
        cmocka_unit_test(test_image_strings_are_not_expanded),
        cmocka_unit_test(test_user_rules),
        cmocka_unit_test(test_default_policy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
