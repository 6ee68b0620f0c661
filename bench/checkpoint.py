"""Cost of an exact restart's checkpoint (issue 22) on the output-heavy sizes
(bench/output_heavy.py): a 360 x 180 grid with 50 levels and 12 float64
fields, here averaged over 6 steps, so that a checkpoint in the middle of
the window holds 12 accumulators of 25.9 MB (311 MB). Attached mode (the
accumulators are on the model ranks whatever the mode: client-side
placement), 1 and 2 model ranks.

Per repetition, interleaved, in one job:
  checkpoint  foehn_checkpoint after step 3 (the state file written in
              parallel, by global index)
  baseline    the same ranks writing their accumulators' bytes (numpy
              tofile, one file per rank, fsync-free like the checkpoint) to
              the same directory: one plain pass over the bytes
and the state file's size (apparent, and the blocks allocated: HDF5's
parallel layout leaves holes) against the accumulators' bytes. Writes
checkpoint.json into --out.

  .venv/bin/python bench/checkpoint.py              # 3 repetitions, 1 and 2 ranks
  .venv/bin/python bench/checkpoint.py --reps 5 --ranks 1,2,4

Run as a script under mpiexec with --model, it is the model.
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]

XML = """<simulation><context id="ckpt">
  <variable_definition><variable id="restart_dir" type="string">restart</variable></variable_definition>
  <calendar type="noleap" start_date="2000-01-01" timestep="1h"/>
  <domain_definition><domain id="dom"/></domain_definition>
  <axis_definition><axis id="lev"/></axis_definition>
  <grid_definition><grid id="g"><domain domain_ref="dom"/><axis axis_ref="lev"/></grid></grid_definition>
  <field_definition prec="8" grid_ref="g">FIELDS</field_definition>
  <file_definition><file id="f" name="heavy_avg" output_freq="6h">REFS</file></file_definition>
</context></simulation>
"""


def model(ni, nj, nlev, nfields, out_json):
    import foehn
    comm = foehn.init("ckpt", "iodef.xml")
    rank, size = comm.Get_rank(), comm.Get_size()
    j0, j1 = rank * nj // size, (rank + 1) * nj // size
    ctx = foehn.Context("ckpt", comm)
    ctx.set_domain_rectilinear("dom", ni, nj, 0, j0, np.arange(ni, dtype=np.float64), np.arange(j0, j1, dtype=np.float64))
    ctx.set_axis("lev", np.arange(1.0, nlev + 1))
    ctx.close_definition()
    data = np.random.default_rng(rank).random((nlev, j1 - j0, ni))
    for step in (1, 2, 3):
        ctx.update_calendar(step)
        for f in range(nfields):
            ctx.write(f"f{f}", data)
    comm.Barrier()
    t0 = time.perf_counter()
    ctx.checkpoint()
    comm.Barrier()
    checkpoint_s = time.perf_counter() - t0
    # The baseline: the same bytes, one plain pass, one file per rank.
    t0 = time.perf_counter()
    with open(f"plain_{rank}.bin", "wb") as out:
        for f in range(nfields):
            data.tofile(out)
    comm.Barrier()
    plain_s = time.perf_counter() - t0
    ctx.close()
    foehn.finalize()
    if rank == 0:
        state = next(pathlib.Path("restart").glob("*/ckpt.nc"))
        pathlib.Path(out_json).write_text(json.dumps({
            "checkpoint_seconds": checkpoint_s, "plain_write_seconds": plain_s,
            "state_bytes": state.stat().st_size, "state_allocated_bytes": state.stat().st_blocks * 512,
            "accumulator_bytes": ni * nj * nlev * nfields * 8}))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=str(ROOT / "build"))
    p.add_argument("--out", default=str(ROOT / "bench/results"))
    p.add_argument("--runs-dir", default="/tmp/foehn_bench_checkpoint")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--ranks", default="1,2")
    p.add_argument("--ni", type=int, default=360)
    p.add_argument("--nj", type=int, default=180)
    p.add_argument("--levels", type=int, default=50)
    p.add_argument("--fields", type=int, default=12)
    p.add_argument("--model", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--json", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.model:
        model(a.ni, a.nj, a.levels, a.fields, a.json)
        return
    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(a.build) / "python"), OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1",
               HDF5_USE_FILE_LOCKING="FALSE")
    fields = "".join(f'<field id="f{k}"/>' for k in range(a.fields))
    refs = "".join(f'<field field_ref="f{k}" operation="average"/>' for k in range(a.fields))
    results = {"configuration": vars(a), "load_average_1min_before": os.getloadavg()[0], "runs": []}
    for rep in range(a.reps):
        for ranks in [int(r) for r in a.ranks.split(",")]:
            work = pathlib.Path(a.runs_dir) / f"r{ranks}"
            subprocess.run(["rm", "-rf", str(work)], check=True)
            work.mkdir(parents=True)
            (work / "iodef.xml").write_text(XML.replace("FIELDS", fields).replace("REFS", refs))
            args = ["--ni", a.ni, "--nj", a.nj, "--levels", a.levels, "--fields", a.fields, "--json", "r.json"]
            cmd = ["mpiexec", "-n", str(ranks), sys.executable, __file__, "--model", *map(str, args)]
            run = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=600)
            if run.returncode != 0:
                sys.exit(run.stderr)
            r = json.loads((work / "r.json").read_text())
            r.update(ranks=ranks, rep=rep)
            results["runs"].append(r)
            print(json.dumps(r), flush=True)
    summary = {}
    for ranks in sorted({r["ranks"] for r in results["runs"]}):
        runs = [r for r in results["runs"] if r["ranks"] == ranks]
        ck = statistics.median(r["checkpoint_seconds"] for r in runs)
        plain = statistics.median(r["plain_write_seconds"] for r in runs)
        summary[ranks] = {"median_checkpoint_seconds": ck, "median_plain_write_seconds": plain,
                          "checkpoint_over_plain": ck / plain, "state_over_accumulators":
                          runs[0]["state_bytes"] / runs[0]["accumulator_bytes"],
                          "state_allocated_over_accumulators":
                          runs[0]["state_allocated_bytes"] / runs[0]["accumulator_bytes"],
                          "accumulator_bytes": runs[0]["accumulator_bytes"]}
    results["summary"] = summary
    results["load_average_1min_after"] = os.getloadavg()[0]
    pathlib.Path(a.out).mkdir(parents=True, exist_ok=True)
    (pathlib.Path(a.out) / "checkpoint.json").write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
