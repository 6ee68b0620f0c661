"""The miniapp's km-scale configuration against plain NetCDF of its native
grid (issue 25, docs/kmscale.md): the proxy model (O96 by default, 40
levels) writes t, u, v and sp, either only as NetCDF on its octahedral grid
(the baseline: the native file of apps/miniapp/iodef_kmscale.xml alone), or
also remapped to HEALPix level 6 (nearest) and written as a Zarr pyramid
of levels 6..0 (the whole iodef_kmscale.xml). Attached mode, 1 model rank,
so that the model's own time in foehn is the whole cost. Runs the two
interleaved, `--reps` times each, and prints the medians of the time per
output step (the model's step_output_seconds at steps that write) and of
all steps, the peak RSS, and the load average; writes
results/kmscale_miniapp.{json,md}.

  .venv/bin/python bench/kmscale_miniapp.py --reps 3 --steps 36

With --baseline-build DIR the pyramid also runs with the miniapp of another
build (e.g. main's, before a change), interleaved with the others.
"""
import argparse
import json
import os
import pathlib
import re
import statistics
import subprocess
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
BUILD = pathlib.Path(os.environ.get("FOEHN_BUILD_DIR", ROOT / "build"))
IODEF = ROOT / "apps/miniapp/iodef_kmscale.xml"


def iodef(way, workdir):
    text = IODEF.read_text()
    if way == "netcdf_native":
        text = re.sub(r'\s*<file id="healpix_3h".*?</file>', "", text, flags=re.S)
    text = text.replace('src="ifs_context.xml"', f'src="{IODEF.parent / "ifs_context.xml"}"')
    path = workdir / f"{way}.xml"
    path.write_text(text)
    return path


BASELINE = " (baseline build)"


def run(way, args, workdir):
    d = workdir / way.replace(BASELINE, "_baseline")
    d.mkdir(exist_ok=True)
    build = pathlib.Path(args.baseline_build) if way.endswith(BASELINE) else BUILD
    cmd = [str(build / "apps/miniapp/miniapp"), "--iodef", str(iodef(way.replace(BASELINE, ""), workdir)),
           "--output", "foehn",
           "--grid", str(args.grid), "--levels", str(args.levels), "--steps", str(args.steps),
           "--summary", "summary.json"]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               HDF5_USE_FILE_LOCKING="FALSE")
    subprocess.run(cmd, cwd=d, env=env, check=True, capture_output=True, timeout=3600)
    s = json.loads((d / "summary.json").read_text())
    every = 3 * 3600 // s["timestep_seconds"]
    writes = [t for k, t in enumerate(s["step_output_seconds"], start=1) if k % every == 0]
    return {"output_step_s": statistics.median(writes), "step_output_s": statistics.median(s["step_output_seconds"]),
            "step_s": statistics.median(s["step_seconds"]), "rss_mb": s["model_max_rss_bytes"] / 1e6,
            "load": os.getloadavg()[0]}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--grid", type=int, default=96)
    p.add_argument("--levels", type=int, default=40)
    p.add_argument("--steps", type=int, default=36)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--baseline-build", help="a second build whose miniapp also writes the pyramid")
    args = p.parse_args()
    ways = ["netcdf_native", "healpix_zarr_pyramid"]
    if args.baseline_build:
        ways.append("healpix_zarr_pyramid" + BASELINE)
    runs = {w: [] for w in ways}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.reps):
            for w in ways:
                runs[w].append(run(w, args, pathlib.Path(tmp)))
    table = {w: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for w, rs in runs.items()}
    base = table["netcdf_native"]
    lines = [f"# The miniapp's km-scale output (O{args.grid} L{args.levels}, {args.steps} steps, attached, "
             f"{args.reps} interleaved reps, medians)", "",
             "| output | s per output step | s in foehn per step | s per step | peak RSS MB | load |",
             "|---|---|---|---|---|---|"]
    for w in ways:
        t = table[w]
        lines.append(f"| {w} | {t['output_step_s']:.3f} ({t['output_step_s'] / base['output_step_s']:.2f}x) | "
                     f"{t['step_output_s']:.3f} | {t['step_s']:.3f} ({t['step_s'] / base['step_s']:.2f}x) | "
                     f"{t['rss_mb']:.0f} | {t['load']:.1f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    out = ROOT / "bench/results"
    (out / "kmscale_miniapp.json").write_text(json.dumps({"config": vars(args), "runs": runs, "table": table},
                                                         indent=1))
    (out / "kmscale_miniapp.md").write_text(text)


if __name__ == "__main__":
    main()
