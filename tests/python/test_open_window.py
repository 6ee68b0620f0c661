"""A context that closes inside a window of a temporal reduction says so
(issue 18 item 10): the samples since the window began are in no record,
and a run continued from there starts a new window. A context that closes
at a window's end says nothing.

Run as a script under mpiexec, this file is itself the model
(`python test_open_window.py STEPS XML`)."""
import sys

import numpy as np

XML = """<simulation><context id="win">
  <calendar type="noleap" start_date="2000-01-01" timestep="1h"/>
  <domain_definition><domain id="dom" ni_glo="4" nj_glo="2"/></domain_definition>
  <field_definition prec="8"><field id="t" domain_ref="dom"/></field_definition>
  <file_definition type="one_file">
    <file id="mean4h" name="window" output_freq="4h">
      <field field_ref="t" name="t_mean" operation="average"/>
      <field field_ref="t" name="t_inst" operation="instant"/>
    </file>
  </file_definition>
</context></simulation>
"""


def model(steps, xml):
    import foehn
    comm = foehn.init("window", xml)
    rank, size = comm.Get_rank(), comm.Get_size()
    j0, j1 = rank * 2 // size, (rank + 1) * 2 // size
    with foehn.Context("win", comm) as ctx:
        ctx.set_domain_rectilinear("dom", 4, 2, 0, j0, np.arange(4.0), np.arange(j0, j1, dtype=np.float64))
        ctx.close_definition()
        for step in range(1, steps + 1):
            ctx.update_calendar(step)
            ctx.write("t", np.full((j1 - j0, 4), float(step)))
    foehn.finalize()


if __name__ == "__main__":
    model(int(sys.argv[1]), sys.argv[2])
    sys.exit(0)

import netCDF4  # noqa: E402
import pytest  # noqa: E402

pytestmark = pytest.mark.usefixtures("importable_package")  # conftest.py


@pytest.mark.parametrize("clients,servers", [(1, 0), (2, 0), (1, 1), (2, 2)])
def test_closing_inside_a_window_warns(tmp_path, mpmd, clients, servers):
    (tmp_path / "iodef.xml").write_text(XML)
    run = mpmd(tmp_path, clients, servers, [sys.executable, __file__, 6, "iodef.xml"], timeout=60)
    assert run.returncode == 0, run.stderr
    warnings = [line for line in run.stderr.splitlines() if "window that has not ended" in line]
    # One warning, from rank 0, for the average only (instant values have no window).
    assert len(warnings) == 1, run.stderr
    assert "field 't' (average) closes with 2 sample(s) since step 5" in warnings[0]
    with netCDF4.Dataset(tmp_path / "window.nc") as ds:  # the one complete window: mean of steps 1..4
        assert ds["t_mean"][:].shape[0] == 1
        np.testing.assert_array_equal(ds["t_mean"][0], np.full((2, 4), 2.5))


@pytest.mark.parametrize("clients,servers", [(1, 0), (1, 1)])
def test_closing_at_a_window_end_says_nothing(tmp_path, mpmd, clients, servers):
    (tmp_path / "iodef.xml").write_text(XML)
    run = mpmd(tmp_path, clients, servers, [sys.executable, __file__, 8, "iodef.xml"], timeout=60)
    assert run.returncode == 0, run.stderr
    assert "window that has not ended" not in run.stderr
    with netCDF4.Dataset(tmp_path / "window.nc") as ds:
        np.testing.assert_array_equal(ds["t_mean"][:, 0, 0], [2.5, 6.5])
