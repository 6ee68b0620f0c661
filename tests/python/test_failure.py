"""A rank that dies must not leave the others hanging: every surviving rank
exits non-zero within 10 s, with a message that names the lost rank."""
import os
import pathlib
import re
import signal
import subprocess
import time

import pytest

from conftest import BUILD, MPI_ENV, ROOT

MODEL = BUILD / "apps/demo/demo_model"
SERVER = BUILD / "apps/foehn-server/foehn-server"


def pids_of(executable, cwd):
    """Processes running `executable` in directory `cwd` (so that parallel
    tests never touch each other's processes)."""
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv0 = (entry / "cmdline").read_bytes().split(b"\0")[0].decode()
            if argv0 == str(executable) and os.readlink(entry / "cwd") == str(cwd):
                found.append(int(entry.name))
        except OSError:
            continue
    return sorted(found)


def run_and_kill(tmp_path, victim):
    cmd = ["mpiexec", "--oversubscribe", "-n", "2", str(MODEL), str(ROOT / "apps/demo/iodef.xml"), "1000000", "72",
           "36", "2", ":", "-n", "1", str(SERVER)]
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=dict(os.environ, **MPI_ENV), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        # Wait until the run is writing (its first file exists), then kill.
        deadline = time.time() + 60
        while not list(tmp_path.glob("*.nc")) and time.time() < deadline:
            time.sleep(0.1)
        time.sleep(1.0)
        targets = pids_of(SERVER if victim == "server" else MODEL, tmp_path)
        assert targets, "no process to kill"
        os.kill(targets[-1], signal.SIGKILL)
        killed_at = time.time()
        out, err = proc.communicate(timeout=30)
        return proc.returncode, time.time() - killed_at, err, targets[-1]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


@pytest.mark.parametrize("victim", ["server", "client"])
def test_killed_rank_stops_everyone_with_a_message(tmp_path, victim):
    code, elapsed, err, pid = run_and_kill(tmp_path, victim)
    assert code != 0
    assert elapsed < 10, f"the run took {elapsed:.1f} s to stop"
    lost = r"foehn-server 0 \(world rank 2\)" if victim == "server" else r"model rank [01] of 'demo_atmosphere' \(world rank [01]\)"
    assert re.search(lost + rf" \(pid {pid}\): it died", err), err
