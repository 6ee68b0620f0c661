"""A killed run keeps the records written before its last flush (issue 18
item 7): files without sync_freq are flushed by the wall clock (the context
variable sync_seconds), so after kill -9 of a server or a model rank the
files open, hold records, and those records are exact. The 1 MiB reserve a
killed run leaves beside a shared file is removed by the next run that
writes the file (docs/failures.md)."""
import os
import re
import signal
import subprocess
import time

import netCDF4
import numpy as np
import pytest

from conftest import BUILD, MPI_ENV, ROOT
from test_failure import pids_of

MODEL = BUILD / "apps/demo/demo_model"
SERVER = BUILD / "apps/foehn-server/foehn-server"
NI, NJ, NLEV = 72, 36, 2


def iodef_with(tmp_path, sync_seconds):
    text = (ROOT / "apps/demo/iodef.xml").read_text()
    variable = f'<variable id="sync_seconds" type="double">{sync_seconds}</variable>'
    text, n = re.subn(r"(<variable_definition>)", r"\1" + variable, text)
    assert n == 1
    (tmp_path / "iodef.xml").write_text(text)


def flushed_records(path):
    with netCDF4.Dataset(path) as ds:
        return len(ds.dimensions["time_counter"])


def run_and_kill(tmp_path, servers, victim, records_before_kill=3, every=False):
    """Runs the demo (endless), waits until the shared file holds flushed
    records, kills one process of `victim` (or all of them) with SIGKILL,
    and waits for the job to end."""
    cmd = ["mpiexec", "--oversubscribe", "-n", "2", str(MODEL), "iodef.xml", "100000000", str(NI), str(NJ), str(NLEV),
           "2"]
    if servers:
        cmd += [":", "-n", str(servers), str(SERVER)]
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=dict(os.environ, **MPI_ENV), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 60
        # Readable from outside while the run writes: the flushes make it so.
        while time.time() < deadline and proc.poll() is None:
            time.sleep(0.3)
            try:
                with netCDF4.Dataset(tmp_path / "demo_atm_3h.nc") as ds:
                    if len(ds.dimensions["time_counter"]) < records_before_kill:
                        continue
                # and each writer's own file has flushed a record (its own clock)
                parts = sorted(tmp_path.glob("demo_sfc_1h*.nc"))
                if parts and all(flushed_records(part) >= 1 for part in parts):
                    break
            except (OSError, KeyError):
                continue
        assert proc.poll() is None, proc.communicate()
        targets = pids_of(SERVER if victim == "server" else MODEL, tmp_path)
        assert targets, "no process to kill"
        for pid in targets if every else targets[-1:]:
            os.kill(pid, signal.SIGKILL)
        proc.communicate(timeout=30)
        return proc.returncode
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def check_records(path, at_least):
    """The file opens; its records are the demo's exact values at 3-hourly
    times."""
    with netCDF4.Dataset(path) as ds:
        times = ds["time_counter"][:]
        records = len(times)
        assert records >= at_least, f"{path.name}: {records} records"
        np.testing.assert_array_equal(times, 10800.0 * np.arange(1, records + 1))
        lat = np.radians(-90.0 + (np.arange(NJ) + 0.5) * 180.0 / NJ)
        lam = np.radians((np.arange(NI) + 0.5) * 360.0 / NI)
        ua = np.broadcast_to((20 * np.cos(lat)).astype(np.float32)[:, None], (NJ, NI))
        va = np.broadcast_to((5 * np.sin(2 * lam)).astype(np.float32)[None, :], (NJ, NI))
        for r in range(records):
            for k in range(NLEV):
                np.testing.assert_array_equal(ds["ua"][r, k], ua)
                np.testing.assert_array_equal(ds["va"][r, k], va)
    return records


@pytest.mark.parametrize("servers,victim", [(1, "server"), (2, "server"), (1, "client"), (0, "client")],
                         ids=["1+1-server-killed", "2+2-server-killed", "1+1-model-killed", "attached-model-killed"])
def test_killed_run_keeps_flushed_records(tmp_path, servers, victim):
    iodef_with(tmp_path, 0.2)
    code = run_and_kill(tmp_path, servers, victim)
    assert code != 0
    check_records(tmp_path / "demo_atm_3h.nc", at_least=3)
    # One file per writer: each opens with the records flushed before the kill.
    parts = sorted(tmp_path.glob("demo_sfc_1h*.nc"))
    assert parts
    for part in parts:
        with netCDF4.Dataset(part) as ds:
            assert len(ds.dimensions["time_counter"]) >= 1, part.name


@pytest.mark.parametrize("clients,servers", [(1, 1), (2, 2)], ids=["again-1+1", "again-2+2"])
def test_next_run_removes_a_killed_runs_reserve(tmp_path, clients, servers):
    # Killed with the shared file open, 2+2: its first writer's reserve
    # for the close stays. The next run creating the file removes it, also
    # with one writer, which keeps no reserve of its own.
    iodef_with(tmp_path, 0.2)
    assert run_and_kill(tmp_path, 2, "server", every=True) != 0
    reserve = tmp_path / ".demo_atm_3h.nc.foehn-reserve"
    assert reserve.exists(), sorted(p.name for p in tmp_path.iterdir())
    assert reserve.stat().st_size == 1 << 20
    cmd = ["mpiexec", "--oversubscribe", "-n", str(clients), str(MODEL), "iodef.xml", "54", str(NI), str(NJ),
           str(NLEV), "2", ":", "-n", str(servers), str(SERVER)]
    done = subprocess.run(cmd, cwd=tmp_path, env=dict(os.environ, **MPI_ENV), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not reserve.exists()
    assert not list(tmp_path.glob(".*foehn-reserve"))
    # A new file of this run's 54 steps: 3 records of 3 h, exact.
    assert check_records(tmp_path / "demo_atm_3h.nc", at_least=3) == 3


def test_append_after_a_kill_removes_the_reserve(tmp_path):
    # The same, continuing the killed run's file (append="true") with one
    # writer: its segment starts where the flushed records end.
    iodef_with(tmp_path, 0.2)
    assert run_and_kill(tmp_path, 2, "server", every=True) != 0
    reserve = tmp_path / ".demo_atm_3h.nc.foehn-reserve"
    assert reserve.exists()
    kept = flushed_records(tmp_path / "demo_atm_3h.nc")
    text = (tmp_path / "iodef.xml").read_text()
    text = text.replace('start_date="2000-01-01 00:00:00"',
                        f'start_date="2000-01-01 00:00:00" time_origin="2000-01-01 00:00:00"')
    text = re.sub(r'start_date="2000-01-01 00:00:00"', f'start_date="2000-01-01 {3 * kept:02d}:00:00"'
                  if 3 * kept < 24 else f'start_date="2000-01-{1 + 3 * kept // 24:02d} {3 * kept % 24:02d}:00:00"',
                  text, count=1)
    text = text.replace('name="demo_atm_3h"', 'name="demo_atm_3h" append="true"')
    (tmp_path / "iodef.xml").write_text(text)
    cmd = ["mpiexec", "--oversubscribe", "-n", "1", str(MODEL), "iodef.xml", "54", str(NI), str(NJ), str(NLEV), "2",
           ":", "-n", "1", str(SERVER)]
    done = subprocess.run(cmd, cwd=tmp_path, env=dict(os.environ, **MPI_ENV), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not reserve.exists()
    # The killed run's flushed records, then this segment's 3, on one time axis.
    assert check_records(tmp_path / "demo_atm_3h.nc", at_least=kept + 3) == kept + 3
