#!/usr/bin/env bash
# Runs the pack-plan benchmark at full size (a client holding 2^20 points,
# median of 11 runs, hot and cold) and writes bench/results/pack_plan.json.
# usage: bench/pack_plan.sh [BUILD_DIR]   (default: build, RelWithDebInfo)
# Extra sizes: POINTS=131072 bench/pack_plan.sh.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$here/build}
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build.configure.log" 2>&1 \
    || { cat "$build.configure.log"; exit 1; }
fi
cmake --build "$build" --target bench_pack_plan >/dev/null
mkdir -p "$here/bench/results"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
"$build/bench/bench_pack_plan" --points "${POINTS:-1048576}" --runs "${RUNS:-11}" \
  --out "$here/bench/results/pack_plan.json"
