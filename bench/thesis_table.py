"""The thesis table on this machine: the proxy model (apps/miniapp) with no
output, sequential output (MPI_Gatherv to rank 0, serial NetCDF), direct
parallel NetCDF, foehn attached, and foehn in server mode with the simple
and the overlapped integration; interleaved repetitions (A B C A B C ...),
medians, overhead vs no output and speedup vs sequential.

Writes thesis_table.json, thesis_table.md and thesis_table.png into --out
(default bench/results). bench/README.md explains each figure.

  .venv/bin/python bench/thesis_table.py                 # the default run (a few minutes here)
  .venv/bin/python bench/thesis_table.py --reps 7 --steps 153 --levels 60 --work 2
"""
import argparse
import json
import os
import pathlib
import platform
import statistics
import time

import miniapp_runs
from thesis_plots import bar_chart

# The thesis' figures (IFS T1279 L137, 702 x 6 cores, 10 days; section 6.3.2).
THESIS = {"none": 7356, "sequential": 9054, "foehn-server-overlapped": 7507}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=str(miniapp_runs.ROOT / "build"), help="build directory")
    p.add_argument("--out", default=str(miniapp_runs.HERE / "results"), help="where the results go")
    p.add_argument("--runs-dir", default=str(miniapp_runs.ROOT / "out/thesis_table"),
                   help="run directories, the last of each scheme kept (not in the repository: out/ is ignored)")
    p.add_argument("--schemes", default=",".join(miniapp_runs.THESIS_SCHEMES), help="comma-separated, from: "
                   + ", ".join(miniapp_runs.SCHEMES))
    p.add_argument("--reps", type=int, default=5, help="repetitions of each scheme (interleaved)")
    p.add_argument("--grid", type=int, default=96, help="octahedral grid O<N>")
    p.add_argument("--levels", type=int, default=40)
    # 63 steps: outputs at steps 18, 36 and 54, then 9 steps in which the last
    # record is written, as in a long run where the end is 1 record in 80.
    p.add_argument("--steps", type=int, default=63, help="600 s steps (63 = 10.5 simulated hours, 3 outputs)")
    p.add_argument("--work", type=int, default=1, help="dynamics sweeps and physics passes per step")
    p.add_argument("--nproma", type=int, default=16)
    p.add_argument("--model-ranks", type=int, default=1)
    p.add_argument("--servers", type=int, default=1, help="foehn-server ranks of the server schemes")
    p.add_argument("--threads", type=int, default=1, help="OpenMP threads per model rank")
    p.add_argument("--iodef", default=str(miniapp_runs.MINIAPP / "iodef.xml"))
    p.add_argument("--name", default="thesis_table", help="base name of the result files")
    p.add_argument("--resummarise", metavar="JSON", help="only rebuild the table and chart from a result file")
    return p.parse_args()


def spread(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "all": values}


def direct_cost(r):
    """What output cost the model directly: time inside the output calls and
    at closing, per second of the model's own work in the loop. The load of
    the machine stretches both alike, so this moves less than the totals."""
    return (r["output_call_seconds"] + r["finish_seconds"]) / max(r["loop_seconds"] - r["output_call_seconds"], 1e-9)


def summarise(runs, schemes):
    """Per scheme: medians and ranges, overhead vs none, speedup vs sequential."""
    for r in runs:
        r["direct_cost_ratio"] = direct_cost(r)
    out = {}
    for s in schemes:
        rs = [r for r in runs if r["scheme"] == s]
        row = {"runs": len(rs)}
        for key in ("model_seconds", "wall_seconds", "loop_seconds", "step_seconds", "output_call_seconds",
                    "finish_seconds", "direct_cost_ratio"):
            row[key] = spread([r[key] for r in rs])
        for key in ("model_max_rss_bytes", "model_cpu_seconds", "server_max_rss_bytes", "client_wait_ratio",
                    "server_busy_ratio", "bytes_written", "file_bytes"):
            values = [r[key] for r in rs if r.get(key) is not None]
            if values:
                row[key] = statistics.median(values)
        out[s] = row
    # Paired: each repetition's ratio to the same repetition's reference
    # (runs next to each other), then the median. The machine's drift over
    # minutes cancels in each ratio, which the ratio of medians keeps.
    by_rep = {(r["scheme"], r.get("rep", 0)): r for r in runs}
    for s, row in out.items():
        for ref, key in (("none", "overhead_vs_none_paired_percent"),
                         ("foehn-server", "vs_foehn_server_paired_percent")):
            ratios = [r["model_seconds"] / by_rep[(ref, r.get("rep", 0))]["model_seconds"] - 1.0
                      for r in runs if r["scheme"] == s and (ref, r.get("rep", 0)) in by_rep]
            if ref in out and s != ref and ratios:
                row[key] = spread([100.0 * x for x in ratios])
    for key in ("model_seconds", "wall_seconds", "loop_seconds"):
        for s, row in out.items():
            t = row[key]["median"]
            if "none" in out:
                row.setdefault("overhead_vs_none_percent", {})[key] = 100.0 * (t / out["none"][key]["median"] - 1.0)
            if "sequential" in out:
                row.setdefault("speedup_vs_sequential", {})[key] = out["sequential"][key]["median"] / t
    return out


