#!/usr/bin/env bash
# The root filesystem of jaxset's image, in ROOT (made afresh) from the Release build DIR:
#   - the installed tree (cmake --install --strip into /usr: the binary, libjaxset_cluster.so
#     and the RE2 module),
#   - exactly the shared libraries ldd names for them, at the paths the loader found them,
#   - CA certificates, /etc/passwd and /etc/group with user and group 65532 (nonroot), /tmp;
# nothing else: no shell, no package manager.  scripts/image.sh and Containerfile build the
# image from it.   Usage: scripts/image_root.sh DIR ROOT
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: scripts/image_root.sh BUILD_DIR ROOT" >&2; exit 2; }
dir=$1 stage=$2
cd "$(dirname "$0")/.."
rm -rf "$stage"
# The binary finds its modules relative to itself (../<libdir>/jaxset), so any prefix works.
DESTDIR="$(realpath -m "$stage")" cmake --install "$dir" --prefix /usr --strip >/dev/null

# The libraries: what ldd resolves for every ELF file installed, copied (not linked) to the
# path the loader found it at, so that the image resolves them the same way.
elves=$(find "$stage" -type f \( -path "*/bin/jaxset" -o -name "*.so" \))
libs=$(for f in $elves; do ldd "$f"; done | awk '/=> \//{print $3} /^\t\/lib/{print $1}' | sort -u)
for lib in $libs; do
    mkdir -p "$stage$(dirname "$lib")"
    cp -L "$lib" "$stage$lib"
done

# Certificates, users, and the mount points Kubernetes and podman fill.
mkdir -p "$stage/etc/ssl/certs" "$stage/tmp" "$stage/var/run/secrets/kubernetes.io/serviceaccount"
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
    cp /etc/ssl/certs/ca-certificates.crt "$stage/etc/ssl/certs/"
fi
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$stage/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' >"$stage/etc/group"
chmod 1777 "$stage/tmp"
