/* volumes: a pod's volumes on this machine, at their volumeMounts' mountPath (docs/volumes.md).
 *
 * Each volume is first made on the host, as the kubelet makes it on a node:
 *   emptyDir               <run dir>/pod-volumes/<pod>/<volume>, new for every pod (a restart
 *                          of a container keeps it), removed with the pod; medium Memory is a
 *                          tmpfs (sizeLimit its size) mounted over it in the pod's namespace
 *   configMap, secret,     the same directory, each key a file (items: key, path, mode;
 *   downwardAPI, projected defaultMode), from the v1 ConfigMaps and Secrets of the manifest
 *                          files; files are created 0600 and then given their mode, inside the
 *                          run directory (0700) only; always mounted read-only
 *   hostPath               the path itself, after its `type` check (DirectoryOrCreate and
 *                          FileOrCreate create it)
 *   persistentVolumeClaim  the directory --pvc CLAIM=PATH maps the claim to, else
 *                          <run dir>/volumes/<claimName>, shared by every pod of the run and
 *                          kept with it
 * and then each container of the pod sees them at their mountPath (subPath, readOnly) through
 * the namespace of its pod template (local/ns/nsroot.h), built once before the run starts by a
 * plan made here: the host's root with the mount points the template's containers need made
 * in tmpfs (a host directory that lacks one is shadowed: a tmpfs over it with its entries),
 * so nothing is created on the host.  Pods without volumeMounts get no namespace at all. */
#ifndef JX_VOLUMES_H
#define JX_VOLUMES_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "api/convert/manifest.h"
#include "local/ns/nsroot.h"
#include "local/podenv/podenv.h"
#include "obj/base/err.h"

/* What every pod of a run shares. */
struct vol_run {
    const char *run_dir;    /* absolute */
    const json_t *objects;  /* the ConfigMaps and Secrets of the manifest files */
    const char *const *pvc; /* "CLAIM=PATH" (--pvc), n_pvc of them */
    size_t n_pvc;
};

/* What one machine cannot give a valid manifest's volumes, checked without starting anything
 * (runner_check): kinds other than emptyDir, configMap, secret, hostPath,
 * persistentVolumeClaim, downwardAPI and projected (of configMap, secret and downwardAPI
 * sources); ConfigMaps and Secrets (and their keys) not in the files unless optional; hostPath
 * types this machine's files do not have; fieldRef and resourceFieldRef paths not supported;
 * relative mountPaths, mountPath "/", subPathExpr.  0, or a negative errno with err set (the
 * field path first). */
int vol_check(const struct manifest *m, struct err *err);

/* Whether a container of the pod spec (init containers too) has volumeMounts. */
bool vol_spec_mounts(const json_t *pod_spec);

/* Calls fn once for each volumeMount of replicated job `rj`'s pod template (SIZE_MAX: every
 * replicated job's) with its description: "<field path> (<kind> volume \"<name>\" at
 * <mountPath>)". */
void vol_each_mount(const struct manifest *m, size_t rj,
                    void (*fn)(void *ctx, const char *what), void *ctx);
/* The first of them into out; false when there is none. */
bool vol_first_mount(const struct manifest *m, size_t rj, char *out, size_t n);

/* A --pvc CLAIM=PATH: 0, or -EINVAL with err set when it is not of that form or PATH is not a
 * directory. */
int vol_pvc_check(const char *arg, struct err *err);

/* The directory of claim `claim`: --pvc's, else <run dir>/volumes/<claim>.  Malloc'd, NULL on
 * OOM. */
char *vol_claim_dir(const struct vol_run *vr, const char *claim);

/* Makes the hostPaths of type DirectoryOrCreate and FileOrCreate (and of no type: a directory)
 * of pod spec `pod_spec` that are missing, the directories first, as vol_tmpl_new does before
 * it plans the namespace.  0, or a negative errno with err set, naming the volume:
 * "<psp>.volumes[i].hostPath: ...", or without psp (NULL) "volume \"NAME\" (hostPath): ...". */
int vol_host_paths(const json_t *pod_spec, const char *psp, struct err *err);

struct vol_tmpl;

/* Builds the namespace of a pod template, `pod_spec` as child Jobs give it to their pods
 * (with the volumes of spec.volumeClaimPolicies), `ns` its namespace: this machine's root with
 * every mount point its containers need, made before any pod starts (hostPaths of type
 * DirectoryOrCreate and FileOrCreate are made then too).  *out is NULL when no container
 * mounts anything.  The template keeps a reference to pod_spec.  0, or a negative errno with
 * err set; nothing is left then. */
int vol_tmpl_new(const struct vol_run *vr, json_t *pod_spec, const char *ns,
                 struct vol_tmpl **out, struct err *err);
/* Whether a container can enter the template's namespace (nsr_probe_enter).  0 or a negative
 * errno with err set. */
int vol_tmpl_probe(const struct vol_tmpl *t, struct err *err);
void vol_tmpl_free(struct vol_tmpl *t);

struct vol_pod;

/* Makes the volumes of a pod of template t (pod_spec: the pod's spec; pod: its metadata, for
 * downwardAPI and the namespace of its ConfigMaps and Secrets), its tmpfs volumes mounted in
 * the template's namespace.  *out is NULL when t is.  0, or a negative errno with err set
 * (naming the volume); nothing is left then. */
int vol_pod_new(const struct vol_run *vr, const struct vol_tmpl *t, const json_t *pod_spec,
                const struct podenv_pod *pod, const char *pod_name, struct vol_pod **out,
                struct err *err);

/* What container `name` enters (borrowed from vp), or NULL when it mounts nothing. */
const struct nsr_enter *vol_pod_enter(const struct vol_pod *vp, const char *name);

/* Unmounts the pod's tmpfs volumes and removes its directory (emptyDir, ConfigMap and Secret
 * files, as the kubelet removes them with the pod).  NULL-safe. */
void vol_pod_free(struct vol_pod *vp);

#endif
