#!/usr/bin/env bash
# Local benchmarks of `jaxset run` (bench/README.md says what every figure means).
# Installs openmpi-bin when mpirun is missing (the launch comparison), builds jaxset with -O2
# (CMake Release) in build-bench/, builds the bench programs with plain cc (libc only), runs
# bench_local and prints its table.  Not a test: nothing here passes or fails.  With --save,
# the table is also written as JSON, with the commit, the machine and the load, to
# bench/history/<date>-<commit>-local.json (bench/history.py; scripts/bench_compare.py
# compares two).
#
#   scripts/bench.sh [--save] [--quick] [--reps N] [--log-mib N] [--only launch|restart|log|rss]
set -euo pipefail
cd "$(dirname "$0")/.."

SAVE=0
ARGS=()
for a in "$@"; do
    if [ "$a" = "--save" ]; then SAVE=1; else ARGS+=("$a"); fi
done

if ! command -v mpirun >/dev/null 2>&1; then
    echo "bench: installing openmpi-bin (for the mpirun comparison)"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    export DEBIAN_FRONTEND=noninteractive
    if ! { $SUDO apt-get update -qq &&
           $SUDO apt-get install -y -qq --no-install-recommends openmpi-bin >/dev/null; }; then
        echo "bench: could not install openmpi-bin; the mpirun column stays empty"
    fi
fi

B=build-bench
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" \
    >/dev/null
cmake --build "$B" --target jaxset >/dev/null
mkdir -p "$B/bench"
CFLAGS=(-O2 -std=c17 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
        -Wformat=2 -Wvla)
for p in ping spew launcher isolaunch relay bench_local; do
    cc "${CFLAGS[@]}" -o "$B/bench/$p" "bench/$p.c"
done

work=$(mktemp -d /tmp/jaxset-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

MPIRUN=$(command -v mpirun || true)
echo "jaxset bench_local  $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'),"\
     "Linux $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "jaxset:  $B/jaxset (CMake Release, -O2)"
if [ -n "$MPIRUN" ]; then
    echo "mpirun:  $("$MPIRUN" --allow-run-as-root --version 2>/dev/null | head -n1)"
else
    echo "mpirun:  not installed"
fi

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
JSON=()
[ "$SAVE" = 1 ] && JSON=(--json "$work/rows.jsonl")
"$B/bench/bench_local" --jaxset "$PWD/$B/jaxset" --ping "$PWD/$B/bench/ping" \
    --spew "$PWD/$B/bench/spew" --launcher "$PWD/$B/bench/launcher" \
    --isolaunch "$PWD/$B/bench/isolaunch" \
    --relay "$PWD/$B/bench/relay" --dir "$work" --mpirun "$MPIRUN" "${JSON[@]}" \
    ${ARGS[@]+"${ARGS[@]}"}
echo
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg) (at the start: $LOAD_START)"
if [ "$SAVE" = 1 ]; then
    python3 bench/history.py --bench local --rows "$work/rows.jsonl" --load-start "$LOAD_START" \
        --args "${ARGS[*]-}"
fi
