/* The files jaxset ships for a cluster, compiled into the binary: the build turns the .yaml
 * files of config/crd (the CustomResourceDefinitions) and of config/runtimes (the training
 * runtimes), kustomization.yaml aside, into C sources of its build directory that hold them
 * gzip-compressed (scripts/embed_files.cmake, run by CMakeLists.txt), so `jaxset crds` prints
 * them byte for byte without reading the source tree.  Compressed, the CRDs' 2.7 MiB take
 * 0.3 MiB of the binary; cmd_crds.c inflates them (obj/base/gz.h: zlib loaded with dlopen,
 * not linked). */
#ifndef JX_CLI_CRDS_H
#define JX_CLI_CRDS_H

#include <stddef.h>

/* One embedded file: its name (no folder), its bytes as one gzip stream (static) and the
 * stream's length, and the file's own length. */
struct cli_file {
    const char *name;
    const unsigned char *gz;
    size_t gz_len;
    size_t len;
};

/* The CRD files, in file-name order. */
extern const struct cli_file cli_crds[];
extern const size_t cli_crds_n;

/* The training runtime files (the ClusterTrainingRuntime jax-distributed), in file-name order. */
extern const struct cli_file cli_runtimes[];
extern const size_t cli_runtimes_n;

#endif
