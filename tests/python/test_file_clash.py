"""Two contexts open at once that would write one file (issue 18 item 9):
refused at close of definition, with both <file> elements' lines, in
attached and server mode, whether the contexts are in one model (checked by
the model) or in two models sharing the servers (checked by the servers).
Nothing is written into the other context's file."""
import re
import sys

import netCDF4
import numpy as np
import pytest

from conftest import BUILD, ROOT, run_mpmd


def context(name, file_name):
    return f"""<context id="{name}">
  <calendar type="gregorian" start_date="2000-01-01" timestep="1h"/>
  <domain_definition><domain id="dom" type="rectilinear"/></domain_definition>
  <field_definition><field id="a" domain_ref="dom"/></field_definition>
  <file_definition>
    <file id="out" name="{file_name}" output_freq="1ts" sync_freq="1ts"><field field_ref="a"/></file>
  </file_definition>
</context>"""


CLASH = (r"file 'out' of context '(atm|ocn)' \(iodef\.xml:(\d+)\) writes '.*/same', as file 'out' of context "
         r"'(atm|ocn)' \(iodef\.xml:(\d+)\), open at the same time, does: give one of them another name")


def write_xml(tmp_path):
    # Line 1 the declaration, then the contexts: each <file> is on line 6 of its context.
    text = '<?xml version="1.0"?>\n<simulation>\n' + context("atm", "same") + "\n" + context("ocn", "same") + "\n</simulation>\n"
    (tmp_path / "iodef.xml").write_text(text)
    return [i + 1 for i, line in enumerate(text.splitlines()) if "<file " in line]


@pytest.mark.parametrize("clients,servers", [(1, 0), (2, 1), (2, 2)], ids=["attached", "1+1", "2+2"])
def test_two_contexts_of_one_model(tmp_path, clients, servers, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(BUILD / "python"))
    lines = write_xml(tmp_path)
    (tmp_path / "two.py").write_text(f"""
import sys
import numpy as np
import foehn
comm = foehn.init("model", "iodef.xml")
rank, size = comm.Get_rank(), comm.Get_size()
j0, j1 = rank * 8 // size, (rank + 1) * 8 // size
with foehn.Context("atm", comm) as atm, foehn.Context("ocn", comm) as ocn:
    for ctx in (atm, ocn):
        ctx.set_domain_rectilinear("dom", 16, 8, 0, j0, np.arange(16) * 22.5, -90.0 + (np.arange(j0, j1) + 0.5) * 22.5)
        ctx.close_definition()
foehn.finalize()
""")
    run = run_mpmd(tmp_path, clients, servers, [sys.executable, tmp_path / "two.py"], timeout=60)
    assert run.returncode != 0
    found = re.search(CLASH, run.stderr)
    assert found, run.stderr
    assert found.group(1, 3) == ("ocn", "atm")  # the second to close is refused
    assert [int(found.group(2)), int(found.group(4))] == lines[::-1]


def test_contexts_of_two_models_on_one_server_pool(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(BUILD / "python"))
    write_xml(tmp_path)
    model = [sys.executable, str(ROOT / "tests/python/clash_model.py"), "iodef.xml"]
    import os
    import subprocess
    from conftest import MPI_ENV
    # atm closes its definition first and writes its 2 records; ocn waits for them, then is refused.
    cmd = ["mpiexec", "--oversubscribe", "-n", "1", *model, "atmos", "atm", "first", ":", "-n", "1", *model, "ocean",
           "ocn", "second", ":", "-n", "1", str(BUILD / "apps/foehn-server/foehn-server")]
    run = subprocess.run(cmd, cwd=tmp_path, env=dict(os.environ, **MPI_ENV), capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    found = re.search(CLASH, run.stderr)
    assert found, run.stderr
    assert found.group(1, 3) == ("ocn", "atm")
    # The context that opened first wrote its own records into the file, and nothing else did: its 2
    # records, then at most the step it had begun, which it never wrote (fill values).
    with netCDF4.Dataset(tmp_path / "same.nc") as ds:
        records = len(ds.dimensions["time_counter"])
        assert records in (2, 3)
        for r in range(2):
            np.testing.assert_array_equal(ds["a"][r], np.full((8, 16), r + 1.0))
        if records == 3:
            assert np.ma.getmaskarray(ds["a"][2]).all()
