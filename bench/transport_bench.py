"""Transport benchmarks (issue 4), 1 model rank -> 1 foehn server whose
writer discards the data (bench_throughput):

- throughput: 16 MiB per step, foehn end to end against the MPI loopback
  bandwidth for 16 MiB messages measured in the same run (target >= 80 %),
  with progress inside the calls (default) and with progress_thread, each
  with the default buffers (a whole step) and with a 4 MiB ring;
- memory: the server's peak buffer memory (receive buffer and records being
  assembled, from foehn's JSON report) and peak RSS for 5, 20 and 80 steps
  (target: buffer memory <= 2 x the bytes of one output period, whatever
  the number of steps).

Repetitions are interleaved; medians go to --out/transport_throughput.json
and --out/transport_memory.json, and a table is printed.

  .venv/bin/python bench/transport_bench.py                  # defaults, a few minutes
  .venv/bin/python bench/transport_bench.py --reps 3 --steps 20
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
       "OMPI_MCA_rmaps_base_oversubscribe": "1", "OMPI_MCA_mpi_yield_when_idle": "1",
       "HDF5_USE_FILE_LOCKING": "FALSE"}


def xml_with(variables, workdir):
    text = (HERE / "throughput.xml").read_text()
    block = "".join(f'<variable id="{k}" type="{t}">{v}</variable>' for k, (t, v) in variables.items())
    text = text.replace("<domain_definition>", f"<variable_definition>{block}</variable_definition>\n    <domain_definition>", 1)
    path = pathlib.Path(workdir) / "iodef.xml"
    path.write_text(text)
    return path


def run(build, mib, steps, variables, thread_multiple=False):
    with tempfile.TemporaryDirectory() as work:
        xml = xml_with({**variables, "report_file": ("string", "report.json")}, work)
        cmd = ["mpiexec", "-n", "2", str(pathlib.Path(build) / "bench/bench_throughput"), str(xml),
               "--mib", str(mib), "--steps", str(steps), "--out", "run.json"]
        if thread_multiple:
            cmd.append("--thread-multiple")
        p = subprocess.run(cmd, cwd=work, env=dict(os.environ, **ENV), capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed:\n{p.stdout}\n{p.stderr}")
        result = json.loads((pathlib.Path(work) / "run.json").read_text())
        report = json.loads((pathlib.Path(work) / "report.json").read_text())
    result["server_peak_buffer_bytes"] = report["servers"][0]["peak_buffer_bytes"]
    result["client_wait_seconds"] = report["clients"][0]["wait_seconds"]
    result["client_credit_wait_seconds"] = report["clients"][0].get("credit_wait_seconds", 0)
    result["server_busy_seconds"] = report["servers"][0]["busy_seconds"]
    result["server_cpu_seconds"] = report["servers"][0]["cpu_seconds"]
    return result


def median_of(runs, key):
    return statistics.median(r[key] for r in runs)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=os.environ.get("FOEHN_BUILD_DIR", str(ROOT / "build")))
    p.add_argument("--out", default=str(HERE / "results"))
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--mib", type=float, default=16)
    p.add_argument("--steps", type=int, default=40, help="steps of the throughput runs")
    p.add_argument("--memory-steps", default="5,20,80")
    p.add_argument("--memory-mib", type=float, default=4)
    a = p.parse_args()
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    load = os.getloadavg()[0]

    # Default buffers hold a whole step (16 MiB, two of them): streaming with
    # no computation between steps, the client runs a step ahead and the
    # server reads what it wrote back from memory. A 4 MiB ring keeps the
    # client just ahead of the server, and the data in cache (bench/README.md).
    ring = {"max_buffer_size": ("int", 4 << 20)}
    modes = {"in-call progress": ({}, False),
             "progress thread": ({"progress_thread": ("bool", "true")}, True),
             "in-call, 4 MiB ring": (ring, False),
             "thread, 4 MiB ring": ({**ring, "progress_thread": ("bool", "true")}, True)}
    runs = {m: [] for m in modes}
    for _ in range(a.reps):
        for m, (variables, tm) in modes.items():
            runs[m].append(run(a.build, a.mib, a.steps, variables, tm))
    throughput = {"field_mib": a.mib, "steps": a.steps, "reps": a.reps, "load_average_1min": load, "target_ratio": 0.8,
                  "modes": {}}
    print(f"throughput, {a.mib:g} MiB per step x {a.steps} steps, medians of {a.reps} (load {load:.1f}):")
    print(f"  {'mode':20} {'foehn GB/s':>10} {'MPI GB/s':>9} {'ratio':>6} {'server busy s':>13} {'server cpu s':>12}")
    for m, rs in runs.items():
        med = {k: median_of(rs, k) for k in ("foehn_bytes_per_s", "mpi_loopback_bytes_per_s", "ratio",
                                             "server_busy_seconds", "server_cpu_seconds", "client_wait_seconds")}
        throughput["modes"][m] = {"median": med, "runs": rs}
        print(f"  {m:20} {med['foehn_bytes_per_s'] / 1e9:10.2f} {med['mpi_loopback_bytes_per_s'] / 1e9:9.2f} "
              f"{med['ratio']:6.2f} {med['server_busy_seconds']:13.3f} {med['server_cpu_seconds']:12.3f}")
    (out / "transport_throughput.json").write_text(json.dumps(throughput, indent=2) + "\n")

    memory = {"field_mib": a.memory_mib, "reps": a.reps, "load_average_1min": load, "target": "<= 2 x period bytes",
              "by_steps": {}}
    print(f"server memory, {a.memory_mib:g} MiB per output period (every step):")
    print(f"  {'steps':>5} {'buffer MiB':>10} {'x period':>8} {'peak RSS MiB':>12}")
    for steps in map(int, a.memory_steps.split(",")):
        rs = [run(a.build, a.memory_mib, steps, {}) for _ in range(max(1, a.reps // 2))]
        period = rs[0]["field_bytes"]
        buf = median_of(rs, "server_peak_buffer_bytes")
        rss = median_of(rs, "server_peak_rss_bytes")
        memory["by_steps"][steps] = {"period_bytes": period, "buffer_bytes": buf, "buffer_over_period": buf / period,
                                     "peak_rss_bytes": rss, "runs": rs}
        print(f"  {steps:5d} {buf / 2**20:10.2f} {buf / period:8.3f} {rss / 2**20:12.1f}")
    (out / "transport_memory.json").write_text(json.dumps(memory, indent=2) + "\n")


if __name__ == "__main__":
    main()
