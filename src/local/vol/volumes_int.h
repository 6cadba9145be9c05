/* Private to the volumes module (volumes*.c). */
#ifndef JX_VOLUMES_INT_H
#define JX_VOLUMES_INT_H

#include "local/vol/volumes.h"

enum vol__kind {
    VK_EMPTY_DIR,
    VK_CONFIG_MAP,
    VK_SECRET,
    VK_HOST_PATH,
    VK_PVC,
    VK_DOWNWARD_API,
    VK_PROJECTED,
    VK_UNSUPPORTED,
};

/* The kind of a volume, and the key of its source in *key ("emptyDir"... or the unsupported
 * one, e.g. "nfs"); a volume without a source is an emptyDir, as the API server defaults it. */
enum vol__kind vol__kind(const json_t *vol, const char **key);

/* One volume of a pod, made on this machine. */
struct vol__src {
    const char *name;  /* borrowed from the pod spec */
    const char *kind;  /* the source's key, for messages (borrowed) */
    char *host;        /* the directory or file on this machine (owned) */
    bool memory;       /* a tmpfs over host in the pod's namespace (emptyDir medium Memory) */
    char tmpfs[64];    /* its mount data: "mode=0777[,size=N]" */
    bool ro;           /* always mounted read-only */
};

/* One volumeMount of a container. */
struct vol__mnt {
    char *dst;         /* the mount point in the pod (owned) */
    bool dir;          /* a directory (else a file) */
    long inside;       /* the earlier mount of the same container dst lies in, -1 none */
    const json_t *vm;  /* the volumeMount (borrowed) */
    /* a pod's only: */
    char *src;         /* the source on the host (owned) */
    unsigned flags;    /* NSR_RDONLY, NSR_RECURSIVE */
    const struct vol__src *vol;
};

struct vol__ctr {
    const char *name;
    struct vol__mnt *m;
    size_t n;
    struct nsr_mount *nm; /* the nsr view of m */
    struct nsr_enter enter;
};

/* A pod template's namespace and the mount points made in it. */
struct vol_tmpl {
    json_t *spec;       /* the pod spec (a reference) */
    struct vol__ctr *ctr;
    size_t n_ctr;
    struct nsr_ns ns;
};

struct vol_pod {
    const struct vol_run *vr;
    char *dir;          /* <run dir>/pod-volumes/<pod>; removed with the pod */
    bool dir_made;
    struct vol__src *src;
    size_t n_src;
    struct vol__ctr *ctr;
    size_t n_ctr;
    struct nsr_ns ns;   /* the template's (borrowed) */
    struct nsr_plan undo; /* unmounts its tmpfs volumes from the template's namespace */
};

/* The containers with volumeMounts of pod_spec, their mount points resolved and ordered, with
 * `dir` as the volume will be when given vr (else as it will be made: a directory).  0 or a
 * negative errno with err set. */
int vol__ctrs_new(const json_t *pod_spec, const struct vol_run *vr, const char *ns,
                  struct vol__ctr **out, size_t *n, struct err *err);
void vol__ctrs_free(struct vol__ctr *c, size_t n);

/* Makes volume `vol` (volumes_src.c). 0 or a negative errno with err set. */
int vol__src_make(struct vol_pod *vp, const json_t *vol, const json_t *pod_spec,
                  const struct podenv_pod *pod, struct vol__src *s, struct err *err);
void vol__src_release(struct vol__src *s);
/* hostPath's `type` check on this machine's files; with `create`, DirectoryOrCreate and
 * FileOrCreate make what is missing.  0 or a negative errno with err set. */
int vol__host_path_check(const json_t *host_path, bool create, struct err *err);
/* The parent directory of hostPath `path` into out[PATH_MAX] when it is missing (out), else
 * NULL.  FileOrCreate makes the file only, never its parent directory (the kubelet's makeFile,
 * kubernetes pkg/volume/hostpath/host_path.go, opens the path with O_CREATE; the Kubernetes
 * documentation, concepts/storage/volumes, hostPath: "FileOrCreate mode does not create the
 * parent directory of the file"): vol__host_parent_error says so, -ENOENT. */
const char *vol__host_missing_parent(const char *path, char *out);
int vol__host_parent_error(const char *path, const char *parent, struct err *err);
/* A volumeMount's mountPath as jaxset run can mount it: absolute, with no "..", not the root
 * itself ("/", "/."), not under NSR_HOST; no subPathExpr.  0, or -EINVAL with err set, the field
 * path `p` first. */
int vol__check_mount(const json_t *vm, const char *p, struct err *err);
/* Whether a claimName can be a claim's directory: the name of a PersistentVolumeClaim (a
 * DNS-1123 subdomain: never "", ".", ".." or a path).  0, or -EINVAL with err set, the field
 * path `p` (may be NULL) first. */
int vol__claim_name_check(const char *claim, const char *p, struct err *err);
/* Removes a directory tree without following symbolic links or leaving its file system. */
void vol__rm_tree(const char *path);
/* Writes a configMap, secret, downwardAPI or projected volume's files into dir
 * (volumes_files.c).  0 or a negative errno with err set. */
int vol__files_write(const struct vol_run *vr, const json_t *vol, enum vol__kind kind,
                     const json_t *pod_spec, const struct podenv_pod *pod, const char *dir,
                     struct err *err);
/* Whether `path` (a subPath) is one of the files a configMap, secret, downwardAPI or
 * projected volume gets (a key, an item's path). */
bool vol__files_has(const struct vol_run *vr, const json_t *vol, enum vol__kind kind,
                    const char *ns, const char *path);
/* Whether the source of volumeMount vm will be a directory, as the manifest and this
 * machine's files say before the pod starts. */
bool vol__src_dir(const struct vol_run *vr, const json_t *pod_spec, const json_t *vm,
                  const char *ns);
/* An emptyDir's sizeLimit `v` (a Kubernetes quantity, obj/base/qty.h) in bytes, rounded up
 * (Quantity.Value(), the size the kubelet gives a Memory emptyDir's tmpfs); LLONG_MAX past 64
 * bits (volumes_files.c; volumes_src.c and volumes_check.c read sizeLimit with it).  0, or
 * -EINVAL for no quantity or a negative one. */
int vol__size_limit(const json_t *v, long long *bytes);
/* A downwardAPI item's resourceFieldRef `ref` as the kubelet writes it (volumes_files.c):
 * malloc'd, NULL when it cannot be given (a value past 64 bits in units of its divisor;
 * volumes_check.c refuses those before anything starts) or on OOM. */
char *vol__resource_value(const json_t *pod_spec, const json_t *ref);
/* Whether fieldPath p is one a downwardAPI volume item may name. */
bool vol__field_ok(const char *p);
/* Whether resourceFieldRef resource r is supported (limits/requests of cpu and memory). */
bool vol__resource_ok(const char *r);

/* A template's root (volumes_plan.c). 0 or a negative errno with err set. */
int vol__plan(const struct vol_tmpl *t, struct nsr_plan *plan, struct err *err);
/* A pod's tmpfs volumes, with the subPaths and mount points in them, into `plan`, and their
 * unmounting into `undo`.  0 or -ENOMEM. */
int vol__plan_memory(const struct vol_pod *vp, struct nsr_plan *plan, struct nsr_plan *undo);

/* Path helpers (volumes.c): the number of components of an absolute path. */
size_t vol__depth(const char *path);

#endif
