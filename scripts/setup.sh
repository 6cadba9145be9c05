#!/usr/bin/env bash
# Installs the Debian packages jaxset needs (only those missing) and builds build/jaxset.
# Idempotent and quiet when nothing is missing.
# Usage: scripts/setup.sh [--no-build] [--build-deps-only]
#   --build-deps-only  only what building needs (Containerfile's build stage), not the tools
#                      of the tests, the notebook and the image (buildah, podman, runc)
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_PKGS=(build-essential cmake ninja-build pkg-config python3 ca-certificates
      libyaml-dev libjansson-dev libre2-dev libcurl4-gnutls-dev libmicrohttpd-dev libgnutls28-dev
      zlib1g-dev)
PKGS=("${BUILD_PKGS[@]}" openssl libcmocka-dev clang libclang-rt-14-dev libnss-wrapper
      python3-pip python3-setuptools python3-wheel
      python3-nbclient python3-nbformat python3-ipykernel python3-matplotlib
      buildah podman skopeo runc busybox-static)
build=1
for arg in "$@"; do
    case "$arg" in
    --no-build) build=0 ;;
    --build-deps-only) PKGS=("${BUILD_PKGS[@]}") ;;
    *) echo "usage: scripts/setup.sh [--no-build] [--build-deps-only]" >&2; exit 2 ;;
    esac
done

missing=()
for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

[ "$build" = 0 ] && exit 0
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build
