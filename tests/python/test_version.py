"""One version, CMake's project() line, reported alike by the foehn tool,
foehn-server, the C library (through the Python package) and the Fortran
module (issue 24 item 6)."""
import os
import re
import subprocess
import sys

from conftest import BUILD, MPI_ENV, ROOT


def project_version():
    text = (ROOT / "CMakeLists.txt").read_text()
    return re.search(r"^project\(foehn VERSION ([0-9.]+)", text, re.M).group(1)


def test_tools_say_the_project_version():
    version = project_version()
    tool = subprocess.run([BUILD / "apps/foehn/foehn", "--version"], capture_output=True, text=True, timeout=30)
    assert tool.returncode == 0 and tool.stdout.strip() == f"foehn {version}"
    server = subprocess.run([BUILD / "apps/foehn-server/foehn-server", "--version"], capture_output=True, text=True,
                            timeout=30)
    assert server.returncode == 0 and server.stdout.strip() == f"foehn-server {version}"


def test_python_package_says_the_project_version():
    # foehn imports mpi4py (MPI_Init): run it in its own process.
    env = dict(os.environ, **MPI_ENV, PYTHONPATH=str(BUILD / "python"))
    run = subprocess.run([sys.executable, "-c", "import foehn; print(foehn.version())"], env=env,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == project_version()
