/* volumes: quantities, volume kinds, the files a volume gives, and the plan of a template's
 * root (mount points made in the root's tmpfs or in shadows, never on the host). */
#include "local/vol/volumes_int.h"
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_quantity(void **state)
{
    (void)state;
    static const struct {
        const char *s; /* a string quantity, or NULL: the number `want` */
        long long want; /* < 0: invalid */
    } cases[] = {
        {"1Gi", 1073741824}, {"500m", 1}, {"2", 2},       {"1e3", 1000},  {"1.5Mi", 1572864},
        {"64M", 64000000},   {NULL, 100}, {"abc", -1},    {"1Zi", -1},    {"-1", -1},
        {"0x10", -1},        {"", -1},    {"1e3Mi", -1},  {"1e30", LLONG_MAX},
        {"100000000000000000000Ei", LLONG_MAX},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *v = cases[i].s ? json_string(cases[i].s) : json_integer((json_int_t)cases[i].want);
        long long got = -2;
        int rc = vol__size_limit(v, &got);
        if (cases[i].want < 0)
            assert_int_equal(rc, -EINVAL);
        else if (rc != 0 || got != cases[i].want)
            fail_msg("%s: rc %d, %lld", cases[i].s ? cases[i].s : "(number)", rc, got);
        json_decref(v);
    }
}

/* What the kubelet writes for a resourceFieldRef: ceil(value / divisor), cpu in millicores,
 * exact past float64's precision; nothing past 64 bits. */
