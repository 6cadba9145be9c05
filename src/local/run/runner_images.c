/* Containers in their images (`jaxset run --images`, local/image/img.h): every image of the
 * run resolved before anything starts, and each container's own root (an overlay of its
 * image over a layer in <run dir>/rootfs/<pod>/<container>, local/ns/nsroot.h's nsr_root)
 * made afresh whenever it starts, as a new container on a node starts from its image. */
#include "local/run/runner_int.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/kubeflow/trainjob_report.h"
#include "local/store/rundir.h"
#include "obj/base/fs.h"
#include "obj/base/sbuf.h"
#include "obj/tree/jx.h"

#define ROOT_BINDS 5

struct run_root {
    struct nsr_root root;
    struct nsr_enter enter;
    struct nsr_bind binds[ROOT_BINDS];
    char *dir, *merged, *opts, *hosts, *dst[ROOT_BINDS];
    struct nsr_mount *mounts; /* the volumeMounts and the status server's directory; NULL:
                               * the volumes' own list */
};

const struct img *runner__image(const struct run *r, const char *ref)
{
    for (size_t i = 0; ref && i < r->n_imgs; i++)
        if (strcmp(r->imgs[i].ref, ref) == 0)
            return &r->imgs[i];
    return NULL;
}

static int resolve_one(struct run *r, const json_t *c, const char *where, const char *cache,
                       struct err *err)
{
    const char *ref = jx_str(c, "image");
    struct err e = {{0}};
    if (!ref || !*ref)
        return err_set(err, -EINVAL, "%s.image: --images runs every container in its image, "
                       "and this one names none", where);
    if (runner__image(r, ref) || runner__agent_image(ref))
        return 0;
    struct img *grown = realloc(r->imgs, (r->n_imgs + 1) * sizeof(*grown));
    if (!grown)
        return err_oom(err);
    r->imgs = grown;
    int rc = img_resolve(ref, jx_str(c, "imagePullPolicy"), cache, &r->imgs[r->n_imgs], &e);
    if (rc < 0)
        return err_set(err, rc, "%s (container %s): %s", where, jx_str(c, "name"), e.msg);
    r->n_imgs++;
    return 0;
}

/* <home>/images: the unpacked images, shared by every run. */
static int cache_dir(char *out, size_t n, struct err *err)
{
    char home[PATH_MAX];
    int rc = rd_home(home, sizeof(home));
    if (rc < 0)
        return err_set(err, rc, "%s", rd_home_error(rc));
    if ((size_t)snprintf(out, n, "%s/images", home) >= n)
        return err_set(err, -ENAMETOOLONG, "%s/images: file name too long", home);
    return 0;
}

/* <run dir>/hosts.image: what the containers see as /etc/hosts, localhost then the pods. */
static int image_hosts(const struct run *r, struct err *err)
{
    char path[PATH_MAX], src[PATH_MAX];
    snprintf(path, sizeof(path), "%s/hosts.image", r->o->run_dir);
    snprintf(src, sizeof(src), "%s/hosts", r->o->run_dir);
    struct sbuf b = {0};
    sb_puts(&b, "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n");
    FILE *f = fopen(src, "re");
    char line[1024];
    while (f && fgets(line, sizeof(line), f))
        sb_puts(&b, line);
    if (f)
        fclose(f);
    int rc = sb_failed(&b) ? -ENOMEM : fs_write_private(path, sb_str(&b), b.len);
    if (rc == 0 && chmod(path, 0644) < 0) /* read by containers of any user */
        rc = -errno;
    sb_free(&b);
    return rc < 0 ? err_set(err, rc, "%s: %s", path, strerror(-rc)) : 0;
}

int runner__images_setup(struct run *r, struct err *err)
{
    char cache[PATH_MAX];
    int rc = img_check_host(err);
    if (rc == 0)
        rc = cache_dir(cache, sizeof(cache), err);
    const json_t *rjs = jx_arr(jx_obj(r->js, "spec"), "replicatedJobs");
    static const char *const lists[] = {"initContainers", "containers"};
    for (size_t i = 0; rc == 0 && i < json_array_size(rjs); i++) {
        const json_t *ps = jx_path(json_array_get(rjs, i), "template.spec.template.spec");
        for (size_t l = 0; rc == 0 && l < 2; l++) {
            const json_t *cs = jx_arr(ps, lists[l]);
            for (size_t k = 0; rc == 0 && k < json_array_size(cs); k++) {
                char where[128];
                snprintf(where, sizeof(where), "spec.replicatedJobs[%zu].template.spec.template."
                         "spec.%s[%zu]", i, lists[l], k);
                rc = resolve_one(r, json_array_get(cs, k), where, cache, err);
            }
        }
    }
    return rc;
}

int runner__images_hosts(const struct run *r, struct err *err)
{
    return image_hosts(r, err);
}

static int rm_tree(const char *dir);

void runner__images_free(struct run *r)
{
    if (r->o && r->o->images && r->o->run_dir) { /* the containers' layers go with the run */
        char d[PATH_MAX];
        snprintf(d, sizeof(d), "%s/rootfs", r->o->run_dir);
        rm_tree(d);
    }
    for (size_t i = 0; i < r->n_imgs; i++)
        img_release(&r->imgs[i]);
    free(r->imgs);
    r->imgs = NULL;
    r->n_imgs = 0;
}

/* ---- a container's root ---------------------------------------------------------------- */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

static int rm_tree(const char *dir)
{
    if (nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) < 0 && errno != ENOENT)
        return -errno;
    return 0;
}

/* dir removed (what a container wrote in its layer goes with it) and made again, empty. */
static int fresh_dir(const char *dir)
{
    int rc = rm_tree(dir);
    if (rc < 0)
        return rc;
    if (mkdir(dir, 0700) < 0)
        return -errno;
    return 0;
}

