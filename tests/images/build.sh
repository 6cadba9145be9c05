#!/usr/bin/env bash
# Builds the images of tests/local/test_images.py into the local containers store, with
# buildah FROM scratch and Debian's busybox-static (no registry is reachable on these
# machines).  Usage: tests/images/build.sh [--storage-driver D]   (default vfs)
#   localhost/jxtest-busybox:1   busybox; ENTRYPOINT ["/bin/echo","ep"], CMD ["cmd1","cmd2"],
#                                ENV FOO=image BAR=image, WORKDIR /work, USER app (1000:1000),
#                                /data/only-in-image.txt, /etc/passwd and /etc/group with
#                                root, app (1000) and staff (50)
#   localhost/jxtest-plain:1     the same files; no ENTRYPOINT, CMD, ENV, WORKDIR nor USER
set -euo pipefail
driver=vfs
[ "${1:-}" = "--storage-driver" ] && driver=$2
busybox=/bin/busybox
[ -x "$busybox" ] || { echo "build.sh: $busybox is missing: apt-get install busybox-static" >&2; exit 2; }
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,etc,work,data,tmp,home/app}
cp "$busybox" "$root/bin/busybox"
for c in sh echo cat env id pwd sleep ls hostname nc grep sort tr wc touch test true false \
         seq expr head; do
    ln -s busybox "$root/bin/$c"
done
printf 'root:x:0:0:root:/root:/bin/sh\napp:x:1000:1000:app:/home/app:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\napp:x:1000:\nstaff:x:50:\n' >"$root/etc/group"
echo "only in the image" >"$root/data/only-in-image.txt"
chmod 1777 "$root/tmp"
chown 1000:1000 "$root/home/app" "$root/work"
b() { buildah --storage-driver "$driver" "$@"; }
for name in busybox plain; do
    c=$(b from --quiet scratch)
    b copy --quiet "$c" "$root" / >/dev/null
    if [ "$name" = busybox ]; then
        b config --entrypoint '["/bin/echo","ep"]' --cmd '["cmd1","cmd2"]' --env FOO=image \
            --env BAR=image --workingdir /work --user app "$c"
    fi
    b commit --quiet --rm "$c" "localhost/jxtest-$name:1" >/dev/null
done
echo "built localhost/jxtest-busybox:1 localhost/jxtest-plain:1"
