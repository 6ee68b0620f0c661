"""The thesis' critical-path comparison (section 6.3): how long until the
NetCDF files exist. IFS wrote GRIB sequentially and a post-processing step
converted it to NetCDF; with an I/O server the model writes NetCDF directly.
Runs the proxy model (apps/miniapp) with interleaved repetitions of:

  grib-cdo                 --output grib (MPI_Gatherv to rank 0, ecCodes
                           GRIB2 on the octahedral grid, 16 bits per value),
                           then `cdo -f nc4 copy` to NetCDF: total = both
  sequential               --output sequential: NetCDF written by rank 0
  foehn-server-overlapped  foehn server mode: NetCDF written by the server
  foehn-server-grib        foehn server mode with iodef_grib.xml: the server
                           writes the GRIB2 file (same paramIds, 16 bits) and
                           the NetCDF beside it: no conversion
  none                     (optional) no output, for reference

and reports per path the model run, the conversion and their total (the
critical path), medians. Writes critical_path.{json,md} into --out.

  .venv/bin/python bench/critical_path.py              # O96 L40, 63 steps, 5 repetitions
  .venv/bin/python bench/critical_path.py --reps 3 --grid 160
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import time

import miniapp_runs

PATHS = {"none": "none", "grib-cdo": "grib", "sequential": "sequential",
         "foehn-server-overlapped": "foehn-server-overlapped", "foehn-server-grib": "foehn-server-overlapped"}
# Paths whose XML is not iodef.xml.
IODEF = {"foehn-server-grib": "iodef_grib.xml"}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=str(miniapp_runs.ROOT / "build"), help="build directory")
    p.add_argument("--out", default=str(miniapp_runs.HERE / "results"), help="where the results go")
    p.add_argument("--runs-dir", default=str(miniapp_runs.ROOT / "out/critical_path"), help="run directories")
    p.add_argument("--paths", default="grib-cdo,sequential,foehn-server-overlapped",
                   help="comma-separated, from: " + ", ".join(PATHS))
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--grid", type=int, default=96)
    p.add_argument("--levels", type=int, default=40)
    p.add_argument("--steps", type=int, default=63)
    p.add_argument("--work", type=int, default=1)
    p.add_argument("--nproma", type=int, default=16)
    p.add_argument("--model-ranks", type=int, default=1)
    p.add_argument("--servers", type=int, default=1)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--cdo", default="cdo", help="the CDO executable")
    p.add_argument("--name", default="critical_path")
    return p.parse_args()


def convert(cdo, workdir):
    """GRIB2 -> NetCDF-4 with CDO; returns seconds."""
    start = time.monotonic()
    proc = subprocess.run([cdo, "-s", "-f", "nc4", "copy", "miniapp_3h.grib2", "miniapp_3h_from_grib.nc"], cwd=workdir,
                          capture_output=True, text=True)
    seconds = time.monotonic() - start
    if proc.returncode != 0:
        raise RuntimeError(f"cdo failed in {workdir}: {proc.stderr}")
    return seconds


def main():
    a = parse_args()
    paths = [s.strip() for s in a.paths.split(",") if s.strip()]
    unknown = [s for s in paths if s not in PATHS]
    if unknown:
        raise SystemExit(f"unknown paths {unknown}; known: {list(PATHS)}")
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    build = pathlib.Path(a.build).resolve()
    cfg = {k: getattr(a, k) for k in ("grid", "levels", "steps", "work", "nproma", "model_ranks", "servers", "threads", "reps")}
    cfg["iodef"] = str(miniapp_runs.MINIAPP / "iodef.xml")
    cfg.update(cores=os.cpu_count(), load_before=os.getloadavg()[0], started=time.strftime("%Y-%m-%d %H:%M:%S"))
    runs = []
    for rep in range(a.reps):
        for path in paths:
            workdir = pathlib.Path(a.runs_dir) / path
            run_cfg = dict(cfg, iodef=str(miniapp_runs.MINIAPP / IODEF.get(path, "iodef.xml")))
            r = miniapp_runs.run(build, PATHS[path], run_cfg, workdir)
            r["path"], r["rep"] = path, rep
            r["convert_seconds"] = convert(a.cdo, workdir) if path == "grib-cdo" else 0.0
            if path in ("grib-cdo", "foehn-server-grib"):
                r["grib_bytes"] = (workdir / "miniapp_3h.grib2").stat().st_size
            r["total_seconds"] = r["wall_seconds"] + r["convert_seconds"]
            runs.append(r)
            print(f"rep {rep + 1}/{a.reps} {path:24s} run {r['wall_seconds']:6.2f} s  convert {r['convert_seconds']:5.2f} s"
                  f"  total {r['total_seconds']:6.2f} s", flush=True)
    cfg["load_after"] = os.getloadavg()[0]
    table = {}
    for path in paths:
        rs = [r for r in runs if r["path"] == path]
        table[path] = {k: statistics.median(r[k] for r in rs)
                       for k in ("wall_seconds", "model_seconds", "output_call_seconds", "convert_seconds", "total_seconds")}
        table[path]["total_range"] = [min(r["total_seconds"] for r in rs), max(r["total_seconds"] for r in rs)]
        if "grib_bytes" in rs[-1]:
            table[path]["grib_bytes"] = rs[-1]["grib_bytes"]
    best = min(t["total_seconds"] for t in table.values())
    lines = [f"Proxy model O{a.grid} L{a.levels}, {a.steps} steps, work {a.work}, {a.model_ranks} model rank(s)"
             f" (+ {a.servers} foehn-server rank(s) for foehn); {a.reps} interleaved repetitions, medians; "
             f"load average {cfg['load_before']:.1f} before, {cfg['load_after']:.1f} after.", "",
             "| path | model run (job wall) [s] | in output calls [s] | conversion to NetCDF [s] | total [s] (min-max) | vs fastest |",
             "|---|---|---|---|---|---|"]
    for path, t in table.items():
        lo, hi = t["total_range"]
        lines.append(f"| {path} | {t['wall_seconds']:.2f} | {t['output_call_seconds']:.2f} | {t['convert_seconds']:.2f} "
                     f"| {t['total_seconds']:.2f} ({lo:.2f}-{hi:.2f}) | {t['total_seconds'] / best:.2f} x |")
    lines += ["", "The thesis (IFS T1279, section 6.3): the GRIB path needed the model run plus a conversion job; "
              "with XIOS the NetCDF files exist when the model run ends. foehn-server-grib: the GRIB2 file "
              "and the NetCDF file both exist when the model run ends."]
    md = "\n".join(lines) + "\n"
    (out / f"{a.name}.json").write_text(json.dumps({"config": cfg, "paths": table, "runs": runs}, indent=2) + "\n")
    (out / f"{a.name}.md").write_text(md)
    print()
    print(md)
    print(f"results: {out / (a.name + '.json')}, {out / (a.name + '.md')}")


if __name__ == "__main__":
    main()