def paired(p):
    """A paired overhead: median (min to max) of the per-repetition ratios."""
    return "-" if not p else f"{p['median']:+.1f} % ({p['min']:+.1f} to {p['max']:+.1f})"


def markdown(cfg, table):
    mib = 1 << 20
    lines = [
        f"Proxy model O{cfg['grid']} L{cfg['levels']}, {cfg['steps']} steps of 600 s, work {cfg['work']}, "
        f"{cfg['model_ranks']} model rank(s) x {cfg['threads']} thread(s)"
        f" (+ {cfg['servers']} foehn-server rank(s) in the server schemes), "
        f"{cfg['reps']} interleaved repetitions, medians; {cfg['cores']} cores, load average {cfg['load_before']:.1f} before.",
        "",
        "| scheme | model time [s] (min-max) | overhead vs none | paired overhead (min-max) | speedup vs sequential "
        "| time loop overhead "
        "| direct cost | job wall [s] | s/step | in output calls [s] | GB written | model RSS [MiB] | server RSS [MiB] "
        "| client wait | server busy |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s, r in table.items():
        t = r["model_seconds"]
        pct = lambda k: f"{100 * r[k]:.1f} %" if k in r else "-"
        mem = lambda k: f"{r[k] / mib:.0f}" if k in r else "-"
        lines.append(
            f"| {s} | {t['median']:.2f} ({t['min']:.2f}-{t['max']:.2f}) "
            f"| {r.get('overhead_vs_none_percent', {}).get('model_seconds', 0):+.1f} % "
            f"| {paired(r.get('overhead_vs_none_paired_percent'))} "
            f"| {r.get('speedup_vs_sequential', {}).get('model_seconds', float('nan')):.3f} "
            f"| {r.get('overhead_vs_none_percent', {}).get('loop_seconds', 0):+.1f} % "
            f"| {100 * r['direct_cost_ratio']['median']:.1f} % "
            f"| {r['wall_seconds']['median']:.2f} | {r['step_seconds']['median']:.4f} "
            f"| {r['output_call_seconds']['median']:.2f} | {r.get('bytes_written', 0) / 1e9:.3f} "
            f"| {mem('model_max_rss_bytes')} | {mem('server_max_rss_bytes')} | {pct('client_wait_ratio')} "
            f"| {pct('server_busy_ratio')} |")
    if "foehn-server-overlapped" in table and "vs_foehn_server_paired_percent" in table["foehn-server-overlapped"]:
        lines += ["", "foehn-server-overlapped against foehn-server, paired per repetition: "
                  + paired(table["foehn-server-overlapped"]["vs_foehn_server_paired_percent"]) + "."]
    lines += ["", "The thesis (IFS T1279 L137, 4212 cores, 10 days): no output 7356 s, sequential 9054 s "
              "(+23.1 %), XIOS overlapped 7507 s (+2.1 %, speedup 1.206 vs sequential)."]
    return "\n".join(lines) + "\n"


def main():
    a = parse_args()
    schemes = [s.strip() for s in a.schemes.split(",") if s.strip()]
    unknown = [s for s in schemes if s not in miniapp_runs.SCHEMES]
    if unknown:
        raise SystemExit(f"unknown schemes {unknown}; known: {list(miniapp_runs.SCHEMES)}")
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    runs_dir = pathlib.Path(a.runs_dir)
    build = pathlib.Path(a.build).resolve()
    cfg = {k: getattr(a, k) for k in ("grid", "levels", "steps", "work", "nproma", "model_ranks", "servers",
                                        "threads", "reps")}
    cfg["iodef"] = str(pathlib.Path(a.iodef).resolve())
    cfg.update(cores=os.cpu_count(), load_before=os.getloadavg()[0], host=platform.node(),
               started=time.strftime("%Y-%m-%d %H:%M:%S"))
    runs = []
    if a.resummarise:
        saved = json.loads(pathlib.Path(a.resummarise).read_text())
        cfg, runs, schemes = saved["config"], saved["runs"], list(saved["schemes"])
    for rep in range(0 if a.resummarise else a.reps):
        for s in schemes:
            r = miniapp_runs.run(build, s, cfg, runs_dir / s)
            r["rep"] = rep
            runs.append(r)
            print(f"rep {rep + 1}/{a.reps} {s:24s} model {r['model_seconds']:7.2f} s  wall {r['wall_seconds']:7.2f} s",
                  flush=True)
    cfg.setdefault("load_after", os.getloadavg()[0])
    if os.path.isabs(cfg["iodef"]):
        cfg["iodef"] = os.path.relpath(cfg["iodef"], miniapp_runs.ROOT)
    table = summarise(runs, schemes)
    (out / f"{a.name}.json").write_text(json.dumps({"config": cfg, "schemes": table, "runs": runs,
                                                    "thesis_seconds": THESIS}, indent=2) + "\n")
    md = markdown(cfg, table)
    (out / f"{a.name}.md").write_text(md)
    png = out / f"{a.name}.png"
    bar_chart(table, cfg, png)
    print()
    print(md)
    print(f"results: {out / (a.name + '.json')}, {out / (a.name + '.md')}, chart: {png}")


if __name__ == "__main__":
    main()
