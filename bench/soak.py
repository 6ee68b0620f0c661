"""The soak (issue 18 item 13): a long run of many small steps, with the
resident memory of the foehn-server rank and of the model rank sampled
every second. After a warm-up (HDF5's caches fill as the files grow) the
memory must stay flat: drift <= 1 MiB from the end of the warm-up to the end
of the run. The model rank, sampled the same way, is the baseline.

apps/demo/demo_model on an 8 x 4 grid with 1 level and no model work,
10-minute steps: a record every 6 steps in one file and every 18 in
another (with the default flush by the clock, every 10 s).

  .venv/bin/python bench/soak.py                 # 1,000,000 steps
  .venv/bin/python bench/soak.py --steps 50000   # a short look
  .venv/bin/python bench/soak.py --models 2 --servers 2   # files with two writers
Writes soak.{json,md} (soak_<models>x<servers>.* for other counts) into --out."""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

import miniapp_runs

MIB = 1 << 20
TARGET_DRIFT_MIB = 1.0


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=str(miniapp_runs.ROOT / "build"))
    p.add_argument("--out", default=str(miniapp_runs.HERE / "results"))
    p.add_argument("--workdir", default=str(miniapp_runs.ROOT / "out/soak"))
    p.add_argument("--steps", type=int, default=1_000_000)
    p.add_argument("--warmup", type=float, default=0.25, help="fraction of the run that is warm-up")
    p.add_argument("--models", type=int, default=1, help="model ranks")
    p.add_argument("--servers", type=int, default=1, help="foehn-server ranks (several: files with several writers)")
    return p.parse_args()


def rss_of(executable, cwd):
    """VmRSS (bytes) of the processes running `executable` in `cwd`."""
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv0 = (entry / "cmdline").read_bytes().split(b"\0")[0].decode()
            if argv0 != str(executable) or os.readlink(entry / "cwd") != str(cwd):
                continue
            for line in (entry / "status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    found.append(int(line.split()[1]) * 1024)
        except (OSError, ValueError):
            continue
    return found


def main():
    a = parse_args()
    build, work = pathlib.Path(a.build).resolve(), pathlib.Path(a.workdir)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    shutil.copy(miniapp_runs.ROOT / "apps/demo/iodef.xml", work / "iodef.xml")
    model, server = build / "apps/demo/demo_model", build / "apps/foehn-server/foehn-server"
    cmd = ["mpiexec", "--oversubscribe", "-n", str(a.models), str(model), "iodef.xml", str(a.steps), "8", "4", "1", "0",
           ":", "-n", str(a.servers), str(server)]
    load_before = os.getloadavg()[0]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=work, env=dict(os.environ, **miniapp_runs.MPI_ENV), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    samples = []  # (seconds, server bytes, model bytes)
    while proc.poll() is None:
        s, m = rss_of(server, work), rss_of(model, work)
        if s and m:
            samples.append((time.monotonic() - start, max(s), max(m)))  # the largest rank of each kind
        time.sleep(1.0)
    out, err = proc.communicate()
    wall = time.monotonic() - start
    if proc.returncode != 0:
        sys.exit(f"soak failed ({proc.returncode}):\n{out}\n{err[-3000:]}")
    if len(samples) < 8:
        sys.exit(f"soak: only {len(samples)} samples in {wall:.1f} s: run more steps")
    warm = next(i for i, s in enumerate(samples) if s[0] >= a.warmup * wall)
    result = {"steps": a.steps, "wall_seconds": wall, "steps_per_second": a.steps / wall, "samples": len(samples),
              "warmup_seconds": samples[warm][0], "load_before": load_before, "load_after": os.getloadavg()[0]}
    for k, name in ((1, "server"), (2, "model")):
        after = [s[k] for s in samples[warm:]]
        result[name] = {"start_mib": samples[0][k] / MIB, "after_warmup_mib": after[0] / MIB,
                        "end_mib": after[-1] / MIB, "max_mib": max(s[k] for s in samples) / MIB,
                        "drift_mib": (max(after) - after[0]) / MIB}
    result["met"] = result["server"]["drift_mib"] <= TARGET_DRIFT_MIB
    result["trace"] = [[round(t, 1), s, m] for t, s, m in samples]
    out_dir = pathlib.Path(a.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = "soak" if (a.models, a.servers) == (1, 1) else f"soak_{a.models}x{a.servers}"
    (out_dir / f"{stem}.json").write_text(json.dumps(result, indent=1))
    lines = [f"demo_model 8 x 4 x 1, {a.steps:,} steps in {wall:.0f} s ({a.steps / wall:,.0f} steps/s), {a.models} model + "
             f"{a.servers} foehn-server (the largest rank of each); warm-up the first {samples[warm][0]:.0f} s; load average {load_before:.1f} before, "
             f"{result['load_after']:.1f} after.", "",
             "| rank | start [MiB] | after warm-up [MiB] | end [MiB] | peak [MiB] | drift after warm-up [MiB] |",
             "|---|---|---|---|---|---|"]
    for name in ("server", "model"):
        r = result[name]
        lines.append(f"| {name} | {r['start_mib']:.1f} | {r['after_warmup_mib']:.1f} | {r['end_mib']:.1f} | "
                     f"{r['max_mib']:.1f} | {r['drift_mib']:.2f} |")
    lines += ["", f"target: server drift <= {TARGET_DRIFT_MIB} MiB: {'met' if result['met'] else 'NOT met'}"]
    (out_dir / f"{stem}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
