#!/usr/bin/env bash
# Builds the images of tests/local/test_images.py into the local containers store, with
# buildah FROM scratch and Debian's busybox-static (no registry is reachable on these
# machines).  Usage: tests/images/build.sh [--storage-driver D] [python]   (default vfs)
#   localhost/jxtest-busybox:1   busybox; ENTRYPOINT ["/bin/echo","ep"], CMD ["cmd1","cmd2"],
#                                ENV FOO=image BAR=image, WORKDIR /work, USER app (1000:1000),
#                                /data/only-in-image.txt, /etc/passwd and /etc/group with
#                                root, app (1000) and staff (50)
#   localhost/jxtest-plain:1     the same files; no ENTRYPOINT, CMD, ENV, WORKDIR nor USER
#   localhost/jxtest-python:1    with `python`: the busybox files and this machine's
#                                /usr/bin/python3 with its shared libraries (ldd) and its
#                                standard library, without its tests, IDLE, Tk, lib2to3,
#                                ensurepip and installed packages (tests/python/
#                                test_sdk_container.py runs training functions in it); no
#                                ENTRYPOINT, CMD nor USER, ENV PATH
set -euo pipefail
driver=vfs
python=no
while [ $# -gt 0 ]; do
    case $1 in
        --storage-driver) driver=$2; shift 2 ;;
        python) python=yes; shift ;;
        *) echo "usage: tests/images/build.sh [--storage-driver D] [python]" >&2; exit 2 ;;
    esac
done
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

# Copies the host file $1 (symbolic links followed) to the same path under the rootfs $2.
copy_host() { mkdir -p "$2$(dirname "$1")"; cp -L "$1" "$2$1"; }

# This machine's python3 into the rootfs $1: the interpreter at /usr/bin/python3 (it finds
# its standard library at ../lib/pythonX.Y from there), the library, and every shared library
# the interpreter and the library's extension modules load, with the dynamic loader.
python_rootfs() {
    local py stdlib lib
    py=$(readlink -f /usr/bin/python3)
    [ -x "$py" ] || { echo "build.sh: no /usr/bin/python3: apt-get install python3" >&2; exit 2; }
    stdlib=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
    copy_host "$py" "$1"
    ln -sf "$(basename "$py")" "$1/usr/bin/python3"
    mkdir -p "$1$stdlib"
    tar -C "$stdlib" -c --exclude=./test --exclude=./idlelib --exclude=./tkinter \
        --exclude=./turtledemo --exclude=./ensurepip --exclude=./lib2to3 \
        --exclude=./pydoc_data --exclude=./site-packages --exclude=./dist-packages \
        --exclude='./config-*' --exclude=./sitecustomize.py \
        --exclude='./lib-dynload/_tkinter*' --exclude='./lib-dynload/_test*' . |
        tar -C "$1$stdlib" -x
    # ldd's lines: "name => /path (addr)", "/lib64/ld-linux... (addr)", and "FILE:" heads
    for lib in $( { ldd "$py"; find "$1$stdlib/lib-dynload" -name '*.so' -exec ldd {} +; } |
                  awk '$2 == "=>" && $3 ~ /^\// { print $3 }
                       $1 ~ /^\// && $1 !~ /:$/ { print $1 }' | sort -u); do
        copy_host "$lib" "$1"
    done
}
# Each image is built again only when this recipe or busybox changed (its label jxtest.recipe),
# and the image it replaces is removed: repeated test runs leave no dangling images.
fmt='{{.FromImageID}} {{index .OCIv1.Config.Labels "jxtest.recipe"}}'  # "ID RECIPE"
small=$( { cat "$0"; sha256sum "$busybox"; } | sha256sum | cut -c1-16)
for name in busybox plain; do
    old=$(b inspect --type image --format "$fmt" "localhost/jxtest-$name:1" 2>/dev/null || true)
    [ "${old#* }" = "$small" ] && continue
    c=$(b from --quiet scratch)
    b copy --quiet "$c" "$root" / >/dev/null
    b config --label "jxtest.recipe=$small" "$c"
    if [ "$name" = busybox ]; then
        b config --entrypoint '["/bin/echo","ep"]' --cmd '["cmd1","cmd2"]' --env FOO=image \
            --env BAR=image --workingdir /work --user app "$c"
    fi
    b commit --quiet --rm "$c" "localhost/jxtest-$name:1" >/dev/null
    [ -n "$old" ] && b rmi "${old%% *}" >/dev/null 2>&1 || true
done
built="localhost/jxtest-busybox:1 localhost/jxtest-plain:1"
# The python image is built again only when this recipe or the interpreter changed (its label
# jxtest.recipe), and the image it replaces is removed (it is some 50 MB).
if [ "$python" = yes ]; then
    img=localhost/jxtest-python:1
    recipe=$( { cat "$0"; /usr/bin/python3 -VV; } | sha256sum | cut -c1-16)
    old=$(b inspect --type image --format "$fmt" "$img" 2>/dev/null || true)
    if [ "${old#* }" != "$recipe" ]; then
        python_rootfs "$root"
        c=$(b from --quiet scratch)
        b copy --quiet "$c" "$root" / >/dev/null
        b config --env PATH=/usr/bin:/bin --label "jxtest.recipe=$recipe" "$c"
        b commit --quiet --rm "$c" "$img" >/dev/null
        [ -n "$old" ] && b rmi "${old%% *}" >/dev/null 2>&1 || true
    fi
    built="$built $img"
fi
echo "built $built"
