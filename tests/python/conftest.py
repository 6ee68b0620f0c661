"""Shared helpers for the Python tests: where the build is, and how to run
an MPMD job (model ranks + foehn-server ranks) in a fresh directory."""
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("FOEHN_BUILD_DIR", ROOT / "build"))

MPI_ENV = {
    "OMPI_ALLOW_RUN_AS_ROOT": "1",
    "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
    "OMPI_MCA_rmaps_base_oversubscribe": "1",
    "OMPI_MCA_mpi_yield_when_idle": "1",
    "HDF5_USE_FILE_LOCKING": "FALSE",
}


def run_mpmd(workdir, clients, servers, program_args, timeout=120):
    """Runs `clients` ranks of program_args beside `servers` foehn-server ranks
    in workdir; returns the CompletedProcess (stdout and stderr as text)."""
    cmd = ["mpiexec", "--oversubscribe", "-n", str(clients), *map(str, program_args)]
    if servers:
        cmd += [":", "-n", str(servers), str(BUILD / "apps/foehn-server/foehn-server")]
    env = dict(os.environ, **MPI_ENV)
    return subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def mpmd():
    return run_mpmd


@pytest.fixture
def importable_package(monkeypatch):
    """Model processes started by a test import foehn from the build tree
    (a module uses it with pytestmark = pytest.mark.usefixtures(...))."""
    assert (BUILD / "python/foehn/__init__.py").exists(), "build with -DFOEHN_PYTHON=ON"
    monkeypatch.setenv("PYTHONPATH", str(BUILD / "python"))
