"""Cost of re-partitioning multiple_file parts (issue 22; docs/restart.md,
"Split and multiple_file files"; docs/grib.md, "Parts continued by another
number of writers") against the bytes copied.

Per format (netcdf4, grib2) and number of records R: a run of 2 attached
model ranks writes R hourly records of FIELDS float32 fields on a
360 x 180 grid of LEVELS levels (multiple_file: 2 parts) and checkpoints
at its end; a run of 1 rank resumes there and re-partitions the parts into
1 at close of definition. The time is the one the first writer reports
("re-partitioned from 2 to 1 parts (R records, B bytes written in S s)"),
from its start (finding the parts) to the old parts removed. Baseline, on
the same files: a plain copy of the old parts' bytes (shutil.copyfile).
Writes repartition.json into --out.

  .venv/bin/python bench/repartition.py                # R = 6, 24; 2 repetitions
  .venv/bin/python bench/repartition.py --records 6,24,48 --reps 3

Run as a script under mpiexec with --model, it is the model.
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

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]

XML = """<simulation><context id="rp">
  <variable_definition><variable id="restart_dir" type="string">restart</variable></variable_definition>
  <calendar type="noleap" start_date="START" time_origin="2000-01-01 00:00:00" timestep="1h"/>
  <domain_definition><domain id="dom"/></domain_definition>
  <axis_definition><axis id="lev" unit="1"/></axis_definition>
  <grid_definition><grid id="g"><domain domain_ref="dom"/><axis axis_ref="lev"/></grid></grid_definition>
  <field_definition prec="4" grid_ref="g">FIELDS</field_definition>
  <file_definition type="multiple_file"><file id="f" name="parts" output_freq="1h" FORMAT>REFS</file>
  </file_definition>
</context></simulation>
"""
GRIB_KEYS = ('<variable name="paramId" type="int">130</variable>'
             '<variable name="typeOfLevel" type="string">hybrid</variable>')
LINE = re.compile(r"re-partitioned from (\d+) to (\d+) parts \((\d+) records, (\d+) bytes written in ([0-9.e+-]+) s\)")


def model(ni, nj, nlev, nfields, steps, checkpoint):
    import foehn
    comm = foehn.init("rp", "iodef.xml")
    rank, size = comm.Get_rank(), comm.Get_size()
    j0, j1 = rank * nj // size, (rank + 1) * nj // size
    ctx = foehn.Context("rp", comm)
    ctx.set_domain_rectilinear("dom", ni, nj, 0, j0, np.linspace(0, 359, ni), np.linspace(-89.5, 89.5, nj)[j0:j1])
    ctx.set_axis("lev", np.arange(1.0, nlev + 1))
    ctx.close_definition()
    data = np.random.default_rng(rank).random((nlev, j1 - j0, ni)).astype(np.float32) * 300
    for step in range(1, steps + 1):
        ctx.update_calendar(step)
        for f in range(nfields):
            ctx.write(f"f{f}", data + step)
    if checkpoint:
        ctx.checkpoint()
    ctx.close()
    foehn.finalize()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=str(ROOT / "build"))
    p.add_argument("--out", default=str(ROOT / "bench/results"))
    p.add_argument("--runs-dir", default="/tmp/foehn_bench_repartition")
    p.add_argument("--reps", type=int, default=2)
    p.add_argument("--records", default="6,24")
    p.add_argument("--formats", default="netcdf4,grib2")
    p.add_argument("--ni", type=int, default=360)
    p.add_argument("--nj", type=int, default=180)
    p.add_argument("--levels", type=int, default=10)
    p.add_argument("--fields", type=int, default=2)
    p.add_argument("--model", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--steps", type=int, help=argparse.SUPPRESS)
    p.add_argument("--checkpoint", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.model:
        model(a.ni, a.nj, a.levels, a.fields, a.steps, a.checkpoint)
        return
    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(a.build) / "python"), OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1",
               HDF5_USE_FILE_LOCKING="FALSE")
    fields = "".join(f'<field id="f{k}"/>' for k in range(a.fields))
    results = {"configuration": vars(a), "load_average_1min_before": os.getloadavg()[0], "runs": []}
    shape = ["--ni", a.ni, "--nj", a.nj, "--levels", a.levels, "--fields", a.fields]

    def run(work, ranks, steps, checkpoint):
        cmd = ["mpiexec", "-n", str(ranks), sys.executable, __file__, "--model", *map(str, shape), "--steps", str(steps)]
        out = subprocess.run(cmd + (["--checkpoint"] if checkpoint else []), cwd=work, env=env, capture_output=True,
                             text=True, timeout=600)
        if out.returncode != 0:
            sys.exit(out.stderr)
        return out.stderr

    for rep in range(a.reps):
        for fmt in a.formats.split(","):
            for records in [int(r) for r in a.records.split(",")]:
                work = pathlib.Path(a.runs_dir) / f"{fmt}_{records}"
                shutil.rmtree(work, ignore_errors=True)
                work.mkdir(parents=True)
                ext = ".grib2" if fmt == "grib2" else ".nc"
                refs = "".join(f'<field field_ref="f{k}" operation="instant">{GRIB_KEYS if fmt == "grib2" else ""}'
                               "</field>" for k in range(a.fields))
                xml = XML.replace("FIELDS", fields).replace("REFS", refs).replace("FORMAT", f'format="{fmt}"')
                (work / "iodef.xml").write_text(xml.replace("START", "2000-01-01 00:00:00"))
                run(work, 2, records, True)
                old = sorted(work.glob(f"parts_*{ext}"))
                old_bytes = sum(f.stat().st_size for f in old)
                t0 = time.perf_counter()
                for f in old:
                    shutil.copyfile(f, f.with_name(f.name + ".copy"))
                copy_s = time.perf_counter() - t0
                for f in old:
                    f.with_name(f.name + ".copy").unlink()
                day, hour = divmod(records, 24)
                (work / "iodef.xml").write_text(xml.replace("START", f"2000-01-{1 + day:02d} {hour:02d}:00:00"))
                found = LINE.search(run(work, 1, 1, False))
                if not found:
                    sys.exit(f"{work}: no re-partition line")
                r = {"format": fmt, "records": records, "rep": rep, "old_part_bytes": old_bytes,
                     "new_part_bytes": int(found.group(4)), "repartition_seconds": float(found.group(5)),
                     "plain_copy_seconds": copy_s}
                results["runs"].append(r)
                print(json.dumps(r), flush=True)
    summary = []
    for fmt in a.formats.split(","):
        for records in [int(r) for r in a.records.split(",")]:
            runs = [r for r in results["runs"] if r["format"] == fmt and r["records"] == records]
            s = statistics.median(r["repartition_seconds"] for r in runs)
            c = statistics.median(r["plain_copy_seconds"] for r in runs)
            summary.append({"format": fmt, "records": records, "bytes": runs[0]["new_part_bytes"],
                            "median_repartition_seconds": s, "median_plain_copy_seconds": c,
                            "repartition_MB_per_s": runs[0]["new_part_bytes"] / s / 1e6,
                            "repartition_over_copy": s / c})
    results["summary"] = summary
    results["load_average_1min_after"] = os.getloadavg()[0]
    pathlib.Path(a.out).mkdir(parents=True, exist_ok=True)
    (pathlib.Path(a.out) / "repartition.json").write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
