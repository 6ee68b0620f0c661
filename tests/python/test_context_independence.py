"""Contexts sharing servers must not block each other (issue 18): a record
of one context whose data is still on its way must not hold back another
context's open, writes or close. lagging_context_model.py makes rank 1
define a second context before it writes the first context's step 1, which
rank 0 has already written: the servers must acknowledge the second
context's definition while the first one's record waits."""
import os
import signal
import subprocess
import sys

import netCDF4
import numpy as np
import pytest
from conftest import BUILD, MPI_ENV, ROOT

sys.path.insert(0, str(ROOT / "tests/python"))
from lagging_context_model import CONTEXTS, NI, NJ, a_values, b_values  # noqa: E402

pytestmark = pytest.mark.usefixtures("importable_package")

STEPS = 4
TIMEOUT = 90  # seconds; the deadlock this guards against never ends


def lagging_xml(tmp_path):
    def context(name):
        return f"""<context id="{name}">
  <calendar type="gregorian" start_date="2000-01-01" timestep="1h"/>
  <domain_definition><domain id="dom" type="rectilinear"/></domain_definition>
  <field_definition>
    <field id="a" domain_ref="dom" prec="4"/>
    <field id="b" domain_ref="dom" prec="8"/>
  </field_definition>
  <file_definition>
    <file id="out" name="{name}_out" output_freq="1ts" type="one_file"><field field_ref="a"/><field field_ref="b"/></file>
  </file_definition>
</context>"""
    path = tmp_path / "iodef.xml"
    path.write_text(f'<?xml version="1.0"?>\n<simulation>{context("atm")}{context("lnd")}</simulation>')
    return path


def run_bounded(workdir, clients, servers, timeout, args):
    """Like conftest.run_mpmd, but on a timeout the whole process group is
    killed (a hung job must not leave ranks spinning) and the test fails."""
    cmd = ["mpiexec", "--oversubscribe", "-n", str(clients), *map(str, args),
           ":", "-n", str(servers), str(BUILD / "apps/foehn-server/foehn-server")]
    proc = subprocess.Popen(cmd, cwd=workdir, env=dict(os.environ, **MPI_ENV), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"hung: no end within {timeout} s\n{out}\n{err}")
    return proc.returncode, out, err


def check_files(tmp_path):
    for name, c in CONTEXTS.items():
        with netCDF4.Dataset(tmp_path / f"{name}_out.nc") as ds:
            assert ds["a"].shape == (STEPS, NJ, NI), name
            for r in range(STEPS):
                np.testing.assert_array_equal(ds["a"][r], a_values(c, r + 1, 0, NJ), err_msg=f"{name} a {r}")
                np.testing.assert_array_equal(ds["b"][r], b_values(c, r + 1, 0, NJ), err_msg=f"{name} b {r}")


@pytest.mark.parametrize("servers", [1, 2, 3])
def test_lagging_context_blocks_only_itself(tmp_path, servers):
    code, out, err = run_bounded(tmp_path, 2, servers, TIMEOUT,
                                 [sys.executable, ROOT / "tests/python/lagging_context_model.py",
                                  lagging_xml(tmp_path), STEPS])
    assert code == 0, out + err
    assert "lagging_context_model: OK" in out
    check_files(tmp_path)
