/* Private to the volumes module (volumes*.c). */
#ifndef JX_VOLUMES_INT_H
#define JX_VOLUMES_INT_H

#include "local/volumes.h"

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
    char *src, *dst;   /* owned: the source on the host, the mount point in the pod */
    bool dir;          /* a directory (else a file) */
    unsigned flags;    /* NSR_RDONLY, NSR_RECURSIVE */
    const struct vol__src *vol;
    const char *sub;   /* subPath or NULL (borrowed) */
    long inside;       /* the earlier mount of the same container dst lies in, -1 none */
};

struct vol__ctr {
    const char *name;
    struct vol__mnt *m;
    size_t n;
    struct nsr_mount *nm; /* the nsr view of m */
    struct nsr_enter enter;
};

struct vol_pod {
    const struct vol_run *vr;
    char *dir;          /* <run dir>/pod-volumes/<pod>; removed with the pod */
    bool dir_made;
    struct vol__src *src;
    size_t n_src;
    struct vol__ctr *ctr;
    size_t n_ctr;
    struct nsr_ns ns;
};

/* Makes volume `vol` (volumes_src.c). 0 or a negative errno with err set. */
int vol__src_make(struct vol_pod *vp, const json_t *vol, const json_t *pod_spec,
                  const struct podenv_pod *pod, struct vol__src *s, struct err *err);
void vol__src_release(struct vol__src *s);
/* hostPath's `type` check on this machine's files; with `create`, DirectoryOrCreate and
 * FileOrCreate make what is missing.  0 or a negative errno with err set. */
int vol__host_path_check(const json_t *host_path, bool create, struct err *err);
/* Removes a directory tree without following symbolic links or leaving its file system. */
void vol__rm_tree(const char *path);
/* A Kubernetes quantity ("1Gi", "500m", "2", 1.5e3, or a JSON number) in base units.  0 or
 * -EINVAL. */
int vol__quantity(const json_t *v, double *out);

/* Writes a configMap, secret, downwardAPI or projected volume's files into dir
 * (volumes_files.c).  0 or a negative errno with err set. */
int vol__files_write(const struct vol_run *vr, const json_t *vol, enum vol__kind kind,
                     const json_t *pod_spec, const struct podenv_pod *pod, const char *dir,
                     struct err *err);
/* Whether fieldPath p is one a downwardAPI volume item may name. */
bool vol__field_ok(const char *p);
/* Whether resourceFieldRef resource r is supported (limits/requests of cpu and memory). */
bool vol__resource_ok(const char *r);

/* The pod's namespace plan (volumes_plan.c). 0 or a negative errno with err set. */
int vol__plan(const struct vol_pod *vp, struct nsr_plan *plan, struct err *err);

/* Path helpers (volumes.c): the number of components of an absolute path. */
size_t vol__depth(const char *path);

#endif
