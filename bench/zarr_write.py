"""Zarr write speed against deflated NetCDF (issue 25, item 4): the
km-scale pyramid of bench/kmscale.py (level 8, 2 model ranks, 1 server)
written as a Zarr store and as NetCDF with deflate level 1, runs
interleaved, by one or more builds (before and after a change); the
server's write seconds, MB/s of data and MB on disk. Writes
results/zarr_write.{json,md}.

  .venv/bin/python bench/zarr_write.py --build before=/path/to/old/build --build after=build
"""
import argparse
import json
import os
import pathlib
import statistics
import tempfile

import kmscale

ROOT = pathlib.Path(__file__).resolve().parents[1]


def disk_mb(workdir):
    return sum(p.stat().st_size for p in workdir.rglob("*") if p.is_file() and p.name.startswith("out")
               or "out.zarr" in p.parts) / 1e6


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", action="append", required=True, help="NAME=BUILD_DIR")
    p.add_argument("--level", type=int, default=8)
    p.add_argument("--steps", type=int, default=6)
    p.add_argument("--repeats", type=int, default=2)
    a = p.parse_args()
    builds = dict(b.split("=", 1) for b in a.build)
    runs = {}
    for _ in range(a.repeats):
        for name, build in builds.items():
            kmscale.BUILD = pathlib.Path(build).resolve()
            for way in ("zarr_pyramid", "netcdf_pyramid_deflate1"):
                with tempfile.TemporaryDirectory(prefix=f"zarr_write_{way}_") as d:
                    r = kmscale.run(way, a.level, a.steps, pathlib.Path(d))
                    r["disk_mb"] = disk_mb(pathlib.Path(d))
                runs.setdefault((name, way), []).append(r)
    rows = []
    for (name, way), rs in runs.items():
        rows.append({"build": name, "way": way,
                     "server_write_seconds": statistics.median(r["server_write_seconds"] for r in rs),
                     "write_mb_per_s": statistics.median(r["write_mb_per_s"] for r in rs),
                     "data_mb": rs[0]["server_bytes_written"] / 1e6,
                     "disk_mb": statistics.median(r["disk_mb"] for r in rs), "runs": rs})
    out = {"level": a.level, "steps": a.steps, "repeats": a.repeats, "builds": builds,
           "load_average_1min": os.getloadavg()[0], "rows": rows}
    results = ROOT / "bench/results"
    (results / "zarr_write.json").write_text(json.dumps(out, indent=2) + "\n")
    lines = [f"# Zarr write vs deflated NetCDF, HEALPix level {a.level} pyramid, {a.steps} steps, "
             f"medians of {a.repeats} interleaved runs (load {out['load_average_1min']:.1f})", "",
             "| build | way | server write s | MB/s (data) | data MB | disk MB |", "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['build']} | {r['way']} | {r['server_write_seconds']:.3f} | {r['write_mb_per_s']:.1f} | "
                     f"{r['data_mb']:.1f} | {r['disk_mb']:.1f} |")
    (results / "zarr_write.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
