"""Definitions that scale (issue 18 item 14, issue 19 item 3): close of
definition with 20,000 fields in 20 files, each field with its metadata,
1 model rank + 1 foehn-server; the time of foehn_close_definition (model
rank 0, after a barrier), and the peak memory (VmHWM) of the model and the
server from foehn's report. Each size runs with the build under test and,
with --before, with another build (an older commit) in the same run,
interleaved, median of --reps. Targets: <= 2 s and <= 200 MB at 20,000.

  .venv/bin/python bench/definition_scale.py                      # 20,000 fields
  .venv/bin/python bench/definition_scale.py --fields 2000 5000 20000 --before /path/to/old/build --reps 1
  .venv/bin/python bench/definition_scale.py --fields 200 --ranks 1 2 4 8 --grid 720 360 --reps 1
  .venv/bin/python bench/definition_scale.py --fields 10 --files 1 --ranks 1 2 4 8 --grid 2000 1000 --nvertex 6
Writes definition_scale.{json,md} into --out."""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys

import miniapp_runs

HERE = pathlib.Path(__file__).resolve().parent
TARGET_SECONDS, TARGET_MB = 2.0, 200.0


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=str(miniapp_runs.ROOT / "build"))
    p.add_argument("--out", default=str(HERE / "results"))
    p.add_argument("--workdir", default=str(miniapp_runs.ROOT / "out/definition_scale"))
    p.add_argument("--fields", type=int, nargs="+", default=[20_000])
    p.add_argument("--before", help="a build of an older commit, run interleaved with --build")
    p.add_argument("--files", type=int, default=20)
    p.add_argument("--grid", type=int, nargs=2, default=(72, 36))
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--nvertex", type=int, default=0,
                   help="> 0: an unstructured domain of NI x NJ points with this many corners (else rectilinear)")
    p.add_argument("--ranks", type=int, nargs="+", default=[1], help="model ranks (issue 19 item 3: scaling with ranks)")
    return p.parse_args()


def write_xml(path, nfields, nfiles):
    fields = "".join(
        f'<field id="f{f}" domain_ref="dom" prec="4" long_name="diagnostic number {f} of the scaling test" '
        f'standard_name="air_temperature" unit="K" operation="{"average" if f % 2 else "instant"}"/>'
        for f in range(nfields))
    per_file = -(-nfields // nfiles)
    files = "".join(
        f'<file id="out{k}" name="scale_{k}" output_freq="1ts">'
        + "".join(f'<field field_ref="f{f}"/>' for f in range(k * per_file, min(nfields, (k + 1) * per_file)))
        + "</file>" for k in range(nfiles) if k * per_file < nfields)
    path.write_text(f"""<?xml version="1.0"?>
<simulation><context id="scale">
  <variable_definition><variable id="report_file" type="string">report.json</variable></variable_definition>
  <calendar type="gregorian" start_date="2000-01-01" timestep="1h"/>
  <domain_definition><domain id="dom"/></domain_definition>
  <field_definition>{fields}</field_definition>
  <file_definition>{files}</file_definition>
</context></simulation>""")


def run_once(build, work, nfields, nfiles, grid, ranks=1, nvertex=0):
    work.mkdir(parents=True, exist_ok=True)
    for f in work.glob("*.nc"):
        f.unlink()
    write_xml(work / "iodef.xml", nfields, nfiles)
    env = dict(os.environ, **miniapp_runs.MPI_ENV, PYTHONPATH=str(build / "python"))
    cmd = ["mpiexec", "-n", str(ranks), sys.executable, str(HERE / "definition_scale_model.py"), "iodef.xml", str(nfields),
           "2", str(grid[0]), str(grid[1]), str(nvertex), ":", "-n", "1", str(build / "apps/foehn-server/foehn-server")]
    proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        sys.exit(f"run failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
    times = json.loads(next(l for l in proc.stdout.splitlines() if l.startswith("{")))
    report = json.loads((work / "report.json").read_text())
    return {**times, "model_peak_mb": report["clients"][0]["peak_rss_bytes"] / 1e6,
            "server_peak_mb": report["servers"][0]["peak_rss_bytes"] / 1e6}


def main():
    a = parse_args()
    builds = {"after": pathlib.Path(a.build).resolve()}
    if a.before:
        builds = {"before": pathlib.Path(a.before).resolve(), **builds}
    work = pathlib.Path(a.workdir).resolve()
    load_before = os.getloadavg()[0]
    runs = {(n, r, b): [] for n in a.fields for r in a.ranks for b in builds}
    for _ in range(a.reps):  # interleaved: the machine's noise hits both builds alike
        for n in a.fields:
            for r in a.ranks:
                for b, build in builds.items():
                    runs[(n, r, b)].append(run_once(build, work / f"{b}_{n}_{r}", n, a.files, a.grid, r, a.nvertex)
                                           | {"load": os.getloadavg()[0]})
    med = {k: {m: statistics.median(r[m] for r in v) for m in v[0]} for k, v in runs.items()}
    top = med[(max(a.fields), min(a.ranks), "after")]
    result = {"fields": a.fields, "files": a.files, "grid": list(a.grid), "nvertex": a.nvertex, "reps": a.reps,
              "builds": {b: str(p) for b, p in builds.items()}, "load_before": load_before,
              "load_after": os.getloadavg()[0],
              "ranks": a.ranks, "median": {f"{b} {n} x{r}": m for (n, r, b), m in med.items()},
              "runs": {f"{b} {n} x{r}": v for (n, r, b), v in runs.items()},
              "met_seconds": top["close_definition_seconds"] <= TARGET_SECONDS,
              "met_memory": max(top["model_peak_mb"], top["server_peak_mb"]) <= TARGET_MB}
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "definition_scale.json").write_text(json.dumps(result, indent=1))
    domain = f"unstructured domain of {a.grid[0] * a.grid[1]:,} points, {a.nvertex} corners" if a.nvertex else \
        f"{a.grid[0]} x {a.grid[1]} domain"
    lines = [f"Fields (half averaged) in {a.files} files on a {domain}, {'/'.join(map(str, a.ranks))} model rank(s) + "
             f"1 foehn-server, median of {a.reps} interleaved runs; load average {load_before:.1f} before, "
             f"{result['load_after']:.1f} after (the load column: at the end of each run, median).", "",
             "| build | fields | model ranks | foehn_init [s] | close_definition [s] | 2 steps [s] | "
             "model rank 0 peak [MB] | server peak [MB] | load |", "|---|---|---|---|---|---|---|---|---|"]
    for n, r, b in runs:
        m = med[(n, r, b)]
        lines.append(f"| {b} | {n:,} | {r} | {m['init_seconds']:.2f} | {m['close_definition_seconds']:.2f} | "
                     f"{m['steps_seconds']:.2f} | {m['model_peak_mb']:.0f} | {m['server_peak_mb']:.0f} | "
                     f"{m['load']:.1f} |")
    lines += ["", f"targets at {max(a.fields):,} fields: close of definition <= {TARGET_SECONDS} s: "
              f"{'met' if result['met_seconds'] else 'NOT met'}; peak memory <= {TARGET_MB:.0f} MB: "
              f"{'met' if result['met_memory'] else 'NOT met'}"]
    (out / "definition_scale.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
