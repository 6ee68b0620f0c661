"""Cost of the servers' checkpoint (issue 22, temporal_placement=server) on
the output-heavy sizes (bench/output_heavy.py): a 360 x 180 grid with 50
levels and 12 float64 fields averaged over 6 steps on the servers, so a
checkpoint after step 3 finds 12 open windows of 25.9 MB (311 MB of
accumulators) on the servers. 1 model rank beside 1 and 2 foehn-server
ranks.

Per repetition, interleaved, one job each:
  state  the fields averaged on the servers: foehn_checkpoint after step 3
         makes the servers write their windows by global index
         (<context>.servers.nc) before they answer the sync
  sync   the same fields written as instants (no window on the servers):
         the same call is only the sync (the servers flush their files
         and answer) and the clients' small state
Each job calls foehn_checkpoint twice after step 3: the first also waits
for the servers to take in the step's samples still in flight (state:
311 MB sent at step 3; sync: none, instants are sent at output steps),
the second, nothing in flight, is the checkpoint's own cost.
and the model rank then writing the bytes the servers' windows hold
plainly (their values, 311 MB; numpy tofile, one file): one pass over
the bytes the state holds on this disk.
The servers' state size (apparent, and the blocks allocated) is set
against the accumulators' value bytes (8 per point), and the values and
per-point weights it holds are counted (a server adds a sample's pieces as
they come, so its windows keep a weight per point). Writes checkpoint_servers.json into
--out; the table in checkpoint_servers.md is made from it by hand.

  .venv/bin/python bench/checkpoint_servers.py               # 3 repetitions, 1 and 2 servers
  .venv/bin/python bench/checkpoint_servers.py --reps 5 --servers 1,2,4

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
  <variable_definition>
    <variable id="restart_dir" type="string">restart</variable>
    <variable id="temporal_placement" type="string">server</variable>
  </variable_definition>
  <calendar type="noleap" start_date="2000-01-01" timestep="1h"/>
  <domain_definition><domain id="dom"/></domain_definition>
  <axis_definition><axis id="lev"/></axis_definition>
  <grid_definition><grid id="g"><domain domain_ref="dom"/><axis axis_ref="lev"/></grid></grid_definition>
  <field_definition prec="8" grid_ref="g">FIELDS</field_definition>
  <file_definition><file id="f" name="heavy" output_freq="6h">REFS</file></file_definition>
</context></simulation>
"""


