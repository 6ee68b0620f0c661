"""The output-heavy benchmark (issue 7 item 8): apps/miniapp/miniapp_heavy
on a 360 x 180 grid with 50 levels and 12 float64 fields written every 6
of 24 steps (4 records of 311 MB, 1.24 GB), against about 3 s of model work,
1 model rank (+ 1 foehn-server rank). Interleaved repetitions of:

  none           no output: the reference time
  foehn-server   foehn, server mode (MPMD beside foehn-server)
  netcdf-writer  the same program writing the same file itself with serial
                 netCDF-4 and no model work: a plain netCDF-4 process writing
                 the same bytes, the throughput the server is compared with
  netcdf-beside-model  that plain writer beside a computing model (`none`) in
                 one MPMD job: 1 + 1 processes, as the model and the server
                 share the machine in foehn-server
  foehn-average  (optional) foehn-server with every field averaged over each
                 output period (operation="average", computed on the model
                 rank: every step is added, each period's end sends the means)
  foehn-flush-each  (optional) foehn-server with each record flushed to the
                 file system (sync_seconds 0): what the default flush by the
                 clock (every 10 s) costs at most
  sequential     (optional) the model writing the file itself, with its work
  foehn-server-baseline  (with --baseline-build) foehn-server of another
                 build (main's, say), interleaved with this one's: server
                 CPU and write time before and after a change

and the targets: wall time <= 1.5 x no output, server write throughput >=
85 % of the plain writer's, server peak memory <= 600 MiB, model-rank memory
growth <= 1.2 x one record. Writes output_heavy.{json,md} into --out.

  .venv/bin/python bench/output_heavy.py                     # 5 repetitions
  .venv/bin/python bench/output_heavy.py --reps 9 --schemes none,foehn-server,netcdf-writer,sequential
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

import miniapp_runs

SCHEMES = ("none", "foehn-server", "foehn-average", "foehn-flush-each", "netcdf-writer", "netcdf-beside-model", "sequential",
           "foehn-server-baseline")
TARGETS = {"wall_ratio": 1.5, "throughput_ratio": 0.85, "server_rss_mib": 600, "model_growth_records": 1.2}
MIB = 1 << 20


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=str(miniapp_runs.ROOT / "build"), help="build directory")
    p.add_argument("--baseline-build", help="the build the scheme foehn-server-baseline runs")
    p.add_argument("--out", default=str(miniapp_runs.HERE / "results"), help="where the results go")
    p.add_argument("--runs-dir", default=str(miniapp_runs.ROOT / "out/output_heavy"),
                   help="run directories (the last of each scheme is kept)")
    p.add_argument("--schemes", default="none,foehn-server,netcdf-writer,netcdf-beside-model", help="comma-separated, from: " + ", ".join(SCHEMES))
    p.add_argument("--reps", type=int, default=5, help="repetitions of each scheme (interleaved)")
    p.add_argument("--ni", type=int, default=360)
    p.add_argument("--nj", type=int, default=180)
    p.add_argument("--levels", type=int, default=50)
    p.add_argument("--fields", type=int, default=12)
    p.add_argument("--steps", type=int, default=24)
    p.add_argument("--every", type=int, default=6, help="output every this many steps")
    p.add_argument("--work", type=int, default=3, help="advection sweeps per step (3: about 3 s per run here)")
    p.add_argument("--model-ranks", type=int, default=1)
    p.add_argument("--servers", type=int, default=1)
    p.add_argument("--iodef", default=str(miniapp_runs.MINIAPP / "iodef_heavy.xml"))
    p.add_argument("--sync-seconds", type=float, default=None,
                   help="the context variable sync_seconds (flush by the clock; 0: after every record); "
                        "default: foehn's (10 s)")
    p.add_argument("--name", default="output_heavy", help="base name of the result files")
    p.add_argument("--resummarise", metavar="JSON", help="only rebuild the table from a result file")
    return p.parse_args()


def iodef_for(cfg, workdir, sync_seconds=None, operation=None):
    """The iodef with this run's output period and fields (the file lists 12)."""
    text = pathlib.Path(cfg["iodef"]).read_text()
    if operation:
        text = re.sub(r'(<field_definition operation=)"\w+"', rf'\1"{operation}"', text)
    text = re.sub(r'output_freq="\d+ts"', f'output_freq="{cfg["every"]}ts"', text)
    keep = ("u", "v", "t", "d", "vo", "q", "cc", "o3", "crwc", "cswc", "clwc", "ciwc")[: cfg["fields"]]
    text = re.sub(r'\s*<field field_ref="(\w+)"/>', lambda m: m.group(0) if m.group(1) in keep else "", text)
    sync_seconds = cfg.get("sync_seconds") if sync_seconds is None else sync_seconds
    if sync_seconds is not None:
        text = text.replace("<variable_definition>", '<variable_definition><variable id="sync_seconds" '
                            f'type="double">{sync_seconds}</variable>', 1)
    path = workdir / "iodef_heavy.xml"
    path.write_text(text)
    return path


