#!/usr/bin/env bash
# The demo on a fresh machine: installs what is missing, builds, and runs
# the IFS-like proxy model (apps/miniapp: octahedral grid O96, 40 levels,
# 10.5 simulated hours, the thesis' 13 fields every 3 hours) three ways on
# this machine: without output, with sequential output (gather to rank 0,
# serial NetCDF) and with foehn (1 model rank beside 1 foehn-server rank,
# overlapped integration). Prints the comparison table, foehn's
# performance report, where the files are, and two PNGs: the comparison
# chart and a map of one output field; then the same model with km-scale
# output (HEALPix pyramid in a Zarr store, docs/kmscale.md).
# DEMO_STEPS=27 bash scripts/demo.sh runs a shorter period (one output).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
bash scripts/bootstrap.sh
source scripts/env.sh
build="${FOEHN_BUILD_DIR:-$here/build}"
# Configure as scripts/build.sh does, but build only what the demo runs.
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build.configure.log" 2>&1 \
    || { cat "$build.configure.log"; exit 1; }
fi
cmake --build "$build" -j "$(nproc)" --target miniapp foehn-server foehn_tool >/dev/null
out="$here/out/demo"
rm -rf "$out" && mkdir -p "$out"
py="$here/.venv/bin/python"
echo "== demo: proxy model O96 L40, ${DEMO_STEPS:-63} steps of 600 s; no output, sequential, foehn server mode"
"$py" bench/thesis_table.py --build "$build" --out "$out" --runs-dir "$out/runs" --name comparison --reps 1 \
  --schemes none,sequential,foehn-server-overlapped --steps "${DEMO_STEPS:-63}" | grep -v '^results:'
echo "(one run of each: on a shared machine totals move by about 10 %; the direct cost column is steadier;"
echo " bench/thesis_table.py runs every scheme 5 times, bench/README.md explains the columns)"
run="$out/runs/foehn-server-overlapped"
echo "== foehn's report of that run ($run/foehn_report.json):"
"$build/apps/foehn/foehn" report "$run/foehn_report.json"
"$py" bench/thesis_plots.py quicklook "$run/miniapp_3h.nc" t "$out/t_map.png"
echo "== files written by foehn in $run:"
ls -l "$run"/*.nc
km="$out/kmscale"
mkdir -p "$km"
echo "== km-scale output (apps/miniapp/iodef_kmscale.xml): the same model remapped online to HEALPix level 6"
echo "   and written as a Zarr pyramid of levels 6..0 (1 model rank + 1 foehn-server rank)"
(cd "$km" && mpiexec -n 1 "$build/apps/miniapp/miniapp" --iodef "$here/apps/miniapp/iodef_kmscale.xml" --output foehn \
   --levels 40 --steps "${DEMO_STEPS:-63}" : -n 1 "$build/apps/foehn-server/foehn-server" >/dev/null)
"$py" -c "import sys, xarray as xr; print(xr.open_zarr(sys.argv[1], group='z6', decode_times=False))" \
  "$km/miniapp_healpix_3h.zarr"
echo "== comparison chart: $out/comparison.png"
echo "== map of temperature at the lowest level, last record: $out/t_map.png"
