"""An exception a Python model does not catch, anywhere between foehn.init
and foehn.finalize, on one rank or all of them, ends the MPI job within
seconds with a non-zero status and the traceback (issue 18, item 4); it used
to hang mpiexec in server mode."""
import subprocess
import sys
import time

import pytest

from conftest import BUILD, ROOT

MODEL = ROOT / "tests/python/raising_model.py"
XML = ROOT / "tests/mpi/data/misuse.xml"
BOUND_SECONDS = 30  # mpiexec's start and abort take a few seconds on a loaded machine


@pytest.fixture(autouse=True)
def python_path(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(BUILD / "python"))


def run_raising(tmp_path, mpmd, clients, servers, where, who):
    start = time.monotonic()
    try:
        run = mpmd(tmp_path, clients, servers, [sys.executable, MODEL, XML, where, who], timeout=3 * BOUND_SECONDS)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{where}/{who} with {clients}+{servers} ranks hung for {3 * BOUND_SECONDS} s")
    return run, time.monotonic() - start


CASES = [(where, who) for where in ("before_context", "in_context", "after_close") for who in ("one", "all")]


@pytest.mark.parametrize("where,who", CASES)
def test_exception_ends_the_job_with_its_traceback(tmp_path, mpmd, where, who):
    run, elapsed = run_raising(tmp_path, mpmd, 2, 1, where, who)
    assert run.returncode != 0
    assert elapsed < BOUND_SECONDS
    assert "Traceback (most recent call last)" in run.stderr
    # With every rank raising, the first to abort ends the others, perhaps
    # before they print: one traceback is certain, not which.
    assert f"RuntimeError: deliberate failure {where} on rank {'0' if who == 'one' else ''}" in run.stderr
    assert "foehn: uncaught RuntimeError" in run.stderr


@pytest.mark.parametrize("clients,servers", [(1, 0), (2, 0), (2, 2)])
def test_exception_in_context_attached_and_two_servers(tmp_path, mpmd, clients, servers):
    run, elapsed = run_raising(tmp_path, mpmd, clients, servers, "in_context", "one")
    assert run.returncode != 0
    assert elapsed < BOUND_SECONDS
    assert "RuntimeError: deliberate failure in_context on rank 0" in run.stderr


def test_uncaught_foehn_error_ends_the_job(tmp_path, mpmd):
    run, elapsed = run_raising(tmp_path, mpmd, 2, 1, "foehn_error", "one")
    assert run.returncode != 0
    assert elapsed < BOUND_SECONDS
    assert "foehn.Error" in run.stderr and "no_such_field" in run.stderr