def run(build, scheme, cfg, workdir, timeout=900):
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    # Each run writes 1.24 GB: without a sync the previous runs' writeback
    # (2 GB dirty here after a few) competes with this run's writing.
    os.sync()
    model = [str(build / "apps/miniapp/miniapp_heavy"), "--ni", str(cfg["ni"]), "--nj", str(cfg["nj"]),
             "--levels", str(cfg["levels"]), "--fields", str(cfg["fields"]), "--steps", str(cfg["steps"]),
             "--every", str(cfg["every"]), "--summary", "summary.json"]
    work = 0 if scheme.startswith("netcdf-") else cfg["work"]
    foehn = scheme in ("foehn-server", "foehn-average", "foehn-flush-each", "foehn-server-baseline")
    model += ["--work", str(work), "--output", "none" if scheme == "none" else "foehn" if foehn else "netcdf"]
    if foehn:  # foehn-flush-each: the file flushed after every record (sync_seconds 0), the worst case of the clock
        model += ["--iodef", str(iodef_for(cfg, workdir, 0 if scheme == "foehn-flush-each" else None,
                                           "average" if scheme == "foehn-average" else None))]
    cmd = ["mpiexec", "--bind-to", "none", "-n", str(cfg["model_ranks"]), "-x", "OMP_NUM_THREADS=1", *model]
    if scheme == "netcdf-beside-model":
        # A computing model without output next to the plain writer (--alone:
        # separate programs); the summary is the writer's.
        computing = [a if a != "summary.json" else "model_summary.json" for a in model]
        computing[computing.index("--work") + 1] = str(cfg["work"])
        computing[computing.index("--output") + 1] = "none"
        cmd = ["mpiexec", "--bind-to", "none", "-x", "OMP_NUM_THREADS=1", "-n", "1", *computing, "--alone",
               ":", "-n", "1", *model, "--alone"]
    if foehn:
        cmd += [":", "-n", str(cfg["servers"]), sys.executable, str(miniapp_runs.HERE / "maxrss.py"),
                str(workdir / "server_rss.txt"), str(build / "apps/foehn-server/foehn-server")]
    env = dict(os.environ, **miniapp_runs.MPI_ENV)
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True, timeout=timeout)
    wall = time.monotonic() - start
    (workdir / "stdout.txt").write_text(proc.stdout)
    (workdir / "stderr.txt").write_text(proc.stderr)
    if proc.returncode != 0:
        raise RuntimeError(f"{scheme} failed ({proc.returncode}) in {workdir}:\n{proc.stdout}\n{proc.stderr[-3000:]}")
    s = json.loads((workdir / "summary.json").read_text())
    r = {"scheme": scheme, "wall_seconds": wall, "model_seconds": s["total_seconds"], "loop_seconds": s["loop_seconds"],
         "finish_seconds": s["finish_seconds"], "output_call_seconds": s["output_call_seconds_max"],
         "model_max_rss_bytes": s["model_max_rss_bytes"], "model_rss_growth_bytes": s["model_rss_growth_bytes"],
         "record_bytes": s["record_bytes"], "model_cpu_seconds": s.get("model_cpu_seconds_max"), "file_bytes": sum(p.stat().st_size for p in workdir.glob("*.nc"))}
    if "write_seconds" in s:
        r["bytes_written"] = s["bytes_written"]
        r["write_seconds"] = s["write_seconds"]
        r["throughput_bytes_per_second"] = s["bytes_written"] / s["write_seconds"]
    report = workdir / "foehn_report.json"
    if report.exists():
        rep = json.loads(report.read_text())
        r["client_wait_ratio"] = max(c["wait_ratio"] for c in rep["clients"])
        r["client_wait_seconds"] = max(c["wait_seconds"] for c in rep["clients"])
        r["client_close_seconds"] = max(c["close_seconds"] for c in rep["clients"])
        r["send_buffer_bytes"] = max(c["buffer_bytes"] for c in rep["clients"])
        servers = rep["servers"]
        r["bytes_written"] = sum(x["bytes_written"] for x in servers)
        r["server_busy_seconds"] = max(x["busy_seconds"] for x in servers)
        r["server_busy_ratio"] = max(x["busy_ratio"] for x in servers)
        r["server_cpu_seconds"] = max(x["cpu_seconds"] for x in servers)
        r["server_write_seconds"] = max(x.get("write_seconds", 0) for x in servers)
        # The server's write rate: bytes over its time inside netCDF's writes
        # (as the plain writer's), and what it drains per second of its
        # whole busy time (receiving, assembling and writing).
        r["throughput_bytes_per_second"] = r["bytes_written"] / max(r["server_write_seconds"], 1e-9) / len(servers)
        r["drain_bytes_per_second"] = r["bytes_written"] / max(r["server_busy_seconds"], 1e-9) / len(servers)
    rss = workdir / "server_rss.txt"
    if rss.exists():
        r["server_max_rss_bytes"] = int(rss.read_text())
    return r


