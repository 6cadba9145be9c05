/* img: containers' images on one machine (`jaxset run --images`).
 *
 * Images come from the local containers store that podman, buildah and skopeo share
 * (/var/lib/containers/storage): looked up and, by the pull policy, pulled with podman; their
 * config read from `podman image inspect`; their root filesystem unpacked once into a cache
 * of jaxset's state home (<home>/images/<image id>/rootfs, copied from `podman image mount`,
 * which is unmounted at once), read-only to every container, each of which runs over an
 * overlay of its own (local/ns/nsroot.h, struct nsr_root).
 *
 * The image's config is applied as the kubelet and the container runtime apply it
 * (img_container, img_user): `command` replaces ENTRYPOINT and `args` replaces CMD (with
 * neither, ENTRYPOINT + CMD; `args` alone, ENTRYPOINT + args); the image's Env, then the
 * container's env (a name both define: the container's); workingDir, else the image's
 * WorkingDir, else /; securityContext's runAsUser/runAsGroup (container, then pod), else the
 * image's User (uid, uid:gid, name or name:group, names looked up in the image's /etc/passwd
 * and /etc/group), else root. */
#ifndef JX_LOCAL_IMAGE_IMG_H
#define JX_LOCAL_IMAGE_IMG_H

#include <jansson.h>
#include <stdbool.h>

#include "obj/base/err.h"

/* One image, resolved. */
struct img {
    char *ref;      /* as the manifest names it */
    char *id;       /* the store's image id (hex) */
    char *rootfs;   /* the unpacked root filesystem (cache) */
    json_t *config; /* the image's config (Entrypoint, Cmd, Env, WorkingDir, User), owned */
};

/* Kubernetes' default imagePullPolicy of `ref`: Always for the tag latest or no tag (and no
 * digest), else IfNotPresent. */
const char *img_default_policy(const char *ref);

/* What --images needs of this machine: root (overlay mounts and pivot_root) and podman on
 * PATH.  0, or -ENOTSUP with err naming what to install or how to run. */
int img_check_host(struct err *err);

/* Resolves `ref` by `policy` (Never, IfNotPresent, Always; NULL: the default): looks it up in
 * the store, pulls it with podman when the policy says so (a failed pull: -ENOENT with the
 * remedy, podman pull / podman load), reads its config and unpacks its root filesystem under
 * `cache` (made when missing) unless it is there already.  0, or a negative errno with err
 * set; *out is then untouched. */
int img_resolve(const char *ref, const char *policy, const char *cache, struct img *out,
                struct err *err);
void img_release(struct img *im);

/* The container as it runs from image config `config`: a new copy of `container` whose
 * command is the argv the Kubernetes rules give (args removed), whose env starts with the
 * image's variables that the container does not set, and whose workingDir is set.  NULL with
 * err set when there is nothing to run (no command, ENTRYPOINT nor CMD) or on OOM. */
json_t *img_container(const json_t *container, const json_t *config, struct err *err);

/* Who the container runs as (see above); `rootfs` is where the image's /etc/passwd and
 * /etc/group are.  0, or -EINVAL with err set (a user or group the image does not know). */
int img_user(const json_t *pod_spec, const json_t *container, const json_t *config,
             const char *rootfs, unsigned *uid, unsigned *gid, struct err *err);

#endif
