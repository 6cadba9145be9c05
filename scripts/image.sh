#!/usr/bin/env bash
# Builds jaxset's container image, build/jaxset-image.tar: an OCI archive (podman load, skopeo
# copy oci-archive:..., ctr images import) of one image, localhost/jaxset:<VERSION>, also
# tagged localhost/jaxset:latest in the local containers store.  No daemon, no registry, no
# base image: buildah `FROM scratch` holding the root filesystem scripts/image_root.sh makes
# (the installed tree, exactly the shared libraries ldd names, CA certificates, user 65532;
# no shell, no package manager).  Entrypoint jaxset, default args controller.  Containerfile,
# at the repository's root, does the same with Docker or podman.
#
# Usage: scripts/image.sh [--build-dir DIR] [--no-build] [--storage-driver D]
#   --build-dir DIR  the Release build to install from (build-release, made when absent)
#   --no-build       install DIR as it is
# Prints the image's size (uncompressed, the sum of its files) and the archive's path.
# Run as root, or with buildah's rootless set-up; the storage driver defaults to vfs, which
# works everywhere (docs/development.md, "Images").
set -euo pipefail
cd "$(dirname "$0")/.."

build=1
driver=vfs
dir=build-release
while [ $# -gt 0 ]; do
    case "$1" in
    --no-build) build=0 ;;
    --build-dir) dir="$2"; shift ;;
    --storage-driver) driver="$2"; shift ;;
    *) echo "usage: scripts/image.sh [--build-dir DIR] [--no-build] [--storage-driver D]" >&2; exit 2 ;;
    esac
    shift
done
for tool in buildah ldd cmake; do
    command -v "$tool" >/dev/null || { echo "image.sh: $tool is missing (scripts/setup.sh installs it)" >&2; exit 2; }
done

version=$(head -n1 VERSION)
name=localhost/jaxset
out=build/jaxset-image.tar
stage=build/image-root
if [ "$build" = 1 ]; then
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$dir" --target jaxset jaxset_cluster jaxset_rx jaxset_docs >/dev/null
fi
mkdir -p build
scripts/image_root.sh "$dir" "$stage"

size=$(du -sb --apparent-size "$stage" | cut -f1)

b() { buildah --storage-driver "$driver" "$@"; }
ctr=$(b from --quiet scratch)
trap 'b rm "$ctr" >/dev/null 2>&1 || true' EXIT
b copy --quiet "$ctr" "$stage" / >/dev/null
b config --entrypoint '["/usr/bin/jaxset"]' --cmd controller --user 65532:65532 \
    --workingdir / --env PATH=/usr/bin \
    --label org.opencontainers.image.title=jaxset \
    --label org.opencontainers.image.version="$version" \
    --label org.opencontainers.image.source=https://github.com/jaxset/jaxset \
    --label org.opencontainers.image.licenses=Apache-2.0 "$ctr"
b commit --quiet --rm "$ctr" "$name:$version" >/dev/null
trap - EXIT
b tag "$name:$version" "$name:latest"
rm -f "$out"
b push --quiet "$name:$version" "oci-archive:$out:$name:$version" >/dev/null
printf 'image %s:%s (and :latest): %d bytes (%.1f MiB) uncompressed, %d files\n' "$name" "$version" \
    "$size" "$(awk -v s="$size" 'BEGIN{print s/1048576}')" "$(find "$stage" -type f | wc -l)"
echo "archive $out ($(stat -c %s "$out") bytes)"