void runner__root_free(struct run_root *rr)
{
    if (!rr)
        return;
    free(rr->dir);
    free(rr->merged);
    free(rr->opts);
    free(rr->hosts);
    free(rr->mounts);
    for (size_t i = 0; i < ROOT_BINDS; i++)
        free(rr->dst[i]);
    free(rr);
}

static int root_dirs(struct run_root *rr, const char *rootfs)
{
    char upper[PATH_MAX], work[PATH_MAX];
    int rc = fresh_dir(rr->dir);
    snprintf(upper, sizeof(upper), "%s/upper", rr->dir);
    snprintf(work, sizeof(work), "%s/work", rr->dir);
    if (rc == 0 && (mkdir(upper, 0755) < 0 || mkdir(work, 0700) < 0 || mkdir(rr->merged, 0755) < 0))
        rc = -errno;
    if (rc == 0 && !(rr->opts = sb_fmt("lowerdir=%s,upperdir=%s,workdir=%s", rootfs, upper, work)))
        rc = -ENOMEM;
    return rc;
}

static int root_binds(struct run_root *rr)
{
    const char *src[ROOT_BINDS] = {"/proc", "/dev", "/sys", rr->hosts, "/etc/resolv.conf"};
    const char *dst[ROOT_BINDS] = {"/proc", "/dev", "/sys", "/etc/hosts", "/etc/resolv.conf"};
    size_t n = 0;
    for (size_t i = 0; i < ROOT_BINDS; i++) {
        if (i == 4 && access(src[i], R_OK) != 0)
            continue; /* no resolver configuration here: the image's */
        if (!(rr->dst[n] = sb_fmt("%s%s", rr->merged, dst[i])))
            return -ENOMEM;
        rr->binds[n] = (struct nsr_bind){.src = src[i], .dst = rr->dst[n], .file = i >= 3};
        n++;
    }
    rr->root.binds = rr->binds;
    rr->root.n_binds = n;
    return 0;
}

/* <run dir>/rootfs/<pod>, made when missing. */
static int pod_root_dir(const struct run *r, const struct rpod *p)
{
    char d[PATH_MAX];
    snprintf(d, sizeof(d), "%s/rootfs", r->o->run_dir);
    if (mkdir(d, 0700) < 0 && errno != EEXIST)
        return -errno;
    snprintf(d, sizeof(d), "%s/rootfs/%s", r->o->run_dir, p->name);
    return mkdir(d, 0700) < 0 && errno != EEXIST ? -errno : 0;
}

static int root_paths(struct run_root *rr, const struct run *r, const struct rpod *p,
                      const char *name)
{
    rr->dir = sb_fmt("%s/rootfs/%s/%s", r->o->run_dir, p->name, name);
    rr->merged = rr->dir ? sb_fmt("%s/merged", rr->dir) : NULL;
    rr->hosts = sb_fmt("%s/hosts.image", r->o->run_dir);
    return rr->dir && rr->merged && rr->hosts ? 0 : -ENOMEM;
}

/* What the process enters: the pod's namespaces and volumeMounts, and with `status` the status
 * server's directory after them, read-only where Trainer mounts its projected volume. */
static int root_enter(struct run_root *rr, const struct run *r, const struct nsr_enter *vol,
                      bool status)
{
    size_t n = vol ? vol->n : 0;
    const struct nsr_mount *m = vol ? vol->m : NULL;
    if (status) {
        if (!(rr->mounts = calloc(n + 1, sizeof(*rr->mounts))))
            return -ENOMEM;
        if (n)
            memcpy(rr->mounts, m, n * sizeof(*m));
        rr->mounts[n++] = (struct nsr_mount){.src = r->status_dir, .dst = TJS_REPORT_MOUNT,
                                             .flags = NSR_RDONLY};
        m = rr->mounts;
    }
    rr->enter = (struct nsr_enter){.ns = vol ? vol->ns : NSR_NS_NONE, .m = m, .n = n,
                                   .root = &rr->root};
    return 0;
}

int runner__root_new(const struct run *r, const struct rpod *p, const struct rcont *c,
                     const json_t *pod_spec, const struct nsr_enter *vol, bool status,
                     struct run_root **out, struct err *err)
{
    const struct img *im = runner__image(r, jx_str(c->spec, "image"));
    struct run_root *rr = calloc(1, sizeof(*rr));
    int rc;
    if (!rr)
        return err_oom(err);
    if (!im) {
        rc = err_set(err, -ENOENT, "image %s was not resolved", jx_str(c->spec, "image"));
        goto fail;
    }
    if ((rc = root_paths(rr, r, p, jx_str(c->spec, "name"))) < 0 ||
        (rc = root_binds(rr)) < 0) {
        err_oom(err);
        goto fail;
    }
    if ((rc = pod_root_dir(r, p)) < 0 || (rc = root_dirs(rr, im->rootfs)) < 0) {
        err_set(err, rc, "%s: %s", rr->dir, strerror(-rc));
        goto fail;
    }
    if ((rc = img_user(pod_spec, c->spec, im->config, im->rootfs, &rr->root.uid,
                       &rr->root.gid, err)) < 0)
        goto fail;
    rr->root.hostname = p->hostname;
    rr->root.merged = rr->merged;
    rr->root.opts = rr->opts;
    if ((rc = root_enter(rr, r, vol, status)) < 0) {
        err_oom(err);
        goto fail;
    }
    *out = rr;
    return 0;
fail:
    runner__root_free(rr);
    return rc;
}

const struct nsr_enter *runner__root_enter(const struct run_root *rr)
{
    return rr ? &rr->enter : NULL;
}
