#!/usr/bin/env bash
# Builds localhost/jaxset-example-allreduce:1, the image of examples/jax-allreduce-image.yaml,
# into the local containers store with buildah alone (no registry, no base image): Debian's
# busybox-static and workers/reduce.sh, FROM scratch.
#   examples/images/allreduce.sh [--storage-driver D]      (default: the store's own)
#   jaxset run --images examples/jax-allreduce-image.yaml
# On machines where podman needs them (docs/development.md, "Images"), pass --storage-driver
# vfs here and JAXSET_PODMAN_ARGS="--storage-driver vfs --runtime runc" to jaxset run.
set -euo pipefail
cd "$(dirname "$0")"
opts=()
[ "${1:-}" = "--storage-driver" ] && opts=(--storage-driver "$2")
[ -x /bin/busybox ] || { echo "allreduce.sh: needs busybox-static (apt-get install busybox-static)" >&2; exit 2; }
img=localhost/jaxset-example-allreduce:1
# built again only when this recipe, the worker or busybox changed (label jaxset.recipe)
recipe=$(cat "$(basename "$0")" ../workers/reduce.sh /bin/busybox | sha256sum | cut -c1-16)
old=$(buildah "${opts[@]}" inspect --type image --format \
      '{{index .OCIv1.Config.Labels "jaxset.recipe"}}' "$img" 2>/dev/null || true)
if [ "$old" = "$recipe" ]; then
    echo "$img is up to date"
    exit 0
fi
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/app" "$root/etc" "$root/tmp"
cp /bin/busybox "$root/bin/"
for c in sh echo cat nc sleep sort tr expr hostname; do ln -s busybox "$root/bin/$c"; done
cp ../workers/reduce.sh "$root/app/reduce.sh"
printf 'root:x:0:0:root:/root:/bin/sh\nworker:x:1000:1000::/tmp:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\nworker:x:1000:\n' >"$root/etc/group"
chmod 1777 "$root/tmp"
c=$(buildah "${opts[@]}" from --quiet scratch)
buildah "${opts[@]}" copy --quiet "$c" "$root" / >/dev/null
buildah "${opts[@]}" config --entrypoint '["/bin/sh","/app/reduce.sh"]' --user worker \
    --workingdir /app --label "jaxset.recipe=$recipe" "$c"
buildah "${opts[@]}" commit --quiet --rm "$c" "$img" >/dev/null
echo "built $img"

