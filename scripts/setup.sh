#!/usr/bin/env bash
# Installs the Debian packages jaxset needs (only those missing) and builds build/jaxset.
# Idempotent and quiet when nothing is missing.  Usage: scripts/setup.sh [--no-build]
set -euo pipefail
cd "$(dirname "$0")/.."

PKGS=(build-essential cmake ninja-build pkg-config
      libyaml-dev libjansson-dev libre2-dev libcurl4-openssl-dev libmicrohttpd-dev libssl-dev
      libcmocka-dev clang libclang-rt-14-dev python3 libnss-wrapper
      python3-pip python3-setuptools python3-wheel
      python3-nbclient python3-nbformat python3-ipykernel python3-matplotlib)

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

[ "${1:-}" = "--no-build" ] && exit 0
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build