static void test_resource_value(void **state)
{
    (void)state;
    static const char *const cases[][4] = {
        /* limits.memory, limits.cpu, the ref's resource and divisor, want */
        {"100000000000000000000Ei", "1", "limits.memory", "9223372036854775807"},
        {"100000000000000000000Ei", "1", "limits.memory:1Mi", "8796093022208"},
        {"1.5", "1500m", "requests.memory", "2"},
        {"1Gi", "1500m", "limits.cpu:1m", "1500"},
        {"1Gi", "1500m", "limits.cpu", "2"},
        {"1Gi", "1500m", "limits.memory:0", "1073741824"},
        {"9007199254740993", "1", "limits.memory", "9007199254740993"},
        {"1e30", "1", "limits.memory", NULL},
        {"1Gi", "100000000000000000000Ei", "limits.cpu:1m", NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char res[64];
        snprintf(res, sizeof(res), "%s", cases[i][2]);
        char *div = strchr(res, ':');
        if (div)
            *div++ = '\0';
        json_t *ps = json_pack("{s:[{s:s,s:{s:{s:s,s:s}}}]}", "containers", "name", "c",
                               "resources", "limits", "memory", cases[i][0], "cpu", cases[i][1]);
        json_t *ref = json_pack("{s:s,s:s}", "containerName", "c", "resource", res);
        if (div)
            json_object_set_new(ref, "divisor", json_string(div));
        char *got = vol__resource_value(ps, ref);
        if (cases[i][3] ? !got || strcmp(got, cases[i][3]) : got != NULL)
            fail_msg("%s %s %s: got %s", cases[i][0], cases[i][1], cases[i][2], got);
        free(got);
        json_decref(ref);
        json_decref(ps);
    }
}

static void test_kind(void **state)
{
    (void)state;
    const char *key;
    json_t *v = tu_qjson("{'name':'x'}");
    assert_int_equal(vol__kind(v, &key), VK_EMPTY_DIR);
    assert_string_equal(key, "emptyDir");
    json_decref(v);
    v = tu_qjson("{'name':'x','nfs':{'server':'s','path':'/'}}");
    assert_int_equal(vol__kind(v, &key), VK_UNSUPPORTED);
    assert_string_equal(key, "nfs");
    json_decref(v);
    v = tu_qjson("{'name':'x','projected':{'sources':[]}}");
    assert_int_equal(vol__kind(v, &key), VK_PROJECTED);
    json_decref(v);
}

static void test_files_has(void **state)
{
    (void)state;
    json_t *objs = tu_qjson("[{'apiVersion':'v1','kind':'ConfigMap','metadata':{'name':'cm'},"
                            "'data':{'a.py':'x'},'binaryData':{'b.bin':'eA=='}}]");
    struct vol_run vr = {.run_dir = "/nonexistent", .objects = objs};
    json_t *all = tu_qjson("{'name':'v','configMap':{'name':'cm'}}");
    json_t *items = tu_qjson("{'name':'v','configMap':{'name':'cm','items':[{'key':'a.py',"
                             "'path':'sub/a.py'}]}}");
    json_t *proj = tu_qjson("{'name':'v','projected':{'sources':[{'configMap':{'name':'cm'}},"
                            "{'downwardAPI':{'items':[{'path':'labels','fieldRef':{"
                            "'fieldPath':'metadata.labels'}}]}}]}}");
    assert_true(vol__files_has(&vr, all, VK_CONFIG_MAP, NULL, "a.py"));
    assert_true(vol__files_has(&vr, all, VK_CONFIG_MAP, NULL, "b.bin"));
    assert_false(vol__files_has(&vr, all, VK_CONFIG_MAP, NULL, "c"));
    assert_false(vol__files_has(&vr, all, VK_CONFIG_MAP, "other", "a.py"));
    assert_true(vol__files_has(&vr, items, VK_CONFIG_MAP, NULL, "sub/a.py"));
    assert_false(vol__files_has(&vr, items, VK_CONFIG_MAP, NULL, "a.py"));
    assert_true(vol__files_has(&vr, proj, VK_PROJECTED, NULL, "labels"));
    assert_true(vol__files_has(&vr, proj, VK_PROJECTED, NULL, "a.py"));
    json_decref(all);
    json_decref(items);
    json_decref(proj);
    json_decref(objs);
}

/* A template of one container mounting `n` mount points. */
struct fake {
    struct vol__mnt m[4];
    struct vol__ctr c;
    struct vol_tmpl t;
};

static void fake(struct fake *f, size_t n, const char *const *dst, const bool *dir)
{
    memset(f, 0, sizeof(*f));
    for (size_t i = 0; i < n; i++)
        f->m[i] = (struct vol__mnt){.dst = (char *)dst[i], .dir = dir[i], .inside = -1};
    f->c = (struct vol__ctr){.name = "c", .m = f->m, .n = n};
    f->t = (struct vol_tmpl){.ctr = &f->c, .n_ctr = 1};
}

/* The index of the first op of `kind` at `path` after the root's entries, or -1. */
static long find_op(const struct nsr_plan *p, enum nsr_op_kind kind, const char *path)
{
    for (size_t i = 0; i < p->n; i++)
        if (p->ops[i].kind == kind && !strcmp(p->ops[i].path, path))
            return (long)i;
    return -1;
}

static char *mkdtemp_in(const char *tmpl)
{
    char *d = strdup(tmpl);
    assert_non_null(mkdtemp(d));
    return d;
}

static void touch(const char *dir, const char *name)
{
    char p[PATH_MAX];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    int fd = open(p, O_WRONLY | O_CREAT, 0644);
    assert_true(fd >= 0);
    close(fd);
}

static void test_plan_points(void **state)
{
    (void)state;
    char *d = mkdtemp_in("/tmp/jaxset-unit-XXXXXX"), top[64], inner[PATH_MAX];
    char file_point[PATH_MAX], dir_point[PATH_MAX];
    snprintf(top, sizeof(top), "/jaxset-unit-%d/a", (int)getpid());
    snprintf(dir_point, sizeof(dir_point), "%s/new", d);
    snprintf(file_point, sizeof(file_point), "%s/conf", d);
    touch(d, "e1");
    const char *dst[] = {top, dir_point, file_point};
    const bool dir[] = {true, true, false};
    struct fake f;
    struct nsr_plan p = {0};
    struct err e = {{0}};
    fake(&f, 3, dst, dir);
    assert_int_equal(vol__plan(&f.t, &p, &e), 0);
    snprintf(inner, sizeof(inner), "/jaxset-unit-%d", (int)getpid());
    assert_true(find_op(&p, NSR_OP_DIR, inner) >= 0); /* in the root's tmpfs */
    assert_true(find_op(&p, NSR_OP_DIR, top) > find_op(&p, NSR_OP_DIR, inner));
    long shadow = find_op(&p, NSR_OP_TMPFS, d); /* d lacks "new": shadowed once */
    assert_true(shadow >= 0);
    snprintf(inner, sizeof(inner), "%s/e1", d);
    assert_true(find_op(&p, NSR_OP_BIND, inner) > shadow); /* its entry bound back */
    assert_true(find_op(&p, NSR_OP_DIR, dir_point) > shadow);
    assert_true(find_op(&p, NSR_OP_FILE, file_point) > shadow);
    struct stat st;
    assert_int_equal(stat(dir_point, &st), -1); /* nothing made on the host */
    nsr_plan_release(&p);
    snprintf(inner, sizeof(inner), "%s/e1", d);
    unlink(inner);
    rmdir(d);
    free(d);
}

static void test_plan_big_shadow_links(void **state)
{
    (void)state;
    char *d = mkdtemp_in("/tmp/jaxset-unit-XXXXXX"), point[PATH_MAX + 64], e0[PATH_MAX];
    char host[PATH_MAX];
    for (int i = 0; i <= NSR_SHADOW_BINDS; i++) {
        char name[16];
        snprintf(name, sizeof(name), "e%d", i);
        touch(d, name);
    }
    snprintf(point, sizeof(point), "%s/cache", d);
    snprintf(e0, sizeof(e0), "%s/e0", d);
    snprintf(host, sizeof(host), NSR_HOST "%s", d);
    const char *dst[] = {point};
    const bool dir[] = {true};
    struct fake f;
    struct nsr_plan p = {0};
    struct err e = {{0}};
    fake(&f, 1, dst, dir);
    assert_int_equal(vol__plan(&f.t, &p, &e), 0);
    long bind = find_op(&p, NSR_OP_BIND, host), link = find_op(&p, NSR_OP_SYMLINK, e0);
    assert_true(bind >= 0 && link > bind); /* the host's directory once, links into it */
    assert_string_equal(p.ops[bind].arg, d);
    snprintf(point, sizeof(point), "%s/e0", host);
    assert_string_equal(p.ops[link].arg, point);
    assert_int_equal(find_op(&p, NSR_OP_BIND, e0), -1);
    nsr_plan_release(&p);
    for (int i = 0; i <= NSR_SHADOW_BINDS; i++) {
        snprintf(point, sizeof(point), "%s/e%d", d, i);
        unlink(point);
    }
    rmdir(d);
    free(d);
}

/* A directory of a big shadow is a link into NSR_HOST: a mount point in it is made where the
 * link leads (its shadow there), not at the link (a tmpfs there would find no directory). */
static void test_plan_point_in_a_big_shadows_subdirectory_lies_where_its_link_leads(void **state)
{
    (void)state;
    char *d = mkdtemp_in("/tmp/jaxset-unit-XXXXXX"), x[PATH_MAX], y[PATH_MAX], sub[PATH_MAX];
    char at[PATH_MAX + 64], name[16];
    for (int i = 0; i <= NSR_SHADOW_BINDS; i++) {
        snprintf(name, sizeof(name), "e%d", i);
        touch(d, name);
    }
    snprintf(sub, sizeof(sub), "%s/sub", d);
    assert_int_equal(mkdir(sub, 0755), 0);
    snprintf(x, sizeof(x), "%s/x", d);
    snprintf(y, sizeof(y), "%s/sub/y", d);
    const char *dst[] = {x, y};
    const bool dir[] = {true, true};
    struct fake f;
    struct nsr_plan p = {0};
    struct err e = {{0}};
    fake(&f, 2, dst, dir);
    assert_int_equal(vol__plan(&f.t, &p, &e), 0);
    assert_true(find_op(&p, NSR_OP_DIR, x) >= 0);            /* in d's shadow */
    assert_int_equal(find_op(&p, NSR_OP_TMPFS, sub), -1);     /* not at the link */
    snprintf(at, sizeof(at), NSR_HOST "%s", sub);
    long shadow = find_op(&p, NSR_OP_TMPFS, at);
    assert_true(shadow >= 0);
    snprintf(at, sizeof(at), NSR_HOST "%s/sub/y", d);
    assert_true(find_op(&p, NSR_OP_DIR, at) > shadow);
    nsr_plan_release(&p);
    for (int i = 0; i <= NSR_SHADOW_BINDS; i++) {
        snprintf(at, sizeof(at), "%s/e%d", d, i);
        unlink(at);
    }
    rmdir(sub);
    rmdir(d);
    free(d);
}

/* A shallow directory shadowed after a deeper one would hide the deeper shadow's mount points
 * and what is made in it later would be made in the host's directory bound back there:
 * shadows go shallowest first, whatever the depth of the mount points that need them. */
static void test_plan_shadows_a_directory_before_the_directories_in_it(void **state)
{
    (void)state;
    char *d = mkdtemp_in("/tmp/jaxset-unit-XXXXXX"), ckpt[PATH_MAX], a[PATH_MAX], b[PATH_MAX];
    snprintf(ckpt, sizeof(ckpt), "%s/ckpt", d);
    assert_int_equal(mkdir(ckpt, 0755), 0);
    snprintf(a, sizeof(a), "%s/ckpt/x", d);       /* shadows d/ckpt */
    snprintf(b, sizeof(b), "%s/new/a/b/c/d/e", d); /* deeper, shadows d */
    const char *dst[] = {a, b};
    const bool dir[] = {true, true};
    struct fake f;
    struct nsr_plan p = {0};
    struct err e = {{0}};
    fake(&f, 2, dst, dir);
    assert_int_equal(vol__plan(&f.t, &p, &e), 0);
    long outer = find_op(&p, NSR_OP_TMPFS, d), inner = find_op(&p, NSR_OP_TMPFS, ckpt);
    assert_true(outer >= 0 && inner > outer);
    assert_true(find_op(&p, NSR_OP_DIR, a) > inner);
    nsr_plan_release(&p);
    rmdir(ckpt);
    rmdir(d);
    free(d);
}

static void test_plan_conflict(void **state)
{
    (void)state;
    char *d = mkdtemp_in("/tmp/jaxset-unit-XXXXXX"), point[PATH_MAX];
    touch(d, "f");
    snprintf(point, sizeof(point), "%s/f", d);
    const char *dst[] = {point};
    const bool dir[] = {true};
    struct fake f;
    struct nsr_plan p = {0};
    struct err e = {{0}};
    fake(&f, 1, dst, dir);
    assert_int_equal(vol__plan(&f.t, &p, &e), -ENOTDIR);
    assert_non_null(strstr(e.msg, "a file is there, the volume is a directory"));
    nsr_plan_release(&p);
    unlink(point);
    rmdir(d);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quantity),
        cmocka_unit_test(test_resource_value),
        cmocka_unit_test(test_kind),
        cmocka_unit_test(test_files_has),
        cmocka_unit_test(test_plan_points),
        cmocka_unit_test(test_plan_big_shadow_links),
        cmocka_unit_test(test_plan_point_in_a_big_shadows_subdirectory_lies_where_its_link_leads),
        cmocka_unit_test(test_plan_shadows_a_directory_before_the_directories_in_it),
        cmocka_unit_test(test_plan_conflict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
