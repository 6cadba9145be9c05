#!/usr/bin/env bash
# Fuzzes the YAML decoder/encoder (fuzz/fuzz_yaml.c) with libFuzzer for $1 seconds (default 60).
# Builds build-fuzz/ with clang, ASan+UBSan and coverage instrumentation of the whole library.
# fuzz/corpus/yaml is only read: inputs libFuzzer finds go to a temporary directory, crashes to
# fuzz/crashes/ (ignored by git).
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-60}
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
      -DJAXSET_FUZZ=ON -DJAXSET_SANITIZE=ON -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link" >/dev/null
cmake --build build-fuzz --target fuzz_yaml

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" fuzz/crashes
cat >"$work/yaml.dict" <<'DICT'
"---"
"..."
"- "
": "
"? "
"&a "
"*a"
"<<: "
"!!str "
"!!int "
"!!float "
"!!bool "
"!!null "
"!!binary "
"!<tag:yaml.org,2002:str> "
"|"
"|-"
"|+"
"|2"
">"
"{"
"}"
"["
"]"
", "
"#"
"\x22"
"'"
"\\u2028"
"\x0a  "
"%YAML 1.1"
"yes"
"off"
"~"
"null"
".inf"
".NaN"
"0x"
"0o"
"0b"
"1_0"
"1e3"
"9223372036854775808"
DICT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
build-fuzz/fuzz_yaml "$work/corpus" fuzz/corpus/yaml -dict="$work/yaml.dict" \
    -max_total_time="$secs" -max_len=4096 -timeout=20 -rss_limit_mb=4096 \
    -artifact_prefix=fuzz/crashes/
