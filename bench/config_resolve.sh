#!/usr/bin/env bash
# Runs the config_resolve benchmark at full size (5,000 fields, 20 files,
# median of 5 runs) and writes bench/results/config_resolve.json.
# usage: bench/config_resolve.sh [BUILD_DIR]   (default: build, RelWithDebInfo)
# Extra options go to the program, e.g. FIELDS=20000 bench/config_resolve.sh.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$here/build}
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build.configure.log" 2>&1 \
    || { cat "$build.configure.log"; exit 1; }
fi
cmake --build "$build" --target bench_config_resolve >/dev/null
mkdir -p "$here/bench/results"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/bench/bench_config_resolve" --fields "${FIELDS:-5000}" --files "${FILES:-20}" --runs 5 --target 1.0 \
  --dir "$work" --out "$here/bench/results/config_resolve.json"
