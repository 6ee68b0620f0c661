"""Running the proxy model (apps/miniapp) with one output scheme and
collecting what the thesis table needs: the model's own timings, the wall
time of the whole job, bytes written, peak memory of model and server
ranks, and foehn's report. Used by thesis_table.py and scripts/demo.sh."""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
MINIAPP = ROOT / "apps/miniapp"

MPI_ENV = {
    "OMPI_ALLOW_RUN_AS_ROOT": "1",
    "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
    "OMPI_MCA_rmaps_base_oversubscribe": "1",
    "OMPI_MCA_mpi_yield_when_idle": "1",
    "HDF5_USE_FILE_LOCKING": "FALSE",
}

# scheme -> (miniapp --output, --integration, uses foehn-server ranks)
SCHEMES = {
    "none": ("none", "simple", False),
    "sequential": ("sequential", "simple", False),
    "parallel": ("parallel", "simple", False),
    "foehn-attached": ("foehn", "simple", False),
    "foehn-server": ("foehn", "simple", True),
    "foehn-server-overlapped": ("foehn", "overlapped", True),
    # bench/critical_path.py: sequential GRIB2 output, then CDO converts it to NetCDF
    "grib": ("grib", "simple", False),
}
# What bench/thesis_table.py runs by default.
THESIS_SCHEMES = ("none", "sequential", "parallel", "foehn-attached", "foehn-server", "foehn-server-overlapped")


def command(build, scheme, cfg, workdir):
    """The mpiexec line of one run (MPMD when the scheme has servers)."""
    output, integration, servers = SCHEMES[scheme]
    model = [str(build / "apps/miniapp/miniapp"), "--output", output, "--integration", integration,
             "--iodef", str(cfg["iodef"]), "--grid", str(cfg["grid"]), "--levels", str(cfg["levels"]),
             "--steps", str(cfg["steps"]), "--work", str(cfg["work"]), "--nproma", str(cfg["nproma"]),
             "--summary", "summary.json"]
    cmd = ["mpiexec", "--bind-to", "none", "-n", str(cfg["model_ranks"]), "-x", f"OMP_NUM_THREADS={cfg['threads']}", *model]
    if servers:
        cmd += [":", "-n", str(cfg["servers"]), sys.executable, str(HERE / "maxrss.py"),
                str(workdir / "server_rss.txt"), str(build / "apps/foehn-server/foehn-server")]
    return cmd


def run(build, scheme, cfg, workdir, timeout=1800):
    """Runs one scheme in a fresh workdir; returns a dict of measurements."""
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    env = dict(os.environ, **MPI_ENV)
    # The previous run's files may still be on their way to the disk: the
    # kernel's writeback would run during this run's time loop.
    os.sync()
    start = time.monotonic()
    proc = subprocess.run(command(build, scheme, cfg, workdir), cwd=workdir, env=env, capture_output=True,
                          text=True, timeout=timeout)
    wall = time.monotonic() - start
    (workdir / "stdout.txt").write_text(proc.stdout)
    (workdir / "stderr.txt").write_text(proc.stderr)
    if proc.returncode != 0:
        raise RuntimeError(f"{scheme} failed ({proc.returncode}) in {workdir}:\n{proc.stdout}\n{proc.stderr[-3000:]}")
    summary = json.loads((workdir / "summary.json").read_text())
    result = {
        "scheme": scheme,
        "wall_seconds": wall,
        "model_seconds": summary["total_seconds"],
        "loop_seconds": summary["loop_seconds"],
        "step_seconds": summary["step_seconds_mean"],
        "output_call_seconds": summary["output_call_seconds_max"],
        "finish_seconds": summary["finish_seconds"],
        "model_max_rss_bytes": summary["model_max_rss_bytes"],
        "model_cpu_seconds": summary.get("model_cpu_seconds_max"),
        "file_bytes": sum(p.stat().st_size for p in workdir.glob("*.nc")),
        "bytes_written": summary.get("bytes_written"),
    }
    report = workdir / "foehn_report.json"
    if report.exists():
        r = json.loads(report.read_text())
        result["client_wait_ratio"] = max(c["wait_ratio"] for c in r["clients"])
        if r["servers"]:
            result["server_busy_ratio"] = max(s["busy_ratio"] for s in r["servers"])
            result["bytes_written"] = sum(s["bytes_written"] for s in r["servers"])
    if result["bytes_written"] is None:  # foehn attached reports no byte count: the files' size is close
        result["bytes_written"] = result["file_bytes"]
    rss = workdir / "server_rss.txt"
    if rss.exists():
        result["server_max_rss_bytes"] = int(rss.read_text())
    return result
