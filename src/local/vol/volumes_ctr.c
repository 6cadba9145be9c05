/* The volumeMounts of a pod's containers: their mount points as the pod's root has them,
 * ordered so that a mount inside another comes after it. */
#include "local/vol/volumes_int.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "obj/tree/jx.h"
#include "obj/base/sbuf.h"

static const char *const ctr_lists[] = {"initContainers", "containers"};

size_t vol__depth(const char *path)
{
    size_t n = 0;
    for (const char *p = path; *p; p++)
        n += *p == '/' && p[1] && p[1] != '/';
    return n;
}

/* `in` without "//", "/." components or a trailing '/' into out (PATH_MAX). */
static void clean(const char *in, char *out)
{
    size_t o = 0;
    while (*in && o < PATH_MAX - 2) {
        size_t n = strcspn(in, "/");
        if (n && !(n == 1 && in[0] == '.')) {
            out[o++] = '/';
            n = n < PATH_MAX - 1 - o ? n : PATH_MAX - 1 - o;
            memcpy(out + o, in, n);
            o += n;
        }
        in += n;
        in += *in == '/';
    }
    if (o == 0)
        out[o++] = '/';
    out[o] = '\0';
}

/* mountPath as this machine's root shows it: the longest prefix that exists resolved (its
 * symbolic links followed, as the pod's root has them too), the rest appended.  Malloc'd. */
static char *resolve_dst(const char *mount_path)
{
    char p[PATH_MAX];
    clean(mount_path, p);
    for (size_t len = strlen(p);;) {
        char save = p[len];
        p[len] = '\0';
        char *real = nsr_host->realpath(len ? p : "/");
        p[len] = save;
        if (real) {
            char *out = sb_fmt("%s%s", strcmp(real, "/") ? real : "", p + len);
            free(real);
            if (out && !*out) {
                free(out);
                out = strdup("/");
            }
            return out;
        }
        while (len > 0 && p[--len] != '/')
            ;
    }
}

static void order(struct vol__ctr *c)
{
    for (size_t i = 1; i < c->n; i++)
        for (size_t k = i; k > 0 && vol__depth(c->m[k].dst) < vol__depth(c->m[k - 1].dst); k--) {
            struct vol__mnt t = c->m[k];
            c->m[k] = c->m[k - 1];
            c->m[k - 1] = t;
        }
    for (size_t i = 0; i < c->n; i++)
        for (size_t k = 0; k < i; k++) {
            size_t l = strlen(c->m[k].dst);
            if (!strncmp(c->m[i].dst, c->m[k].dst, l) && c->m[i].dst[l] == '/')
                c->m[i].inside = (long)k;
        }
}

static int ctr_new(const json_t *spec, const json_t *pod_spec, const struct vol_run *vr,
                   const char *ns, struct vol__ctr *c)
{
    const json_t *vms = jx_arr(spec, "volumeMounts");
    c->name = jx_str(spec, "name");
    c->m = calloc(json_array_size(vms), sizeof(*c->m));
    c->nm = calloc(json_array_size(vms), sizeof(*c->nm));
    if (!c->m || !c->nm)
        return -ENOMEM;
    for (; c->n < json_array_size(vms); c->n++) {
        const json_t *vm = json_array_get(vms, c->n);
        const char *mp = jx_str(vm, "mountPath");
        struct vol__mnt *m = &c->m[c->n];
        *m = (struct vol__mnt){.inside = -1, .vm = vm, .dst = resolve_dst(mp ? mp : "/"),
                               .dir = !vr || vol__src_dir(vr, pod_spec, vm, ns)};
        if (!m->dst)
            return -ENOMEM;
    }
    order(c);
    return 0;
}

void vol__ctrs_free(struct vol__ctr *c, size_t n)
{
    for (size_t k = 0; c && k < n; k++) {
        for (size_t i = 0; i < c[k].n; i++) {
            free(c[k].m[i].src);
            free(c[k].m[i].dst);
        }
        free(c[k].m);
        free(c[k].nm);
    }
    free(c);
}

int vol__ctrs_new(const json_t *pod_spec, const struct vol_run *vr, const char *ns,
                  struct vol__ctr **out, size_t *n, struct err *err)
{
    size_t cap = json_array_size(jx_arr(pod_spec, "initContainers")) +
                 json_array_size(jx_arr(pod_spec, "containers")) + 1;
    struct vol__ctr *c = calloc(cap, sizeof(*c));
    int rc = c ? 0 : -ENOMEM;
    *n = 0;
    for (size_t l = 0; rc == 0 && l < 2; l++) {
        size_t i;
        const json_t *s;
        json_array_foreach (jx_arr(pod_spec, ctr_lists[l]), i, s)
            if (rc == 0 && json_array_size(jx_arr(s, "volumeMounts")))
                rc = ctr_new(s, pod_spec, vr, ns, &c[(*n)++]);
    }
    if (rc < 0) {
        vol__ctrs_free(c, *n);
        *n = 0;
        return err_set(err, rc, ERR_OOM_MSG);
    }
    *out = c;
    return 0;
}
