"""Issue 19's xbench targets with the XIOS-API client bench/xbench.f90 (`use
xios`, a 360 x 180 grid, 50 levels, 12 float64 fields, 24 steps, output
every 6th step): interleaved repetitions of its three modes, 1 model rank +
1 foehn-server rank (none: the model alone, no foehn call):

  none      the reference time and memory
  instant   every field written instantly every 6 steps (4 records)
  average   every field averaged over each 6-step period (client placement)

The model's time is its time loop plus its context's finalize (where the
last records leave it); medians over the repetitions. Targets: instant <=
1.15 x none, average <= 1.25 x none, the model's peak memory with averages
<= none's + 1.2 x one output record, server peak <= 600 MiB. Writes
xbench.{json,md} into --out.

  .venv/bin/python bench/xbench.py --reps 5
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import time

from miniapp_runs import MPI_ENV

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
MODES = ("none", "instant", "average")
TARGETS = {"instant_ratio": 1.15, "average_ratio": 1.25, "average_growth_records": 1.2, "server_rss_mib": 600}
LINE = re.compile(r"xbench: mode=(\w+) (.*)")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=str(ROOT / "build"), help="build directory")
    p.add_argument("--out", default=str(HERE / "results"), help="where xbench.{json,md} go")
    p.add_argument("--runs-dir", default=str(ROOT / "out/xbench"), help="run directories (deleted after each run)")
    p.add_argument("--modes", default=",".join(MODES), help="comma-separated, from: " + ", ".join(MODES))
    p.add_argument("--reps", type=int, default=5, help="repetitions of each mode (interleaved)")
    p.add_argument("--work", type=int, default=3, help="advection sweeps per step")
    p.add_argument("--size", nargs=3, type=int, metavar=("NI", "NJ", "NLEV"), default=(360, 180, 50))
    p.add_argument("--timeout", type=int, default=900, help="seconds one run may take")
    p.add_argument("--max-buffer-mib", type=float, help="foehn's max_buffer_size in MiB (a copy of xbench.xml says so)")
    return p.parse_args()


def iodef(args, workdir):
    """xbench.xml, or a copy of it in workdir with foehn's max_buffer_size."""
    if args.max_buffer_mib is None:
        return HERE / "xbench.xml"
    text = (HERE / "xbench.xml").read_text()
    size = int(args.max_buffer_mib * (1 << 20))
    variables = f'<variable_definition><variable id="max_buffer_size" type="int">{size}</variable></variable_definition>'
    copy = workdir / "iodef.xml"
    copy.write_text(text.replace('<context id="xbench">', '<context id="xbench">' + variables, 1))
    return copy


def run(args, mode, workdir):
    """One run of one mode in a fresh directory: the client's line as a dict."""
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    build = pathlib.Path(args.build)
    client = [str(build / "bench/xbench"), mode, str(args.work), *map(str, args.size)]
    cmd = ["mpiexec", "--bind-to", "none", "-n", "1", *client]
    if mode != "none":
        cmd += [":", "-n", "1", sys.executable, str(HERE / "maxrss.py"), str(workdir / "server_rss.txt"),
                str(build / "apps/foehn-server/foehn-server")]
    env = dict(os.environ, **MPI_ENV, FOEHN_IODEF=str(iodef(args, workdir)))
    subprocess.run(["sync"], check=False)  # the previous run's files leave the page cache first
    start = time.monotonic()
    done = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True, timeout=args.timeout)
    wall = time.monotonic() - start
    match = LINE.search(done.stdout)
    if done.returncode != 0 or not match:
        sys.exit(f"xbench {mode} failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    result = {key: float(value) for key, value in (kv.split("=") for kv in match.group(2).split())}
    result.update(mode=mode, job_wall_s=wall, model_s=result["loop_s"] + result["finalize_s"], load=os.getloadavg()[0])
    rss = workdir / "server_rss.txt"
    result["server_peak_mib"] = int(rss.read_text()) / (1 << 20) if rss.exists() else 0.0
    shutil.rmtree(workdir, ignore_errors=True)
    return result


def summarise(runs, modes):
    med = {m: {k: statistics.median(r[k] for r in runs if r["mode"] == m)
               for k in ("model_s", "loop_s", "finalize_s", "peak_rss_mib", "server_peak_mib", "record_mib", "load")}
           for m in modes}
    checks = {}
    if "none" in med:
        for m in ("instant", "average"):
            if m in med:
                checks[f"{m}_ratio"] = med[m]["model_s"] / med["none"]["model_s"]
                checks[f"{m}_growth_records"] = (med[m]["peak_rss_mib"] - med["none"]["peak_rss_mib"]) / med[m]["record_mib"]
    servers = [med[m]["server_peak_mib"] for m in modes if m != "none"]
    if servers:
        checks["server_rss_mib"] = max(servers)
    return med, checks


def markdown(cfg, med, checks):
    lines = [f"xbench ({cfg['size'][0]} x {cfg['size'][1]} x {cfg['size'][2]}, 12 float64 fields, 24 steps, output every 6, "
             f"work {cfg['work']}, max_buffer_size {cfg['max_buffer_mib'] or 'default'} MiB), 1 model rank + 1 foehn-server, medians of {cfg['reps']} interleaved runs; "
             f"load average {cfg['load_before']:.1f} before, {cfg['load_after']:.1f} after; {cfg['started']}, build {cfg['build']}.",
             "", "| mode | model [s] | loop [s] | finalize [s] | model peak [MiB] | server peak [MiB] | load |",
             "|---|---|---|---|---|---|---|"]
    for m, v in med.items():
        lines.append(f"| {m} | {v['model_s']:.2f} | {v['loop_s']:.2f} | {v['finalize_s']:.2f} | {v['peak_rss_mib']:.0f} | "
                     f"{v['server_peak_mib']:.0f} | {v['load']:.1f} |")
    lines += ["", "| target | measured | wanted | met |", "|---|---|---|---|"]
    for key, value in checks.items():
        wanted = TARGETS.get(key)
        if wanted is None:
            lines.append(f"| {key} | {value:.2f} | (none) | |")
        else:
            lines.append(f"| {key} | {value:.2f} | <= {wanted} | {'yes' if value <= wanted else 'NOT met'} |")
    return "\n".join(lines) + "\n"


def main():
    args = parse_args()
    modes = [m for m in args.modes.split(",") if m]
    cfg = dict(size=list(args.size), work=args.work, max_buffer_mib=args.max_buffer_mib, reps=args.reps, build=args.build, load_before=os.getloadavg()[0],
               started=time.strftime("%Y-%m-%d %H:%M:%S"))
    runs = []
    for rep in range(args.reps):
        for mode in modes:
            r = run(args, mode, pathlib.Path(args.runs_dir) / mode)
            r["rep"] = rep
            runs.append(r)
            print(f"rep {rep} {mode}: model {r['model_s']:.2f} s, peak {r['peak_rss_mib']:.0f} MiB, "
                  f"server {r['server_peak_mib']:.0f} MiB, load {r['load']:.1f}", flush=True)
    cfg["load_after"] = os.getloadavg()[0]
    med, checks = summarise(runs, modes)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "xbench.json").write_text(json.dumps({"config": cfg, "runs": runs, "medians": med, "checks": checks}, indent=1))
    text = markdown(cfg, med, checks)
    (out / "xbench.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
