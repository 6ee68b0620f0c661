"""The cost of km-scale output (issue 25, docs/kmscale.md): one field on a
HEALPix grid written by 2 model ranks to 1 server, four runs of the same
model: plain NetCDF of the native level (the baseline), NetCDF with the
pyramid down to level 0 (uncompressed, and deflate level 1, the Zarr
store's zlib level), and a Zarr store of the pyramid. For each run the
server's write seconds and bytes (the report's JSON), the model ranks'
wait, and the wall time per step; writes results/kmscale.{json,md}.
The remap to HEALPix is not part of it (not built: docs/kmscale.md).

  .venv/bin/python bench/kmscale.py                  # level 8 (786,432 cells), 24 steps
  .venv/bin/python bench/kmscale.py --level 9 --steps 12
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
BUILD = pathlib.Path(os.environ.get("FOEHN_BUILD_DIR", ROOT / "build"))

MODEL = '''
import sys, numpy as np, foehn
level, steps = int(sys.argv[2]), int(sys.argv[3])
comm = foehn.init("kmscale", sys.argv[1])
rank, size = comm.Get_rank(), comm.Get_size()
cells = np.array_split(np.arange(12 * 4**level), size)[rank]
with foehn.Context("km", comm) as ctx:
    ctx.set_domain_healpix("hp", level, "nested", cells)
    ctx.close_definition()
    for step in range(1, steps + 1):
        ctx.update_calendar(step)
        ctx.write("tas", (280.0 + 10.0 * np.sin(cells * 1e-4 + step)).astype(np.float32))
foehn.finalize()
'''

FILES = {
    "netcdf_native": '<file id="f" name="out" output_freq="1ts"><field field_ref="tas"/></file>',
    "netcdf_pyramid": '<file id="f" name="out" output_freq="1ts"><field field_ref="tas" healpix_pyramid="{L}..0"/></file>',
    "netcdf_pyramid_deflate1": '<file id="f" name="out" output_freq="1ts" compression_level="1">'
                               '<field field_ref="tas" healpix_pyramid="{L}..0"/></file>',
    "zarr_pyramid": '<file id="f" name="out" output_freq="1ts" format="zarr">'
                    '<field field_ref="tas" healpix_pyramid="{L}..0"/></file>',
}


def run(way, level, steps, workdir):
    xml = f'''<?xml version="1.0"?><simulation><context id="km">
  <calendar type="gregorian" start_date="2000-01-01 00:00:00" timestep="1h"/>
  <variable_definition><variable id="report_file" type="string">report.json</variable></variable_definition>
  <domain_definition><domain id="hp" type="healpix" refinement_level="{level}"/></domain_definition>
  <field_definition><field id="tas" domain_ref="hp" prec="4"/></field_definition>
  <file_definition>{FILES[way].format(L=level)}</file_definition>
</context></simulation>'''
    (workdir / "iodef.xml").write_text(xml)
    (workdir / "model.py").write_text(MODEL)
    env = dict(os.environ, PYTHONPATH=str(BUILD / "python"), OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1", HDF5_USE_FILE_LOCKING="FALSE")
    cmd = ["mpiexec", "--oversubscribe", "-n", "2", sys.executable, "model.py", "iodef.xml", str(level), str(steps),
           ":", "-n", "1", str(BUILD / "apps/foehn-server/foehn-server")]
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=workdir, env=env, check=True, capture_output=True, text=True, timeout=1800)
    wall = time.perf_counter() - t0
    report = json.loads((workdir / "report.json").read_text())
    server = report["servers"][0]
    return {"way": way, "wall_seconds": wall, "wall_seconds_per_step": wall / steps,
            "server_write_seconds": server["write_seconds"], "server_busy_seconds": server["busy_seconds"],
            "server_bytes_written": server["bytes_written"],
            "write_mb_per_s": server["bytes_written"] / max(server["write_seconds"], 1e-9) / 1e6,
            "client_wait_seconds": max(c["wait_seconds"] for c in report["clients"])}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--level", type=int, default=8)
    p.add_argument("--steps", type=int, default=24)
    a = p.parse_args()
    rows = []
    for way in FILES:
        with tempfile.TemporaryDirectory(prefix=f"kmscale_{way}_") as d:
            rows.append(run(way, a.level, a.steps, pathlib.Path(d)))
    base = rows[0]
    for r in rows:
        r["write_seconds_vs_native"] = r["server_write_seconds"] / max(base["server_write_seconds"], 1e-9)
        r["busy_seconds_vs_native"] = r["server_busy_seconds"] / max(base["server_busy_seconds"], 1e-9)
    out = {"level": a.level, "cells": 12 * 4**a.level, "steps": a.steps, "model_ranks": 2, "servers": 1,
           "load_average_1min": os.getloadavg()[0], "runs": rows}
    results = ROOT / "bench/results"
    results.mkdir(exist_ok=True)
    (results / "kmscale.json").write_text(json.dumps(out, indent=2) + "\n")
    lines = [f"# km-scale output, HEALPix level {a.level} ({12 * 4**a.level} cells), {a.steps} steps, 2 ranks + 1 server",
             "", "| way | wall s/step | server write s | busy s | MB written | MB/s | write vs native | busy vs native |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['way']} | {r['wall_seconds_per_step']:.3f} | {r['server_write_seconds']:.3f} | "
                     f"{r['server_busy_seconds']:.3f} | {r['server_bytes_written'] / 1e6:.1f} | {r['write_mb_per_s']:.0f} | "
                     f"{r['write_seconds_vs_native']:.2f} | {r['busy_seconds_vs_native']:.2f} |")
    (results / "kmscale.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
