"""Remapping beside cdo, on the same files in one run (issue 20):

- weights: first-order conservative O96 -> 1 degree regular, `cdo gencon`
  against `foehn_remap_driver weights --renormalize` (cdo's fracarea), both
  reading the same unstructured CF grid files; wall time and peak resident
  memory of each process, and our CSR's bytes;
- apply: `cdo remap,GRID,WEIGHTS` against `foehn_remap_driver apply` with
  cdo's own weight file (the same weights), on --records records of a field;
  wall time of each process (reading, remapping, writing) and the results
  compared.

Runs are interleaved (cdo, foehn, cdo, foehn, ...) so that load hits both
alike; medians over --runs; the load average is recorded. Then runs
bench_transform_kernels (the kernels alone against the triad's bandwidth).

    python bench/remap.py [--build build] [--runs 5] [--records 100]
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import tempfile

import netCDF4
import numpy as np

HERE = pathlib.Path(__file__).resolve().parent


def timed(cmd):
    """Wall seconds and peak resident bytes of one process."""
    out = subprocess.run(["/usr/bin/time", "-f", "%e %M", *map(str, cmd)], capture_output=True, text=True,
                         errors="replace", check=False)
    if out.returncode != 0:
        raise SystemExit(f"{cmd[0]} failed: {out.stderr}")
    wall, rss = out.stderr.strip().splitlines()[-1].split()
    return float(wall), int(rss) * 1024, out.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=str(HERE.parent / "build"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--records", type=int, default=100)
    ap.add_argument("--out", default=str(HERE / "results" / "remap.json"))
    args = ap.parse_args()
    build = pathlib.Path(args.build)
    driver = build / "src" / "transform" / "remap" / "foehn_remap_driver"
    with tempfile.TemporaryDirectory(prefix="foehn-remap-bench-") as tmp:
        d = pathlib.Path(tmp)
        src, dst = d / "o96.nc", d / "r1.nc"
        subprocess.run([driver, "grid", "octahedral:96", src], check=True)
        subprocess.run([driver, "grid", "regular:360x180", dst], check=True)
        for path, records in ((src, args.records), (dst, 1)):
            with netCDF4.Dataset(path, "a") as nc:
                lon, lat = np.radians(nc["lon"][:]), np.radians(nc["lat"][:])
                nc.createDimension("time", None)
                f = nc.createVariable("f", "f8", ("time", "ncells"))
                f.coordinates = "lat lon"
                f[:] = np.array([np.cos(lat) ** 2 * np.cos(2 * lon + 0.1 * r) for r in range(records)])
        t = {k: [] for k in ("cdo_gencon", "foehn_weights", "cdo_remap", "foehn_apply")}
        rss = {k: [] for k in t}
        ours = {}
        for _ in range(args.runs):
            for key, cmd in (
                ("cdo_gencon", ["cdo", "-s", f"gencon,{dst}", src, d / "w_cdo.nc"]),
                ("foehn_weights", [driver, "weights", "--src", src, "--dst", dst, "--out", d / "w_foehn.nc",
                                   "--renormalize"]),
                ("cdo_remap", ["cdo", "-s", f"remap,{dst},{d / 'w_cdo.nc'}", src, d / "out_cdo.nc"]),
                ("foehn_apply", [driver, "apply", "--weights", d / "w_cdo.nc", "--in", src, "--out",
                                 d / "out_foehn.nc"]),
            ):
                wall, peak, stdout = timed(cmd)
                t[key].append(wall)
                rss[key].append(peak)
                if key.startswith("foehn"):
                    ours[key] = json.loads(stdout)
        with netCDF4.Dataset(d / "out_cdo.nc") as a, netCDF4.Dataset(d / "out_foehn.nc") as b:
            diff = float(np.max(np.abs(a["f"][:].reshape(-1) - b["f"][:].reshape(-1))))
    load = os.getloadavg()[0]
    med = {k: statistics.median(v) for k, v in t.items()}
    csr = ours["foehn_weights"]["csr_bytes"]
    result = {
        "benchmark": "remap", "load_average_1min": load, "runs": args.runs, "records": args.records,
        "grids": "O96 (40320 cells) -> regular 1 degree (64800 cells), unstructured CF files",
        "seconds": t, "median_seconds": med, "peak_rss_bytes": {k: max(v) for k, v in rss.items()},
        "foehn_weights": ours["foehn_weights"], "foehn_apply": ours["foehn_apply"],
        "gencon_speedup": med["cdo_gencon"] / med["foehn_weights"],
        "remap_speedup": med["cdo_remap"] / med["foehn_apply"],
        "foehn_weights_peak_rss_over_csr": max(rss["foehn_weights"]) / csr,
        "max_abs_difference_cdo_remap_vs_foehn_apply": diff,
    }
    kernels = HERE / "results" / "transform_kernels.json"
    subprocess.run([build / "bench" / "bench_transform_kernels", "--records", str(args.records), "--out", kernels],
                   check=True)
    result["kernels"] = json.loads(kernels.read_text())
    pathlib.Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(f"load average {load:.1f}; medians of {args.runs} interleaved runs")
    print(f"gencon O96 -> 1 deg: cdo {med['cdo_gencon']:.2f} s, foehn {med['foehn_weights']:.2f} s "
          f"({result['gencon_speedup']:.1f} x); peak RSS cdo {max(rss['cdo_gencon']) / 2**20:.0f} MiB, "
          f"foehn {max(rss['foehn_weights']) / 2**20:.0f} MiB; CSR {csr / 2**20:.1f} MiB")
    print(f"remap {args.records} records: cdo {med['cdo_remap']:.2f} s, foehn {med['foehn_apply']:.2f} s "
          f"({result['remap_speedup']:.1f} x); max |difference| {diff:.1e}")


if __name__ == "__main__":
    main()