def median_of(runs, key):
    values = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(values) if values else None


def summarise(runs, schemes):
    table = {}
    for s in schemes:
        rs = [r for r in runs if r["scheme"] == s]
        row = {"runs": len(rs)}
        for key in ("model_seconds", "model_cpu_seconds", "wall_seconds", "loop_seconds", "finish_seconds", "output_call_seconds",
                    "model_max_rss_bytes", "model_rss_growth_bytes", "record_bytes", "bytes_written", "write_seconds",
                    "throughput_bytes_per_second", "client_wait_ratio", "client_wait_seconds", "client_close_seconds",
                    "send_buffer_bytes", "server_busy_seconds", "server_busy_ratio", "server_cpu_seconds",
                    "server_max_rss_bytes", "server_write_seconds", "drain_bytes_per_second"):
            m = median_of(rs, key)
            if m is not None:
                row[key] = m
        if rs:
            row["model_seconds_range"] = [min(r["model_seconds"] for r in rs), max(r["model_seconds"] for r in rs)]
        table[s] = row
    checks = {}
    if "none" in table and "foehn-server" in table:
        f, n = table["foehn-server"], table["none"]
        checks["wall_ratio"] = f["model_seconds"] / n["model_seconds"]
        checks["job_wall_ratio"] = f["wall_seconds"] / n["wall_seconds"]
        checks["server_rss_mib"] = f.get("server_max_rss_bytes", 0) / MIB
        checks["model_growth_records"] = f["model_rss_growth_bytes"] / f["record_bytes"]
    if "none" in table and "foehn-average" in table:  # issue 19: average <= 1.25 x, growth <= 1.2 records
        f, n = table["foehn-average"], table["none"]
        checks["average_ratio"] = f["model_seconds"] / n["model_seconds"]
        checks["average_growth_records"] = f["model_rss_growth_bytes"] / f["record_bytes"]
        checks["average_rss_over_none_records"] = (f["model_max_rss_bytes"] - n["model_max_rss_bytes"]) / f["record_bytes"]
        if "foehn-server" in table:
            checks["average_over_instant"] = f["model_seconds"] / table["foehn-server"]["model_seconds"]
    if "foehn-server-baseline" in table and "foehn-server" in table:
        f, b = table["foehn-server"], table["foehn-server-baseline"]
        for key in ("server_cpu_seconds", "server_write_seconds", "server_busy_seconds", "model_seconds"):
            if key in f and key in b:
                checks[f"{key}_over_baseline"] = f[key] / b[key]
    if "foehn-flush-each" in table and "foehn-server" in table:
        checks["flush_each_ratio"] = table["foehn-flush-each"]["model_seconds"] / table["foehn-server"]["model_seconds"]
        checks["flush_each_job_ratio"] = table["foehn-flush-each"]["wall_seconds"] / table["foehn-server"]["wall_seconds"]
    # The server against the plain writer in the same conditions (beside a
    # computing model) when that was run, else against the writer alone.
    for plain_scheme, key in (("netcdf-writer", "alone"), ("netcdf-beside-model", "beside")):
        if plain_scheme in table and "foehn-server" in table:
            plain = table[plain_scheme]["throughput_bytes_per_second"]
            checks[f"throughput_ratio_{key}"] = table["foehn-server"]["throughput_bytes_per_second"] / plain
            checks[f"drain_ratio_{key}"] = table["foehn-server"]["drain_bytes_per_second"] / plain
            checks["throughput_ratio"] = checks[f"throughput_ratio_{key}"]
    met = {k: (checks[k] >= v if k == "throughput_ratio" else checks[k] <= v) for k, v in TARGETS.items() if k in checks}
    return table, checks, met


