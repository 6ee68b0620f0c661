#!/usr/bin/env bash
# Client cost of a write against memcpy, 1 model rank + 1 foehn-server,
# repeated 5 times; each run's medians and ratio go to
# bench/results/write_cost_<k>.json and the median ratio is printed.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$here/scripts/env.sh"
build=${FOEHN_BUILD_DIR:-$here/build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$here/bench/results"
for k in 1 2 3 4 5; do
  (cd "$work" && mpiexec -n 1 "$build/bench/bench_write_cost" "$here/bench/write_cost.xml" --out "$here/bench/results/write_cost_$k.json" "$@" \
     : -n 1 "$build/apps/foehn-server/foehn-server" 2>/dev/null | grep ratio)
done
"$here/.venv/bin/python" - "$here"/bench/results/write_cost_*.json <<'PY'
import json, statistics, sys
runs = [json.load(open(p)) for p in sys.argv[1:]]
ratio = statistics.median(r["ratio"] for r in runs)
print(f"median over {len(runs)} runs: write / memcpy = {ratio:.2f} (target <= 1.5)")
PY