def model(ni, nj, nlev, nfields, out_json):
    import foehn
    comm = foehn.init("ckpt", "iodef.xml")
    ctx = foehn.Context("ckpt", comm)
    ctx.set_domain_rectilinear("dom", ni, nj, 0, 0, np.arange(ni, dtype=np.float64), np.arange(nj, dtype=np.float64))
    ctx.set_axis("lev", np.arange(1.0, nlev + 1))
    ctx.close_definition()
    data = np.random.default_rng(0).random((nlev, nj, ni))
    for step in (1, 2, 3):
        ctx.update_calendar(step)
        for f in range(nfields):
            ctx.write(f"f{f}", data)
    # The first call also waits for the servers to take in step 3's samples
    # (311 MB in flight); the second, at the same step, finds nothing in
    # flight: the state's own cost (or, instants, the bare sync).
    t0 = time.perf_counter()
    ctx.checkpoint()
    first_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    ctx.checkpoint()
    checkpoint_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    with open("plain.bin", "wb") as out:  # the windows' values (what the state holds without missing values)
        for f in range(nfields):
            data.tofile(out)
    plain_s = time.perf_counter() - t0
    ctx.close()
    foehn.finalize()
    servers = list(pathlib.Path("restart").glob("*/ckpt.servers.nc"))
    r = {"checkpoint_seconds": checkpoint_s, "first_checkpoint_seconds": first_s, "plain_write_seconds": plain_s,
         "accumulator_bytes": ni * nj * nlev * nfields * 8,
         "clients_state_bytes": next(pathlib.Path("restart").glob("*/ckpt.nc")).stat().st_size}
    if servers:
        import netCDF4
        r.update(state_bytes=servers[0].stat().st_size, state_allocated_bytes=servers[0].stat().st_blocks * 512)
        with netCDF4.Dataset(servers[0]) as ds:  # what the state holds: values, and weights if per point
            r["state_value_bytes"] = sum(v.size * 8 for n, v in ds.variables.items() if n.endswith("_value"))
            r["state_weight_bytes"] = sum(v.size * 8 for n, v in ds.variables.items() if n.endswith("_weight"))
    pathlib.Path(out_json).write_text(json.dumps(r))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=str(ROOT / "build"))
    p.add_argument("--out", default=str(ROOT / "bench/results"))
    p.add_argument("--runs-dir", default="/tmp/foehn_bench_checkpoint_servers")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--servers", default="1,2")
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
    server = pathlib.Path(a.build) / "apps/foehn-server/foehn-server"
    fields = "".join(f'<field id="f{k}"/>' for k in range(a.fields))
    results = {"configuration": vars(a), "load_average_1min_before": os.getloadavg()[0], "runs": []}
    for rep in range(a.reps):
        for servers in [int(s) for s in a.servers.split(",")]:
            for scheme, op in (("state", "average"), ("sync", "instant")):
                work = pathlib.Path(a.runs_dir) / f"{scheme}{servers}"
                subprocess.run(["rm", "-rf", str(work)], check=True)
                work.mkdir(parents=True)
                refs = "".join(f'<field field_ref="f{k}" operation="{op}"/>' for k in range(a.fields))
                (work / "iodef.xml").write_text(XML.replace("FIELDS", fields).replace("REFS", refs))
                args = ["--ni", a.ni, "--nj", a.nj, "--levels", a.levels, "--fields", a.fields, "--json", "r.json"]
                cmd = ["mpiexec", "-n", "1", sys.executable, __file__, "--model", *map(str, args),
                       ":", "-n", str(servers), str(server)]
                run = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=600)
                if run.returncode != 0:
                    sys.exit(run.stderr)
                r = json.loads((work / "r.json").read_text())
                r.update(scheme=scheme, servers=servers, rep=rep, load_average_1min=os.getloadavg()[0])
                results["runs"].append(r)
                print(json.dumps(r), flush=True)
    summary = {}
    for servers in sorted({r["servers"] for r in results["runs"]}):
        state = [r for r in results["runs"] if r["servers"] == servers and r["scheme"] == "state"]
        sync = [r for r in results["runs"] if r["servers"] == servers and r["scheme"] == "sync"]
        ck = statistics.median(r["checkpoint_seconds"] for r in state)
        bare = statistics.median(r["checkpoint_seconds"] for r in sync)
        plain = statistics.median(r["plain_write_seconds"] for r in state)
        first = statistics.median(r["first_checkpoint_seconds"] for r in state)
        first_bare = statistics.median(r["first_checkpoint_seconds"] for r in sync)
        summary[servers] = {"median_checkpoint_with_state_seconds": ck, "median_checkpoint_sync_only_seconds": bare,
                            "median_first_checkpoint_with_state_seconds": first,
                            "median_first_checkpoint_sync_only_seconds": first_bare,
                            "median_plain_write_seconds": plain, "state_cost_over_plain": (ck - bare) / plain,
                            "state_bytes": state[0]["state_bytes"], "accumulator_bytes": state[0]["accumulator_bytes"],
                            "state_value_bytes": state[0]["state_value_bytes"],
                            "state_weight_bytes": state[0]["state_weight_bytes"],
                            "state_over_accumulators": state[0]["state_bytes"] / state[0]["accumulator_bytes"],
                            "state_allocated_over_accumulators":
                            state[0]["state_allocated_bytes"] / state[0]["accumulator_bytes"]}
    results["summary"] = summary
    results["load_average_1min_after"] = os.getloadavg()[0]
    pathlib.Path(a.out).mkdir(parents=True, exist_ok=True)
    (pathlib.Path(a.out) / "checkpoint_servers.json").write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