def markdown(cfg, table, checks, met):
    gb = 1e9
    lines = [
        f"miniapp_heavy {cfg['ni']} x {cfg['nj']} x {cfg['levels']}, {cfg['fields']} float64 fields, {cfg['steps']} steps, "
        f"output every {cfg['every']} ({cfg['record_gb']:.3f} GB per record), work {cfg['work']}; {cfg['model_ranks']} model "
        f"rank(s) + {cfg['servers']} foehn-server rank(s); {cfg['reps']} interleaved repetitions, medians; "
        f"{cfg['cores']} cores, load average {cfg['load_before']:.1f} before, {cfg['load_after']:.1f} after.",
        "",
        "| scheme | model time [s] (min-max) | model CPU [s] | job wall [s] | in output calls [s] | finish [s] | GB written "
        "| write rate [GB/s] | model RSS [MiB] | model growth [MiB] | server RSS [MiB] | server busy [s] | server writing [s] "
        "| server CPU [s] | client wait [s] |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s, r in table.items():
        lo, hi = r.get("model_seconds_range", [0, 0])
        val = lambda k, scale=1.0, fmt="{:.2f}": fmt.format(r[k] / scale) if k in r else "-"
        lines.append(f"| {s} | {r['model_seconds']:.2f} ({lo:.2f}-{hi:.2f}) | {val('model_cpu_seconds')} | {val('wall_seconds')} "
                     f"| {val('output_call_seconds')} | {val('finish_seconds')} | {val('bytes_written', gb, '{:.3f}')} "
                     f"| {val('throughput_bytes_per_second', gb)} | {val('model_max_rss_bytes', MIB, '{:.0f}')} "
                     f"| {val('model_rss_growth_bytes', MIB, '{:.0f}')} | {val('server_max_rss_bytes', MIB, '{:.0f}')} "
                     f"| {val('server_busy_seconds')} | {val('server_write_seconds')} | {val('server_cpu_seconds')} "
                     f"| {val('client_wait_seconds')} |")
    names = {"wall_ratio": ("model time, foehn server / no output", "<= {} x", "{:.2f} x"),
             "throughput_ratio": ("server write rate / plain netCDF-4 writer (beside a model if run)", ">= {:.0%}", "{:.0%}"),
             "server_rss_mib": ("server peak memory", "<= {} MiB", "{:.0f} MiB"),
             "model_growth_records": ("model-rank memory growth, in records", "<= {} x", "{:.2f} x")}
    lines += ["", "| target | measured | goal | met |", "|---|---|---|---|"]
    for k, (label, goal, fmt) in names.items():
        if k in checks:
            lines.append(f"| {label} | {fmt.format(checks[k])} | {goal.format(TARGETS[k])} | {'yes' if met[k] else 'no'} |")
    for key, label in (("alone", "alone"), ("beside", "beside a computing model")):
        if f"throughput_ratio_{key}" in checks:
            lines.append(f"| (server write rate / plain writer {label}) | {checks[f'throughput_ratio_{key}']:.0%} | | |")
            lines.append(f"| (server bytes per busy second / plain writer {label}) | {checks[f'drain_ratio_{key}']:.0%} | | |")
    if "job_wall_ratio" in checks:
        lines.append(f"| (job wall, foehn server / no output) | {checks['job_wall_ratio']:.2f} x | | |")
    if "average_ratio" in checks:
        lines.append(f"| (model time, averages / no output; issue 19: <= 1.25 x) | {checks['average_ratio']:.2f} x | | |")
        if "average_over_instant" in checks:
            lines.append(f"| (model time, averages / instant) | {checks['average_over_instant']:.2f} x | | |")
        lines.append(f"| (model-rank growth with averages, in records; issue 19: <= 1.2) "
                     f"| {checks['average_growth_records']:.2f} x | | |")
        lines.append(f"| (model peak RSS with averages - no output, in records) "
                     f"| {checks['average_rss_over_none_records']:.2f} x | | |")
    for key, label in (("server_cpu_seconds", "server CPU"), ("server_write_seconds", "server time writing"),
                       ("server_busy_seconds", "server busy"), ("model_seconds", "model time")):
        if f"{key}_over_baseline" in checks:
            lines.append(f"| ({label}, this build / baseline build) | {checks[f'{key}_over_baseline']:.3f} x | | |")
    if "flush_each_ratio" in checks:
        lines.append(f"| (model time, flushed after every record / foehn's default, sync_seconds 10) "
                     f"| {checks['flush_each_ratio']:.3f} x | | |")
        lines.append(f"| (job wall, the same) | {checks['flush_each_job_ratio']:.3f} x | | |")
    lines += ["", "XIOS3 (-O3) on this shape, this machine, 1 + 1 ranks (issue 7): 2.99 s -> 9.06 s (3.0 x), "
              "server 1.15 GiB peak, model rank 372 -> 1,057 MiB."]
    return "\n".join(lines) + "\n"


def main():
    a = parse_args()
    schemes = [s.strip() for s in a.schemes.split(",") if s.strip()]
    unknown = [s for s in schemes if s not in SCHEMES]
    if unknown:
        raise SystemExit(f"unknown schemes {unknown}; known: {list(SCHEMES)}")
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    build = pathlib.Path(a.build).resolve()
    if "foehn-server-baseline" in schemes and not a.baseline_build:
        raise SystemExit("the scheme foehn-server-baseline needs --baseline-build")
    baseline = pathlib.Path(a.baseline_build).resolve() if a.baseline_build else None
    cfg = {k: getattr(a, k) for k in ("ni", "nj", "levels", "fields", "steps", "every", "work", "model_ranks",
                                        "servers", "reps", "sync_seconds")}
    cfg["iodef"] = str(pathlib.Path(a.iodef).resolve())
    cfg["build"], cfg["baseline_build"] = str(build), a.baseline_build
    cfg["record_gb"] = a.ni * a.nj * a.levels * a.fields * 8 / 1e9
    cfg.update(cores=os.cpu_count(), load_before=os.getloadavg()[0], started=time.strftime("%Y-%m-%d %H:%M:%S"))
    runs = []
    if a.resummarise:
        saved = json.loads(pathlib.Path(a.resummarise).read_text())
        cfg, runs, schemes = saved["config"], saved["runs"], list(saved["schemes"])
    for rep in range(0 if a.resummarise else a.reps):
        for s in schemes:
            r = run(baseline if s == "foehn-server-baseline" else build, s, cfg, pathlib.Path(a.runs_dir) / s)
            r["rep"] = rep
            runs.append(r)
            print(f"rep {rep + 1}/{a.reps} {s:14s} model {r['model_seconds']:6.2f} s  wall {r['wall_seconds']:6.2f} s",
                  flush=True)
    cfg.setdefault("load_after", os.getloadavg()[0])
    table, checks, met = summarise(runs, schemes)
    (out / f"{a.name}.json").write_text(json.dumps({"config": cfg, "schemes": table, "checks": checks, "met": met,
                                                    "targets": TARGETS, "runs": runs}, indent=2) + "\n")
    md = markdown(cfg, table, checks, met)
    (out / f"{a.name}.md").write_text(md)
    print()
    print(md)
    print(f"results: {out / (a.name + '.json')}, {out / (a.name + '.md')}")


if __name__ == "__main__":
    main()
