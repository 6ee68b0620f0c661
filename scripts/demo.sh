#!/usr/bin/env bash
# The demo on a fresh machine: installs what is missing, builds, runs the
# demo model on 2 ranks beside 1 foehn-server rank (MPMD), and prints where
# the files are and foehn's performance report.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
bash scripts/bootstrap.sh
source scripts/env.sh
bash scripts/build.sh "$here/build" >/dev/null
out="$here/out/demo"
rm -rf "$out" && mkdir -p "$out" && cd "$out"
echo "== demo: 2 model ranks + 1 foehn-server rank, 1 simulated day of 10-minute steps"
mpiexec -n 2 "$here/build/apps/demo/demo_model" "$here/apps/demo/iodef.xml" "${DEMO_STEPS:-144}" \
  : -n 1 "$here/build/apps/foehn-server/foehn-server"
echo "== files written in $out:"
ls -l "$out"
"$here/.venv/bin/python" - "$out/demo_atm_3h.nc" <<'PY'
import sys, xarray as xr
ds = xr.open_dataset(sys.argv[1])
print(f"{sys.argv[1]}: variables {list(ds.data_vars)}, {ds.sizes['time_counter']} records "
      f"from {ds.time_counter.values[0]} to {ds.time_counter.values[-1]}")
PY
